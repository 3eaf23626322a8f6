/**
 * Reading the client, operator and node keys from SSM (lib/services/platform/ssm-settings, wired into ./config): a
 * fake SSM endpoint on 127.0.0.1 answers GetParameters only to requests whose SigV4 signature the AWS
 * SDK's own signer (@smithy/signature-v4) computes the same, and counts what it is asked. The config
 * wiring runs in a child process with its own environment (the module reads `process.env` once).
 */
import { execFile } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignatureV4 } from '@smithy/signature-v4';
import { build } from 'esbuild';
import { readSsmSettings, ssmParameterNames } from '../../../../lib/services/platform/ssm-settings';

const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'token-1',
};
const STORED: Record<string, string> = {
  '/fleet-router/test/api-keys': 'sk-client-1,sk-client-2',
  '/fleet-router/test/node-keys': 'node-key-1',
  '/fleet-router/test/admin-keys': 'ops:sk-operator-1',
};

/** node:crypto in the shape the SDK's signer takes (`@aws-crypto/sha256-js` in the SDK itself). */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

function bytes(data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

interface FakeSsm {
  readonly url: string;
  readonly asked: { names: string[]; signatureMatched: boolean }[];
  /** Answers left to throttle before answering. */
  throttle: number;
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/** What the SDK's signer makes of the same request, from the headers the client signed. */
async function expectedAuthorization(request: IncomingMessage, body: string, port: number): Promise<string> {
  const signedNames = /SignedHeaders=([^,]+)/.exec(request.headers.authorization ?? '')?.[1]?.split(';') ?? [];
  const headers = Object.fromEntries(signedNames.map((name) => [name, String(request.headers[name])]));
  const amzDate = headers['x-amz-date'] ?? '';
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const signer = new SignatureV4({
    credentials: CREDENTIALS,
    region: 'eu-west-1',
    service: 'ssm',
    sha256: Sha256,
    // x-amz-content-sha256 is S3's; the client does not send it to SSM.
    applyChecksum: false,
  });
  const signed = await signer.sign(
    { method: 'POST', protocol: 'http:', hostname: '127.0.0.1', port, path: '/', query: {}, headers, body },
    { signingDate },
  );
  return String(signed.headers['authorization']);
}

let ssm: FakeSsm;
let server: Server;
const directory = mkdtempSync(join(tmpdir(), 'ssm-settings-'));

beforeAll(async () => {
  const asked: FakeSsm['asked'] = [];
  server = createServer(async (request, response) => {
    const body = await readBody(request);
    const port = (server.address() as AddressInfo).port;
    const signatureMatched = request.headers.authorization === (await expectedAuthorization(request, body, port));
    const { Names, WithDecryption } = JSON.parse(body) as { Names: string[]; WithDecryption: boolean };
    asked.push({ names: Names, signatureMatched });
    const fail = (status: number, type: string) => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ __type: type, message: type }));
    };
    if (!signatureMatched || request.headers['x-amz-security-token'] !== CREDENTIALS.sessionToken)
      return fail(403, 'InvalidSignatureException');
    if (request.headers['x-amz-target'] !== 'AmazonSSM.GetParameters' || WithDecryption !== true)
      return fail(400, 'ValidationException');
    if (ssm.throttle > 0) {
      ssm.throttle -= 1;
      return fail(400, 'ThrottlingException');
    }
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(
      JSON.stringify({
        Parameters: Names.filter((name) => STORED[name] !== undefined).map((name) => ({
          Name: name,
          Type: 'SecureString',
          Value: STORED[name],
        })),
        InvalidParameters: Names.filter((name) => STORED[name] === undefined),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ssm = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, throttle: 0 };
});

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  await new Promise((resolve) => server.close(resolve));
});

const awsEnvironment = () => ({
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
  AWS_ENDPOINT_URL_SSM: ssm.url,
});
const noWait = async () => {};

