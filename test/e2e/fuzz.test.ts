/**
 * A property-based fuzz of every POST route of serverless.yml (issue 19 item 9), end to end: the built
 * emulator in front of a healthy simulated fleet (a listed node and a node agent with all three
 * sidecars), so a request that looks valid reaches a node. Bodies are arbitrary JSON values, a valid
 * body with one known field of the wrong type, extra fields, long and odd Unicode strings, and text that
 * is not JSON. What must hold for every one: the router's own code never answers 5xx (the fleet is
 * healthy, so no node can be blamed either), and every error body has the family's shape (ARCHITECTURE.md §9.1).
 * Bounded and reproducible: a fixed seed (FUZZ_SEED overrides it), printed by fast-check on failure.
 * Item 6's edge cases (deep nesting, huge and invalid names) and odd spellings of a path (item 7) have
 * properties of their own.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { readRouteTable } from '../../emulator/routes';
import {
  CATALOG,
  DEFAULT_IMAGE_MODELS,
  DEFAULT_TEXT_EMBEDDING_MODELS,
  DEFAULT_TRANSCRIPTION_MODELS,
  type SimAgent,
  type SimNode,
  startSimAgent,
  startSimNode,
} from '../../emulator/sim';
import { familyOf, parsedOrText, shapeProblem } from './family-shapes';
import { eventually, type RouterProcess, startRouter } from './router-process';

const SEED = Number(process.env['FUZZ_SEED'] ?? 1919);
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 100);
/** The edge cases of item 6 (deep nesting, huge and invalid names) are heavier: fewer runs of them. */
const EDGE_RUNS = Math.max(1, Math.floor(RUNS / 5));
/** Per request: a hang is a failure too, reported long before jest's own timeout. */
const REQUEST_TIMEOUT_MS = 20_000;

const CHAT_MODEL = 'llama3.2:3b';
const messages = [{ role: 'user', content: 'fuzz me gently' }];

/** A valid body per POST route: the fuzz starts from it. A route missing here fails the first test. */
const VALID: Readonly<Record<string, Record<string, unknown>>> = {
  '/api/show': { model: CHAT_MODEL },
  '/api/chat': { model: CHAT_MODEL, messages, stream: false, options: { num_predict: 8 } },
  '/api/generate': { model: CHAT_MODEL, prompt: 'fuzz me', stream: false, options: { num_predict: 8 } },
  '/api/pull': { model: CHAT_MODEL, stream: false },
  '/api/embed': { model: 'nomic-embed-text:latest', input: 'fuzz me' },
  '/api/embeddings': { model: 'nomic-embed-text:latest', prompt: 'fuzz me' },
  '/v1/chat/completions': { model: CHAT_MODEL, messages, max_tokens: 8 },
  '/v1/responses': { model: CHAT_MODEL, input: 'fuzz me', max_output_tokens: 16 },
  '/v1/embeddings': { model: 'nomic-embed-text:latest', input: 'fuzz me' },
  '/v1/rerank': { model: 'bge-reranker-base', query: 'fuzz', documents: ['fuzz me', 'leave me'] },
  '/v1/images/generations': { model: 'z-image-turbo', prompt: 'a small fuzzy cat', size: '64x64' },
  '/v1/messages': { model: CHAT_MODEL, max_tokens: 8, messages },
  '/v1/messages/count_tokens': { model: CHAT_MODEL, messages },
  '/api/generate-image': { model: 'z-image-turbo', prompt: 'a small fuzzy cat', width: 64, height: 64, steps: 2 },
  '/api/transcribe': { model: 'qwen3-asr' },
  '/dashboard/api/settings': { image_generation: true, transcription: true },
  '/dashboard/api/pull': { model: CHAT_MODEL, stream: false },
  // The copy /api/copy makes above (ollama's routes come first in serverless.yml); a 404 once it is gone.
  '/dashboard/api/delete': { node_id: 'studio', model: 'fuzz-copy:latest' },
  // A one-second run: later starts are a 409 until it ends, and a cancel ends it early.
  '/dashboard/api/benchmarks/start': { mode: 'default', duration: 1, model_types: ['llm'] },
  '/dashboard/api/benchmarks/cancel': {},
  '/api/copy': { source: CHAT_MODEL, destination: 'fuzz-copy:latest' },
  '/api/create': { model: 'fuzz-made:latest', from: CHAT_MODEL },
  '/api/push': { model: CHAT_MODEL },
  // Filled in from the agent's own payload, under a node id of its own.
  '/heartbeat': {},
  '/fleet/heartbeat': {},
};

/** The fields that name things (models, nodes): kept printable and short here; their edge cases are item 6's. */
const NAME_FIELDS = new Set(['model', 'name', 'node_id']);

/** Routes that change the fleet or the settings go last, so they cannot take the others' nodes away. */
const LAST = ['/dashboard/api/settings', '/heartbeat', '/fleet/heartbeat'];

const routeTable = readRouteTable(join(__dirname, '..', '..', 'serverless.yml'));
const POST_ROUTES = routeTable.routes
  .filter((route) => route.method === 'POST')
  .map((route) => route.pattern.template)
  .sort((left, right) => Number(LAST.includes(left)) - Number(LAST.includes(right)));

