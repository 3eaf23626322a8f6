/**
 * The memory budget's measurement (ARCHITECTURE.md §6, issue 42): the resident memory of every process a
 * party runs (./process-tree: the router, whose table is a thread of its own, any child), sampled every
 * `SAMPLE_INTERVAL_MS` while chosen runs go on — the c=64 runs, the many-streams runs. The tree is looked
 * up when a run starts and again when it ends (a child started meanwhile is counted from then): finding it
 * reads every process's /proc entry, ~2 ms, and the sampler shares the load's event loop, where a stall
 * would show in the client's figures; a sample reads only the tree's status files (~20 µs each). The
 * budget reads the sum of each process's peak, which is never below the peak of their sum (a sample
 * between two peaks could miss it); both are reported.
 */
import { processLabel, processTree, residentKb } from './process-tree';
import type { Verdict } from './verdict';

const SAMPLE_INTERVAL_MS = 50;

/** One sample: resident kB by pid, every process of the tree at one moment. */
export type RssSample = ReadonlyMap<number, number>;

export interface ProcessPeak {
  readonly pid: number;
  readonly label: string;
  readonly peakMb: number;
}

export interface RssPeaks {
  /** Each process's peak, in the order the processes were first seen (the root first). */
  readonly processes: readonly ProcessPeak[];
  /** The budget's figure: the processes' peaks added up. */
  readonly sumOfPeaksMb: number;
  /** The largest total of any one sample. */
  readonly peakOfSumMb: number;
  readonly samples: number;
}

/** The peaks of `samples`; `labels` names each pid (pid N when missing). */
export function summarizeRss(samples: readonly RssSample[], labels: ReadonlyMap<number, string>): RssPeaks {
  const peaks = new Map<number, number>();
  let peakOfSum = 0;
  for (const sample of samples) {
    let sum = 0;
    for (const [pid, kb] of sample) {
      sum += kb;
      peaks.set(pid, Math.max(peaks.get(pid) ?? 0, kb));
    }
    peakOfSum = Math.max(peakOfSum, sum);
  }
  const processes = [...peaks].map(([pid, kb]) => ({ pid, label: labels.get(pid) ?? `pid ${pid}`, peakMb: kb / 1024 }));
  return {
    processes,
    sumOfPeaksMb: processes.reduce((sum, entry) => sum + entry.peakMb, 0),
    peakOfSumMb: peakOfSum / 1024,
    samples: samples.length,
  };
}

export interface RssWindow {
  /** Runs `work`, sampling the tree until it settles; samples of every call add up. */
  during<T>(work: () => Promise<T>): Promise<T>;
  peaks(): RssPeaks;
}

/** Samples of the tree under `root`, taken only while `during` runs. */
export function createRssWindow(root: number): RssWindow {
  const samples: RssSample[] = [];
  const labels = new Map<number, string>();
  let tree: number[] = [];
  const lookUp = () => {
    tree = processTree(root);
    for (const pid of tree) if (!labels.has(pid)) labels.set(pid, processLabel(pid));
  };
  const sample = () => {
    const taken = new Map<number, number>();
    for (const pid of tree) {
      const kb = residentKb(pid);
      if (kb !== undefined) taken.set(pid, kb);
    }
    if (taken.size > 0) samples.push(taken);
  };
  return {
    async during(work) {
      lookUp();
      sample();
      const timer = setInterval(sample, SAMPLE_INTERVAL_MS);
      try {
        return await work();
      } finally {
        clearInterval(timer);
        lookUp();
        sample();
      }
    },
    peaks: () => summarizeRss(samples, labels),
  };
}

/** `emulator/main.js 131.0 MB + emulator/table.js 58.2 MB`: each process's peak, for the report. */
export function peaksText(peaks: RssPeaks): string {
  return peaks.processes.map((entry) => `${entry.label} ${entry.peakMb.toFixed(1)} MB`).join(' + ');
}

/** The memory budget, in MB: every process the router runs, each one's peak, added up. */
export const MEMORY_BUDGET_MB = 170;

/** The memory budget's line for the runs `during` names. */
export function memoryVerdict(during: string, peaks: RssPeaks): Verdict {
  return {
    what: `memory: peak RSS of every process the router runs, summed, during ${during}`,
    measured: `${peaks.sumOfPeaksMb.toFixed(1)} MB = ${peaksText(peaks)} (largest sampled total ${peaks.peakOfSumMb.toFixed(1)} MB, ${peaks.samples} samples)`,
    budget: `≤ ${MEMORY_BUDGET_MB} MB`,
    ok: peaks.samples > 0 && peaks.sumOfPeaksMb <= MEMORY_BUDGET_MB,
  };
}
