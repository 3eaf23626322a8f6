import { describe, expect, it } from '@jest/globals';
import type { DecodedLine } from '../../../../lib/core/stream/ndjson-decoder';
import { createPullProgress } from '../../../../lib/features/pull/pull-progress';

const line = (value: unknown): DecodedLine => ({ ok: true, value, raw: JSON.stringify(value) });

describe('createPullProgress', () => {
  it('reads status lines as progress and success', () => {
    const progress = createPullProgress();

    expect(progress.observe(line({ status: 'pulling manifest' }))).toEqual({ kind: 'progress' });
    expect(progress.observe(line({ status: 'verifying sha256 digest' }))).toEqual({ kind: 'progress' });
    expect(progress.observe(line({ status: 'success' }))).toEqual({ kind: 'success' });
  });

  it("reads the node's error line with its message", () => {
    expect(createPullProgress().observe(line({ error: 'pull model manifest: file does not exist' }))).toEqual({
      kind: 'error',
      message: 'pull model manifest: file does not exist',
    });
  });

  it('reads an error object by its message', () => {
    expect(createPullProgress().observe(line({ error: { message: 'disk full' } }))).toEqual({
      kind: 'error',
      message: 'disk full',
    });
  });

  it.each([
    ['a line that is not JSON', { ok: false, raw: '{"status":', error: 'Unexpected end of JSON input' } as const],
    ['a line without status', line({ digest: 'sha256:00' })],
    ['a status that is not a string', line({ status: 7 })],
    ['a JSON value that is not an object', line(42)],
  ])('reads %s as malformed', (_case, decoded) => {
    expect(createPullProgress().observe(decoded).kind).toBe('malformed');
  });

  it("adds up the layers' totals, each digest once", () => {
    const progress = createPullProgress();
    progress.observe(line({ status: 'pulling aaa', digest: 'sha256:aaa', total: 1000 }));
    progress.observe(line({ status: 'pulling aaa', digest: 'sha256:aaa', total: 1000, completed: 500 }));
    progress.observe(line({ status: 'pulling bbb', digest: 'sha256:bbb', total: 24, completed: 24 }));
    progress.observe(line({ status: 'verifying sha256 digest' }));

    expect(progress.layerBytes()).toBe(1024);
  });
});
