import { describe, expect, it } from '@jest/globals';
import { STRATEGIES, type StrategyState } from '../../../../lib/core/scoring/routing-strategy';

const candidate = (id: string, depth: number, limit = 1) => ({ node: { id }, depth, limit });
const ids = (ranked: readonly { node: { id: string } }[]) => ranked.map((entry) => entry.node.id);

function state(randoms: readonly number[] = [0.5]): StrategyState {
  const turns = new Map<string, number>();
  let at = 0;
  return {
    turn(model) {
      const turn = turns.get(model) ?? 0;
      turns.set(model, turn + 1);
      return turn;
    },
    random: () => randoms[at++ % randoms.length] ?? 0,
  };
}

describe('routing strategies', () => {
  const ranked = [candidate('c', 0), candidate('a', 3, 4), candidate('b', 1)];

  it('score keeps the ranking as it is and needs only the best few', () => {
    expect(ids(STRATEGIES.score.order(ranked, state(), 'm'))).toEqual(['c', 'a', 'b']);
    expect(STRATEGIES.score.needsAll).toBe(false);
  });

  it('least-busy orders by requests per slot, whatever the score', () => {
    expect(ids(STRATEGIES['least-busy'].order(ranked, state(), 'm'))).toEqual(['c', 'a', 'b']);
    const busy = [candidate('x', 2), candidate('y', 0), candidate('z', 1)];
    expect(ids(STRATEGIES['least-busy'].order(busy, state(), 'm'))).toEqual(['y', 'z', 'x']);
    expect(STRATEGIES['least-busy'].needsAll).toBe(true);
  });

  it('round-robin takes the nodes in turn, per model, in node-id order', () => {
    const turns = state();
    const firsts = [0, 1, 2, 3].map(() => ids(STRATEGIES['round-robin'].order(ranked, turns, 'm'))[0]);
    expect(firsts).toEqual(['a', 'b', 'c', 'a']);
    expect(ids(STRATEGIES['round-robin'].order(ranked, turns, 'other'))[0]).toBe('a');
  });

  it('random draws from its source and keeps every candidate', () => {
    const drawn = STRATEGIES.random.order(ranked, state([0]), 'm');
    expect([...ids(drawn)].sort()).toEqual(['a', 'b', 'c']);
    expect(ids(drawn)).not.toEqual(ids(STRATEGIES.random.order(ranked, state([0.99]), 'm')));
  });
});
