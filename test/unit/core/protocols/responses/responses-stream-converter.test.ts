import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import { Stream } from 'openai/streaming';
import { BadRequestError, UpstreamError } from '../../../../../lib/core/errors';
import type { ResponsesContext } from '../../../../../lib/core/protocols/responses/responses-envelope';
import { createResponsesStreamConverter } from '../../../../../lib/core/protocols/responses/responses-stream-converter';
import {
  isTerminalResponsesEvent,
  type ResponsesStreamEvent,
} from '../../../../../lib/core/protocols/responses/responses-stream-event';
import { toResponsesResponse } from '../../../../../lib/core/protocols/responses/to-responses-response';
import type { OllamaChatChunk } from '../../../../../lib/core/wire/ollama';
import type { ResponsesResponse } from '../../../../../lib/core/wire/responses';
import { CHAT_FIXTURES, type OllamaFixture, readOllamaFixture } from '../../../../fixtures/ollama/read-fixture';
import { RESPONSES_CONTEXT, replayResponses, responsesContext, responsesEvents } from '../../../../helpers/replay';
import { assertProperty, byteByByte, cutsArbitrary, insideCharacterOffsets, splitAt } from '../../stream/chunkings';
import { nodeChunks, wholeReply } from '../node-replies';

function convertChunks(chunks: readonly OllamaChatChunk[], context: ResponsesContext = RESPONSES_CONTEXT) {
  const converter = createResponsesStreamConverter(context);
  return [...converter.start(), ...chunks.flatMap((chunk) => converter.push(chunk)), ...converter.end()];
}

function convert(name: OllamaFixture): ResponsesStreamEvent[] {
  return convertChunks(nodeChunks(name));
}

function replay(name: OllamaFixture): string {
  return replayResponses([readOllamaFixture(name)]);
}

function finalResponse(events: readonly ResponsesStreamEvent[]): ResponsesResponse | undefined {
  const last = events[events.length - 1];
  return last !== undefined && 'response' in last ? last.response : undefined;
}

/** The item each `output_index` was announced with, checking every invariant on the way. */
function checkInvariants(events: readonly ResponsesStreamEvent[]): void {
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
  expect(events.slice(0, 2).map((event) => event.type)).toEqual(['response.created', 'response.in_progress']);
  expect(events.filter(isTerminalResponsesEvent)).toHaveLength(1);
  expect(isTerminalResponsesEvent(events[events.length - 1] as ResponsesStreamEvent)).toBe(true);
  const announced: string[] = [];
  let openIndex: number | undefined;
  for (const event of events) {
    if ('response' in event) expect(event.response.id).toBe(RESPONSES_CONTEXT.id);
    if (event.type === 'response.output_item.added') {
      expect(openIndex).toBeUndefined();
      expect(event.output_index).toBe(announced.length);
      announced.push(event.item.id);
      openIndex = event.output_index;
    } else if ('output_index' in event) {
      expect(event.output_index).toBe(openIndex);
      if ('item_id' in event) expect(event.item_id).toBe(announced[event.output_index]);
      if (event.type === 'response.output_item.done') {
        expect(event.item.id).toBe(announced[event.output_index]);
        openIndex = undefined;
      }
    }
  }
  expect(openIndex).toBeUndefined();
  const done = events.flatMap((event) => (event.type === 'response.output_item.done' ? [event.item] : []));
  expect(finalResponse(events)?.output).toEqual(done);
}