let plain: SimNode;
let agent: SimAgent;
let router: RouterProcess;
const figures = { requests: 0, byStatus: new Map<number, number>() };

beforeAll(async () => {
  plain = await startSimNode({
    id: 'plain',
    models: CATALOG.filter((entry) => [CHAT_MODEL, 'nomic-embed-text:latest'].includes(entry.name)),
    loaded: [CHAT_MODEL],
    ttftMs: 0,
    tokensPerSecond: Number.POSITIVE_INFINITY,
    pullStepMs: 0,
  });
  router = await startRouter({
    FLEET_NODES: `plain=${plain.url}`,
    FLEET_IMAGE_GENERATION: 'true',
    FLEET_TRANSCRIPTION: 'true',
  });
  agent = await startSimAgent({
    nodeId: 'studio',
    routerUrl: router.url,
    // Often enough that the agent's node never ages towards offline during the run.
    intervalMs: 1000,
    ollamaOptions: {
      id: 'studio',
      models: CATALOG.filter((entry) => [CHAT_MODEL, 'qwen3:8b'].includes(entry.name)),
      loaded: [CHAT_MODEL],
      ttftMs: 0,
      tokensPerSecond: Number.POSITIVE_INFINITY,
      pullStepMs: 0,
    },
    imageStepMs: 0,
    transcriptionJobMs: 0,
    image: DEFAULT_IMAGE_MODELS,
    transcription: DEFAULT_TRANSCRIPTION_MODELS,
    textEmbedding: DEFAULT_TEXT_EMBEDDING_MODELS,
  });
  await agent.sendHeartbeat();
  const heartbeat = { ...agent.payload(), node_id: 'fuzz-heartbeat' } as unknown as Record<string, unknown>;
  Object.assign(VALID['/heartbeat'] ?? {}, heartbeat);
  Object.assign(VALID['/fleet/heartbeat'] ?? {}, heartbeat);
  await eventually(async () => {
    const tags = (await (await fetch(`${router.url}/api/tags`)).json()) as { models: { name: string }[] };
    expect(tags.models.map((model) => model.name)).toEqual(expect.arrayContaining([CHAT_MODEL, 'z-image-turbo']));
  });
}, 30_000);

afterAll(async () => {
  console.log(
    `fuzz: seed ${SEED}, ${figures.requests} requests, by status ${JSON.stringify(Object.fromEntries(figures.byStatus))}`,
  );
  await agent?.stop();
  await router?.stop();
  await plain?.close();
});

/** Strings as clients send them and as they should not: Unicode, control characters, lone surrogates, long. */
const oddString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom('\u0000', '\u0007', '\n', '\r', '\u001b', '\u2028', '\ud800', '\udfff', '"', '\\'),
    maxLength: 20,
  }),
  fc.string({ unit: 'grapheme-ascii', minLength: 2000, maxLength: 20_000 }),
);

const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  oddString,
  fc.constantFrom(null, true, false, 0, -1, 1e308, -0.5, 2 ** 53, '', [], {}),
);

/** What a name field gets: every JSON type but a string, or a short printable string. */
const nameValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).filter((value) => typeof value !== 'string'),
  fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
);

interface Case {
  readonly label: string;
  readonly body: string;
}

function caseFor(route: string): fc.Arbitrary<Case> {
  const valid = VALID[route] ?? {};
  const keys = Object.keys(valid);
  const known = keys.length === 0 ? fc.constant('model') : fc.constantFrom(...keys);
  const validText = JSON.stringify(valid);
  const json = (label: string, value: unknown): Case => ({ label, body: JSON.stringify(value) });
  return fc.oneof(
    anyJson.map((value) => json('any JSON value', value)),
    known.chain((key) =>
      (NAME_FIELDS.has(key) ? nameValue : anyJson).map((value) => json(`${key} replaced`, { ...valid, [key]: value })),
    ),
    known.map((key) =>
      json(`${key} left out`, Object.fromEntries(Object.entries(valid).filter(([name]) => name !== key))),
    ),
    fc
      .dictionary(fc.string({ unit: 'grapheme', maxLength: 12 }), anyJson, { maxKeys: 4 })
      .map((extra) => json('extra fields', { ...extra, ...valid })),
    fc
      .nat({ max: Math.max(0, validText.length - 1) })
      .map((cut) => ({ label: 'cut short', body: validText.slice(0, cut) })),
    oddString.map((text) => ({ label: 'not JSON', body: `{${text}` })),
  );
}

const RAW_MARKER = '<<raw JSON goes here>>';

/** `{...valid, [key]: <raw JSON text>}`: the text goes in as is, so it may be nested deeper than JSON.stringify could. */
function withRawField(valid: Record<string, unknown>, key: string, raw: string): string {
  return JSON.stringify({ ...valid, [key]: RAW_MARKER }).replace(JSON.stringify(RAW_MARKER), () => raw);
}

