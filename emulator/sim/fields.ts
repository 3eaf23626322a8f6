/**
 * Reading untrusted JSON: a typed view of the fields a handler looks at (each may hold anything until
 * checked), so code reads `body.model` rather than string-indexing a record.
 */

/** A JSON object seen through the fields `K`; every value is still unchecked. */
export type Fields<K extends string> = { readonly [P in K]?: unknown };

export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` as an object with fields `K`, or undefined when it is not a JSON object. */
export function fieldsOf<K extends string>(value: unknown): Fields<K> | undefined {
  // A plain object has every optional field of type unknown; the cast only names the ones we read.
  return isRecord(value) ? (value as Fields<K>) : undefined;
}

/** The value when it is a string, else undefined. */
export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The value when it is a finite number, else undefined. */
export function numberField(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
