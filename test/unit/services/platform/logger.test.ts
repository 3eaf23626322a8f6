import { describe, expect, it } from '@jest/globals';
import { createLogger, type LogLevel } from '../../../../lib/services/platform/logger';

function recording(windowMs = 10_000) {
  let now = 1_000_000;
  const lines: { level: LogLevel; line: Record<string, unknown> }[] = [];
  const log = createLogger({
    now: () => now,
    windowMs,
    write: (level, line) => lines.push({ level, line: JSON.parse(line) as Record<string, unknown> }),
  });
  return { log, lines, advance: (ms: number) => (now += ms) };
}

describe('createLogger', () => {
  it('writes one JSON line with level, msg and the fields', () => {
    const { log, lines } = recording();

    log.log('warn', 'request failed', { path: '/api/chat', status: 503 });

    expect(lines).toEqual([
      { level: 'warn', line: { level: 'warn', msg: 'request failed', path: '/api/chat', status: 503 } },
    ]);
  });

  it('writes a key at most once per window, and the next line says how many were suppressed', () => {
    const { log, lines, advance } = recording();

    log.limited('table', 'warn', 'table down', { n: 1 });
    advance(1000);
    log.limited('table', 'warn', 'table down', { n: 2 });
    advance(8000);
    log.limited('table', 'warn', 'table down', { n: 3 });
    advance(1000);
    log.limited('table', 'warn', 'table down', { n: 4 });

    expect(lines.map(({ line }) => line)).toEqual([
      { level: 'warn', msg: 'table down', n: 1 },
      { level: 'warn', msg: 'table down', n: 4, suppressed: 2 },
    ]);
  });

  it('limits each key on its own', () => {
    const { log, lines } = recording();

    log.limited('a', 'warn', 'a');
    log.limited('b', 'info', 'b');
    log.limited('a', 'warn', 'a');

    expect(lines.map(({ line }) => line['msg'])).toEqual(['a', 'b']);
  });

  it('writes a line without a suppressed count when nothing was suppressed', () => {
    const { log, lines, advance } = recording();

    log.limited('a', 'warn', 'a');
    advance(10_000);
    log.limited('a', 'warn', 'a');

    expect(lines.map(({ line }) => line)).toEqual([
      { level: 'warn', msg: 'a' },
      { level: 'warn', msg: 'a' },
    ]);
  });
});
