import { describe, expect, it } from '@jest/globals';
import { catalogEntry, withTag } from '../../../../emulator/sim';
import { localTimestamp } from '../../../../emulator/sim/clock';
import { boundaryOf, parseMultipart } from '../../../../emulator/sim/multipart';
import { gradientPng, readPngSize } from '../../../../emulator/sim/png';
import { parseKeepAlive } from '../../../../emulator/sim/runtime';
import { naturalReplyLength, replyTokens, toolArguments } from '../../../../emulator/sim/text';
import { cosine, embedText } from '../../../../emulator/sim/vectors';

describe('multipart reader', () => {
  it('finds the boundary and splits parts with names, filenames and bytes', () => {
    const boundary = '----sim123';
    const body = Buffer.from(
      [
        `--${boundary}`,
        'Content-Disposition: form-data; name="language"',
        '',
        'en',
        `--${boundary}`,
        'Content-Disposition: form-data; name="audio"; filename="a.wav"',
        'Content-Type: audio/wav',
        '',
        'RIFF\r\nbytes',
        `--${boundary}--`,
        '',
      ].join('\r\n'),
    );
    expect(boundaryOf(`multipart/form-data; boundary=${boundary}`)).toBe(boundary);
    expect(boundaryOf('application/json')).toBeUndefined();
    const parts = parseMultipart(body, boundary);
    expect(parts.map((p) => [p.name, p.filename, p.contentType, p.data.toString()])).toEqual([
      ['language', undefined, undefined, 'en'],
      ['audio', 'a.wav', 'audio/wav', 'RIFF\r\nbytes'],
    ]);
  });
});

describe('keep_alive parsing', () => {
  it('reads seconds, Go durations and negative as forever', () => {
    expect(parseKeepAlive(undefined)).toBeUndefined();
    expect(parseKeepAlive(30)).toBe(30_000);
    expect(parseKeepAlive('5m')).toBe(300_000);
    expect(parseKeepAlive('1h30m')).toBe(5_400_000);
    expect(parseKeepAlive('300ms')).toBe(300);
    expect(parseKeepAlive('0')).toBe(0);
    expect(parseKeepAlive(-1)).toBe(-1);
    expect(parseKeepAlive('-1m')).toBe(-1);
    expect(parseKeepAlive('soon')).toEqual({ error: 'time: invalid duration "soon"' });
  });
});

describe('catalogue', () => {
  it('tags bare names with latest and invents plausible entries for unknown names', () => {
    expect(withTag('nomic-embed-text')).toBe('nomic-embed-text:latest');
    expect(withTag('x/z-image-turbo')).toBe('x/z-image-turbo:latest');
    expect(catalogEntry('qwen2.5:32b').size).toBe(19_851_349_856);
    const invented = catalogEntry('mistral:7b');
    expect(invented).toMatchObject({ name: 'mistral:7b', parameterSize: '7B', capabilities: ['completion'] });
    expect(invented.size).toBeGreaterThan(4e9);
    expect(catalogEntry('all-minilm-embed').capabilities).toEqual(['embedding']);
  });
});

describe('generated text', () => {
  it('echoes the prompt and pads to the requested length', () => {
    expect(replyTokens('one two', { count: 4, natural: true, images: 0 }).join('')).toMatch(/^Echo: one two \w+\.$/);
    expect(replyTokens('one two', { count: 2, natural: false, images: 0 })).toEqual(['Echo:', ' one']);
  });

  it('answers 12 tokens unless the prompt asks for a number of words', () => {
    expect(naturalReplyLength('hello there')).toBe(12);
    expect(naturalReplyLength('a long answer please, 400 words')).toBe(400);
    expect(naturalReplyLength('Answer in 3 Words.')).toBe(3);
    expect(naturalReplyLength('0 words')).toBe(12);
    expect(naturalReplyLength('200000 words')).toBe(12);
  });

  it('fills tool arguments from the schema', () => {
    const parameters = {
      type: 'object',
      properties: { q: { type: 'string' }, n: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
    };
    expect(toolArguments(parameters, 'cats')).toEqual({ q: 'cats', n: 1.5, tags: ['cats'] });
  });

  it('fills only the required arguments when the schema lists them, as a model leaves out optional ones', () => {
    const parameters = {
      type: 'object',
      properties: { cmd: { type: 'string' }, workdir: { type: 'string' }, tty: { type: 'boolean' } },
      required: ['cmd'],
    };
    expect(toolArguments(parameters, 'pwd')).toEqual({ cmd: 'pwd' });
  });
});

describe('vectors', () => {
  it('makes texts that share words closer than texts that do not', () => {
    const a = embedText('the cat sat on the mat', 128, 'm');
    const b = embedText('a cat on a mat', 128, 'm');
    const c = embedText('quarterly revenue projections', 128, 'm');
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.2);
  });
});

describe('png and timestamps', () => {
  it('encodes a PNG whose header reports its size', () => {
    expect(readPngSize(gradientPng(3, 5, 'seed'))).toEqual({ width: 3, height: 5 });
    expect(readPngSize(Buffer.from('not a png at all, not at all'))).toBeUndefined();
  });

  it('formats local RFC 3339 timestamps with the offset, and Z for UTC', () => {
    const ms = Date.UTC(2025, 0, 2, 3, 4, 5, 6);
    expect(localTimestamp(ms, 0)).toBe('2025-01-02T03:04:05.006Z');
    expect(localTimestamp(ms, 120)).toBe('2025-01-02T05:04:05.006+02:00');
    expect(localTimestamp(ms, -330)).toBe('2025-01-01T21:34:05.006-05:30');
  });
});
