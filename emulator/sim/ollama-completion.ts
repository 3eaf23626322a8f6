/**
 * The simulated `/api/chat` and `/api/generate` answer (protocols §2.3–§2.4): plans the reply (thinking,
 * content or one whole tool call, `done_reason`), then streams it token by token with the node's timing
 * (load, time to first token, tokens per second) or answers it whole for `stream: false`.
 */
import type { ServerResponse } from 'node:http';
import { hasCapability } from './catalog';
import { msToNs, type Stopwatch, startStopwatch, utcTimestamp } from './clock';
import type { FaultController } from './faults';
import { shortId } from './hash';
import { playNdjson, sendJsonAfter, type TimedLine } from './ndjson';
import { serveImageGenerate } from './ollama-image';
import type { CompletionRequest, ToolSpec } from './ollama-request';
import type { ModelRuntime } from './runtime';
import {
  argumentHint,
  chunkText,
  countPromptTokens,
  formattedReply,
  naturalReplyLength,
  replyTokens,
  thinkingTokens,
  tokenIds,
  toolArguments,
} from './text';

export interface SimTiming {
  /** Time to first token (prompt evaluation), ms. */
  readonly ttftMs: number;
  /** Tokens per second after the first; `Infinity` = no delay. */
  readonly tokensPerSecond: number;
  /** Extra time to load a model that is not hot, ms. */
  readonly loadMs: number;
}

export interface CompletionDeps {
  readonly runtime: ModelRuntime;
  readonly faults: FaultController;
  readonly timing: SimTiming;
}

export interface Plan {
  readonly thinking: readonly string[];
  readonly content: readonly string[];
  readonly toolCalls: readonly Record<string, unknown>[];
  readonly doneReason: 'stop' | 'length';
  readonly evalCount: number;
}

/** The tool a prompt names (case-insensitive), when the model may call tools and is not answering a result. */
function pickTool(request: CompletionRequest): ToolSpec | undefined {
  if (request.answersToolResult) return undefined;
  const prompt = request.prompt.toLowerCase();
  return request.tools.find((tool) => tool.name !== '' && prompt.includes(tool.name.toLowerCase()));
}

function toolCall(request: CompletionRequest, tool: ToolSpec): Record<string, unknown> {
  const args = toolArguments(tool.parameters, argumentHint(request.prompt, tool.name));
  return {
    id: `call_${shortId(`${request.prompt}|${tool.name}`)}`,
    function: { index: 0, name: tool.name, arguments: args },
  };
}

/** What the model says when nothing stops it: a short echo sentence, or the JSON `format` asks for. */
function naturalContent(request: CompletionRequest): string[] {
  const { format } = request.body;
  const structured = format !== undefined && format !== null && format !== '';
  if (structured) return chunkText(formattedReply(format, request.prompt));
  const count = naturalReplyLength(request.prompt);
  return replyTokens(request.prompt, { count, natural: true, images: request.images });
}

/**
 * Like a real model, the simulated one ends its answer on its own (`stop`) and `num_predict` is only a
 * ceiling: the reply is cut (`length`) when the budget runs out first, never padded up to it.
 */
export function planReply(request: CompletionRequest): Plan {
  const limit = request.numPredict;
  const fullThinking = request.think ? thinkingTokens(request.prompt) : [];
  const thinking = limit === undefined ? fullThinking : fullThinking.slice(0, limit);
  const budget = limit === undefined ? undefined : Math.max(0, limit - thinking.length);
  const tool = pickTool(request);
  if (tool !== undefined && budget !== 0) {
    const call = toolCall(request, tool);
    const callTokens = Math.ceil(JSON.stringify(call).length / 4);
    return { thinking, content: [], toolCalls: [call], doneReason: 'stop', evalCount: thinking.length + callTokens };
  }
  const natural = naturalContent(request);
  const content = budget === undefined ? natural : natural.slice(0, budget);
  const cut = thinking.length < fullThinking.length || content.length < natural.length;
  return {
    thinking,
    content,
    toolCalls: [],
    doneReason: cut ? 'length' : 'stop',
    evalCount: thinking.length + content.length,
  };
}

