import { describe, expect, it } from '@jest/globals';
import { UpstreamError } from '../../../../../lib/core/errors';
import {
  parseOllamaChatLine,
  parseOllamaGenerateLine,
} from '../../../../../lib/core/protocols/ollama/parse-ollama-line';
import type { DecodedLine } from '../../../../../lib/core/stream/ndjson-decoder';

function line(value: unknown): DecodedLine {
  return { ok: true, value, raw: JSON.stringify(value) };
}

function errorOf(result: ReturnType<typeof parseOllamaChatLine>): UpstreamError {
  if (result.ok) throw new Error('expected a failed line');
  return result.error;
}

describe('parseOllamaChatLine', () => {
  it('types a chunk and keeps fields it does not know', () => {
    const result = parseOllamaChatLine(
      line({ model: 'm', message: { role: 'assistant', content: 'Hi' }, done: false, remote_host: 'x' }),
    );

    expect(result).toEqual({
      ok: true,
      chunk: { model: 'm', message: { role: 'assistant', content: 'Hi' }, done: false, remote_host: 'x' },
    });
  });

  it('accepts the nulls and gaps of a lenient node', () => {
    expect(parseOllamaChatLine(line({ message: null, done: null, eval_count: null })).ok).toBe(true);
  });

  it('turns a line that is not JSON into an UpstreamError', () => {
    const error = errorOf(parseOllamaChatLine({ ok: false, raw: '{"mo', error: 'Unexpected end of JSON input' }));

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.message).toBe('the node sent a malformed line: Unexpected end of JSON input');
  });

  it("turns the node's error line into an UpstreamError carrying its message", () => {
    expect(errorOf(parseOllamaChatLine(line({ error: 'model requires more system memory' }))).message).toBe(
      'the node failed: model requires more system memory',
    );
    expect(errorOf(parseOllamaChatLine(line({ error: { message: 'boom' } }))).message).toBe(
      'the node failed: {"message":"boom"}',
    );
  });

  it('names the field of a line with the wrong shape', () => {
    const error = errorOf(parseOllamaChatLine(line({ message: { content: 42 }, done: false })));

    expect(error.message).toMatch(/^the node sent an invalid line: message\.content: /);
  });

  it('turns a JSON value that is not an object into an UpstreamError', () => {
    expect(parseOllamaChatLine(line(42)).ok).toBe(false);
  });
});

describe('parseOllamaGenerateLine', () => {
  it('types a generate chunk', () => {
    expect(parseOllamaGenerateLine(line({ response: 'tok', done: false }))).toEqual({
      ok: true,
      chunk: { response: 'tok', done: false },
    });
  });

  it('turns a line with the wrong shape into an UpstreamError', () => {
    expect(parseOllamaGenerateLine(line({ response: 1 })).ok).toBe(false);
  });
});
