/**
 * What an operator sets for sharing the fleet between applications (issue 43; docs/configuration.md
 * "Priorities and fair sharing"): per application, a default priority (`FLEET_APP_PRIORITIES`), a weight in
 * the fair rotation (`FLEET_APP_WEIGHTS`) and a limit on its requests in flight (`FLEET_APP_LIMITS`), each a
 * comma list of `<application>=<value>`, where an application is `key:<id>`, `tag:<tag>` or
 * `client:<address>` (./application) and `*` stands for any application without an entry of its own (limits
 * only); and how long a waiting request takes to rise one priority class (`FLEET_PRIORITY_AGING_MS`).
 * Parsing throws an Error naming the variable, which stops the router at start. Pure.
 */
import { PRIORITIES, type Priority } from './wait-line';

export interface SharingPolicy {
  readonly agingMs: number;
  readonly priorities: ReadonlyMap<string, Priority>;
  readonly weights: ReadonlyMap<string, number>;
  /** Requests in flight (waiting or running) per application on one instance; `*` for any other. */
  readonly limits: ReadonlyMap<string, number>;
}

export const DEFAULT_AGING_MS = 30_000;

export const OPEN_SHARING: SharingPolicy = Object.freeze({
  agingMs: DEFAULT_AGING_MS,
  priorities: new Map<string, Priority>(),
  weights: new Map<string, number>(),
  limits: new Map<string, number>(),
});

const APPLICATION = /^(\*|(key|tag|client):.+)$/;

/** `tag:nightly=low,key:3f2a91c0=high` and the like: entries of `<application>=<value>`. */
function parseEntries<T>(
  variable: string,
  entries: readonly string[],
  parseValue: (text: string) => T | undefined,
  expected: string,
  wildcard: boolean,
): Map<string, T> {
  const parsed = new Map<string, T>();
  for (const entry of entries) {
    const at = entry.lastIndexOf('=');
    const app = entry.slice(0, Math.max(0, at)).trim();
    const value = at < 0 ? undefined : parseValue(entry.slice(at + 1).trim());
    if (!APPLICATION.test(app) || (app === '*' && !wildcard) || value === undefined) {
      const apps = `key:<id>, tag:<tag> or client:<address>${wildcard ? ', or *' : ''}`;
      throw new Error(`${variable}: "${entry}" is not <application>=${expected} (an application is ${apps})`);
    }
    parsed.set(app, value);
  }
  return parsed;
}

const wholeNumber = (min: number, max: number) => (text: string) => {
  const value = Number(text);
  return /^\d+$/.test(text) && value >= min && value <= max ? value : undefined;
};

const positiveNumber = (text: string) => {
  const value = Number(text);
  return text !== '' && Number.isFinite(value) && value > 0 && value <= 1000 ? value : undefined;
};

const priority = (text: string) =>
  (PRIORITIES as readonly string[]).find((value) => value === text.toLowerCase()) as Priority | undefined;

export interface SharingSettings {
  readonly agingMs?: number | undefined;
  readonly priorities?: readonly string[] | undefined;
  readonly weights?: readonly string[] | undefined;
  readonly limits?: readonly string[] | undefined;
}

export function parseSharingPolicy(settings: SharingSettings): SharingPolicy {
  return Object.freeze({
    agingMs: settings.agingMs ?? DEFAULT_AGING_MS,
    priorities: parseEntries('FLEET_APP_PRIORITIES', settings.priorities ?? [], priority, 'high|normal|low', false),
    weights: parseEntries(
      'FLEET_APP_WEIGHTS',
      settings.weights ?? [],
      positiveNumber,
      'a number above 0, at most 1000',
      false,
    ),
    limits: parseEntries(
      'FLEET_APP_LIMITS',
      settings.limits ?? [],
      wholeNumber(1, 100_000),
      'a whole number from 1 to 100000',
      true,
    ),
  });
}

/**
 * The priority a request gets when it states none: its application's default, else the default of the
 * first of its tags that has one, else `normal`.
 */
export function defaultPriority(policy: SharingPolicy, app: string, tags: readonly string[]): Priority {
  const own = policy.priorities.get(app);
  if (own !== undefined) return own;
  for (const tag of tags) {
    const byTag = policy.priorities.get(`tag:${tag}`);
    if (byTag !== undefined) return byTag;
  }
  return 'normal';
}

export function weightOf(policy: Pick<SharingPolicy, 'weights'>, app: string): number {
  return policy.weights.get(app) ?? 1;
}

/** The application's limit on requests in flight, its own or `*`'s; undefined: none. */
export function limitOf(policy: Pick<SharingPolicy, 'limits'>, app: string): number | undefined {
  return policy.limits.get(app) ?? policy.limits.get('*');
}
