import { describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { chatDiagnosticHeaders, THINKING_TOKENS_HEADER } from '../../../../../lib/core/protocols/diagnostic-headers';
import { toResponsesResponse } from '../../../../../lib/core/protocols/responses/to-responses-response';
import type { OllamaChatChunk } from '../../../../../lib/core/wire/ollama';
import { CHAT_FIXTURES } from '../../../../fixtures/ollama/read-fixture';
import { RESPONSES_CONTEXT, responsesContext } from '../../../../helpers/replay';
import { wholeReply } from '../node-replies';

describe('toResponsesResponse', () => {
  it('answers with one message, the status and the usage, echoing the defaults of the request', () => {
    expect(toResponsesResponse(wholeReply('plain-text'), RESPONSES_CONTEXT)).toEqual({
      id: 'resp_7f3a9c2e1b4d',
      object: 'response',
      created_at: 1763630043,
      status: 'completed',
      completed_at: 1763630045,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      model: 'qwen3:8b',
      output: [
        {
          id: 'msg_7f3a9c2e1b4d_0',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [
            {
              type: 'output_text',
              text: 'Bonjour\u00a0! Voilà — un café ☕ et 日本語 🚀.',
              annotations: [],
              logprobs: [],
            },
          ],
        },
      ],
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: null,
      store: false,
      temperature: null,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: null,
      truncation: 'disabled',
      usage: { input_tokens: 31, output_tokens: 12, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 43 },
      metadata: {},
    });
  });

  it('echoes what the request set, and says whether the response is stored', () => {
    const body = {
      instructions: 'Be brief.',
      input: 'hi',
      max_output_tokens: 300,
      parallel_tool_calls: false,
      previous_response_id: 'resp_earlier',
      reasoning: { effort: 'low', summary: 'auto' },
      temperature: 0.2,
      top_p: 0.9,
      text: { format: { type: 'json_object' } },
      tools: [{ type: 'function', name: 'f', parameters: null, strict: true }],
      tool_choice: 'required',
      truncation: 'auto',
      metadata: { tags: ['batch'], owner: 'ops' },
    };
    const {
      output: _output,
      usage: _usage,
      ...envelope
    } = toResponsesResponse(wholeReply('plain-text'), {
      ...responsesContext(body),
      stored: true,
    });

    expect(envelope).toMatchObject({
      instructions: 'Be brief.',
      max_output_tokens: 300,
      parallel_tool_calls: false,
      previous_response_id: 'resp_earlier',
      reasoning: { effort: 'low', summary: 'auto' },
      store: true,
      temperature: 0.2,
      top_p: 0.9,
      text: { format: { type: 'json_object' } },
      tools: [{ type: 'function', name: 'f', parameters: null, strict: true }],
      tool_choice: 'required',
      truncation: 'auto',
      metadata: { tags: ['batch'], owner: 'ops' },
    });
  });

  it('puts thinking first, as a reasoning item with one summary part', () => {
    const { output } = toResponsesResponse(wholeReply('thinking'), RESPONSES_CONTEXT);

    expect(output).toEqual([
      {
        id: 'rs_7f3a9c2e1b4d_0',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Okay, the user asks 17 × 3. That is 51.' }],
      },
      {
        id: 'msg_7f3a9c2e1b4d_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: '17 × 3 = **51**.', annotations: [], logprobs: [] }],
      },
    ]);
  });

  it('returns tool calls as function_call items with string arguments, and no empty message', () => {
    expect(toResponsesResponse(wholeReply('tool-call'), RESPONSES_CONTEXT).output.slice(1)).toEqual([
      {
        id: 'fc_7f3a9c2e1b4d_1',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_k3v9x2qa',
        name: 'get_weather',
        arguments: '{"city":"Tokyo","unit":"celsius"}',
      },
    ]);
  });

  it('gives calls without a node id a call_id derived from the response', () => {
    const { output } = toResponsesResponse(wholeReply('parallel-tool-calls'), RESPONSES_CONTEXT);

    expect(
      output.map((item) => (item.type === 'function_call' ? [item.id, item.call_id, item.arguments] : item.type)),
    ).toEqual([
      ['fc_7f3a9c2e1b4d_0', 'call_7f3a9c2e1b4d_0', '{"city":"Zürich"}'],
      ['fc_7f3a9c2e1b4d_1', 'call_7f3a9c2e1b4d_1', '{"timezone":"Europe/Zurich"}'],
    ]);
  });

  it('answers the calls of a custom tool with a custom_tool_call carrying its text', () => {
    const context = responsesContext({ input: 'patch it', tools: [{ type: 'custom', name: 'apply_patch' }] });
    const reply: OllamaChatChunk = {
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'call_1', function: { name: 'apply_patch', arguments: { input: '*** Begin Patch' } } },
          { id: 'call_2', function: { name: 'apply_patch', arguments: '{"input":"from a string"}' } },
          { id: 'call_3', function: { name: 'apply_patch', arguments: { patch: 'wrong name' } } },
        ],
      },
      done: true,
    };

    expect(toResponsesResponse(reply, context).output).toEqual([
      {
        id: 'ctc_7f3a9c2e1b4d_0',
        type: 'custom_tool_call',
        call_id: 'call_1',
        name: 'apply_patch',
        input: '*** Begin Patch',
      },
      {
        id: 'ctc_7f3a9c2e1b4d_1',
        type: 'custom_tool_call',
        call_id: 'call_2',
        name: 'apply_patch',
        input: 'from a string',
      },
      {
        id: 'ctc_7f3a9c2e1b4d_2',
        type: 'custom_tool_call',
        call_id: 'call_3',
        name: 'apply_patch',
        input: '{"patch":"wrong name"}',
      },
    ]);
  });

  it('is incomplete, and so is its message, when the node spent its budget', () => {
    const response = toResponsesResponse(wholeReply('length'), RESPONSES_CONTEXT);

    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
  });

  it('answers an empty message when the node produced nothing', () => {
    const response = toResponsesResponse(
      { message: { role: 'assistant', content: '' }, done: true, done_reason: 'load' },
      RESPONSES_CONTEXT,
    );

    expect(response.status).toBe('completed');
    expect(response.output).toEqual([
      {
        id: 'msg_7f3a9c2e1b4d_0',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: '', annotations: [], logprobs: [] }],
      },
    ]);
    expect(response.usage).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
    });
  });

  describe('usage', () => {
    it('reports measured cached tokens, a measured zero included', () => {
      expect(toResponsesResponse(wholeReply('cached-tokens'), RESPONSES_CONTEXT).usage?.input_tokens_details).toEqual({
        cached_tokens: 48,
      });
      expect(toResponsesResponse(wholeReply('cached-zero'), RESPONSES_CONTEXT).usage?.input_tokens_details).toEqual({
        cached_tokens: 0,
      });
    });

    it('leaves input_tokens_details out when the node did not measure the cache', () => {
      expect(toResponsesResponse(wholeReply('plain-text'), RESPONSES_CONTEXT).usage).not.toHaveProperty(
        'input_tokens_details',
      );
    });

    it.each(CHAT_FIXTURES)('counts the reasoning tokens x-thinking-tokens reports for %s', (name) => {
      const reply = wholeReply(name);

      expect(String(toResponsesResponse(reply, RESPONSES_CONTEXT).usage?.output_tokens_details.reasoning_tokens)).toBe(
        chatDiagnosticHeaders(reply, undefined)[THINKING_TOKENS_HEADER],
      );
    });
  });

  describe('read by the openai SDK', () => {
    function client(body: unknown): OpenAI {
      return new OpenAI({
        apiKey: 'unused',
        baseURL: 'http://router.invalid/v1',
        maxRetries: 0,
        fetch: async () => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }),
      });
    }

    it('computes output_text from the message and keeps the usage', async () => {
      const body = toResponsesResponse(wholeReply('thinking'), RESPONSES_CONTEXT);

      const response = await client(body).responses.create({ model: 'qwen3:8b', input: 'What is 17 × 3?' });

      expect(response.output_text).toBe('17 × 3 = **51**.');
      expect(response.usage).toEqual(body.usage);
    });
  });
});
