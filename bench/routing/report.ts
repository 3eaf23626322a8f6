/**
 * docs/routing.md, rendered from the stored results (issue 41 item 3): how the bench works (trace and its
 * attribution, how the workload is assigned, time compression), a verdict summary, a section per scenario
 * (fleet, settings, medians, per-node load, verdicts, charts) and the compression check. Pure: results in,
 * markdown and SVG charts out; main.ts writes them.
 */

import { formatNumber } from '../stats';
import { ttftBarsSvg, ttftCdfSvg } from './charts';
import { fleetTable, nodeTable, resultTable, spreadLine, verdictLines } from './report-tables';
import type { CompressionResult, Results, ScenarioResult } from './results';
import { DEFAULT_STRATEGY } from './router';
import { sharingSection } from './sharing';

export interface RenderedReport {
  readonly markdown: string;
  /** Chart files, named relative to the charts directory. */
  readonly charts: readonly { readonly name: string; readonly svg: string }[];
}

/** How the report names a scenario's choice of the conversation that goes on (./workload `continuePick`). */
const CONTINUE_PICK = {
  uniform: '',
  recent: ', the latest conversation going on',
  closest: ', the longest history that fits going on',
} as const;

const METHOD = `Each run starts a fresh router process (the built emulator, as \`npm start\` runs it, on an in-memory table)
with \`FLEET_ROUTING_STRATEGY\` set to the strategy measured — \`reference\` is the reference implementation's
scoring in a router of its own (\`bench/routing/reference-router.ts\`) — and a fresh simulated fleet: one
simulated Ollama per node with the performance model of \`emulator/sim/performance\` (hardware class, speed,
memory, parallel slots, a prompt cache per slot), each behind a node agent that heartbeats to the router every
second. Once the router lists every node with its initial models, the window of the trace is replayed open
loop: every request is sent at its arrival time over real HTTP (\`POST /v1/chat/completions\`, streaming, with
usage), whether or not earlier ones have finished, and read to its end. Every strategy replays the same plan
from the same cold start with the same seed; runs are interleaved (run 1 of every strategy, then run 2, …) and
the tables show the median of the runs.

**Workload.** The trace names no model or conversation, so the replay assigns them, seeded
(\`bench/routing/workload.ts\`): each request's model is drawn from the scenario's model mix; with the
scenario's continue share, a request continues an open conversation of its model whose previous turn arrived
at least the minimum turn gap earlier and whose previous prompt and answer are shorter than this request's
prompt (one drawn uniformly; or, where the scenario says so, the one that got its answer latest, as an
agent's loop goes on, or the one with the longest history, as a context grows a turn at a time), else it
starts a new conversation. A new conversation is a short system prompt
shared by all and a user message of text of its own, built to the trace's prompt size (⌈characters ÷ 4⌉, as
the simulated node counts); a continuation is the conversation's messages, the assistant's previous answer
exactly as it streamed, and a new user message filling up to the trace's prompt size. Each user message ends
with "answer in N words", N the trace's output size, which the simulated model honours exactly. A prompt that
would not fit the 4,096-token context the nodes load models with (less the answer and a margin) is cut, and
counted as clipped. Arrivals stay exact: a continuation whose previous turn has not finished streaming when it
is due extends the latest turn that has (or starts afresh when none has); the runs count these.

**Time.** Arrival times are divided by the rate scale (0.5 = the window's requests over twice the time) and
then, like the simulated nodes' rates and load times, compressed by the time scale, so a run takes trace time
÷ time scale. Latencies and tokens per second are reported in trace time (wall × time scale). The router's own
timers (heartbeats, polls, snapshot refresh) are not compressed, so the scale stays modest; the compression
check below compares a compressed run's verdict with an uncompressed one. Neither is what the router expects
of a node it has not yet seen load a model: the model's size at disk speed, in real time. Compressed, a cold
load is that many times quicker than the router expects while a wait in line is not, so where the verdict
turns on a load against a wait — scenario (c), a burst for a model hot on one node — the scenario runs
uncompressed (at time scale 2 the default still judged the load dearer than the wait, and never made one).

**Where it runs.** The host has two cores. The router (and the table thread it starts) is pinned to one,
the bench process — the replaying client and the simulated fleet, which share one event loop — to the other
(\`bench/pinning.ts\`; \`BENCH_PIN=false\` turns it off). The bench's own event-loop delay is measured during
every replay and shown per scenario: a delay there is added to every latency the client measures, by the time
scale. The host is shared with other work, so each scenario also states the load average around it.

**User's own nodes.** \`--nodes id=url,…\` replays onto those nodes instead of the simulated fleet (the router
polls them as listed nodes): latencies, throughput and per-node requests are measured the same way; cold loads,
node queues and slot use are unknown (n/a), and the cache share is taken from the usage the router returns,
where it reports cached prompt tokens.

**Columns.** TTFT: time to the first content token; E2E: to the end of the stream (answered requests, trace
ms). Output tok/s: the fleet's, over the replay. Cold loads, cache share (prompt tokens served from a slot's
cache ÷ prompt tokens), queued on nodes (requests that waited for a slot) and slot use (running requests ÷
slots, over the replay, mean of the nodes) come from the simulated nodes. Router queue peak: the most requests
pending in the router at once (\`GET /fleet/queue\` every 250 ms). Refused: 429 or 503; failed: any other
error.`;