describe('readSsmSettings', () => {
  it('reads every named parameter with one signed GetParameters call, decrypted', async () => {
    const before = ssm.asked.length;

    const settings = await readSsmSettings({
      ...awsEnvironment(),
      FLEET_API_KEYS_SSM: '/fleet-router/test/api-keys',
      FLEET_ADMIN_KEYS_SSM: '/fleet-router/test/admin-keys',
      FLEET_NODE_KEYS_SSM: '/fleet-router/test/node-keys',
    });

    expect(settings).toEqual({
      FLEET_API_KEYS: 'sk-client-1,sk-client-2',
      FLEET_ADMIN_KEYS: 'ops:sk-operator-1',
      FLEET_NODE_KEYS: 'node-key-1',
    });
    expect(ssm.asked.slice(before)).toEqual([
      {
        names: ['/fleet-router/test/api-keys', '/fleet-router/test/admin-keys', '/fleet-router/test/node-keys'],
        signatureMatched: true,
      },
    ]);
  });

  it('reads nothing when no parameter is named', async () => {
    const before = ssm.asked.length;

    expect(await readSsmSettings({ ...awsEnvironment(), FLEET_API_KEYS: 'sk-plain', FLEET_API_KEYS_SSM: '' })).toEqual(
      {},
    );
    expect(ssm.asked.length).toBe(before);
  });

  it('names a parameter that does not exist', async () => {
    await expect(
      readSsmSettings({ ...awsEnvironment(), FLEET_API_KEYS_SSM: '/fleet-router/test/missing' }, { sleep: noWait }),
    ).rejects.toThrow('FLEET_API_KEYS: SSM parameter /fleet-router/test/missing does not exist');
  });

  it('asks again when throttled, and gives up after its attempts', async () => {
    const env = { ...awsEnvironment(), FLEET_API_KEYS_SSM: '/fleet-router/test/api-keys' };
    ssm.throttle = 2;
    await expect(readSsmSettings(env, { sleep: noWait, attempts: 3 })).resolves.toEqual({
      FLEET_API_KEYS: 'sk-client-1,sk-client-2',
    });

    ssm.throttle = 3;
    await expect(readSsmSettings(env, { sleep: noWait, attempts: 3 })).rejects.toThrow('ThrottlingException');
    ssm.throttle = 0;
  });

  it('is refused by the endpoint when signed with another secret', async () => {
    const env = {
      ...awsEnvironment(),
      AWS_SECRET_ACCESS_KEY: 'not-the-secret',
      FLEET_API_KEYS_SSM: '/fleet-router/test/api-keys',
    };

    await expect(readSsmSettings(env, { sleep: noWait })).rejects.toThrow('InvalidSignatureException');
  });

  it('refuses a setting given both plainly and as a parameter', () => {
    expect(() => ssmParameterNames({ FLEET_NODE_KEYS: 'k', FLEET_NODE_KEYS_SSM: '/p' })).toThrow(
      'FLEET_NODE_KEYS and FLEET_NODE_KEYS_SSM are both set',
    );
  });
});

describe('the config with settings in SSM', () => {
  /** The config module bundled, run in a child with `env`: what getConfig says before and after configReady. */
  async function configIn(env: Record<string, string>) {
    const outfile = join(directory, 'config.js');
    await build({
      entryPoints: [join(__dirname, '..', '..', '..', '..', 'lib', 'services', 'platform', 'config.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile,
      logLevel: 'silent',
    });
    const probe = `
      const config = require(${JSON.stringify(outfile)});
      (async () => {
        let before;
        try { before = config.getConfig().apiKeys ?? null; } catch (error) { before = error.message; }
        const pending = config.configReady();
        await pending;
        process.stdout.write(JSON.stringify({
          before, waited: pending !== undefined, apiKeys: config.getConfig().apiKeys ?? null,
          nodeKeys: config.getConfig().nodeKeys ?? null, again: config.configReady() === undefined,
        }));
      })();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', probe], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it('is built only once the keys are read, and with them', async () => {
    const result = await configIn({
      ...awsEnvironment(),
      FLEET_API_KEYS_SSM: '/fleet-router/test/api-keys',
      FLEET_NODE_KEYS_SSM: '/fleet-router/test/node-keys',
    });

    expect(result).toEqual({
      before: 'the settings kept in SSM are not read yet: await configReady() before getConfig()',
      waited: true,
      apiKeys: ['sk-client-1', 'sk-client-2'],
      nodeKeys: ['node-key-1'],
      again: true,
    });
  });

  it('is built from the environment alone, with nothing to wait for, when no parameter is named', async () => {
    const before = ssm.asked.length;

    const result = await configIn({ ...awsEnvironment(), FLEET_API_KEYS: 'sk-plain' });

    expect(result).toEqual({ before: ['sk-plain'], waited: false, apiKeys: ['sk-plain'], nodeKeys: null, again: true });
    expect(ssm.asked.length).toBe(before);
  });
});
