import { describe, expect, it } from '@jest/globals';
import { adminOutcome } from '../../../../lib/features/model-admin/admin-outcome';

const what = "deleting model 'm'";

describe('adminOutcome', () => {
  it('is done on the nodes that did it; a node that no longer had the model is no failure', () => {
    const outcome = adminOutcome(
      [
        { nodeId: 'a', status: 200 },
        { nodeId: 'b', status: 404, message: "model 'm' not found" },
      ],
      what,
    );

    expect(outcome).toEqual({ kind: 'done', nodes: ['a'] });
  });

  it('is not found when every node answered 404', () => {
    expect(adminOutcome([{ nodeId: 'a', status: 404, message: 'gone' }], what)).toEqual({ kind: 'not-found' });
  });

  it("passes on the nodes' own refusal when all refused alike with a 4xx", () => {
    const answers = [
      { nodeId: 'a', status: 400, message: 'name "m" is invalid' },
      { nodeId: 'b', status: 400, message: 'name "m" is invalid' },
    ];

    expect(adminOutcome(answers, what)).toEqual({ kind: 'refused', status: 400, message: 'name "m" is invalid' });
  });

  it('names, by id, the nodes that failed and why, and those where it was done', () => {
    const outcome = adminOutcome(
      [
        { nodeId: 'a', status: 200 },
        { nodeId: 'b', status: 500, message: 'disk full' },
        { nodeId: 'c', status: 0, message: 'unreachable: ECONNREFUSED' },
      ],
      what,
    );

    expect(outcome).toEqual({
      kind: 'failed',
      message: "deleting model 'm' failed on b (500: disk full), c (unreachable: ECONNREFUSED); done on a",
      succeeded: ['a'],
      failed: ['b', 'c'],
    });
  });
});