const ATTRIBUTION = `The trace is the Azure LLM inference trace 2023, conversation service (\`AzureLLMInferenceTrace_conv.csv\`
of the Azure Public Dataset), licensed CC-BY 4.0; described in Patel et al., "Splitwise: Efficient generative
LLM inference using phase splitting", ISCA 2024. Every figure on this page derives from it.`;

function letter(result: ScenarioResult): string {
  return result.scenario.name.slice(0, 1);
}

function settingsLine(result: ScenarioResult): string {
  const { settings, trace, scenario } = result;
  const defaultRow = result.strategies.find((strategy) => strategy.strategy === DEFAULT_STRATEGY)?.row;
  const utilisation =
    defaultRow?.utilisation === undefined ? 'unknown' : `${formatNumber(defaultRow.utilisation * 100, 0)} %`;
  return [
    `Trace \`${trace.path}\`, window ${settings.windowStartSeconds}–${settings.windowStartSeconds + settings.windowSeconds} s`,
    `rate scale ${settings.rateScale}, time scale ${settings.timeScale}, seed ${settings.seed}, ${settings.runs} run(s) per strategy`,
    `${trace.requests} requests over ${formatNumber(trace.traceSeconds, 0)} trace s in ${trace.conversations} conversations (${trace.continuations} continuations, continue share ${scenario.workload.continueShare}${CONTINUE_PICK[scenario.workload.continuePick ?? 'uniform']}${scenario.workload.firstTurnMaxTokens !== undefined ? `, first turns of at most ${scenario.workload.firstTurnMaxTokens} tokens` : ''}, minimum turn gap ${scenario.workload.minTurnGapSeconds} s; ${trace.clipped} prompts clipped)`,
    `model mix ${Object.entries(scenario.workload.modelMix)
      .map(([model, weight]) => `${model} ${weight}`)
      .join(', ')}`,
    `slot use under the default: **${utilisation}**`,
    `fleet: ${result.fleet === 'simulated' ? 'simulated' : `the user's nodes ${result.fleet} (no node statistics)`}`,
    `ran ${result.ranAt.slice(0, 16).replace('T', ' ')} UTC in ${formatNumber(result.wallSeconds / 60, 1)} min; ${result.pinning}; host load average ${formatNumber(result.loadAverage[0], 1)} at the start, ${formatNumber(result.loadAverage[1], 1)} at the end`,
  ].join('; ');
}

