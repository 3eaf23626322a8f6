/**
 * The operator's log (issue 19 item 8): one JSON line per event — `level`, `msg`, then the event's fields —
 * through the console method of its level (CloudWatch files each by level). Repeated warnings are rate
 * limited by key: a key is written at most once per window (10 s); the next line written for it says how
 * many similar ones were suppressed in between, so an outage is a line every 10 s, not one per request.
 * Time comes in as `now`, so tests drive the window with a fake clock.
 */

export type LogLevel = 'info' | 'warn' | 'error';

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  /** Writes one line. */
  log(level: LogLevel, msg: string, fields?: LogFields): void;
  /**
   * Writes one line unless a line with this key was written less than a window ago; then it only counts
   * it, and the next line written for the key carries `suppressed: N`.
   */
  limited(key: string, level: LogLevel, msg: string, fields?: LogFields): void;
}

export interface LoggerOptions {
  /** Where a line goes; default the console method of its level. */
  readonly write?: (level: LogLevel, line: string) => void;
  readonly now?: () => number;
  /** Default 10 s. */
  readonly windowMs?: number;
  /** Keys remembered at most (the oldest is forgotten first); default 1000. */
  readonly maxKeys?: number;
}

const consoleWrite = (level: LogLevel, line: string): void => {
  if (level === 'error') console.error(line);
  else if (level === 'warn') console.warn(line);
  else console.info(line);
};

interface KeyState {
  writtenAt: number;
  suppressed: number;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? consoleWrite;
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? 10_000;
  const maxKeys = options.maxKeys ?? 1000;
  const keys = new Map<string, KeyState>();

  const log = (level: LogLevel, msg: string, fields?: LogFields): void => {
    let line: string;
    try {
      line = JSON.stringify({ level, msg, ...fields });
    } catch {
      line = JSON.stringify({ level, msg, fields: String(fields) });
    }
    write(level, line);
  };

  const limited = (key: string, level: LogLevel, msg: string, fields?: LogFields): void => {
    const at = now();
    const state = keys.get(key);
    if (state !== undefined && at - state.writtenAt < windowMs) {
      state.suppressed += 1;
      return;
    }
    const suppressed = state?.suppressed ?? 0;
    keys.delete(key);
    if (keys.size >= maxKeys) keys.delete(keys.keys().next().value as string);
    keys.set(key, { writtenAt: at, suppressed: 0 });
    log(level, msg, suppressed > 0 ? { ...fields, suppressed } : fields);
  };

  return { log, limited };
}

let shared: Logger | undefined;

/** This process's logger (one per Lambda container: the rate limits hold across its invocations). */
export function logger(): Logger {
  shared ??= createLogger();
  return shared;
}

/** Replaces this process's logger (tests: a recording one on a fake clock); returns the one it replaced. */
export function useLogger(next: Logger | undefined): Logger | undefined {
  const previous = shared;
  shared = next;
  return previous;
}

/** The text of a cause for a log line: its message (and code), never a stack unless asked for. */
export function causeText(cause: unknown, withStack = false): string | undefined {
  if (cause === undefined || cause === null) return undefined;
  if (typeof cause === 'object' && 'message' in cause && typeof cause.message === 'string') {
    const stack = 'stack' in cause && typeof cause.stack === 'string' ? cause.stack : undefined;
    if (withStack && stack !== undefined) return stack;
    const code = 'code' in cause && typeof cause.code === 'string' ? `${cause.code}: ` : '';
    return `${code}${cause.message}`;
  }
  return String(cause);
}
