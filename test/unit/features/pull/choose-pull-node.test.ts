import { describe, expect, it } from '@jest/globals';
import { NotFoundError, ServiceUnavailableError } from '../../../../lib/core/errors';
import { choosePullNode } from '../../../../lib/features/pull/choose-pull-node';
import { bareAgentNode, bareListedNode, makeNodeModel, snapshotOf, T0 } from '../../../helpers/factories';

function thrown(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('choosePullNode', () => {
  describe('with node_id', () => {
    it('takes the named node whatever its memory', () => {
      const fleet = snapshotOf([bareAgentNode('big', 180), bareAgentNode('tiny', 1)]);

      const choice = choosePullNode(fleet, 'llama3.1:70b', 'tiny');

      expect(choice.node.id).toBe('tiny');
      expect(choice.reason).toBe('node_id');
    });

    it("answers an unknown node with 404 node '<id>' not found", () => {
      const error = thrown(() => choosePullNode(snapshotOf([bareAgentNode('a', 10)]), 'qwen3:8b', 'nope'));

      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ status: 404, message: "node 'nope' not found" });
    });

    it('answers an offline node with 503', () => {
      const fleet = snapshotOf([bareAgentNode('gone', 100, { lastSeenAt: T0 - 60_000 })]);

      const error = thrown(() => choosePullNode(fleet, 'qwen3:8b', 'gone'));

      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error).toMatchObject({ status: 503, message: "node 'gone' is offline" });
    });

    it('answers a draining node with 503 that a retry cannot fix', () => {
      const fleet = snapshotOf([bareAgentNode('leaving', 100, { draining: true })]);

      const error = thrown(() => choosePullNode(fleet, 'qwen3:8b', 'leaving'));

      expect(error).toMatchObject({ status: 503, message: "node 'leaving' is draining", retryable: false });
    });
  });

  describe('without node_id', () => {
    it('takes the node with the most available memory that fits', () => {
      const fleet = snapshotOf([bareAgentNode('a', 20), bareAgentNode('b', 60), bareAgentNode('c', 40)]);

      expect(choosePullNode(fleet, 'qwen2.5:7b').node.id).toBe('b');
    });

    it('skips nodes whose available memory the estimate does not fit', () => {
      // 70 B at 4.5 bits + 20 % + 0.5 GB ≈ 47.75 GB.
      const fleet = snapshotOf([bareAgentNode('small', 40), bareAgentNode('large', 50)]);

      const choice = choosePullNode(fleet, 'llama3.1:70b');

      expect(choice.node.id).toBe('large');
      expect(choice.size.source).toBe('estimate');
    });

    it('sizes the model from a node that has it, even an offline one', () => {
      const fleet = snapshotOf([
        bareAgentNode('gone', 200, { lastSeenAt: 0, models: [makeNodeModel({ name: 'custom:latest', size: 30e9 })] }),
        bareAgentNode('a', 25),
        bareAgentNode('b', 31),
      ]);

      expect(choosePullNode(fleet, 'custom').node.id).toBe('b');
    });

    it('prefers a node that already has the model: the pull updates it in place', () => {
      const fleet = snapshotOf([
        bareAgentNode('roomy', 150),
        bareAgentNode('holder', 2, { models: [makeNodeModel({ name: 'qwen3:8b', size: 5e9 })] }),
      ]);

      const choice = choosePullNode(fleet, 'qwen3:8b');

      expect(choice.node.id).toBe('holder');
      expect(choice.reason).toContain('has the model');
    });

    it('never picks an offline or draining node', () => {
      const fleet = snapshotOf([
        bareAgentNode('gone', 190, { lastSeenAt: 0 }),
        bareAgentNode('leaving', 180, { draining: true }),
        bareAgentNode('here', 20),
      ]);

      expect(choosePullNode(fleet, 'qwen2.5:7b').node.id).toBe('here');
    });

    it('ranks a polled node, whose memory is unknown, after every node with known memory that fits', () => {
      const fleet = snapshotOf([bareListedNode('aaa-plain'), bareAgentNode('zzz-agent', 10)]);

      expect(choosePullNode(fleet, 'qwen2.5:7b').node.id).toBe('zzz-agent');
    });

    it('takes a polled node when no node with known memory fits', () => {
      const fleet = snapshotOf([bareListedNode('plain-b'), bareListedNode('plain-a'), bareAgentNode('agent', 1)]);

      const choice = choosePullNode(fleet, 'qwen2.5:7b');

      expect(choice.node.id).toBe('plain-a');
      expect(choice.reason).toContain('memory unknown');
    });

    it('breaks ties by node id', () => {
      const fleet = snapshotOf([bareAgentNode('b', 30), bareAgentNode('a', 30)]);

      expect(choosePullNode(fleet, 'qwen2.5:7b').node.id).toBe('a');
    });

    it('answers 503 naming the size when no node has enough memory', () => {
      const fleet = snapshotOf([bareAgentNode('a', 20), bareAgentNode('b', 30)]);

      const error = thrown(() => choosePullNode(fleet, 'llama3.1:405b'));

      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error).toMatchObject({
        status: 503,
        message: "no node has enough available memory to pull 'llama3.1:405b' (needs about 273.9 GB)",
      });
    });

    it('answers 503 when no node is online', () => {
      const error = thrown(() =>
        choosePullNode(snapshotOf([bareAgentNode('gone', 100, { lastSeenAt: 0 })]), 'qwen3:8b'),
      );

      expect(error).toMatchObject({ status: 503, message: "no node is online to pull 'qwen3:8b' onto" });
    });
  });
});
