/**
 * `/api/chat` and `/api/generate` on a node with a performance model: the reply is planned as without one
 * (same tokens, same lengths, `done_reason`), then handed to the node scheduler, which decides when it
 * starts, when each token comes out and how long the load, the prompt and the answer took. Each streamed
 * line is one token, written when the scheduler reports it; the durations on the wire are the wall-clock
 * ones the request took.
 */
import type { ServerResponse } from 'node:http';
import { msToNs } from '../clock';
import type { FaultController } from '../faults';
import { sendJson } from '../http';
import { createNdjsonWriter, type NdjsonWriter } from '../ndjson';
import { chunkLine, finalLine, loadReply, type Metrics, type Part, type Plan, planReply } from '../ollama-completion';
import type { CompletionRequest } from '../ollama-request';
import type { ModelRuntime } from '../runtime';
import type { JobResult, JobSpec } from './job';
import type { NodeScheduler } from './scheduler';

export interface PerformanceCompletionDeps {
  readonly scheduler: NodeScheduler;
  readonly runtime: ModelRuntime;
  readonly faults: FaultController;
}

/** A streamed line and the token count at which it goes out. */
interface TimedPart {
  readonly part: Part;
  readonly at: number;
}

/** Thinking and content go out one token a line; a tool call goes out whole once its tokens are done. */
function timedParts(plan: Plan): TimedPart[] {
  const parts: TimedPart[] = [];
  for (const thinking of plan.thinking) parts.push({ part: { thinking }, at: parts.length + 1 });
  for (const content of plan.content) parts.push({ part: { content }, at: parts.length + 1 });
  for (const tool of plan.toolCalls) parts.push({ part: { tool }, at: plan.evalCount });
  return parts;
}

function metricsOf(result: JobResult, plan: Plan): Metrics {
  return {
    total_duration: Math.max(1, msToNs(result.finishedAt - result.arrivedAt)),
    load_duration: msToNs(result.readyAt - result.arrivedAt),
    prompt_eval_count: result.evaluatedTokens,
    prompt_eval_duration: Math.max(1, msToNs(result.firstTokenAt - result.admittedAt)),
    eval_count: plan.evalCount,
    eval_duration: Math.max(1, msToNs(result.finishedAt - result.firstTokenAt)),
  };
}

/**
 * The spec the scheduler runs. The slot will remember the answer as the next turn renders it: a chat's
 * assistant content joined to the messages with the same newline `promptText` uses; a generate's
 * response appended to its prompt.
 */
function jobSpec(request: CompletionRequest, plan: Plan): JobSpec {
  return {
    entry: request.entry,
    keepAliveMs: request.keepAliveMs,
    numCtx: request.numCtx,
    prompt: request.promptText,
    answer: plan.content.join(''),
    separator: request.endpoint === 'chat' ? '\n' : '',
    outputTokens: plan.evalCount,
    streamTokens: request.stream,
    loadOnly: false,
  };
}

function serveLoadOnly(deps: PerformanceCompletionDeps, request: CompletionRequest, res: ServerResponse): void {
  if (request.keepAliveMs === 0) {
    // Ollama sets the model's expiry to now: it unloads as soon as no request holds it.
    deps.runtime.touch(request.entry.name, 0);
    sendJson(res, 200, loadReply(request, true));
    return;
  }
  let answered = false;
  const spec: JobSpec = { ...jobSpec(request, planReply(request)), outputTokens: 0, loadOnly: true };
  const handle = deps.scheduler.submit(spec, {
    done: () => {
      answered = true;
      sendJson(res, 200, loadReply(request, false));
    },
  });
  res.on('close', () => {
    if (!answered) handle.cancel();
  });
}

/** Answers a validated chat or generate request for a text model through the node scheduler. */
export function servePerformanceCompletion(
  deps: PerformanceCompletionDeps,
  request: CompletionRequest,
  res: ServerResponse,
): void {
  if (request.loadOnly) {
    serveLoadOnly(deps, request, res);
    return;
  }
  const plan = planReply(request);
  const parts = timedParts(plan);
  const writer: NdjsonWriter | undefined = request.stream
    ? createNdjsonWriter(res, deps.faults.takeStreamFault())
    : undefined;
  let sent = 0;
  let ended = false;
  const linesUpTo = (count: number): unknown[] => {
    const lines: unknown[] = [];
    for (; sent < parts.length && (parts[sent]?.at ?? Number.POSITIVE_INFINITY) <= count; sent++) {
      lines.push(chunkLine(request, (parts[sent] as TimedPart).part));
    }
    return lines;
  };
  const handle = deps.scheduler.submit(jobSpec(request, plan), {
    tokens: (count) => {
      const lines = linesUpTo(count);
      if (writer !== undefined && lines.length > 0) writer.write(lines);
    },
    done: (result) => {
      ended = true;
      const metrics = metricsOf(result, plan);
      if (writer === undefined) {
        sendJson(res, 200, finalLine(request, plan, true, metrics));
        return;
      }
      if (writer.write([...linesUpTo(Number.POSITIVE_INFINITY), finalLine(request, plan, false, metrics)])) res.end();
    },
  });
  // A client that leaves (or a dropped stream) frees its slot or its place in the queue.
  res.on('close', () => {
    if (!ended) {
      ended = true;
      handle.cancel();
    }
  });
}