/** A body whose name field holds bytes that are not UTF-8. */
function invalidUtf8Name(valid: Record<string, unknown>, key: string): { label: string; body: Uint8Array } {
  const [before = '', after = ''] = JSON.stringify({ ...valid, [key]: 'llama3.2\u0001:3b' }).split('\\u0001');
  return {
    label: `${key} with invalid UTF-8`,
    body: Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(after)]),
  };
}

/** Item 6's inputs: values nested thousands deep, names of hundreds of kilobytes, names with control characters or invalid UTF-8. */
function edgeCaseFor(route: string): fc.Arbitrary<{ readonly label: string; readonly body: string | Uint8Array }> {
  const valid = VALID[route] ?? {};
  const keys = [...Object.keys(valid), 'options', 'metadata', 'extra'];
  const nameKey = Object.keys(valid).find((key) => NAME_FIELDS.has(key)) ?? 'model';
  const deep = fc.record({
    key: fc.constantFrom(...keys),
    depth: fc.integer({ min: 1000, max: 6000 }),
    array: fc.boolean(),
  });
  return fc.oneof(
    deep.map(({ key, depth, array }) => ({
      label: `${key} nested ${depth} deep`,
      body: withRawField(
        valid,
        key,
        array ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      ),
    })),
    fc.constantFrom(20_000, 100_000, 800_000).map((length) => ({
      label: `${nameKey} of ${length} characters`,
      body: JSON.stringify({ ...valid, [nameKey]: `${'m'.repeat(length)}:latest` }),
    })),
    fc.constantFrom('\u0000', '\r\n', '\u0007', '\u007f', '\ud800', '\udfff').map((odd) => ({
      label: `${nameKey} with ${JSON.stringify(odd)}`,
      body: JSON.stringify({ ...valid, [nameKey]: `llama3.2${odd}:3b` }),
    })),
    fc.constant(invalidUtf8Name(valid, nameKey)),
  );
}

interface Outcome {
  readonly status: number;
  readonly body: unknown;
}

async function send(route: string, body: string | Uint8Array): Promise<Outcome> {
  const response = await fetch(`${router.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  figures.requests += 1;
  figures.byStatus.set(response.status, (figures.byStatus.get(response.status) ?? 0) + 1);
  return { status: response.status, body: parsedOrText(text) };
}

/**
 * The one 5xx a route answers by design: Ollama's create and push are not run through the fleet, and say
 * so with 501 and what to do instead (README). Any other 5xx is the router's own failure.
 */
const BY_DESIGN: Readonly<Record<string, number>> = { '/api/create': 501, '/api/push': 501 };

/** Why the answer breaks the rules, or undefined when it keeps them. */
function problemWith(route: string, outcome: Outcome): string | undefined {
  if (outcome.status >= 500 && outcome.status !== BY_DESIGN[route])
    return `answered ${outcome.status}: ${JSON.stringify(outcome.body).slice(0, 300)}`;
  if (outcome.status < 400) return undefined;
  const shape = shapeProblem(familyOf(route), outcome.body);
  return shape === undefined ? undefined : `${outcome.status} ${shape}: ${JSON.stringify(outcome.body).slice(0, 300)}`;
}

describe('fuzzing every POST route', () => {
  it('has a valid body for every POST route of serverless.yml', () => {
    expect(POST_ROUTES.filter((route) => VALID[route] === undefined)).toEqual([]);
    expect(POST_ROUTES.length).toBeGreaterThanOrEqual(18);
  });

  it.each(POST_ROUTES)(
    '%s: no 5xx, and every error in the family shape',
    async (route) => {
      await fc.assert(
        fc.asyncProperty(caseFor(route), async ({ body }) => {
          const problem = problemWith(route, await send(route, body));
          expect(problem).toBeUndefined();
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    120_000,
  );
});

describe('fuzzing every POST route with deep nesting and huge or invalid names (item 6)', () => {
  it.each(POST_ROUTES)(
    '%s: a 4xx in the family shape that does not echo the input back',
    (route) => fuzzEdges(route),
    120_000,
  );
});

async function fuzzEdges(route: string): Promise<void> {
  await fc.assert(
    fc.asyncProperty(edgeCaseFor(route), async ({ body }) => {
      const outcome = await send(route, body);
      expect(problemWith(route, outcome)).toBeUndefined();
      const errorLength = outcome.status >= 400 ? JSON.stringify(outcome.body).length : 0;
      expect(errorLength).toBeLessThan(4096);
    }),
    { numRuns: EDGE_RUNS, seed: SEED, endOnFailure: true },
  );
}

describe('odd spellings of a path (item 7)', () => {
  const bodyIsRefusedInShape = async (odd: string, route: string) => {
    const outcome = await send(odd, '{"model": 7}');

    expect(outcome.status).toBe(400);
    expect(shapeProblem(familyOf(route), outcome.body)).toBeUndefined();
  };

  it.each([
    ['/api/chat/', '/api/chat'],
    ['/v1/messages/', '/v1/messages'],
    ['//v1/chat/completions', '/v1/chat/completions'],
    ['//api/chat', '/api/chat'],
    ['//v1/messages', '/v1/messages'],
  ])('%s answers a bad body in the shape of %s', bodyIsRefusedInShape);
});