export interface Part {
  readonly content?: string;
  readonly thinking?: string;
  readonly tool?: Record<string, unknown>;
}

interface OllamaMessage {
  role: 'assistant';
  content: string;
  thinking?: string;
  tool_calls?: readonly Record<string, unknown>[];
}

export interface Metrics {
  readonly total_duration: number;
  readonly load_duration: number;
  readonly prompt_eval_count: number;
  readonly prompt_eval_duration: number;
  readonly eval_count: number;
  readonly eval_duration: number;
}

// The line builders below run once per token: plain literals, no object spreads (they are measurably
// slower, and the benchmark measures the router against this node).

/** Ollama's assistant message: `thinking` and `tool_calls` only when there are some. */
function message(content: string, thinking: string, toolCalls: readonly Record<string, unknown>[]): OllamaMessage {
  const out: OllamaMessage = { role: 'assistant', content };
  if (thinking !== '') out.thinking = thinking;
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  return out;
}

export function chunkLine(request: CompletionRequest, part: Part) {
  const { model } = request;
  const createdAt = utcTimestamp();
  if (request.endpoint === 'chat') {
    const tools = part.tool === undefined ? [] : [part.tool];
    return {
      model,
      created_at: createdAt,
      message: message(part.content ?? '', part.thinking ?? '', tools),
      done: false,
    };
  }
  return part.thinking === undefined
    ? { model, created_at: createdAt, response: part.content ?? '', done: false }
    : { model, created_at: createdAt, response: '', thinking: part.thinking, done: false };
}

interface Marks {
  loadMs: number;
  /** The context the model runs with: a longer prompt is cut to it, silently, as Ollama does. */
  context: number;
  firstNs: number | undefined;
  readonly watch: Stopwatch;
}

function metrics(request: CompletionRequest, plan: Plan, marks: Marks, nominalFirstNs: number): Metrics {
  const total = marks.watch();
  const first = Math.min(total, marks.firstNs ?? nominalFirstNs);
  return {
    total_duration: Math.max(total, 1),
    load_duration: msToNs(marks.loadMs) + 1_000_000,
    prompt_eval_count: Math.min(countPromptTokens(request.promptText), marks.context),
    prompt_eval_duration: Math.max(1, first - msToNs(marks.loadMs)),
    eval_count: plan.evalCount,
    eval_duration: Math.max(1, total - first),
  };
}

function finalChat(request: CompletionRequest, plan: Plan, whole: boolean, m: Metrics) {
  return {
    model: request.model,
    created_at: utcTimestamp(),
    message: whole ? message(plan.content.join(''), plan.thinking.join(''), plan.toolCalls) : message('', '', []),
    done: true,
    done_reason: plan.doneReason,
    total_duration: m.total_duration,
    load_duration: m.load_duration,
    prompt_eval_count: m.prompt_eval_count,
    prompt_eval_duration: m.prompt_eval_duration,
    eval_count: m.eval_count,
    eval_duration: m.eval_duration,
  };
}

interface GenerateFinal {
  model: string;
  created_at: string;
  response: string;
  thinking?: string;
  done: true;
  done_reason: Plan['doneReason'];
  context?: number[];
}

function finalGenerate(request: CompletionRequest, plan: Plan, whole: boolean, m: Metrics): GenerateFinal & Metrics {
  const line: GenerateFinal & Metrics = {
    model: request.model,
    created_at: utcTimestamp(),
    response: whole ? plan.content.join('') : '',
    done: true,
    done_reason: plan.doneReason,
    total_duration: m.total_duration,
    load_duration: m.load_duration,
    prompt_eval_count: m.prompt_eval_count,
    prompt_eval_duration: m.prompt_eval_duration,
    eval_count: m.eval_count,
    eval_duration: m.eval_duration,
  };
  if (whole && plan.thinking.length > 0) line.thinking = plan.thinking.join('');
  if (request.body.raw !== true) line.context = tokenIds([...request.promptText.split(/\s+/), ...plan.content]);
  return line;
}

