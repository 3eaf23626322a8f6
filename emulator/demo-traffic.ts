/**
 * `npm run demo`'s clients: gentle, varied traffic through the router (about one request a second, never
 * more than a few at once), so every view of the dashboard shows something real within a minute — chat in
 * the OpenAI, Anthropic and Ollama styles to several demo models with a few tags, some with `num_ctx` (the
 * Context view), embeddings and rerank, now and then an image and a transcription (when the demo switched
 * them on), and a request for a model no node has (a real 404 trace). It goes through the router's own
 * HTTP API like any client, so what the dashboard shows is what real clients would cause. Off with
 * FLEET_DEMO_TRAFFIC=false (tests that count requests exactly).
 */

export interface DemoTrafficOptions {
  /** The router, e.g. `http://127.0.0.1:11435`. */
  readonly routerUrl: string;
  /** A client key, when FLEET_API_KEYS is set. */
  readonly apiKey?: string | undefined;
  /** Time between two requests (default 1000 ms). */
  readonly intervalMs?: number;
  readonly imageGeneration: boolean;
  readonly transcription: boolean;
}

export interface DemoTraffic {
  /** Requests sent so far. */
  sent(): number;
  /** Stops sending and aborts what is in flight. */
  stop(): Promise<void>;
}

interface DemoRequest {
  readonly path: string;
  readonly body: object | FormData;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Unset or `true`: on; `false`: off; anything else is a mistake worth a sentence. */
export function demoTrafficEnabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env['FLEET_DEMO_TRAFFIC']?.trim() ?? '';
  if (value === '' || value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`FLEET_DEMO_TRAFFIC must be true or false, not "${value}"`);
}

const CHAT_MODELS = ['llama3.2:3b', 'qwen3:8b', 'llama3.2:1b', 'gemma3:12b'];
const TAGS = ['docs-search', 'support-bot', 'nightly-eval', 'team:research'];
const PROMPTS = [
  'Summarise the release notes in two sentences.',
  'Which node should run a 32B model?',
  'Write a haiku about GPUs.',
  'Explain what a context window is.',
  'List three uses of embeddings.',
  'Translate "good morning" into French.',
];
const CONTEXTS = [4096, 8192, 16384];
const MISSING_MODEL = 'no-such-model:7b';
/** At most this many demo requests in flight; a tick with all of them busy is skipped. */
const MAX_IN_FLIGHT = 3;

/** The i-th item of a list, wrapping around. */
const pick = <T>(list: readonly T[], index: number): T => list[index % list.length] as T;

function openAIChat(n: number): DemoRequest {
  return {
    path: '/v1/chat/completions',
    body: {
      model: pick(CHAT_MODELS, n),
      messages: [{ role: 'user', content: pick(PROMPTS, n) }],
      max_tokens: 48,
      stream: n % 2 === 0,
      metadata: { tags: [pick(TAGS, n)] },
      ...(n % 3 === 0 ? { user: `demo-user-${n % 4}` } : {}),
    },
  };
}

function ollamaChat(n: number): DemoRequest {
  return {
    path: n % 2 === 0 ? '/api/chat' : '/api/generate',
    body: {
      model: pick(CHAT_MODELS, n + 1),
      ...(n % 2 === 0 ? { messages: [{ role: 'user', content: pick(PROMPTS, n + 2) }] } : { prompt: pick(PROMPTS, n) }),
      stream: n % 3 !== 0,
      options: { num_ctx: pick(CONTEXTS, n), num_predict: 48 },
      metadata: { tags: [pick(TAGS, n + 1)] },
    },
  };
}

function anthropicMessage(n: number): DemoRequest {
  return {
    path: '/v1/messages',
    headers: { 'x-service-tags': `${pick(TAGS, n + 2)},anthropic-demo`, 'anthropic-version': '2023-06-01' },
    body: {
      model: pick(CHAT_MODELS, n + 2),
      max_tokens: 48,
      stream: n % 2 === 1,
      messages: [{ role: 'user', content: pick(PROMPTS, n + 3) }],
    },
  };
}

