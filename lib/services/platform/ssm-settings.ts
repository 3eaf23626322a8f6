/**
 * Settings kept in SSM Parameter Store rather than in a function's environment: the client, operator and
 * node keys.
 * In AWS a function's environment names the parameters (`FLEET_API_KEYS_SSM=/fleet-router/dev/api-keys`,
 * serverless.yml), and the values — SecureString comma lists — are read once per container, before the
 * config is built (./config `configReady`), with one signed `GetParameters` call (./sigv4) under the
 * function's own role. Nothing is read when no such variable is set: the emulator and the tests keep
 * `FLEET_API_KEYS`, `FLEET_ADMIN_KEYS` and `FLEET_NODE_KEYS` in the environment, as before.
 */
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { type AwsCredentials, signPost } from './sigv4';

type Send = (url: URL, options: RequestOptions, answer: (incoming: IncomingMessage) => void) => ClientRequest;

/** `<variable>_SSM` names the parameter that holds `<variable>`. */
export const SSM_SETTINGS = {
  FLEET_API_KEYS_SSM: 'FLEET_API_KEYS',
  FLEET_ADMIN_KEYS_SSM: 'FLEET_ADMIN_KEYS',
  FLEET_NODE_KEYS_SSM: 'FLEET_NODE_KEYS',
} as const;

type SsmVariable = keyof typeof SSM_SETTINGS;
type Environment = Readonly<Record<string, string | undefined>>;

/** The parameters the environment names, by the setting each holds; empty when none is configured. */
export function ssmParameterNames(env: Environment): Map<string, string> {
  const names = new Map<string, string>();
  for (const variable of Object.keys(SSM_SETTINGS) as SsmVariable[]) {
    const name = env[variable]?.trim();
    if (name === undefined || name === '') continue;
    const setting = SSM_SETTINGS[variable];
    const plain = env[setting];
    if (plain !== undefined && plain !== '') throw new Error(`${setting} and ${variable} are both set: keep one`);
    names.set(setting, name);
  }
  return names;
}

export interface SsmReadOptions {
  /** Per attempt; the whole read takes at most `attempts` of these plus the waits between them. */
  readonly timeoutMs?: number;
  readonly attempts?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => Date;
}

/**
 * Reads the parameters the environment names; resolves with each setting's value (`FLEET_API_KEYS` → its
 * comma list). Fails naming any parameter that does not exist, and after `attempts` throttled or failed
 * calls (a burst of cold starts can exceed SSM's standard throughput).
 */
export async function readSsmSettings(env: Environment, options: SsmReadOptions = {}): Promise<Record<string, string>> {
  const names = ssmParameterNames(env);
  if (names.size === 0) return {};
  const region = required(env, 'AWS_REGION');
  const credentials: AwsCredentials = {
    accessKeyId: required(env, 'AWS_ACCESS_KEY_ID'),
    secretAccessKey: required(env, 'AWS_SECRET_ACCESS_KEY'),
    sessionToken: env['AWS_SESSION_TOKEN'],
  };
  // The SDKs' own override, for a test's fake endpoint; the regional endpoint (an interface endpoint's private DNS) otherwise.
  const endpoint = new URL(env['AWS_ENDPOINT_URL_SSM'] ?? `https://ssm.${region}.amazonaws.com`);
  const body = JSON.stringify({ Names: [...new Set(names.values())], WithDecryption: true });
  const answer = await withRetries(
    () => {
      const signed = signPost(
        endpoint,
        body,
        { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AmazonSSM.GetParameters' },
        { region, service: 'ssm' },
        credentials,
        (options.now ?? (() => new Date()))(),
      );
      return post(signed.url, signed.headers, body, options.timeoutMs ?? 3000);
    },
    options.attempts ?? 4,
    options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  );
  return settingsFrom(names, answer);
}

function required(env: Environment, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`reading settings from SSM needs ${name}`);
  return value;
}

interface GetParametersAnswer {
  readonly Parameters?: readonly { readonly Name?: string; readonly Value?: string }[];
  readonly InvalidParameters?: readonly string[];
}

function settingsFrom(names: ReadonlyMap<string, string>, answer: GetParametersAnswer): Record<string, string> {
  const values = new Map((answer.Parameters ?? []).map((parameter) => [parameter.Name, parameter.Value]));
  const settings: Record<string, string> = {};
  for (const [setting, name] of names) {
    const value = values.get(name);
    if (value === undefined) throw new Error(`${setting}: SSM parameter ${name} does not exist`);
    settings[setting] = value;
  }
  return settings;
}

/** An answer worth asking again for: throttled, or the service failing. */
class RetryableError extends Error {}

async function withRetries<T>(call: () => Promise<T>, attempts: number, sleep: (ms: number) => Promise<void>) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof RetryableError) || attempt >= attempts) throw error;
      // 100, 200, 400 ms…, each with up to as much again at random: cold starts in a burst spread out.
      const base = 100 * 2 ** (attempt - 1);
      await sleep(base + Math.floor(Math.random() * base));
    }
  }
}

function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number) {
  // Loaded here, not at module load: only a container that reads SSM pays for TLS's module.
  const send = (url.protocol === 'http:' ? require('node:http').request : require('node:https').request) as Send;
  return new Promise<GetParametersAnswer>((resolve, reject) => {
    const outgoing = send(url, { method: 'POST', headers, timeout: timeoutMs }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', (error) => reject(new RetryableError(`SSM: ${error.message}`)));
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = incoming.statusCode ?? 0;
        if (status === 200) {
          try {
            resolve(JSON.parse(text) as GetParametersAnswer);
          } catch {
            reject(new Error('SSM answered GetParameters with something that is not JSON'));
          }
          return;
        }
        const problem = `SSM answered GetParameters with ${status}: ${text.slice(0, 300)}`;
        reject(status >= 500 || /Throttl/.test(text) ? new RetryableError(problem) : new Error(problem));
      });
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on('error', (error) => reject(new RetryableError(`SSM: ${error.message}`)));
    outgoing.end(body);
  });
}
