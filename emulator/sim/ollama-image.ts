/**
 * Ollama-native image generation (ARCHITECTURE.md §8.3: models listed with the `image` capability are generated
 * through `/api/generate`): progress lines `{completed, total}` per step, then a final `done` line whose
 * `image` is a base64 PNG of the requested `width`×`height`.
 */
import type { ServerResponse } from 'node:http';
import { msToNs, startStopwatch, utcTimestamp } from './clock';
import type { StreamFault } from './faults';
import { fieldsOf } from './fields';
import { sendError } from './http';
import { playNdjson, sendJsonAfter, type TimedLine } from './ndjson';
import type { CompletionBody, CompletionRequest } from './ollama-request';
import { gradientPng, isValidSide, MAX_IMAGE_SIDE } from './png';

const DEFAULT_SIDE = 1024;
const DEFAULT_STEPS = 9;

export interface ImageTiming {
  /** Delay before the first step (load + warm-up), ms. */
  readonly firstMs: number;
  /** Delay between steps, ms. */
  readonly stepMs: number;
  readonly loadMs: number;
}

function sizeOf(body: CompletionBody): { width: number; height: number } | undefined {
  const width = body.width ?? DEFAULT_SIDE;
  const height = body.height ?? DEFAULT_SIDE;
  return isValidSide(width) && isValidSide(height) ? { width, height } : undefined;
}

function stepsOf(body: CompletionBody): number {
  const { steps } = body;
  return typeof steps === 'number' && Number.isInteger(steps) && steps > 0 ? Math.min(steps, 100) : DEFAULT_STEPS;
}

/** Answers `/api/generate` for an image model. */
export function serveImageGenerate(
  request: CompletionRequest,
  res: ServerResponse,
  timing: ImageTiming,
  fault: () => StreamFault,
  onEnd: (completed: boolean) => void,
): void {
  const size = sizeOf(request.body);
  if (size === undefined) {
    onEnd(false);
    sendError(res, 400, `width and height must be whole numbers from 1 to ${MAX_IMAGE_SIDE}`);
    return;
  }
  const steps = stepsOf(request.body);
  const watch = startStopwatch();
  // Ollama reads the seed from `options`; a top-level one is accepted too.
  const seed = String(fieldsOf<'seed'>(request.body.options)?.seed ?? request.body.seed ?? '');
  const final = () => ({
    model: request.model,
    created_at: utcTimestamp(),
    response: '',
    done: true,
    done_reason: 'stop',
    image: gradientPng(size.width, size.height, `${request.prompt}|${seed}`).toString('base64'),
    total_duration: Math.max(1, watch()),
    load_duration: msToNs(timing.loadMs) + 1_000_000,
  });
  if (!request.stream) {
    sendJsonAfter(res, timing.firstMs + timing.stepMs * (steps - 1), final, onEnd);
    return;
  }
  const lines: TimedLine[] = [];
  for (let step = 1; step <= steps; step++) {
    const progress = { model: request.model, done: false, completed: step, total: steps };
    lines.push({
      delayMs: step === 1 ? timing.firstMs : timing.stepMs,
      build: () => ({ ...progress, created_at: utcTimestamp() }),
    });
  }
  lines.push({ delayMs: 0, build: final });
  playNdjson(res, lines, fault(), onEnd);
}
