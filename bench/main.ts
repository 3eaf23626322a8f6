/**
 * `npm run bench`: measures the budgets of ARCHITECTURE.md §6, in one run, as ratios and differences between
 * targets measured side by side and interleaved (these machines are shared and noisy): the router
 * against a bare Node proxy in front of the same fast node — back to back, with requests a second apart,
 * with hundreds of long streams at once, and the memory of every process the router runs — the time to
 * rank 1,000 nodes, the emulator's own per-request cost, and the cold start of every function bundle.
 * Knobs (environment): BENCH_ROUNDS, BENCH_SEQUENTIAL, BENCH_SECONDS, BENCH_WARM_UP_SECONDS (the back-to-back
 * rounds), BENCH_SPACED and BENCH_SEED (spaced arrivals), BENCH_STREAMS and BENCH_STREAM_ROUNDS (many
 * streams), BENCH_PIN and BENCH_KEEP_AWAKE.
 */

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { startDynamo } from '../emulator/dynamo';
import { startBareProxy } from './bare-proxy';
import { measureColdStarts } from './cold-start';
import { startFastNode } from './fast-node';
import { startFrameRelay } from './frame-relay';
import { handlerCost } from './handler-cost';
import { watchHostShare } from './host-share';
import { awakeText, keepBenchAwake, startEchoServer } from './keep-awake';
import { type OverheadPorts, startOverheadServers } from './overhead-servers';
import { onCpuOf, pinning, pinningText } from './pinning';
import { processCpuMicros } from './process-cpu';
import { startRole, stopChildrenOnSignals, trackChild } from './processes';
import { measureRankNodes } from './rank-nodes';
import { defaultsBench, routerBench } from './router-bench';
import { interleavedSequentialMicros } from './sequential-probe';
import { formatNumber, median } from './stats';
import type { Verdict } from './verdict';

// The AWS SDK's notice about Node versions, printed by every party that makes a table client, would
// interleave with the verdicts; the roles and the router inherit this.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
/** Over this share of the machine's CPU time used by other processes, every verdict is marked [busy host]. */
const BUSY_HOST_SHARE = 0.05;
const SEQUENTIAL = Number(process.env['BENCH_SEQUENTIAL'] ?? 3000);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);

async function startChild(): Promise<{ ports: OverheadPorts; pid: number; stop(): void }> {
  const [command, args] = onCpuOf('server', process.execPath, [__filename, 'serve-overhead']);
  const child = trackChild(spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] }));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  return { ports: JSON.parse(first) as OverheadPorts, pid: child.pid ?? 0, stop: () => child.kill() };
}

async function emulatorOverhead(): Promise<Verdict[]> {
  const { ports, pid, stop } = await startChild();
  const targets = {
    bare: `http://127.0.0.1:${ports.bare}/status`,
    raw: `http://127.0.0.1:${ports.raw}/status`,
    streaming: `http://127.0.0.1:${ports.streaming}/status`,
    buffered: `http://127.0.0.1:${ports.buffered}/status`,
  };
  const names = Object.keys(targets) as (keyof typeof targets)[];
  const latency: Record<string, number[]> = { bare: [], raw: [], streaming: [], buffered: [] };
  const throughput: Record<string, number[]> = { bare: [], raw: [], streaming: [], buffered: [] };
  const cpu: Record<string, number[]> = { bare: [], raw: [], streaming: [], buffered: [] };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      // Rotate the order so no target always runs first (warm caches) or last (tired machine).
      const order = names.map((_, index) => names[(index + round) % names.length] as keyof typeof targets);
      const sequential = await interleavedSequentialMicros(
        order.map((name) => [name, targets[name]] as const),
        SEQUENTIAL,
      );
      for (const name of order) latency[name]?.push(sequential.get(name) ?? Number.NaN);
      for (const name of order) {
        const before = processCpuMicros(pid);
        const result = await autocannon({ url: targets[name], connections: 10, duration: SECONDS });
        throughput[name]?.push(result.requests.average);
        cpu[name]?.push((processCpuMicros(pid) - before) / result.requests.total);
      }
    }
  } finally {
    stop();
  }
  const verdicts: Verdict[] = [];
  const bareLatency = median(latency['bare'] ?? []);
  const bareRps = median(throughput['bare'] ?? []);
  console.log('\nEmulator overhead (median of round medians; the servers run in their own process)');
  console.log('target      sequential µs/request   req/s at c=10   server CPU µs/request');
  for (const name of names) {
    const columns = [
      formatNumber(median(latency[name] ?? [])).padStart(18),
      formatNumber(median(throughput[name] ?? []), 0).padStart(16),
      formatNumber(median(cpu[name] ?? [])).padStart(24),
    ];
    console.log(`${name.padEnd(12)}${columns.join('')}`);
  }
  const bareCpu = median(cpu['bare'] ?? []);
  const describe = (name: string) => {
    const added = median(latency[name] ?? []) - bareLatency;
    const cpuAdded = median(cpu[name] ?? []) - bareCpu;
    const share = (median(throughput[name] ?? []) / bareRps) * 100;
    return {
      cpuAdded,
      text: `+${formatNumber(cpuAdded)} µs CPU (latency +${formatNumber(added)} µs; ${formatNumber(share, 0)} % of bare req/s)`,
    };
  };
  const raw = describe('raw');
  verdicts.push({
    what: 'emulator overhead: server CPU per request over bare node:http, hand-written streaming handler',
    measured: raw.text,
    budget: '≤ 20 µs',
    ok: raw.cpuAdded <= 20,
  });
  for (const name of ['streaming', 'buffered']) {
    console.log(`  with lib/services/http's ${name} wrapper: ${describe(name).text}`);
  }
  return verdicts;
}

