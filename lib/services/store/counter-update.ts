/**
 * Builds the one UpdateItem expression behind a counter write (ARCHITECTURE.md §3.6: counters are shared
 * through the table with `ADD`, which creates the item and the attribute on first use, so concurrent
 * instances never read-modify-write). Pure.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { checkExpiresAt, marshalScalar } from './item';

export type CounterFields = Readonly<Record<string, number>>;
export type CounterSet = Readonly<Record<string, string | number>>;

export interface CounterUpdate {
  readonly UpdateExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, AttributeValue>;
}

/** Key attributes cannot be updated; the other convention attributes have their own types. */
const NOT_COUNTERS: ReadonlySet<string> = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'expiresAt', 'doc']);
const NOT_SETTABLE: ReadonlySet<string> = new Set(['pk', 'sk']);

/** Undefined when there is nothing to write. Throws on a non-finite increment or a forbidden name. */
export function buildCounterUpdate(counters: CounterFields, set: CounterSet): CounterUpdate | undefined {
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  const adds: string[] = [];
  const sets: string[] = [];
  Object.entries(counters).forEach(([name, amount], index) => {
    if (NOT_COUNTERS.has(name)) throw new Error(`"${name}" cannot be a counter`);
    if (!Number.isFinite(amount)) throw new Error(`counter "${name}" cannot be incremented by ${amount}`);
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
  const clauses = [adds.length > 0 ? `ADD ${adds.join(', ')}` : '', sets.length > 0 ? `SET ${sets.join(', ')}` : ''];
  const expression = clauses.filter((clause) => clause !== '').join(' ');
  if (expression === '') return undefined;
  return { UpdateExpression: expression, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}