function embeddings(n: number): DemoRequest {
  return {
    path: '/v1/embeddings',
    headers: { 'x-service-tags': 'docs-search' },
    body: { model: n % 2 === 0 ? 'nomic-embed-text' : 'bge-small-en-v1.5', input: [pick(PROMPTS, n), 'fleet'] },
  };
}

function rerank(n: number): DemoRequest {
  return {
    path: '/v1/rerank',
    headers: { 'x-service-tags': 'docs-search' },
    body: { query: pick(PROMPTS, n), documents: ['GPUs run models.', 'Paris is in France.', pick(PROMPTS, n + 1)] },
  };
}

function missingModel(n: number): DemoRequest {
  return {
    path: '/api/chat',
    body: { model: MISSING_MODEL, messages: [{ role: 'user', content: pick(PROMPTS, n) }], stream: false },
  };
}

function image(): DemoRequest {
  return {
    path: '/api/generate-image',
    body: { model: 'z-image-turbo', prompt: 'a lighthouse', width: 64, height: 64 },
  };
}

function transcription(): DemoRequest {
  const form = new FormData();
  form.append('audio', new Blob([Buffer.from('RIFF demo audio')], { type: 'audio/wav' }), 'demo.wav');
  return { path: '/api/transcribe', body: form };
}

/**
 * The n-th request of the demo: a round of ten covers chat in three styles, embeddings and rerank; of
 * every three rounds, one adds an image, one a transcription (each in place of a chat; when the demo has
 * them switched on) and one a request for a model no node has.
 */
export function demoRequest(n: number, options: Pick<DemoTrafficOptions, 'imageGeneration' | 'transcription'>) {
  const round = Math.floor(n / 10);
  switch (n % 10) {
    case 0:
    case 3:
      return openAIChat(n);
    case 1:
    case 6:
      return ollamaChat(n);
    case 2:
      return anthropicMessage(n);
    case 4:
      return embeddings(n);
    case 5:
      return rerank(n);
    case 7:
      // Each one is a real 404 and one line in the router's log: one every third round is enough.
      if (round % 3 === 2) return missingModel(n);
      return embeddings(n + 1);
    case 8:
      if (round % 3 === 0 && options.imageGeneration) return image();
      return anthropicMessage(n);
    default:
      if (round % 3 === 1 && options.transcription) return transcription();
      return openAIChat(n);
  }
}

export function startDemoTraffic(options: DemoTrafficOptions): DemoTraffic {
  const intervalMs = options.intervalMs ?? 1000;
  const inFlight = new Set<AbortController>();
  const warned = new Set<string>();
  let count = 0;
  let stopped = false;

  const send = async (request: DemoRequest) => {
    const controller = new AbortController();
    inFlight.add(controller);
    try {
      const isForm = request.body instanceof FormData;
      const reply = await fetch(`${options.routerUrl}${request.path}`, {
        method: 'POST',
        headers: {
          ...(isForm ? {} : { 'content-type': 'application/json' }),
          ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
          ...request.headers,
        },
        body: isForm ? (request.body as FormData) : JSON.stringify(request.body),
        signal: controller.signal,
      });
      // Read to the end: a stream counts as done (and traced) when the client has it all.
      await reply.arrayBuffer();
      const expected = reply.ok || (reply.status === 404 && request.path === '/api/chat');
      const key = `${request.path} ${reply.status}`;
      if (!expected && !warned.has(key) && !stopped) {
        warned.add(key);
        console.warn(`demo traffic: POST ${request.path} answered ${reply.status} (shown once)`);
      }
    } catch {
      // Aborted at stop, or the router went away: the demo's clients just try again next tick.
    } finally {
      inFlight.delete(controller);
    }
  };

  const timer = setInterval(() => {
    if (stopped || inFlight.size >= MAX_IN_FLIGHT) return;
    void send(demoRequest(count, options));
    count++;
  }, intervalMs);
  timer.unref();

  return {
    sent: () => count,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      for (const controller of inFlight) controller.abort();
      while (inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}
