/**
 * Builds the UpdateItem expressions behind a counter write (ARCHITECTURE.md §3.6: counters are shared
 * through the table with `ADD`, which creates the item and the attribute on first use, so concurrent
 * instances never read-modify-write), and the conditional `SET`s that raise a maximum without reading it
 * (issue 22 item 1: a rollup's `max_total_tokens`, `last_at`). Pure.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { checkExpiresAt, marshalScalar } from './item';

export type CounterFields = Readonly<Record<string, number>>;
export type CounterSet = Readonly<Record<string, string | number>>;
/** Attributes to raise to at least the given value. */
export type CounterMaxima = Readonly<Record<string, number>>;

export interface CounterUpdate {
  readonly UpdateExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, AttributeValue>;
  readonly ConditionExpression?: string;
}

/**
 * Counters per UpdateItem. DynamoDB refuses an expression over 4 KB; an `ADD` clause of this many
 * counters is at most 200 × 13 characters (`#c199 :c199, `), leaving over 1 KB for the `SET` clause of
 * the fields set beside them and the maxima raised with them. A write with more counters (a day's
 * histograms can have hundreds of buckets) goes out as several updates (`splitCounters`).
 */
export const MAX_COUNTERS_PER_UPDATE = 200;

/** Key attributes cannot be updated; the other convention attributes have their own types. */
const NOT_COUNTERS: ReadonlySet<string> = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'expiresAt', 'doc']);
const NOT_SETTABLE: ReadonlySet<string> = new Set(['pk', 'sk']);

function checkNumber(kind: string, name: string, value: number): void {
  if (NOT_COUNTERS.has(name)) throw new Error(`"${name}" cannot be a ${kind}`);
  if (!Number.isFinite(value))
    throw new Error(`${kind} "${name}" cannot be ${kind === 'counter' ? 'incremented by ' : ''}${value}`);
}

/**
 * One UpdateItem: `ADD` each counter, `SET` each field of `set`, and `SET` each maximum of `raise` on the
 * condition that every one of them is absent or at most its new value (so a maximum never goes down:
 * when another writer raised one higher, the whole update fails its condition and changes nothing).
 * Undefined when there is nothing to write. Throws on a non-finite number or a forbidden name.
 */
export function buildCounterUpdate(
  counters: CounterFields,
  set: CounterSet,
  raise: CounterMaxima = {},
): CounterUpdate | undefined {
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  const adds: string[] = [];
  const sets: string[] = [];
  const conditions: string[] = [];
  Object.entries(counters).forEach(([name, amount], index) => {
    checkNumber('counter', name, amount);
    names[`#c${index}`] = name;
    values[`:c${index}`] = { N: String(amount) };
    adds.push(`#c${index} :c${index}`);
  });
  Object.entries(set).forEach(([name, value], index) => {
    if (NOT_SETTABLE.has(name)) throw new Error(`"${name}" is a key attribute and cannot be set`);
    if (name === 'expiresAt' && typeof value === 'number') checkExpiresAt(value);
    names[`#s${index}`] = name;
    values[`:s${index}`] = marshalScalar(value);
    sets.push(`#s${index} = :s${index}`);
  });
  Object.entries(raise).forEach(([name, value], index) => {
    checkNumber('maximum', name, value);
    names[`#m${index}`] = name;
    values[`:m${index}`] = { N: String(value) };
    sets.push(`#m${index} = :m${index}`);
    conditions.push(`(attribute_not_exists(#m${index}) OR #m${index} <= :m${index})`);
  });
  const clauses = [adds.length > 0 ? `ADD ${adds.join(', ')}` : '', sets.length > 0 ? `SET ${sets.join(', ')}` : ''];
  const expression = clauses.filter((clause) => clause !== '').join(' ');
  if (expression === '') return undefined;
  return {
    UpdateExpression: expression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
  };
}

/** `counters` in parts of at most `MAX_COUNTERS_PER_UPDATE`, in order; one empty part for none. */
export function splitCounters(counters: CounterFields): Record<string, number>[] {
  const parts: Record<string, number>[] = [{}];
  let size = 0;
  for (const name in counters) {
    if (size === MAX_COUNTERS_PER_UPDATE) {
      parts.push({});
      size = 0;
    }
    (parts[parts.length - 1] as Record<string, number>)[name] = counters[name] as number;
    size += 1;
  }
  return parts;
}
