import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../../lib/core/errors';
import { fromResponsesRequest } from '../../../../../lib/core/protocols/responses/from-responses-request';
import { droppedResponsesTools } from '../../../../../lib/core/protocols/responses/from-responses-tools';
import { toResponsesResponse } from '../../../../../lib/core/protocols/responses/to-responses-response';
import type { OllamaChatChunk, OllamaChatRequest } from '../../../../../lib/core/wire/ollama';
import { replayResponses, responsesContext, responsesEvents, responsesRequest } from '../../../../helpers/replay';

/** The first request `codex exec "say hi"` (0.169.0) sent to a custom provider, byte for byte. */
const codexRequest: Record<string, unknown> = JSON.parse(
  readFileSync(join(__dirname, '../../../../fixtures/codex/exec-say-hi.request.json'), 'utf8'),
);

const spawnAgent = {
  type: 'function',
  name: 'spawn_agent',
  description: 'Spawn a sub-agent.',
  parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  strict: false,
};
const agents = {
  type: 'namespace',
  name: 'multi_agent_v1',
  description: 'Tools for spawning and managing sub-agents.',
  tools: [spawnAgent, { type: 'function', name: 'wait_agent', parameters: { type: 'object', properties: {} } }],
};
const shell = { type: 'function', name: 'exec_command', parameters: { type: 'object', properties: {} } };

function translate(body: Record<string, unknown>): OllamaChatRequest {
  return fromResponsesRequest(responsesRequest(body), { images: new Map() });
}

function badRequest(body: Record<string, unknown>): BadRequestError {
  try {
    translate(body);
  } catch (error) {
    if (error instanceof BadRequestError) return error;
    throw error;
  }
  throw new Error('expected a BadRequestError');
}

/** A node reply that calls `name` once. */
function callReply(name: string, args: Record<string, unknown> = { message: 'hi' }): OllamaChatChunk {
  return {
    model: 'qwen3:8b',
    created_at: '2026-11-25T19:00:00Z',
    message: {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', function: { index: 0, name, arguments: args } }],
    },
    done: true,
    done_reason: 'stop',
  };
}

