/**
 * A routing-bench scenario (issue 41 item 3): a fleet description and the workload and scales to replay on
 * it, read from a JSON file in ./scenarios and checked with zod. The file sets its own defaults for the
 * window, rate scale, time scale and seed; the command line overrides them (./cli).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import * as z from 'zod';

const nodeSchema = z.object({
  id: z.string().min(1),
  /** A hardware class of the simulated performance model (emulator/sim), e.g. `rtx-4090`. */
  hardware: z.string().min(1),
  /** Multiplier on the hardware's rates (2 = twice as fast). */
  speed: z.number().positive().default(1),
  /** Memory for models, GB. */
  memoryGb: z.number().positive(),
  /** OLLAMA_NUM_PARALLEL. */
  numParallel: z.number().int().positive(),
  /** OLLAMA_MAX_LOADED_MODELS. */
  maxLoadedModels: z.number().int().positive(),
  /** OLLAMA_MULTIUSER_CACHE: each user's cached prefix kept where the runner can (default off, as Ollama's). */
  multiUserCache: z.boolean().default(false),
  /** Models on disk. */
  models: z.array(z.string().min(1)).min(1),
  /** Models hot at start. */
  loaded: z.array(z.string().min(1)).default([]),
});

export const GOALS = ['parity', 'faster', 'fewer-cold-loads', 'cache-share', 'sharing'] as const;
export type Goal = (typeof GOALS)[number];

const scenarioSchema = z.object({
  title: z.string().min(1),
  /** What the scenario shows, one or two sentences for the report. */
  about: z.string().min(1),
  goals: z.array(z.enum(GOALS)).min(1),
  window: z.object({ startSeconds: z.number().min(0), seconds: z.number().positive() }),
  rateScale: z.number().positive(),
  timeScale: z.number().positive(),
  seed: z.number().int().min(0),
  workload: z.object({
    modelMix: z.record(z.string(), z.number().min(0)),
    continueShare: z.number().min(0).max(1),
    minTurnGapSeconds: z.number().min(0),
    continuePick: z.optional(z.enum(['uniform', 'recent', 'closest'])),
    firstTurnMaxTokens: z.optional(z.number().int().positive()),
    contextTokens: z.number().int().positive(),
  }),
  nodes: z.array(nodeSchema).min(1),
  /**
   * A batch application beside the trace (issue 43): a sharing scenario (./sharing), run per variant
   * rather than per strategy. `workersPerSlot` clients per slot of the fleet, each sending its next request
   * as soon as its last ended.
   */
  batch: z.optional(
    z.object({
      model: z.string().min(1),
      promptTokens: z.number().int().positive(),
      outputTokens: z.number().int().positive(),
      workersPerSlot: z.number().int().positive(),
    }),
  ),
});

export type ScenarioNode = z.infer<typeof nodeSchema>;
export type ScenarioSpec = z.infer<typeof scenarioSchema>;

export interface Scenario extends ScenarioSpec {
  /** The file's name without `.json`, e.g. `a-equal-nodes`; its first letter names it on the command line. */
  readonly name: string;
}

/** Reads and checks the scenario file at `path`. */
export function loadScenario(path: string): Scenario {
  const parsed = scenarioSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path}: ${z.prettifyError(parsed.error)}`);
  const spec = parsed.data;
  for (const node of spec.nodes) {
    const unknown = node.loaded.filter((model) => !node.models.includes(model));
    if (unknown.length > 0) throw new Error(`${path}: node ${node.id} loads ${unknown.join(', ')}, not on its disk`);
  }
  const served = new Set(spec.nodes.flatMap((node) => node.models));
  const asked = [...Object.keys(spec.workload.modelMix), ...(spec.batch === undefined ? [] : [spec.batch.model])];
  const unserved = asked.filter((model) => !served.has(model));
  if (unserved.length > 0) throw new Error(`${path}: no node has ${unserved.join(', ')}`);
  return { ...spec, name: basename(path, '.json') };
}
