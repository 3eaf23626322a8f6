/** The transport of a rerank attempt: only a node's text-embedding sidecar can serve one. */
import { describe, expect, it } from '@jest/globals';
import { UpstreamError } from '../../../../lib/core/errors';
import { sendRerank } from '../../../../lib/features/rerank/send-rerank';
import { rankerNode, rerankAttempt } from './attempts';

describe('sendRerank', () => {
  it('fails the attempt as a fleet fault when the node has no text-embedding sidecar', async () => {
    const send = sendRerank({ query: 'q', documents: ['a'] }, ['a']);

    const attempt = send(rerankAttempt(rankerNode(false)), new AbortController().signal);

    await expect(attempt).rejects.toBeInstanceOf(UpstreamError);
    await expect(attempt).rejects.toThrow('ranker has no text-embedding sidecar serving ms-marco-minilm-l-6-v2');
  });
});
