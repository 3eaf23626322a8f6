/**
 * Validation of `/api/chat` and `/api/generate` bodies with the statuses and messages Ollama's server
 * uses (protocols §2.2): 400 `model is required`, 404 `model 'x' not found`, 400 for a capability the
 * model lacks. Produces the parsed request the completion simulator works from.
 */
import { type CatalogModel, hasCapability, withTag } from './catalog';
import { type Fields, fieldsOf, numberField, stringField } from './fields';
import { parseKeepAlive } from './runtime';

export type Endpoint = 'chat' | 'generate';

/** The request fields the simulator reads; everything else is accepted and ignored. */
type CompletionKey =
  | 'model'
  | 'messages'
  | 'prompt'
  | 'system'
  | 'template'
  | 'context'
  | 'raw'
  | 'stream'
  | 'keep_alive'
  | 'options'
  | 'think'
  | 'tools'
  | 'format'
  | 'images'
  | 'width'
  | 'height'
  | 'steps'
  | 'seed';

export type CompletionBody = Fields<CompletionKey>;

type Message = Fields<'role' | 'content' | 'images'>;

export interface ToolSpec {
  readonly name: string;
  readonly parameters: unknown;
}

export interface CompletionRequest {
  readonly endpoint: Endpoint;
  readonly model: string;
  readonly entry: CatalogModel;
  readonly body: CompletionBody;
  readonly stream: boolean;
  /** ms; -1 = forever; undefined = the node's default. */
  readonly keepAliveMs: number | undefined;
  readonly numCtx: number | undefined;
  /** `options.num_predict` when it limits output (absent or negative = no limit). */
  readonly numPredict: number | undefined;
  readonly think: boolean;
  /** The text the answer echoes: the last user message, or the prompt. */
  readonly prompt: string;
  /** Everything the model reads (all messages, system, prompt), for `prompt_eval_count`. */
  readonly promptText: string;
  /** Nothing to answer: a load (or, with `keep_alive: 0`, unload) request. */
  readonly loadOnly: boolean;
  readonly images: number;
  readonly tools: readonly ToolSpec[];
  /** The conversation ends with a tool's result: the model answers it instead of calling again. */
  readonly answersToolResult: boolean;
}

export interface RequestError {
  readonly status: number;
  readonly error: string;
}

/** `registry.ollama.ai/library/x:latest`: how Ollama names a model in capability errors. */
function qualifiedName(name: string): string {
  const tagged = withTag(name);
  return tagged.includes('/') ? `registry.ollama.ai/${tagged}` : `registry.ollama.ai/library/${tagged}`;
}

function option(body: CompletionBody, key: 'num_predict' | 'num_ctx'): number | undefined {
  const options = fieldsOf<'num_predict' | 'num_ctx'>(body.options);
  return numberField(options?.[key]);
}

function messagesOf(body: CompletionBody): Message[] {
  const { messages } = body;
  const out: Message[] = [];
  if (!Array.isArray(messages)) return out;
  for (const item of messages) {
    const message = fieldsOf<'role' | 'content' | 'images'>(item);
    if (message !== undefined) out.push(message);
  }
  return out;
}

function countImages(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

function toolsOf(body: CompletionBody): ToolSpec[] {
  const { tools } = body;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) => {
    const fn = fieldsOf<'name' | 'parameters'>(fieldsOf<'function'>(tool)?.function);
    const name = stringField(fn?.name);
    return name === undefined ? [] : [{ name, parameters: fn?.parameters }];
  });
}

function wantsThinking(entry: CatalogModel, think: unknown): boolean {
  if (think === false) return false;
  if (think === undefined || think === null) return hasCapability(entry, 'thinking');
  return true;
}

interface Texts {
  readonly prompt: string;
  readonly promptText: string;
  readonly loadOnly: boolean;
  readonly images: number;
  readonly answersToolResult: boolean;
}