describe('namespace, local_shell and hosted tools in a Responses request', () => {
  describe("Codex CLI's first request", () => {
    it('translates, offering its own tools and leaving out web_search', () => {
      const names = translate(codexRequest).tools?.map((tool) => tool.function.name);

      expect(names).toEqual([
        'exec_command',
        'write_stdin',
        'request_user_input',
        'view_image',
        'multi_agent_v1__close_agent',
        'multi_agent_v1__resume_agent',
        'multi_agent_v1__send_input',
        'multi_agent_v1__spawn_agent',
        'multi_agent_v1__wait_agent',
        'get_goal',
        'create_goal',
        'update_goal',
      ]);
      expect(droppedResponsesTools(responsesRequest(codexRequest))).toEqual(['web_search']);
    });
  });

  describe('flattening', () => {
    it("offers a namespace's functions under <namespace>__<name>, the namespace's description first", () => {
      const tools = translate({ input: 'hi', tools: [shell, agents] }).tools;

      expect(tools?.map((tool) => tool.function.name)).toEqual([
        'exec_command',
        'multi_agent_v1__spawn_agent',
        'multi_agent_v1__wait_agent',
      ]);
      expect(tools?.[1]).toEqual({
        type: 'function',
        function: {
          name: 'multi_agent_v1__spawn_agent',
          description: 'Tools for spawning and managing sub-agents.\nSpawn a sub-agent.',
          parameters: spawnAgent.parameters,
          strict: false,
        },
      });
    });

    it('rejects a top-level tool named like a flattened one, naming it', () => {
      const clash = { ...shell, name: 'multi_agent_v1__spawn_agent' };

      expect(badRequest({ input: 'hi', tools: [agents, clash] }).param).toBe('tools.1.name');
    });

    it.each([
      [{ type: 'function', name: 'spawn_agent', namespace: 'multi_agent_v1' }],
      [{ type: 'function', name: 'multi_agent_v1__spawn_agent' }],
    ])('sends only the namespaced tool tool_choice %j names', (toolChoice) => {
      const tools = translate({ input: 'hi', tools: [shell, agents], tool_choice: toolChoice }).tools;

      expect(tools?.map((tool) => tool.function.name)).toEqual(['multi_agent_v1__spawn_agent']);
    });

    it('sends the members of a namespace allowed_tools lists', () => {
      const toolChoice = {
        type: 'allowed_tools',
        mode: 'auto',
        tools: [{ type: 'namespace', name: 'multi_agent_v1' }],
      };

      const tools = translate({ input: 'hi', tools: [shell, agents], tool_choice: toolChoice }).tools;

      expect(tools?.map((tool) => tool.function.name)).toEqual([
        'multi_agent_v1__spawn_agent',
        'multi_agent_v1__wait_agent',
      ]);
    });
  });

  describe('un-flattening the reply', () => {
    const body = { input: 'hi', tools: [shell, agents] };

    it('names a call of a namespaced tool by its name and namespace', () => {
      const response = toResponsesResponse(callReply('multi_agent_v1__spawn_agent'), responsesContext(body));

      expect(response.output).toEqual([
        expect.objectContaining({
          type: 'function_call',
          name: 'spawn_agent',
          namespace: 'multi_agent_v1',
          arguments: '{"message":"hi"}',
        }),
      ]);
    });

    it('names it the same way in the stream, from output_item.added on', () => {
      const line = new TextEncoder().encode(`${JSON.stringify(callReply('multi_agent_v1__spawn_agent'))}\n`);

      const items = responsesEvents(replayResponses([line], responsesContext(body))).flatMap((event) =>
        'item' in event ? [event.item] : [],
      );

      expect(items).toHaveLength(2);
      for (const item of items) expect(item).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });
    });

    it('leaves a top-level call without a namespace, even when its name has the delimiter', () => {
      const plain = { ...shell, name: 'mcp__docs__search' };

      const response = toResponsesResponse(
        callReply('mcp__docs__search'),
        responsesContext({ input: 'hi', tools: [plain] }),
      );

      expect(response.output[0]).toMatchObject({ type: 'function_call', name: 'mcp__docs__search' });
      expect(response.output[0]).not.toHaveProperty('namespace');
    });
  });

  describe('the round trip in input', () => {
    it('shows the model the namespaced call it made and the result under that name', () => {
      const translated = translate({
        tools: [agents],
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'delegate' }] },
          {
            type: 'function_call',
            name: 'spawn_agent',
            namespace: 'multi_agent_v1',
            arguments: '{"message":"hi"}',
            call_id: 'call_1',
          },
          { type: 'function_call_output', call_id: 'call_1', output: 'agent 7 started' },
        ],
      });

      expect(translated.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_1', function: { index: 0, name: 'multi_agent_v1__spawn_agent', arguments: { message: 'hi' } } },
          ],
        },
        { role: 'tool', content: 'agent 7 started', tool_call_id: 'call_1', tool_name: 'multi_agent_v1__spawn_agent' },
      ]);
    });
  });

  describe('local_shell, the shell Codex runs itself', () => {
    const body = { input: 'hi', tools: [{ type: 'local_shell' }, { type: 'web_search' }] };

    it('is offered as a function taking an argv, not dropped', () => {
      const request = responsesRequest(body);
      const tools = fromResponsesRequest(request, { images: new Map() }).tools;

      expect(tools?.map((tool) => tool.function.name)).toEqual(['local_shell']);
      expect(tools?.[0]?.function.parameters).toMatchObject({ required: ['command'] });
      expect(droppedResponsesTools(request)).toEqual(['web_search']);
    });

    it('is called back as a local_shell_call with an exec action, whole and streamed', () => {
      const reply = callReply('local_shell', { command: ['bash', '-lc', 'pwd'], workdir: '/repo' });
      const item = {
        type: 'local_shell_call',
        status: 'completed',
        call_id: 'call_1',
        action: {
          type: 'exec',
          command: ['bash', '-lc', 'pwd'],
          timeout_ms: null,
          working_directory: '/repo',
          env: {},
          user: null,
        },
      };

      const whole = toResponsesResponse(reply, responsesContext(body));
      const line = new TextEncoder().encode(`${JSON.stringify(reply)}\n`);
      const streamed = responsesEvents(replayResponses([line], responsesContext(body))).flatMap((event) =>
        event.type === 'response.output_item.done' ? [event.item] : [],
      );

      expect(whole.output).toEqual([expect.objectContaining(item)]);
      expect(streamed).toEqual(whole.output);
    });

    it('shows the model its earlier local_shell_call and the output Codex sent back', () => {
      const translated = translate({
        tools: [{ type: 'local_shell' }],
        input: [
          { role: 'user', content: 'where am I?' },
          {
            type: 'local_shell_call',
            id: 'lsh_1',
            call_id: 'call_1',
            status: 'completed',
            action: { type: 'exec', command: ['pwd'], timeout_ms: null, working_directory: null, env: {}, user: null },
          },
          { type: 'function_call_output', call_id: 'call_1', output: '/repo' },
        ],
      });

      expect(translated.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', function: { index: 0, name: 'local_shell', arguments: { command: ['pwd'] } } }],
        },
        { role: 'tool', content: '/repo', tool_call_id: 'call_1', tool_name: 'local_shell' },
      ]);
    });
  });

  describe('hosted tools', () => {
    it('names each dropped hosted tool once, in order, wherever it was declared', () => {
      const request = responsesRequest({
        tools: [{ type: 'web_search', external_web_access: false }, shell, { type: 'file_search' }],
        input: [{ type: 'additional_tools', tools: [{ type: 'web_search' }, { type: 'code_interpreter' }] }],
      });

      expect(droppedResponsesTools(request)).toEqual(['web_search', 'file_search', 'code_interpreter']);
      expect(droppedResponsesTools(responsesRequest({ input: 'hi', tools: [shell, agents] }))).toEqual([]);
    });

    it('rejects a tool_choice that forces a dropped hosted tool, naming tool_choice', () => {
      const error = badRequest({
        input: 'hi',
        tools: [shell, { type: 'web_search' }],
        tool_choice: { type: 'web_search' },
      });

      expect(error.param).toBe('tool_choice.type');
      expect(error.message).toContain('web_search');
    });
  });
});
