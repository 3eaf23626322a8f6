/**
 * Counter writes that also raise maxima (issue 22 item 1: a rollup's `max_total_tokens`, `last_at`),
 * exactly and fleet-wide, without reading the item and without ever applying the counters twice.
 *
 * The first request carries everything: the `ADD` of the counters, the fields set beside them, and a
 * `SET` of each maximum on the condition that each is absent or at most its new value. That is the usual
 * case (the newest `last_at` is this writer's own), so a write is one request. When another writer has
 * already put some maximum higher, the condition fails and nothing was applied; then each maximum is
 * raised by a conditional `SET` of its own (a failed condition there means the table already holds more,
 * which is the goal) and the counters go out with an unconditional `ADD`, last, so a failure on the way
 * re-sends the maxima (harmless) and never the counters twice.
 *
 * A maximum this writer already raised to at least the new value is left out: the table's value only
 * goes up, so a writer remembers, per key, what it raised each maximum to (a bounded hint, cleared when it
 * grows past `MAX_HINTS` keys). After a table is deleted and created again under a running writer, a
 * maximum of a key it already wrote is raised again only by a value above the remembered one.
 */
import {
  buildCounterUpdate,
  type CounterFields,
  type CounterMaxima,
  type CounterSet,
  type CounterUpdate,
} from './counter-update';
import { keyId } from './item';

/** One UpdateItem; false when its condition did not hold (nothing was applied). */
export type SendUpdate = (pk: string, sk: string, update: CounterUpdate) => Promise<boolean>;

export interface MaximaWriter {
  /** Resolves with the number of requests sent. */
  write(pk: string, sk: string, counters: CounterFields, set: CounterSet, maxima: CounterMaxima): Promise<number>;
}

/** Keys whose raised maxima a writer remembers before it starts over. */
const MAX_HINTS = 10_000;

export function createMaximaWriter(send: SendUpdate): MaximaWriter {
  const raisedTo = new Map<string, Record<string, number>>();

  function remember(id: string, raised: Readonly<Record<string, number>>): void {
    let known = raisedTo.get(id);
    if (known === undefined) {
      if (raisedTo.size >= MAX_HINTS) raisedTo.clear();
      known = {};
      raisedTo.set(id, known);
    }
    for (const name in raised) known[name] = Math.max(known[name] ?? -Infinity, raised[name] as number);
  }

  /** Each maximum on its own; a failed condition is fine (the table holds more). Resolves with the requests sent. */
  async function raiseEach(pk: string, sk: string, raise: Readonly<Record<string, number>>): Promise<number> {
    const updates = Object.entries(raise).map(([name, value]) => buildCounterUpdate({}, {}, { [name]: value }));
    const results = await Promise.allSettled(
      updates.map((update) => (update === undefined ? Promise.resolve(true) : send(pk, sk, update))),
    );
    const failure = results.find((result) => result.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    return updates.length;
  }

  return {
    async write(pk, sk, counters, set, maxima) {
      const id = keyId(pk, sk);
      const known = raisedTo.get(id);
      const raise: Record<string, number> = {};
      let raising = false;
      for (const name in maxima) {
        const value = maxima[name] as number;
        const held = known?.[name];
        if (held !== undefined && value <= held) continue;
        raise[name] = value;
        raising = true;
      }
      const update = buildCounterUpdate(counters, set, raise);
      if (update === undefined) return 0;
      if (await send(pk, sk, update)) {
        if (raising) remember(id, raise);
        return 1;
      }
      let requests = 1 + (await raiseEach(pk, sk, raise));
      remember(id, raise);
      const plain = buildCounterUpdate(counters, set);
      if (plain !== undefined) {
        await send(pk, sk, plain);
        requests += 1;
      }
      return requests;
    },
  };
}