function rankVerdict(): Verdict {
  const { microsPerRank, nodes } = measureRankNodes();
  return {
    what: `scoring: rank ${nodes} nodes`,
    measured: `${formatNumber(microsPerRank)} µs`,
    budget: '≤ 100 µs',
    ok: microsPerRank <= 100,
  };
}

function coldStarts(): Verdict[] {
  const root = join(__dirname, '..', '..');
  const { baselineMs, bundles, hostBaselineMs } = measureColdStarts(root);
  console.log(
    `\nCold start (node -e "require(bundle)", median of 9 interleaved rounds; bare node -e 0: ${formatNumber(baselineMs)} ms)`,
  );
  if (hostBaselineMs !== undefined) {
    console.log(
      `  started without this host's NODE_EXTRA_CA_CERTS, as a Lambda is; with it, bare node -e 0 takes ${formatNumber(hostBaselineMs)} ms`,
    );
  }
  return bundles.map((bundle) => ({
    what: `cold start, ${bundle.name}`,
    measured: `${formatNumber(bundle.ms)} ms (+${formatNumber(bundle.ms - baselineMs)} over bare node)`,
    budget: '≤ 150 ms',
    ok: bundle.ms <= 150,
  }));
}

/** The fast node and the table in their own processes, the ollama handler driven in a third (./handler-cost). */
async function probeHandlerCost(): Promise<void> {
  const node = await startRole(['serve-node']);
  const dynamo = await startRole(['serve-dynamo']);
  try {
    const child = spawn(process.execPath, [__filename, 'probe-handler'], {
      stdio: 'inherit',
      env: {
        ...process.env,
        FLEET_NODES: `bench=${node.url}`,
        FLEET_NODE_CONCURRENCY: 'bench=256',
        FLEET_DYNAMODB_ENDPOINT: dynamo.url,
      },
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the handler probe exited with ${code}`);
  } finally {
    await Promise.all([node.stop(), dynamo.stop()]);
  }
}

async function main(): Promise<void> {
  const role = process.argv[2];
  if (role === 'serve-overhead') {
    const ports = await startOverheadServers();
    process.stdout.write(`${JSON.stringify(ports)}\n`);
    return;
  }
  if (role === 'serve-dynamo') {
    process.stdout.write(`${(await startDynamo({ dataDir: ':memory:', port: 0 })).endpoint}\n`);
    return;
  }
  if (role === 'serve-node') {
    process.stdout.write(`${(await startFastNode()).url}\n`);
    return;
  }
  if (role === 'serve-frame') {
    process.stdout.write(`${(await startFrameRelay(process.argv[3] ?? '')).url}\n`);
    return;
  }
  if (role === 'serve-echo') {
    process.stdout.write(`http://127.0.0.1:${(await startEchoServer()).port}\n`);
    return;
  }
  if (role === 'serve-proxy') {
    process.stdout.write(`${(await startBareProxy(process.argv[3] ?? '')).url}\n`);
    return;
  }
  if (role === 'handler-cost') {
    await probeHandlerCost();
    return;
  }
  if (role === 'probe-handler') {
    await handlerCost(join(__dirname, '..', '..'));
    process.exit(0);
  }
  // Interrupted (Ctrl-C), the bench stops the parties it started; the spinners end by themselves. It
  // exits as the signal would have ended it: 128 + the signal's number.
  stopChildrenOnSignals();
  // Ranking is timed first, before this process drives the load runs: timed after them it read up to
  // 114 µs for what ranks in ~60 µs in a router (fresh snapshots on long-lived queues, measured apart).
  const rank = rankVerdict();
  console.log(pinningText());
  const awake = await keepBenchAwake();
  const host = watchHostShare();
  let verdicts: Verdict[];
  let others: number;
  try {
    verdicts = [...(await routerBench()), await defaultsBench(), rank, ...(await emulatorOverhead()), ...coldStarts()];
  } finally {
    // Read while the spinners still run: they are the bench's own, and stopped they may not be reaped yet.
    others = host.othersSoFar();
    awake.stop();
  }
  const busy = others > BUSY_HOST_SHARE;
  const mark = `${pinning().unpinnedBecause === undefined ? '' : ' [unpinned]'}${busy ? ' [busy host]' : ''}`;
  const sharing = `other processes on this machine used ${formatNumber(others * 100)} % of its CPU time${busy ? ': every figure below shares the cores with them' : ''}`;
  console.log(`\nBudgets (${pinningText()}; ${awakeText(awake)}; ${sharing})`);
  for (const verdict of verdicts) {
    console.log(
      `${verdict.ok ? 'PASS' : 'FAIL'}  ${verdict.what}: ${verdict.measured} (budget ${verdict.budget})${mark}`,
    );
  }
  if (verdicts.some((verdict) => !verdict.ok)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