export function finalLine(request: CompletionRequest, plan: Plan, whole: boolean, m: Metrics) {
  return request.endpoint === 'chat' ? finalChat(request, plan, whole, m) : finalGenerate(request, plan, whole, m);
}

function tokenGapMs(timing: SimTiming): number {
  return Number.isFinite(timing.tokensPerSecond) && timing.tokensPerSecond > 0 ? 1000 / timing.tokensPerSecond : 0;
}

function streamLines(request: CompletionRequest, plan: Plan, marks: Marks, timing: SimTiming): TimedLine[] {
  const parts = [
    ...plan.thinking.map((thinking) => ({ thinking })),
    ...plan.content.map((content) => ({ content })),
    ...plan.toolCalls.map((tool) => ({ tool })),
  ];
  const firstDelay = marks.loadMs + timing.ttftMs;
  const gap = tokenGapMs(timing);
  const lines: TimedLine[] = parts.map((part, i) => ({
    delayMs: i === 0 ? firstDelay : gap,
    build: () => {
      if (i === 0) marks.firstNs = marks.watch();
      return chunkLine(request, part);
    },
  }));
  const nominalFirst = msToNs(firstDelay);
  lines.push({
    delayMs: parts.length === 0 ? firstDelay : 0,
    build: () => finalLine(request, plan, false, metrics(request, plan, marks, nominalFirst)),
  });
  return lines;
}

/** The answer to a request with nothing to say: the model is loaded (`load`) or, with keep_alive 0, `unload`. */
export function loadReply(request: CompletionRequest, unload: boolean) {
  const base = { model: request.model, created_at: utcTimestamp() };
  const reply = request.endpoint === 'chat' ? { message: { role: 'assistant', content: '' } } : { response: '' };
  return { ...base, ...reply, done: true, done_reason: unload ? 'unload' : 'load' };
}

function answerLoad(deps: CompletionDeps, request: CompletionRequest, res: ServerResponse, loadMs: number): void {
  const unload = request.keepAliveMs === 0;
  const build = () => {
    if (unload) deps.runtime.unload(request.entry.name);
    return loadReply(request, unload);
  };
  sendJsonAfter(res, loadMs, build, () => {});
}

/** Answers a validated chat or generate request (text models; image models go to `serveImageGenerate`). */
export function serveCompletion(deps: CompletionDeps, request: CompletionRequest, res: ServerResponse): void {
  const marks: Marks = { loadMs: 0, context: Number.POSITIVE_INFINITY, firstNs: undefined, watch: startStopwatch() };
  const cold = deps.runtime.load(request.entry.name, request.keepAliveMs, request.numCtx);
  marks.loadMs = cold ? deps.timing.loadMs : 0;
  marks.context = deps.runtime.hotModel(request.entry.name)?.contextLength ?? Number.POSITIVE_INFINITY;
  if (request.loadOnly) {
    answerLoad(deps, request, res, marks.loadMs);
    return;
  }
  const end = deps.runtime.begin(request.entry.name);
  if (request.endpoint === 'generate' && hasCapability(request.entry, 'image')) {
    const gap = tokenGapMs(deps.timing);
    const timing = { firstMs: marks.loadMs + deps.timing.ttftMs, stepMs: gap, loadMs: marks.loadMs };
    serveImageGenerate(request, res, timing, () => deps.faults.takeStreamFault(), end);
    return;
  }
  const plan = planReply(request);
  if (request.stream) {
    playNdjson(res, streamLines(request, plan, marks, deps.timing), deps.faults.takeStreamFault(), end);
    return;
  }
  const firstMs = marks.loadMs + deps.timing.ttftMs;
  const totalMs = firstMs + tokenGapMs(deps.timing) * Math.max(0, plan.evalCount - 1);
  sendJsonAfter(
    res,
    totalMs,
    () => finalLine(request, plan, true, metrics(request, plan, marks, msToNs(firstMs))),
    end,
  );
}