function chatTexts(body: CompletionBody): Texts {
  const messages = messagesOf(body);
  const users = messages.filter((m) => m.role === 'user');
  const final = messages[messages.length - 1];
  // After a tool ran, the answer is about its result (echoed), as a real model's would be.
  const answersToolResult = final?.role === 'tool';
  const last = answersToolResult ? final : (users[users.length - 1] ?? final);
  return {
    prompt: stringField(last?.content) ?? '',
    promptText: messages.map((m) => stringField(m.content) ?? '').join('\n'),
    loadOnly: messages.length === 0,
    images: users.reduce((sum, m) => sum + countImages(m.images), 0),
    answersToolResult,
  };
}

function generateTexts(body: CompletionBody): Texts {
  const prompt = stringField(body.prompt) ?? '';
  const system = stringField(body.system) ?? '';
  return {
    prompt,
    promptText: `${system}\n${prompt}`,
    loadOnly: prompt === '',
    images: countImages(body.images),
    answersToolResult: false,
  };
}

function shapeError(endpoint: Endpoint, body: CompletionBody): string | undefined {
  if (endpoint === 'chat' && body.messages !== undefined && !Array.isArray(body.messages)) {
    return 'json: cannot unmarshal messages into Go struct field ChatRequest.messages of type []api.Message';
  }
  if (endpoint === 'generate' && body.prompt !== undefined && typeof body.prompt !== 'string') {
    return 'json: cannot unmarshal prompt into Go struct field GenerateRequest.prompt of type string';
  }
  const raw = endpoint === 'generate' && body.raw === true;
  if (raw && (body.template !== undefined || body.system !== undefined || body.context !== undefined)) {
    return 'raw mode does not support template, system, or context';
  }
  return undefined;
}

function capabilityError(request: CompletionRequest): string | undefined {
  const { entry, model, body, endpoint } = request;
  const imageGeneration = endpoint === 'generate' && hasCapability(entry, 'image');
  if (!hasCapability(entry, 'completion') && !imageGeneration) return `"${model}" does not support ${endpoint}`;
  if (body.think !== undefined && body.think !== false && !hasCapability(entry, 'thinking')) {
    return `"${model}" does not support thinking`;
  }
  if (request.tools.length > 0 && !hasCapability(entry, 'tools'))
    return `${qualifiedName(model)} does not support tools`;
  return undefined;
}

function buildRequest(
  endpoint: Endpoint,
  model: string,
  entry: CatalogModel,
  body: CompletionBody,
): CompletionRequest | RequestError {
  const keepAlive = parseKeepAlive(body.keep_alive);
  if (typeof keepAlive === 'object') return { status: 400, error: keepAlive.error };
  const numPredict = option(body, 'num_predict');
  const texts = endpoint === 'chat' ? chatTexts(body) : generateTexts(body);
  return {
    endpoint,
    model,
    entry,
    body,
    stream: body.stream !== false,
    keepAliveMs: keepAlive,
    numCtx: option(body, 'num_ctx'),
    numPredict: numPredict !== undefined && numPredict >= 0 ? Math.floor(numPredict) : undefined,
    think: wantsThinking(entry, body.think),
    ...texts,
    images: hasCapability(entry, 'vision') ? texts.images : 0,
    tools: endpoint === 'chat' ? toolsOf(body) : [],
  };
}

/** Parses and checks a chat or generate body; `find` looks the model up on the node. */
export function parseCompletion(
  endpoint: Endpoint,
  value: unknown,
  find: (name: string) => CatalogModel | undefined,
): CompletionRequest | RequestError {
  const body = fieldsOf<CompletionKey>(value);
  if (body === undefined) return { status: 400, error: 'json: cannot unmarshal request body into a JSON object' };
  const model = stringField(body.model);
  if (model === undefined || model.trim() === '') return { status: 400, error: 'model is required' };
  const entry = find(model);
  if (entry === undefined) return { status: 404, error: `model '${model}' not found` };
  const shape = shapeError(endpoint, body);
  if (shape !== undefined) return { status: 400, error: shape };
  const request = buildRequest(endpoint, model, entry, body);
  if (isRequestError(request)) return request;
  const capability = capabilityError(request);
  return capability === undefined ? request : { status: 400, error: capability };
}

export function isRequestError(value: CompletionRequest | RequestError): value is RequestError {
  return 'status' in value;
}
