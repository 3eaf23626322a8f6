import { describe, expect, it } from '@jest/globals';
import { EndOfTurn, TurnGate } from '../../../../lib/services/platform/end-of-turn';

const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('EndOfTurn', () => {
  it('runs what a turn added together at its end, in order, once', async () => {
    const ran: string[] = [];
    const turn = new EndOfTurn<string>((item) => ran.push(item));
    turn.add('a');
    turn.add('b');
    await Promise.resolve();

    expect(ran).toEqual([]);

    turn.add('c');
    await endOfTurn();

    expect(ran).toEqual(['a', 'b', 'c']);

    await endOfTurn();

    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('runs what it has gathered on a flush, and the turn then ends with nothing to run', async () => {
    const ran: string[] = [];
    const turn = new EndOfTurn<string>((item) => ran.push(item));

    expect(turn.add('a')).toBe(true);
    expect(turn.add('b')).toBe(false);
    expect(turn.pending).toBe(true);

    turn.flush();

    expect(ran).toEqual(['a', 'b']);
    expect(turn.pending).toBe(false);

    await endOfTurn();

    expect(ran).toEqual(['a', 'b']);
    expect(turn.add('c')).toBe(true);
  });

  it('runs what the end of a turn adds at the end of the next one', async () => {
    const ran: string[] = [];
    const turn: EndOfTurn<string> = new EndOfTurn<string>((item) => {
      ran.push(item);
      if (item === 'first') turn.add('added while running');
    });
    turn.add('first');
    await endOfTurn();

    expect(ran).toEqual(['first']);

    await endOfTurn();

    expect(ran).toEqual(['first', 'added while running']);
  });
});

describe('TurnGate', () => {
  it('lets every waiter of a turn go on at its end, none before', async () => {
    const gate = new TurnGate();
    const resumed: number[] = [];
    const waiting = [1, 2, 3].map((index) => gate.next().then(() => resumed.push(index)));
    for (let tick = 0; tick < 5; tick += 1) await Promise.resolve();

    expect(resumed).toEqual([]);

    await Promise.all(waiting);

    expect(resumed).toEqual([1, 2, 3]);
  });
});
