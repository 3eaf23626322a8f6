import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { createNdjsonDecoder, type DecodedLine } from '../../../../lib/core/stream/ndjson-decoder';
import {
  CHAT_FIXTURES,
  FAILING_CHAT_FIXTURES,
  GENERATE_FIXTURES,
  readOllamaFixture,
} from '../../../fixtures/ollama/read-fixture';
import { assertProperty, byteByByte, cutsArbitrary, insideCharacterOffsets, splitAt } from './chunkings';

const MAX = 1 << 20;
const encoder = new TextEncoder();

function decodeAll(chunks: readonly Uint8Array[], maxLineBytes = MAX): DecodedLine[] {
  const decoder = createNdjsonDecoder({ maxLineBytes });
  const lines = chunks.flatMap((chunk) => decoder.push(chunk));
  return [...lines, ...decoder.end()];
}

function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

const ALL_FIXTURES = [...CHAT_FIXTURES, ...FAILING_CHAT_FIXTURES, ...GENERATE_FIXTURES];

describe('createNdjsonDecoder', () => {
  it('decodes every complete line of a push', () => {
    const lines = decodeAll([bytes('{"a":1}\n{"b":[2]}\n')]);

    expect(lines).toEqual([
      { ok: true, value: { a: 1 }, raw: '{"a":1}' },
      { ok: true, value: { b: [2] }, raw: '{"b":[2]}' },
    ]);
  });

  it('carries an unfinished line over to the next push', () => {
    const decoder = createNdjsonDecoder({ maxLineBytes: MAX });

    const first = decoder.push(bytes('{"done":fa'));
    const second = decoder.push(bytes('lse}\n'));

    expect(first).toEqual([]);
    expect(second).toEqual([{ ok: true, value: { done: false }, raw: '{"done":false}' }]);
    expect(decoder.end()).toEqual([]);
  });

  it('keeps its own copy of an unfinished line: the caller may reuse the chunk', () => {
    const decoder = createNdjsonDecoder({ maxLineBytes: MAX });
    const chunk = Buffer.from('{"a":1}\n{"b":');

    const first = decoder.push(chunk);
    chunk.fill(0x20);
    const second = decoder.push(bytes('2}\n'));

    expect(first).toEqual([{ ok: true, value: { a: 1 }, raw: '{"a":1}' }]);
    expect(second).toEqual([{ ok: true, value: { b: 2 }, raw: '{"b":2}' }]);
  });

  it('joins a character whose bytes arrive in two pushes', () => {
    const whole = bytes('{"content":"🚀é"}\n');
    const insideRocket = whole.indexOf(0xf0) + 2;

    const lines = decodeAll(splitAt(whole, [insideRocket, insideRocket + 3]));

    expect(lines).toEqual([{ ok: true, value: { content: '🚀é' }, raw: '{"content":"🚀é"}' }]);
  });

  it('reports a line that is not JSON and goes on with the next', () => {
    const lines = decodeAll([bytes('{"a":1}\n{"a":\n{"a":3}\n')]);

    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual({ ok: true, value: { a: 1 }, raw: '{"a":1}' });
    expect(lines[1]).toMatchObject({ ok: false, raw: '{"a":' });
    expect(lines[2]).toEqual({ ok: true, value: { a: 3 }, raw: '{"a":3}' });
  });

  it('accepts CRLF line ends and skips blank lines', () => {
    const lines = decodeAll([bytes('{"a":1}\r\n\r\n  \n{"a":2}\n')]);

    expect(lines.map((line) => line.raw)).toEqual(['{"a":1}', '{"a":2}']);
  });

  it('decodes a last line that has no newline when the stream ends', () => {
    expect(decodeAll([bytes('{"a":1}\n{"done":true}')])).toEqual([
      { ok: true, value: { a: 1 }, raw: '{"a":1}' },
      { ok: true, value: { done: true }, raw: '{"done":true}' },
    ]);
  });

  it('reports a cut last line at the end instead of dropping it', () => {
    const lines = decodeAll([bytes('{"a":1}\n{"message":{"con')]);

    expect(lines[1]).toMatchObject({ ok: false, raw: '{"message":{"con' });
  });

  it('returns nothing for an empty stream', () => {
    expect(decodeAll([])).toEqual([]);
    expect(decodeAll([new Uint8Array(0)])).toEqual([]);
  });

  describe('with a bounded line buffer', () => {
    const long = `{"content":"${'x'.repeat(100)}"}`;

    it('reports an over-long line once and decodes the lines after it', () => {
      const lines = decodeAll([bytes(`{"a":1}\n${long}\n{"a":2}\n`)], 64);

      expect(lines).toEqual([
        { ok: true, value: { a: 1 }, raw: '{"a":1}' },
        { ok: false, raw: long.slice(0, 20), error: 'line longer than 64 bytes' },
        { ok: true, value: { a: 2 }, raw: '{"a":2}' },
      ]);
    });

    it('does not keep more than the bound while the line is still arriving', () => {
      const decoder = createNdjsonDecoder({ maxLineBytes: 64 });

      const early = decoder.push(bytes(long.slice(0, 70)));
      const rest = decoder.push(bytes(`${long.slice(70)}\n{"a":2}\n`));

      expect(early).toEqual([{ ok: false, raw: long.slice(0, 20), error: 'line longer than 64 bytes' }]);
      expect(rest).toEqual([{ ok: true, value: { a: 2 }, raw: '{"a":2}' }]);
    });

    it('counts bytes, not characters', () => {
      const line = `{"c":"${'é'.repeat(30)}"}`; // 8 + 60 bytes, 38 characters

      expect(decodeAll([bytes(`${line}\n`)], 67)[0]).toMatchObject({ ok: false });
      expect(decodeAll([bytes(`${line}\n`)], 68)[0]).toMatchObject({ ok: true });
    });

    it('reports an over-long last line that never got its newline', () => {
      expect(decodeAll([bytes(long)], 64)).toEqual([
        { ok: false, raw: long.slice(0, 20), error: 'line longer than 64 bytes' },
      ]);
    });
  });

  describe.each(ALL_FIXTURES)('replaying %s', (name) => {
    const fixture = readOllamaFixture(name);
    const whole = decodeAll([fixture]);

    it('decodes the same lines one byte at a time', () => {
      expect(decodeAll(byteByByte(fixture))).toEqual(whole);
    });

    it('decodes the same lines when cut inside every multi-byte character', () => {
      expect(decodeAll(splitAt(fixture, insideCharacterOffsets(fixture)))).toEqual(whole);
    });

    it('decodes the same lines wherever the chunks are cut', () => {
      assertProperty(
        fc.property(cutsArbitrary(fixture), (cuts) => expect(decodeAll(splitAt(fixture, cuts))).toEqual(whole)),
      );
    });

    it('reports the same errors wherever the chunks are cut when lines exceed the bound', () => {
      const bounded = decodeAll([fixture], 150);
      assertProperty(
        fc.property(cutsArbitrary(fixture), (cuts) => expect(decodeAll(splitAt(fixture, cuts), 150)).toEqual(bounded)),
      );
    });
  });

  it('reports the malformed line of a captured stream between its good neighbours', () => {
    const lines = decodeAll([readOllamaFixture('malformed')]);

    expect(lines.map((line) => line.ok)).toEqual([true, true, false, true, true]);
  });
});
