import { afterAll, beforeAll, it } from '@jest/globals';
import { CATALOG, type SimAgent, startSimAgent } from '../../emulator/sim';
import { type OfflineProcess, startOffline } from './serverless-offline-process';
let offline: OfflineProcess;
let agent: SimAgent;
beforeAll(async () => {
  offline = await startOffline({ env: { FLEET_DATA_DIR: ':memory:' } });
  agent = await startSimAgent({ nodeId: 'agent', routerUrl: offline.url, intervalMs: 60_000,
    ollamaOptions: { id: 'agent', models: CATALOG.filter((e) => e.name === 'llama3.2:3b'), loaded: ['llama3.2:3b'], ttftMs: 1, tokensPerSecond: Number.POSITIVE_INFINITY } });
  await agent.sendHeartbeat();
  await new Promise((r) => setTimeout(r, 1500));
}, 70_000);
afterAll(async () => { await agent?.stop(); await offline?.stop(); });
it('survey', async () => {
  const show = async (label: string, p: Promise<Response>) => {
    const t = Date.now();
    try { const r = await p; const b = await r.text(); console.log(label, r.status, r.headers.get('content-type'), Date.now() - t, 'ms', b.slice(0, 300)); }
    catch (e) { console.log(label, 'ERR', String(e)); }
  };
  const u = offline.url;
  await show('HEAD /', fetch(`${u}/`, { method: 'HEAD' }));
  await show('OPTIONS /api/chat', fetch(`${u}/api/chat`, { method: 'OPTIONS', headers: { origin: 'http://x', 'access-control-request-method': 'POST' } }));
  await show('unknown', fetch(`${u}/nope`));
  await show('pull', fetch(`${u}/api/pull`, { method: 'POST', body: JSON.stringify({ model: 'qwen3:8b' }) }));
  await show('events', fetch(`${u}/dashboard/events`));
  await show('bench start', fetch(`${u}/dashboard/api/benchmarks/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ duration_s: 5 }) }));
  await new Promise((r) => setTimeout(r, 3000));
  await show('bench progress', fetch(`${u}/dashboard/api/benchmarks/progress`));
  await show('assets', fetch(`${u}/dashboard/fleet`));
  await show('metrics', fetch(`${u}/metrics`));
  await show('embed', fetch(`${u}/api/embed`, { method: 'POST', body: JSON.stringify({ model: 'llama3.2:3b', input: 'x' }) }));
  console.log(offline.output().split('\n').filter((l) => !l.includes('│')).slice(-60).join('\n'));
}, 60_000);