describe('createResponsesStreamConverter', () => {
  describe('encoded streams', () => {
    it('streams text as one message item and ends with response.incomplete when the node spent its budget', () => {
      expect(replay('length')).toMatchInlineSnapshot(`
"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_7f3a9c2e1b4d","object":"response","created_at":1763630043,"status":"in_progress","completed_at":null,"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"qwen3:8b","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"truncation":"disabled","usage":null,"metadata":{}}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_7f3a9c2e1b4d","object":"response","created_at":1763630043,"status":"in_progress","completed_at":null,"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"qwen3:8b","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"truncation":"disabled","usage":null,"metadata":{}}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_7f3a9c2e1b4d_0","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":3,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":"Once","logprobs":[]}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":" upon","logprobs":[]}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":6,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":" a","logprobs":[]}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":" time","logprobs":[]}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":8,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":",","logprobs":[]}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":9,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":" in","logprobs":[]}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":10,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":" a","logprobs":[]}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":11,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":" kingdom","logprobs":[]}

event: response.output_text.done
data: {"type":"response.output_text.done","sequence_number":12,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"text":"Once upon a time, in a kingdom","logprobs":[]}

event: response.content_part.done
data: {"type":"response.content_part.done","sequence_number":13,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Once upon a time, in a kingdom","annotations":[],"logprobs":[]}}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":14,"output_index":0,"item":{"id":"msg_7f3a9c2e1b4d_0","type":"message","status":"incomplete","role":"assistant","content":[{"type":"output_text","text":"Once upon a time, in a kingdom","annotations":[],"logprobs":[]}]}}

event: response.incomplete
data: {"type":"response.incomplete","sequence_number":15,"response":{"id":"resp_7f3a9c2e1b4d","object":"response","created_at":1763630043,"status":"incomplete","completed_at":1763630045,"error":null,"incomplete_details":{"reason":"max_output_tokens"},"instructions":null,"max_output_tokens":null,"model":"qwen3:8b","output":[{"id":"msg_7f3a9c2e1b4d_0","type":"message","status":"incomplete","role":"assistant","content":[{"type":"output_text","text":"Once upon a time, in a kingdom","annotations":[],"logprobs":[]}]}],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"truncation":"disabled","usage":{"input_tokens":27,"output_tokens":8,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":35},"metadata":{}}}

"
`);
    });

    it('streams thinking as a reasoning item, then each call as a whole function_call item', () => {
      expect(replay('tool-call')).toMatchInlineSnapshot(`
"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_7f3a9c2e1b4d","object":"response","created_at":1763630043,"status":"in_progress","completed_at":null,"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"qwen3:8b","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"truncation":"disabled","usage":null,"metadata":{}}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_7f3a9c2e1b4d","object":"response","created_at":1763630043,"status":"in_progress","completed_at":null,"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"qwen3:8b","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"truncation":"disabled","usage":null,"metadata":{}}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"rs_7f3a9c2e1b4d_0","type":"reasoning","summary":[]}}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","sequence_number":3,"item_id":"rs_7f3a9c2e1b4d_0","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":4,"item_id":"rs_7f3a9c2e1b4d_0","output_index":0,"summary_index":0,"delta":"The"}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":5,"item_id":"rs_7f3a9c2e1b4d_0","output_index":0,"summary_index":0,"delta":" user"}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":6,"item_id":"rs_7f3a9c2e1b4d_0","output_index":0,"summary_index":0,"delta":" wants"}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":7,"item_id":"rs_7f3a9c2e1b4d_0","output_index":0,"summary_index":0,"delta":" Tokyo"}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":8,"item_id":"rs_7f3a9c2e1b4d_0","output_index":0,"summary_index":0,"delta":" weather"}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":9,"item_id":"rs_7f3a9c2e1b4d_0","output_index":0,"summary_index":0,"delta":"."}

event: response.reasoning_summary_text.done
data: {"type":"response.reasoning_summary_text.done","sequence_number":10,"item_id":"rs_7f3a9c2e1b4d_0","output_index":0,"summary_index":0,"text":"The user wants Tokyo weather."}

event: response.reasoning_summary_part.done
data: {"type":"response.reasoning_summary_part.done","sequence_number":11,"item_id":"rs_7f3a9c2e1b4d_0","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"The user wants Tokyo weather."}}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":12,"output_index":0,"item":{"id":"rs_7f3a9c2e1b4d_0","type":"reasoning","summary":[{"type":"summary_text","text":"The user wants Tokyo weather."}]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":13,"output_index":1,"item":{"id":"fc_7f3a9c2e1b4d_1","type":"function_call","status":"in_progress","call_id":"call_k3v9x2qa","name":"get_weather","arguments":""}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":14,"item_id":"fc_7f3a9c2e1b4d_1","output_index":1,"delta":"{\\"city\\":\\"Tokyo\\",\\"unit\\":\\"celsius\\"}"}

event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","sequence_number":15,"item_id":"fc_7f3a9c2e1b4d_1","output_index":1,"name":"get_weather","arguments":"{\\"city\\":\\"Tokyo\\",\\"unit\\":\\"celsius\\"}"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":16,"output_index":1,"item":{"id":"fc_7f3a9c2e1b4d_1","type":"function_call","status":"completed","call_id":"call_k3v9x2qa","name":"get_weather","arguments":"{\\"city\\":\\"Tokyo\\",\\"unit\\":\\"celsius\\"}"}}

event: response.completed
data: {"type":"response.completed","sequence_number":17,"response":{"id":"resp_7f3a9c2e1b4d","object":"response","created_at":1763630043,"status":"completed","completed_at":1763630045,"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"qwen3:8b","output":[{"id":"rs_7f3a9c2e1b4d_0","type":"reasoning","summary":[{"type":"summary_text","text":"The user wants Tokyo weather."}]},{"id":"fc_7f3a9c2e1b4d_1","type":"function_call","status":"completed","call_id":"call_k3v9x2qa","name":"get_weather","arguments":"{\\"city\\":\\"Tokyo\\",\\"unit\\":\\"celsius\\"}"}],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"truncation":"disabled","usage":{"input_tokens":164,"output_tokens":29,"output_tokens_details":{"reasoning_tokens":14},"total_tokens":193},"metadata":{}}}

"
`);
    });

    it.each<[OllamaFixture, string[]]>([
      [
        'plain-text',
        [
          'response.created',
          'response.in_progress',
          'response.output_item.added',
          'response.content_part.added',
          ...Array<string>(12).fill('response.output_text.delta'),
          'response.output_text.done',
          'response.content_part.done',
          'response.output_item.done',
          'response.completed',
        ],
      ],
      [
        'parallel-tool-calls',
        [
          'response.created',
          'response.in_progress',
          ...[0, 1].flatMap(() => [
            'response.output_item.added',
            'response.function_call_arguments.delta',
            'response.function_call_arguments.done',
            'response.output_item.done',
          ]),
          'response.completed',
        ],
      ],
    ])('writes the events of %s in the order OpenAI does', (name, types) => {
      expect(convert(name).map((event) => event.type)).toEqual(types);
    });

    it('names every SSE event after its type', () => {
      expect(responsesEvents(replay('thinking'))).toEqual(convert('thinking'));
    });
  });

  describe.each(CHAT_FIXTURES)('invariants of %s', (name) => {
    const events = convert(name);

    it('numbers events from 0, opens with created and in_progress, ends with one terminal event', () => {
      checkInvariants(events);
    });

    it('ends with the response object toResponsesResponse gives for the same lines', () => {
      expect(finalResponse(events)).toEqual(toResponsesResponse(wholeReply(name), RESPONSES_CONTEXT));
    });

    it('streams exactly the text and the thinking the whole reply has', () => {
      const whole = wholeReply(name).message;
      const text = events.map((event) => (event.type === 'response.output_text.delta' ? event.delta : '')).join('');
      const thinking = events
        .map((event) => (event.type === 'response.reasoning_summary_text.delta' ? event.delta : ''))
        .join('');

      expect(text).toBe(whole?.content ?? '');
      expect(thinking).toBe(whole?.thinking ?? '');
    });

    it('starts with the object in progress, without output or usage', () => {
      for (const event of events.slice(0, 2)) {
        expect(event).toMatchObject({
          response: { status: 'in_progress', output: [], usage: null, completed_at: null },
        });
      }
    });
  });

  describe.each(CHAT_FIXTURES)('replaying %s in pieces', (name) => {
    const fixture = readOllamaFixture(name);
    const whole = replayResponses([fixture]);

    it('writes the same bytes one byte at a time', () => {
      expect(replayResponses(byteByByte(fixture))).toBe(whole);
    });

    it('writes the same bytes when cut inside every multi-byte character', () => {
      expect(replayResponses(splitAt(fixture, insideCharacterOffsets(fixture)))).toBe(whole);
    });

    it('writes the same bytes wherever the chunks are cut', () => {
      assertProperty(
        fc.property(cutsArbitrary(fixture), (cuts) => {
          expect(replayResponses(splitAt(fixture, cuts))).toBe(whole);
        }),
      );
    });
  });

  describe('items', () => {
    it('streams a call of a custom tool as a custom_tool_call item', () => {
      const context = responsesContext({ input: 'patch it', tools: [{ type: 'custom', name: 'apply_patch' }] });
      const reply: OllamaChatChunk = {
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', function: { name: 'apply_patch', arguments: { input: '*** Begin Patch' } } }],
        },
        done: true,
        done_reason: 'stop',
      };
      const events = convertChunks([reply], context);

      expect(events.slice(2, -1)).toEqual([
        {
          type: 'response.output_item.added',
          sequence_number: 2,
          output_index: 0,
          item: {
            id: 'ctc_7f3a9c2e1b4d_0',
            type: 'custom_tool_call',
            call_id: 'call_1',
            name: 'apply_patch',
            input: '',
          },
        },
        {
          type: 'response.custom_tool_call_input.delta',
          sequence_number: 3,
          item_id: 'ctc_7f3a9c2e1b4d_0',
          output_index: 0,
          delta: '*** Begin Patch',
        },
        {
          type: 'response.custom_tool_call_input.done',
          sequence_number: 4,
          item_id: 'ctc_7f3a9c2e1b4d_0',
          output_index: 0,
          input: '*** Begin Patch',
        },
        {
          type: 'response.output_item.done',
          sequence_number: 5,
          output_index: 0,
          item: {
            id: 'ctc_7f3a9c2e1b4d_0',
            type: 'custom_tool_call',
            call_id: 'call_1',
            name: 'apply_patch',
            input: '*** Begin Patch',
          },
        },
      ]);
      expect(finalResponse(events)).toEqual(toResponsesResponse(reply, context));
    });

    it('closes the message before a call and opens a new one for text after it', () => {
      const events = convertChunks([
        { message: { role: 'assistant', content: 'Checking.' }, done: false },
        { message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: {} } }] } },
        { message: { role: 'assistant', content: 'Done.' }, done: true, done_reason: 'stop' },
      ]);

      checkInvariants(events);
      expect(finalResponse(events)?.output.map((item) => [item.type, item.id])).toEqual([
        ['message', 'msg_7f3a9c2e1b4d_0'],
        ['function_call', 'fc_7f3a9c2e1b4d_1'],
        ['message', 'msg_7f3a9c2e1b4d_2'],
      ]);
    });

    it('writes an empty message when the node produced nothing', () => {
      const events = convertChunks([{ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' }]);

      checkInvariants(events);
      expect(events.map((event) => event.type)).not.toContain('response.output_text.delta');
      expect(finalResponse(events)).toEqual(
        toResponsesResponse({ message: { role: 'assistant', content: '' }, done: true }, RESPONSES_CONTEXT),
      );
    });

    it('opens the stream once, whether start() or the first line does it', () => {
      const converter = createResponsesStreamConverter(RESPONSES_CONTEXT);

      expect(converter.start().map((event) => event.type)).toEqual(['response.created', 'response.in_progress']);
      expect(converter.start()).toEqual([]);

      const unstarted = createResponsesStreamConverter(RESPONSES_CONTEXT);
      const first = unstarted.push({ message: { role: 'assistant', content: 'Hi' }, done: false });
      expect(first.map((event) => event.type).slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    });

    it('ignores lines after the final one', () => {
      const converter = createResponsesStreamConverter(RESPONSES_CONTEXT);
      converter.push({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' });

      expect(converter.push({ message: { role: 'assistant', content: 'late' }, done: false })).toEqual([]);
      expect(converter.end()).toEqual([]);
      expect(converter.fail(new UpstreamError('late failure'))).toEqual([]);
    });
  });

  describe('failures', () => {
    it('ends a stream cut before its final line with an error event and response.failed', () => {
      expect(replay('truncated')).toMatchInlineSnapshot(`
"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_7f3a9c2e1b4d","object":"response","created_at":1763630043,"status":"in_progress","completed_at":null,"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"qwen3:8b","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"truncation":"disabled","usage":null,"metadata":{}}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_7f3a9c2e1b4d","object":"response","created_at":1763630043,"status":"in_progress","completed_at":null,"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"qwen3:8b","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"truncation":"disabled","usage":null,"metadata":{}}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_7f3a9c2e1b4d_0","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":3,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":"Hello","logprobs":[]}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":",","logprobs":[]}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":6,"item_id":"msg_7f3a9c2e1b4d_0","output_index":0,"content_index":0,"delta":" wor","logprobs":[]}

event: error
data: {"type":"error","sequence_number":7,"code":"upstream_error","message":"the node closed the stream before its final line","param":null}

event: response.failed
data: {"type":"response.failed","sequence_number":8,"response":{"id":"resp_7f3a9c2e1b4d","object":"response","created_at":1763630043,"status":"failed","completed_at":null,"error":{"code":"server_error","message":"the node closed the stream before its final line"},"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"qwen3:8b","output":[{"id":"msg_7f3a9c2e1b4d_0","type":"message","status":"incomplete","role":"assistant","content":[{"type":"output_text","text":"Hello, wor","annotations":[],"logprobs":[]}]}],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"truncation":"disabled","usage":null,"metadata":{}}}

"
`);
    });

    it("relays the node's own error line in band, and a line that is not JSON", () => {
      const nodeError = responsesEvents(replay('node-error'));
      const malformed = responsesEvents(replay('malformed'));

      expect(nodeError.slice(-2)).toMatchObject([
        {
          type: 'error',
          code: 'upstream_error',
          message: 'the node failed: an error was encountered while running the model: CUDA error: out of memory',
        },
        { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error' } } },
      ]);
      expect(malformed.slice(-2).map((event) => event.type)).toEqual(['error', 'response.failed']);
      expect(malformed.map((event) => event.type)).not.toContain('response.completed');
    });

    it('reports an empty node stream in band, and a failure before the stream opened with an error event only', () => {
      const events = responsesEvents(replayResponses([]));

      expect(events.map((event) => event.type)).toEqual([
        'response.created',
        'response.in_progress',
        'error',
        'response.failed',
      ]);

      const unstarted = createResponsesStreamConverter(RESPONSES_CONTEXT);
      expect(unstarted.fail(new UpstreamError('no node answered'))).toEqual([
        { type: 'error', sequence_number: 0, code: 'upstream_error', message: 'no node answered', param: null },
      ]);
    });

    it('throws an UpstreamError from end() when no final line came', () => {
      const converter = createResponsesStreamConverter(RESPONSES_CONTEXT);
      converter.push({ message: { role: 'assistant', content: 'Hel' }, done: false });

      expect(() => converter.end()).toThrow(UpstreamError);
      expect(() => createResponsesStreamConverter(RESPONSES_CONTEXT).end()).toThrow(UpstreamError);
    });

    it('reports the field of a 400, keeps the output so far, and writes nothing more after it', () => {
      const converter = createResponsesStreamConverter(RESPONSES_CONTEXT);
      converter.push({ message: { role: 'assistant', content: '', thinking: 'Hmm' }, done: false });
      converter.push({ message: { role: 'assistant', content: 'Hel' }, done: false });

      const events = converter.fail(new BadRequestError('input.0.content: too long', 'input.0.content'));

      expect(events[0]).toEqual({
        type: 'error',
        sequence_number: 11,
        code: 'invalid_request',
        message: 'input.0.content: too long',
        param: 'input.0.content',
      });
      expect(events[1]).toMatchObject({
        type: 'response.failed',
        sequence_number: 12,
        response: {
          status: 'failed',
          error: { code: 'invalid_prompt', message: 'input.0.content: too long' },
          usage: null,
          output: [
            { id: 'rs_7f3a9c2e1b4d_0', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Hmm' }] },
            { id: 'msg_7f3a9c2e1b4d_1', type: 'message', status: 'incomplete', content: [{ text: 'Hel' }] },
          ],
        },
      });
      expect(events).toHaveLength(2);
      expect(converter.push({ message: { role: 'assistant', content: 'lo' }, done: true })).toEqual([]);
      expect(converter.end()).toEqual([]);
      expect(converter.fail(new UpstreamError('again'))).toEqual([]);
    });
  });

  describe('read by the openai SDK', () => {
    function sdkStream(text: string) {
      return Stream.fromSSEResponse<never>(new Response(text), new AbortController());
    }

    async function sdkFinalResponse(text: string) {
      return ResponseStream.fromReadableStream(sdkStream(text).toReadableStream()).finalResponse();
    }

    it.each(CHAT_FIXTURES)('rebuilds the response of %s, output_text included', async (name) => {
      const response = await sdkFinalResponse(replay(name));
      const expected = toResponsesResponse(wholeReply(name), RESPONSES_CONTEXT);

      // The SDK adds `parsed: null` to text parts (no structured-output format was asked for).
      expect(response.output).toMatchObject(expected.output);
      expect(response.status).toBe(expected.status);
      expect(response.output_text).toBe(wholeReply(name).message?.content ?? '');
    });

    it('rebuilds a custom tool call', async () => {
      const context = responsesContext({ input: 'patch it', tools: [{ type: 'custom', name: 'apply_patch' }] });
      const call = { id: 'call_1', function: { name: 'apply_patch', arguments: { input: '*** Begin Patch' } } };
      const reply = { message: { role: 'assistant', content: '', tool_calls: [call] }, done: true };
      const converter = createResponsesStreamConverter(context);
      const text = [...converter.push(reply), ...converter.end()]
        .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
        .join('');

      expect((await sdkFinalResponse(text)).output).toEqual(toResponsesResponse(reply, context).output);
    });

    it('iterates over every event of a raw stream', async () => {
      const types: string[] = [];
      for await (const event of sdkStream(replay('tool-call'))) types.push((event as { type: string }).type);

      expect(types).toEqual(convert('tool-call').map((event) => event.type));
    });

    it('throws on the in-band error of a cut stream', async () => {
      await expect(sdkFinalResponse(replay('truncated'))).rejects.toThrow(
        'the node closed the stream before its final line',
      );
    });
  });
});
