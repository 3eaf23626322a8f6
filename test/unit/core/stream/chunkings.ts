/**
 * Ways to cut a byte stream into chunks, for replaying fixtures: whole, one byte at a time, at given
 * cut points, and a fast-check arbitrary of cut points biased towards the inside of multi-byte
 * characters (where a streaming decoder most often goes wrong).
 */
import * as fc from 'fast-check';

/** Cuts `bytes` before each offset in `cuts` (offsets in 1..length-1, any order, duplicates ignored). */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const offsets = [...new Set(cuts)].filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const offset of offsets) {
    chunks.push(bytes.subarray(start, offset));
    start = offset;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

export function byteByByte(bytes: Uint8Array): Uint8Array[] {
  return Array.from(bytes, (_byte, index) => bytes.subarray(index, index + 1));
}

/** Offsets that fall inside a multi-byte UTF-8 character (before a continuation byte). */
export function insideCharacterOffsets(bytes: Uint8Array): number[] {
  const offsets: number[] = [];
  bytes.forEach((byte, index) => {
    if (index > 0 && (byte & 0xc0) === 0x80) offsets.push(index);
  });
  return offsets;
}

/** Random cut points: anywhere, plus some taken from inside multi-byte characters. */
export function cutsArbitrary(bytes: Uint8Array): fc.Arbitrary<number[]> {
  const anywhere = fc.array(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 40 });
  const inside = insideCharacterOffsets(bytes);
  const insideCuts =
    inside.length === 0 ? fc.constant<number[]>([]) : fc.subarray(inside, { maxLength: Math.min(12, inside.length) });
  return fc.tuple(anywhere, insideCuts).map(([a, b]) => [...a, ...b]);
}

/** Checks a synchronous property (fast-check throws the smallest counterexample it finds). */
export function assertProperty<Ts>(property: fc.IProperty<Ts>): void {
  // biome-ignore lint/nursery/noFloatingPromises: fc.assert of a synchronous property returns void, not a promise.
  fc.assert(property);
}
