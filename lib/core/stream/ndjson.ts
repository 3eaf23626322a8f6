/**
 * NDJSON encoding (protocols §2.1, §9): one JSON value and `\n` per line. The only place that frames
 * NDJSON; `JSON.stringify` never writes a raw newline, so one value is always one line. Pure.
 */

/** `<json>\n`. */
export function encodeNdjson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('an NDJSON line must be a JSON value');
  return `${text}\n`;
}