function scenarioSection(result: ScenarioResult, chartDir: string): string {
  const id = letter(result);
  const skipped = result.skipped.map((skip) => `${skip.strategy} (${skip.reason})`).join(', ');
  const rows = result.strategies;
  const turns = rows.map(({ strategy, row }) => `${strategy} ${formatNumber(row.branchedOrFresh, 0)}`).join(', ');
  return [
    `## (${id}) ${result.scenario.title}`,
    result.scenario.about,
    fleetTable(result.scenario.nodes),
    settingsLine(result),
    resultTable(result),
    `p95 TTFT of each run (trace ms): ${spreadLine(result)}. Continuations that could not extend their previous turn (median per run): ${turns}. Bench process event-loop delay p99: ${rows.map(({ strategy, row }) => `${strategy} ${formatNumber(row.benchLoopDelayP99Ms, 0)} ms`).join(', ')} (wall).${skipped === '' ? '' : ` Not run: ${skipped}.`}`,
    ...rows
      .filter(({ row }) => row.errors.length > 0)
      .map(
        ({ strategy, row }) =>
          `Refused or failed under ${strategy}: ${row.errors.map((error) => `\`${error}\``).join('; ')}`,
      ),
    'Requests per node (median), with slot use and busy share where known:',
    nodeTable(result),
    `**Verdict** (medians of ${result.settings.runs} run(s)):`,
    verdictLines(result.verdicts),
    `![TTFT percentiles](${chartDir}/${result.scenario.name}-ttft.svg)`,
    `![TTFT distribution](${chartDir}/${result.scenario.name}-cdf.svg)`,
  ].join('\n\n');
}

function compressionSection(check: CompressionResult | undefined): string {
  if (check === undefined) {
    return '## Compression check\n\nNot run yet: `npm run bench:routing -- --scenario b --compression b`.';
  }
  const verdictOf = (result: ScenarioResult) =>
    result.verdicts.map((line) => (line.pass === undefined ? 'UNDECIDED' : line.pass ? 'PASS' : 'FAIL')).join(', ');
  const agree = verdictOf(check.compressed) === verdictOf(check.uncompressed);
  return [
    `## Compression check: scenario (${letter(check.compressed)}) at time scale ${check.compressed.settings.timeScale} and 1`,
    `The same window, seed and strategies, replayed uncompressed (time scale 1, ${check.uncompressed.settings.runs} run(s)) and compressed (time scale ${check.compressed.settings.timeScale}, ${check.compressed.settings.runs} run(s)). The verdicts ${agree ? '**agree**' : '**differ**'}: ${verdictOf(check.uncompressed)} uncompressed, ${verdictOf(check.compressed)} compressed.`,
    `Uncompressed (time scale 1):`,
    resultTable(check.uncompressed),
    verdictLines(check.uncompressed.verdicts),
    `Compressed (time scale ${check.compressed.settings.timeScale}):`,
    resultTable(check.compressed),
    verdictLines(check.compressed.verdicts),
  ].join('\n\n');
}

function summaryTable(results: readonly ScenarioResult[]): string {
  const lines = results.flatMap((result) =>
    result.verdicts.map(
      (line) =>
        `| (${letter(result)}) ${result.scenario.title} | ${line.goal} | ${line.pass === undefined ? 'UNDECIDED' : line.pass ? 'PASS' : 'FAIL'} | ${line.text} |`,
    ),
  );
  return ['| scenario | goal | verdict | figures |', '| --- | --- | --- | --- |', ...lines].join('\n');
}

/** The report and its charts; `chartDir` is the charts' directory relative to the report. */
export function renderReport(results: Results, chartDir: string): RenderedReport {
  const scenarios = Object.values(results.scenarios).sort((a, b) => a.scenario.name.localeCompare(b.scenario.name));
  const charts = scenarios.flatMap((result) => {
    const rows = new Map(result.strategies.map(({ strategy, row }) => [strategy, row]));
    const title = `(${letter(result)}) ${result.scenario.title}`;
    return [
      { name: `${result.scenario.name}-ttft.svg`, svg: ttftBarsSvg(`${title}: TTFT, median of runs`, rows) },
      { name: `${result.scenario.name}-cdf.svg`, svg: ttftCdfSvg(`${title}: TTFT distribution`, rows) },
    ];
  });
  const markdown = [
    '# Routing quality: `npm run bench:routing`',
    '<!-- Generated by bench/routing/main.ts from docs/routing/results.json: rerun the bench, do not edit. -->',
    `How the default routing strategy (\`${DEFAULT_STRATEGY}\`) compares with least-busy, round-robin, random and the reference implementation's scoring when a window of a real inference trace is replayed through the router onto a fleet (issue 41). Regenerate with \`npm run bench:routing\` (flags: \`npm run bench:routing -- --help\`).`,
    ATTRIBUTION,
    '## Verdicts',
    summaryTable(scenarios),
    '## Method',
    METHOD,
    ...scenarios.map((result) => scenarioSection(result, chartDir)),
    ...Object.values(results.sharing ?? {})
      .sort((a, b) => a.scenario.name.localeCompare(b.scenario.name))
      .map(sharingSection),
    compressionSection(results.compression),
  ].join('\n\n');
  return { markdown: `${markdown}\n`, charts };
}
