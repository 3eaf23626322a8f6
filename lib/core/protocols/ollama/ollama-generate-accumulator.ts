/**
 * A node's `/api/generate` stream → the one object a `stream: false` client gets (protocols §2.4): the
 * final line's fields (metrics, `context`) with `response` and `thinking` concatenated and the lines'
 * `logprobs` joined. Pure.
 */
import { UpstreamError } from '../../errors';
import { merged } from '../../merged';
import type { OllamaGenerateChunk } from '../../wire/ollama';

export interface OllamaGenerateAccumulator {
  push(chunk: OllamaGenerateChunk): void;
  /** The whole reply; throws `UpstreamError` when the stream ended before its `done: true` line. */
  end(): OllamaGenerateChunk;
}

export function createOllamaGenerateAccumulator(): OllamaGenerateAccumulator {
  let response = '';
  let thinking = '';
  const logprobs: unknown[] = [];
  let final: OllamaGenerateChunk | undefined;

  function push(chunk: OllamaGenerateChunk): void {
    if (final !== undefined) return;
    response += chunk.response ?? '';
    thinking += chunk.thinking ?? '';
    logprobs.push(...(chunk.logprobs ?? []));
    if (chunk.done === true) final = chunk;
  }

  function end(): OllamaGenerateChunk {
    if (final === undefined) throw new UpstreamError('the node closed the stream before its final line');
    // merged(), not a literal that starts with a spread (see the chat accumulator).
    return merged<OllamaGenerateChunk>(final, {
      response,
      ...(thinking === '' ? {} : { thinking }),
      ...(logprobs.length === 0 ? {} : { logprobs }),
    });
  }

  return { push, end };
}
