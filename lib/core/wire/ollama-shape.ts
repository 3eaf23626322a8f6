/**
 * The Ollama shapes of the hot path, checked by hand (issue 24: a schema library on node lines may give way
 * to direct reads of the fields used). A chat request and every node line go through these checks; each
 * answers true only for a value its schema in ./ollama accepts as it is (same fields, same types, nothing
 * the schema would change), so the value is used unparsed. Anything else — a wrong type, a field the check
 * is not sure of — answers false, and the caller runs the zod schema, which accepts it or names the bad
 * field in its usual words: a bad line still becomes the in-band error it always was, with the same text.
 * test/unit/core/wire/ollama-shape.test.ts holds the checks to that (accepted here ⇒ accepted, unchanged,
 * by zod). Pure.
 */

type Fields = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNullish(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

function isText(value: unknown): boolean {
  return isNullish(value) || typeof value === 'string';
}

function isNumber(value: unknown): boolean {
  return isNullish(value) || (typeof value === 'number' && Number.isFinite(value));
}

function isInteger(value: unknown): boolean {
  return isNullish(value) || Number.isSafeInteger(value);
}

function isFlag(value: unknown): boolean {
  return isNullish(value) || typeof value === 'boolean';
}

function isListOf(value: unknown, check: (item: unknown) => boolean): boolean {
  if (isNullish(value)) return true;
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!check(item)) return false;
  return true;
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isStringList(value: unknown): boolean {
  return isListOf(value, isString);
}

function isNullishList(value: unknown): boolean {
  return isNullish(value) || Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------
// What clients send (ollamaClientChatRequestSchema, ollamaClientGenerateRequestSchema).

function isOptions(value: unknown): boolean {
  if (isNullish(value)) return true;
  return (
    isObject(value) && isInteger(value['num_predict']) && isInteger(value['num_ctx']) && isNumber(value['temperature'])
  );
}

function isMetadata(value: unknown): boolean {
  if (isNullish(value)) return true;
  if (!isObject(value)) return false;
  const tags = value['tags'];
  return typeof tags === 'string' || isStringList(tags);
}

function isCommonRequest(value: Fields): boolean {
  const model = value['model'];
  const format = value['format'];
  const keepAlive = value['keep_alive'];
  const think = value['think'];
  return (
    typeof model === 'string' &&
    model.length > 0 &&
    isFlag(value['stream']) &&
    (isNullish(format) || typeof format === 'string' || isObject(format)) &&
    (isNullish(keepAlive) ||
      typeof keepAlive === 'string' ||
      (typeof keepAlive === 'number' && Number.isFinite(keepAlive))) &&
    isOptions(value['options']) &&
    (isNullish(think) || typeof think === 'boolean' || typeof think === 'string') &&
    isStringList(value['fallback_models']) &&
    isMetadata(value['metadata']) &&
    isText(value['user'])
  );
}

function isClientMessage(value: unknown): boolean {
  return (
    isObject(value) && typeof value['role'] === 'string' && isText(value['content']) && isStringList(value['images'])
  );
}

function isTool(value: unknown): boolean {
  return isObject(value) && typeof value['type'] === 'string';
}

/** True when `value` is a chat request the client schema accepts unchanged. */
export function isPlainOllamaChatRequest(value: unknown): boolean {
  return (
    isObject(value) &&
    isCommonRequest(value) &&
    isListOf(value['messages'], isClientMessage) &&
    isListOf(value['tools'], isTool)
  );
}

/** True when `value` is a generate request the client schema accepts unchanged. */
export function isPlainOllamaGenerateRequest(value: unknown): boolean {
  return (
    isObject(value) &&
    isCommonRequest(value) &&
    isText(value['prompt']) &&
    isText(value['suffix']) &&
    isText(value['system']) &&
    isText(value['template']) &&
    isFlag(value['raw']) &&
    isStringList(value['images']) &&
    isListOf(value['context'], (item) => Number.isSafeInteger(item))
  );
}

// ---------------------------------------------------------------------------------------------------
// What a node streams back (ollamaChatChunkSchema, ollamaGenerateChunkSchema).

function hasMetrics(value: Fields): boolean {
  return (
    isFlag(value['done']) &&
    isText(value['done_reason']) &&
    isNumber(value['total_duration']) &&
    isNumber(value['load_duration']) &&
    isNumber(value['prompt_eval_count']) &&
    isNumber(value['prompt_eval_duration']) &&
    isNumber(value['eval_count']) &&
    isNumber(value['eval_duration']) &&
    isNumber(value['prompt_cache_count'])
  );
}

function isToolCall(value: unknown): boolean {
  if (!isObject(value) || !isText(value['id'])) return false;
  const call = value['function'];
  return isObject(call) && isNumber(call['index']) && typeof call['name'] === 'string';
}

function isChunkMessage(value: unknown): boolean {
  if (isNullish(value)) return true;
  return (
    isObject(value) &&
    isText(value['role']) &&
    isText(value['content']) &&
    isText(value['thinking']) &&
    isListOf(value['tool_calls'], isToolCall) &&
    isStringList(value['images'])
  );
}

/** True when `value` is a `/api/chat` line (or whole reply) the chunk schema accepts unchanged. */
export function isPlainOllamaChatChunk(value: unknown): boolean {
  return (
    isObject(value) &&
    isText(value['model']) &&
    isText(value['created_at']) &&
    isChunkMessage(value['message']) &&
    isNullishList(value['logprobs']) &&
    hasMetrics(value)
  );
}

/** True when `value` is a `/api/generate` line (or whole reply) the chunk schema accepts unchanged. */
export function isPlainOllamaGenerateChunk(value: unknown): boolean {
  return (
    isObject(value) &&
    isText(value['model']) &&
    isText(value['created_at']) &&
    isText(value['response']) &&
    isText(value['thinking']) &&
    isListOf(value['context'], (item) => typeof item === 'number' && Number.isFinite(item)) &&
    isNullishList(value['logprobs']) &&
    hasMetrics(value)
  );
}
