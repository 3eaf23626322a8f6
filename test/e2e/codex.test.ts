/**
 * Codex CLI (`@openai/codex`, the Responses API's main user) end to end: `codex exec` with a custom
 * model provider pointed at the built emulator (`wire_api = "responses"`) and a simulated node. Its
 * first request carries a `namespace` tool and `web_search`; a turn completes, and so do a turn in
 * which the model calls Codex's `exec_command` and Codex sends the output back, and one in which it calls
 * the namespaced `multi_agent_v1.spawn_agent` and Codex's handler answers. The exact first request
 * Codex 0.169.0 sent (test/fixtures/codex) is replayed too, streamed and whole, with the dropped-tools
 * header, and a `tool_choice` that forces the dropped tool is refused in OpenAI's shape.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

const MODEL = 'llama3.2:3b';
const codexBin = join(__dirname, '..', '..', 'node_modules', '.bin', 'codex');
const codexRequest: Record<string, unknown> = JSON.parse(
  readFileSync(join(__dirname, '..', 'fixtures', 'codex', 'exec-say-hi.request.json'), 'utf8'),
);

let node: SimNode;
let router: RouterProcess;
let scratch: string;

beforeAll(async () => {
  node = await startSimNode({
    id: 'a',
    models: CATALOG.filter((entry) => entry.name === MODEL),
    loaded: [MODEL],
    ttftMs: 5,
    tokensPerSecond: 5000,
  });
  router = await startRouter({ FLEET_NODES: `a=${node.url}` });
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'fleet-codex-')));
  await eventually(async () => {
    const ps = (await (await fetch(`${router.url}/api/ps`)).json()) as { models: { name: string }[] };
    expect(ps.models.map((model) => model.name)).toContain(MODEL);
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await node?.close();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

interface CodexRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `codex exec <prompt>` in a fresh CODEX_HOME whose provider is the router; never prompts, never sandboxes. */
function codexExec(name: string, prompt: string, flags: readonly string[] = []): Promise<CodexRun> {
  const home = join(scratch, `${name}-home`);
  const cwd = join(scratch, name);
  for (const dir of [home, cwd]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(home, 'config.toml'),
    [
      `model = "${MODEL}"`,
      'model_provider = "fleet"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      '[model_providers.fleet]',
      'name = "Fleet Router"',
      `base_url = "${router.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "FLEET_CODEX_TEST_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  return new Promise((resolve) => {
    execFile(
      codexBin,
      ['exec', '--skip-git-repo-check', '--color', 'never', ...flags, prompt],
      {
        cwd,
        timeout: 60_000,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: home,
          CODEX_HOME: home,
          FLEET_CODEX_TEST_KEY: 'dummy',
          NO_COLOR: '1',
        },
      },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
      },
    ).stdin?.end();
  });
}

/** The JSON lines `codex exec --json` prints, one event each. */
function events(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function completedItems(stdout: string): Record<string, unknown>[] {
  return events(stdout).flatMap((event) =>
    event['type'] === 'item.completed' ? [event['item'] as Record<string, unknown>] : [],
  );
}

describe('Codex CLI against the router', () => {
  it('completes codex exec "say hi" and prints the model\'s answer', async () => {
    const run = await codexExec('say-hi', 'say hi');

    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('Echo: say hi');
  }, 90_000);

  it('runs a tool call round trip: the model calls exec_command, Codex runs it and sends the output back', async () => {
    const run = await codexExec('shell', 'Use exec_command to run pwd', ['--json']);
    const items = completedItems(run.stdout);

    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    expect(items).toContainEqual(
      expect.objectContaining({
        type: 'command_execution',
        command: expect.stringMatching(/ pwd$/),
        aggregated_output: `${join(scratch, 'shell')}\n`,
        exit_code: 0,
      }),
    );
    // The simulated model answers a tool result by echoing it: Codex's exec_command output came back.
    expect(items[items.length - 1]).toMatchObject({
      type: 'agent_message',
      text: expect.stringMatching(/^Echo: Chunk ID: /),
    });
    expect(events(run.stdout).map((event) => event['type'])).toContain('turn.completed');
  }, 90_000);

  it("dispatches a namespaced call to its multi_agent_v1 handler and sends the handler's answer back", async () => {
    // The simulated model fills every argument of spawn_agent (it lists none as required), message and
    // items both, and Codex's spawn_agent refuses that: the refusal is the handler's own, so the call
    // reached multi_agent_v1's spawn_agent (a name Codex did not know would be an "unsupported call").
    const run = await codexExec('agents', 'Use multi_agent_v1__spawn_agent with text', ['--json']);
    const items = completedItems(run.stdout);

    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    expect(items[items.length - 1]).toMatchObject({
      type: 'agent_message',
      text: expect.stringMatching(/^Echo: Provide either message or items/),
    });
    expect(events(run.stdout).map((event) => event['type'])).toContain('turn.completed');
  }, 90_000);
});

describe("Codex CLI's first request, replayed", () => {
  const post = (body: Record<string, unknown>) =>
    fetch(`${router.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer dummy' },
      body: JSON.stringify({ ...body, model: MODEL }),
    });

  it('streams a completed response and names the dropped web_search before the first byte', async () => {
    const reply = await post(codexRequest);
    const text = await reply.text();

    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('text/event-stream');
    expect(reply.headers.get('x-fleet-dropped-tools')).toBe('web_search');
    expect(text).toContain('event: response.completed');
  });

  it('answers it whole with the same header when stream is false', async () => {
    const reply = await post({ ...codexRequest, stream: false });
    const body = (await reply.json()) as { status: string; output: { type: string }[] };

    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-fleet-dropped-tools')).toBe('web_search');
    expect(body.status).toBe('completed');
  });

  it('refuses a tool_choice that forces web_search with a 400 in OpenAI shape naming tool_choice', async () => {
    const reply = await post({ ...codexRequest, tool_choice: { type: 'web_search' } });

    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        param: 'tool_choice.type',
        message: expect.stringContaining('web_search'),
      },
    });
  });

  it('hands a namespaced call back as name and namespace, and takes it back in input', async () => {
    const input = codexRequest['input'] as Record<string, unknown>[];
    const ask = {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'multi_agent_v1__spawn_agent reviewer' }],
    };
    const first = await post({ ...codexRequest, stream: false, input: [...input.slice(0, -1), ask] });
    const called = (await first.json()) as { output: Record<string, unknown>[] };
    const call = called.output.find((item) => item['type'] === 'function_call');

    expect(call).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });

    const result = { type: 'function_call_output', call_id: call?.['call_id'], output: 'agent 7 spawned' };
    const second = await post({ ...codexRequest, stream: false, input: [...input.slice(0, -1), ask, call, result] });
    const answered = (await second.json()) as {
      status: string;
      output: { type: string; content?: { text: string }[] }[];
    };

    expect(second.status).toBe(200);
    expect(answered.status).toBe('completed');
    expect(answered.output.find((item) => item.type === 'message')?.content?.[0]?.text).toContain('agent 7 spawned');
  });
});
