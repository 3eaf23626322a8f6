import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import { Stream } from '@anthropic-ai/sdk/streaming';
import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { BadRequestError, RouterError, UpstreamError } from '../../../../../lib/core/errors';
import {
  type AnthropicStreamContext,
  createAnthropicStreamConverter,
} from '../../../../../lib/core/protocols/anthropic/anthropic-stream-converter';
import { thinkingSignature } from '../../../../../lib/core/protocols/anthropic/thinking-signature';
import { toAnthropicMessage } from '../../../../../lib/core/protocols/anthropic/to-anthropic-message';
import type { AnthropicStreamEvent } from '../../../../../lib/core/wire/anthropic';
import { ANTHROPIC_CONTEXT, replayAnthropic, sseEvents } from '../../../../helpers/replay';
import { assertProperty, byteByByte, cutsArbitrary, insideCharacterOffsets, splitAt } from '../../stream/chunkings';
import {
  type AnthropicFixture,
  COMPLETE_FIXTURES,
  fixtureChunks,
  fixtureReply,
  readFixture,
} from './anthropic-fixtures';

const STOPS: AnthropicStreamContext = { ...ANTHROPIC_CONTEXT, stopSequences: ['\n\nHuman:', 'END'] };

function convert(name: AnthropicFixture, context: AnthropicStreamContext = STOPS): AnthropicStreamEvent[] {
  const converter = createAnthropicStreamConverter(context);
  return [...fixtureChunks(name).flatMap((chunk) => converter.push(chunk)), ...converter.end()];
}

function replay(name: AnthropicFixture, context: AnthropicStreamContext = ANTHROPIC_CONTEXT): string {
  return replayAnthropic([readFixture(name)], context);
}

/** The message the SDK's MessageStream rebuilds, without the `parsed_output` it adds for its own helpers. */
async function finalMessage(text: string) {
  const controller = new AbortController();
  const stream = Stream.fromSSEResponse(new Response(text), controller);
  const { parsed_output: _parsed, ...message } = await MessageStream.fromReadableStream(
    stream.toReadableStream(),
  ).finalMessage();
  return message;
}

describe('createAnthropicStreamConverter', () => {
  describe('encoded streams', () => {
    it('streams text in one block between message_start and message_stop', () => {
      expect(replay('length')).toMatchInlineSnapshot(`
"event: message_start
data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"qwen3:8b","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Once"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" upon"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" a"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" time"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":","}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" in"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" a"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" kingdom"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"input_tokens":27,"output_tokens":8}}

event: message_stop
data: {"type":"message_stop"}

"
`);
    });

    it('streams thinking in a thinking block, then text in a second block', () => {
      expect(replay('thinking')).toMatchInlineSnapshot(`
"event: message_start
data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"qwen3:8b","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Okay"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":","}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" the"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" user"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" asks"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" 17"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" ×"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" 3"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" That"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" is"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" 51"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"9Ah1X+SzmcjNLn66vf0pfqtMqWfRp3WqWCk7moLTrkk="}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"17"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" ×"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" 3"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" ="}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" **"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"51"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"**"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"."}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":18,"output_tokens":21}}

event: message_stop
data: {"type":"message_stop"}

"
`);
    });

    it('streams each tool call whole after closing the open block, and stops with tool_use', () => {
      expect(replay('text-then-tools')).toMatchInlineSnapshot(`
"event: message_start
data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"qwen3:8b","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Two cities"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":", two calls."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"4eyY4HnvBCU3isSsS9svYRSbDZ0GkZPDDQp9WXUpe5I="}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Checking Zürich"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" and Genève…"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"call_zrh","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":\\"Zürich\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_01XFDUDYJgAACzvnptvVoYEL_1","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":\\"Genève\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":240,"output_tokens":44}}

event: message_stop
data: {"type":"message_stop"}

"
`);
    });

    it('reports the measured cached tokens apart from the uncached ones in message_delta', () => {
      expect(replay('cached-tokens')).toMatchInlineSnapshot(`
"event: message_start
data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"qwen3:8b","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" capital"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" of"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" France"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" is"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" Paris"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":4,"output_tokens":7,"cache_read_input_tokens":48}}

event: message_stop
data: {"type":"message_stop"}

"
`);
    });
  });

  describe.each(COMPLETE_FIXTURES)('invariants of %s', (name) => {
    const events = convert(name);
    const blockEvents = events.filter(
      (event) =>
        event.type === 'content_block_start' ||
        event.type === 'content_block_delta' ||
        event.type === 'content_block_stop',
    );

    it('opens with one message_start and closes with message_delta then one message_stop', () => {
      expect(events[0]?.type).toBe('message_start');
      expect(events.filter((event) => event.type === 'message_start')).toHaveLength(1);
      expect(events.slice(-2).map((event) => event.type)).toEqual(['message_delta', 'message_stop']);
      expect(events.filter((event) => event.type === 'message_stop')).toHaveLength(1);
    });

    it('gives the message the context id and model and no stop reason at the start', () => {
      expect(events[0]).toMatchObject({
        message: { id: STOPS.id, model: STOPS.model, content: [], stop_reason: null, stop_sequence: null },
      });
    });

    it('numbers blocks 0, 1, 2… and keeps one open at a time, each started once and stopped once', () => {
      let open: number | undefined;
      const started: number[] = [];
      for (const event of blockEvents) {
        if (event.type === 'content_block_start') {
          expect(open).toBeUndefined();
          expect(event.index).toBe(started.length);
          started.push(event.index);
          open = event.index;
        } else {
          expect(event.index).toBe(open);
          if (event.type === 'content_block_stop') open = undefined;
        }
      }
      expect(open).toBeUndefined();
      expect(started.length).toBeGreaterThan(0);
    });

    it('gives every tool_use block input that parses to an object', () => {
      for (const [index, event] of events.entries()) {
        if (event.type !== 'content_block_start' || event.content_block.type !== 'tool_use') continue;
        const delta = events[index + 1];
        expect(delta?.type === 'content_block_delta' && delta.delta.type === 'input_json_delta').toBe(true);
        if (delta?.type === 'content_block_delta' && delta.delta.type === 'input_json_delta') {
          expect(JSON.parse(delta.delta.partial_json)).toEqual(expect.any(Object));
        }
      }
    });

    it('ends with the same message toAnthropicMessage makes of the whole reply', async () => {
      const message = await finalMessage(replayAnthropic([readFixture(name)], STOPS));

      expect(message).toEqual(toAnthropicMessage(fixtureReply(name), STOPS));
    });
  });

  describe.each(COMPLETE_FIXTURES)('replaying %s in pieces', (name) => {
    const fixture = readFixture(name);
    const whole = replayAnthropic([fixture], STOPS);

    it('writes the same bytes one byte at a time', () => {
      expect(replayAnthropic(byteByByte(fixture), STOPS)).toBe(whole);
    });

    it('writes the same bytes when cut inside every multi-byte character', () => {
      expect(replayAnthropic(splitAt(fixture, insideCharacterOffsets(fixture)), STOPS)).toBe(whole);
    });

    it('writes the same bytes wherever the chunks are cut', () => {
      assertProperty(
        fc.property(cutsArbitrary(fixture), (cuts) => {
          expect(replayAnthropic(splitAt(fixture, cuts), STOPS)).toBe(whole);
        }),
      );
    });
  });

  describe('stop reasons', () => {
    function messageDelta(events: readonly AnthropicStreamEvent[]) {
      return events.find((event) => event.type === 'message_delta');
    }

    it.each([
      ['plain-text', 'end_turn', null],
      ['length', 'max_tokens', null],
      ['tool-call', 'tool_use', null],
      ['parallel-tool-calls', 'tool_use', null],
      ['stop-sequence', 'stop_sequence', '\n\nHuman:'],
    ] as const)('stops %s with %s', (name, stopReason, stopSequence) => {
      expect(messageDelta(convert(name))).toMatchObject({
        delta: { stop_reason: stopReason, stop_sequence: stopSequence },
      });
    });

    it('finds a stop sequence split across lines', () => {
      const converter = createAnthropicStreamConverter({ ...ANTHROPIC_CONTEXT, stopSequences: ['<|end|>'] });
      converter.push({ message: { role: 'assistant', content: 'done <|e' }, done: false });

      const events = converter.push({
        message: { role: 'assistant', content: 'nd|>' },
        done: true,
        done_reason: 'stop',
      });

      expect(messageDelta(events)).toMatchObject({ delta: { stop_reason: 'stop_sequence', stop_sequence: '<|end|>' } });
    });

    it('does not name a stop sequence the request did not send', () => {
      expect(messageDelta(convert('stop-sequence', ANTHROPIC_CONTEXT))).toMatchObject({
        delta: { stop_reason: 'end_turn', stop_sequence: null },
      });
    });
  });

  describe('usage', () => {
    it('starts with the caller estimate of input tokens, else 0, and no output', () => {
      const estimated = createAnthropicStreamConverter({ ...ANTHROPIC_CONTEXT, inputTokensEstimate: 57 });
      const unknown = createAnthropicStreamConverter(ANTHROPIC_CONTEXT);
      const line = { message: { role: 'assistant', content: 'Hi' }, done: false };

      expect(estimated.push(line)[0]).toMatchObject({ message: { usage: { input_tokens: 57, output_tokens: 0 } } });
      expect(unknown.push(line)[0]).toMatchObject({ message: { usage: { input_tokens: 0, output_tokens: 0 } } });
    });

    it.each([
      ['cached-tokens', { input_tokens: 4, output_tokens: 7, cache_read_input_tokens: 48 }],
      ['cached-zero', { input_tokens: 52, output_tokens: 7, cache_read_input_tokens: 0 }],
      ['plain-text', { input_tokens: 31, output_tokens: 12 }],
    ] as const)('carries the node counts of %s in message_delta', (name, usage) => {
      const delta = convert(name).find((event) => event.type === 'message_delta');

      expect(delta?.type === 'message_delta' ? delta.usage : undefined).toEqual(usage);
    });
  });

  describe('edge cases', () => {
    it('answers a reply with nothing in it with one empty text block', () => {
      const converter = createAnthropicStreamConverter(ANTHROPIC_CONTEXT);

      const events = converter.push({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' });

      expect(events.map((event) => event.type)).toEqual([
        'message_start',
        'content_block_start',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      expect(events[1]).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    });

    it('converts a whole reply pushed as one line', () => {
      const converter = createAnthropicStreamConverter(ANTHROPIC_CONTEXT);

      const events = converter.push(fixtureReply('text-then-tools'));

      expect(
        events.map((event) => (event.type === 'content_block_start' ? event.content_block.type : event.type)),
      ).toEqual([
        'message_start',
        'thinking',
        'content_block_delta',
        'content_block_delta', // signature_delta
        'content_block_stop',
        'text',
        'content_block_delta',
        'content_block_stop',
        'tool_use',
        'content_block_delta',
        'content_block_stop',
        'tool_use',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
    });

    it('opens a new block each time the kind changes back', () => {
      const converter = createAnthropicStreamConverter(ANTHROPIC_CONTEXT);
      const lines = [
        { message: { role: 'assistant', thinking: 'a' }, done: false },
        { message: { role: 'assistant', content: 'b' }, done: false },
        { message: { role: 'assistant', thinking: 'c' }, done: false },
      ];

      const starts = lines
        .flatMap((line) => converter.push(line))
        .filter((event) => event.type === 'content_block_start')
        .map((event) => [event.index, event.content_block.type]);

      expect(starts).toEqual([
        [0, 'thinking'],
        [1, 'text'],
        [2, 'thinking'],
      ]);
    });

    it('gives id-less calls ids derived from the message id', () => {
      const ids = convert('parallel-tool-calls').flatMap((event) =>
        event.type === 'content_block_start' && event.content_block.type === 'tool_use' ? [event.content_block.id] : [],
      );

      expect(ids).toEqual(['toolu_01XFDUDYJgAACzvnptvVoYEL_0', 'toolu_01XFDUDYJgAACzvnptvVoYEL_1']);
    });

    it('pings only while the stream is open', () => {
      const converter = createAnthropicStreamConverter(ANTHROPIC_CONTEXT);

      expect(converter.ping()).toEqual([{ type: 'ping' }]);
      converter.push({ message: { role: 'assistant', content: 'Hi' }, done: true, done_reason: 'stop' });
      expect(converter.ping()).toEqual([]);
    });
  });

  describe('failures', () => {
    it('ends a stream cut before its final line with an error event and no message_stop', () => {
      expect(replay('truncated')).toMatchInlineSnapshot(`
"event: message_start
data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"qwen3:8b","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":","}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" wor"}}

event: error
data: {"type":"error","error":{"type":"api_error","message":"the node closed the stream before its final line"}}

"
`);
    });

    it('reports a line that is not JSON in band', () => {
      const events = sseEvents(replay('malformed'));

      expect(events.map(([name]) => name)).not.toContain('message_stop');
      expect(events[events.length - 1]).toEqual([
        'error',
        {
          type: 'error',
          error: { type: 'api_error', message: expect.stringMatching(/^the node sent a malformed line: /) },
        },
      ]);
    });

    it("relays the node's own error line in band", () => {
      expect(replay('node-error')).toContain(
        'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"the node failed: an error was encountered while running the model: CUDA error: out of memory"}}\n\n',
      );
    });

    it('reports an empty node stream in band, with no event before it', () => {
      expect(replayAnthropic([], ANTHROPIC_CONTEXT)).toBe(
        'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"the node closed the stream before its final line"}}\n\n',
      );
    });

    it('throws an UpstreamError from end() when no final line came', () => {
      const converter = createAnthropicStreamConverter(ANTHROPIC_CONTEXT);
      converter.push({ message: { role: 'assistant', content: 'Hel' }, done: false });

      expect(() => converter.end()).toThrow(UpstreamError);
    });

    it.each([
      [new BadRequestError('messages.0.content: too long', 'messages.0.content'), 'invalid_request_error'],
      [new RouterError(503, 'no node can take the request'), 'overloaded_error'],
      [new RouterError(413, 'prompt over the context cap'), 'request_too_large'],
    ])('gives the error event of the family and writes nothing more after it (%s)', (error, type) => {
      const converter = createAnthropicStreamConverter(ANTHROPIC_CONTEXT);
      converter.push({ message: { role: 'assistant', content: 'Hel' }, done: false });

      expect(converter.fail(error)).toEqual({ type: 'error', error: { type, message: error.message } });
      expect(converter.push({ message: { role: 'assistant', content: 'lo' }, done: true })).toEqual([]);
      expect(converter.end()).toEqual([]);
      expect(converter.ping()).toEqual([]);
    });

    it('ignores lines after the final one', () => {
      const converter = createAnthropicStreamConverter(ANTHROPIC_CONTEXT);
      converter.push({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' });

      expect(converter.push({ message: { role: 'assistant', content: 'late' }, done: false })).toEqual([]);
      expect(converter.end()).toEqual([]);
    });
  });

  describe('read by the Anthropic SDK', () => {
    it('rebuilds thinking, text and parsed tool input', async () => {
      const message = await finalMessage(replay('text-then-tools'));

      expect(message.content).toEqual([
        // The router's signature, from the stream's signature_delta.
        {
          type: 'thinking',
          thinking: 'Two cities, two calls.',
          signature: thinkingSignature('Two cities, two calls.'),
        },
        { type: 'text', text: 'Checking Zürich and Genève…' },
        { type: 'tool_use', id: 'call_zrh', name: 'get_weather', input: { city: 'Zürich' } },
        { type: 'tool_use', id: 'toolu_01XFDUDYJgAACzvnptvVoYEL_1', name: 'get_weather', input: { city: 'Genève' } },
      ]);
      expect(message.stop_reason).toBe('tool_use');
      expect(message.usage).toEqual({ input_tokens: 240, output_tokens: 44 });
    });

    it('throws on the in-band error of a cut stream', async () => {
      await expect(finalMessage(replay('truncated'))).rejects.toThrow(
        'the node closed the stream before its final line',
      );
    });

    it('skips ping events', async () => {
      const converter = createAnthropicStreamConverter(ANTHROPIC_CONTEXT);
      const events = [
        ...converter.ping(),
        ...converter.push({ message: { role: 'assistant', content: 'Hi' }, done: false }),
        ...converter.ping(),
        ...converter.push({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' }),
      ];
      const text = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');

      expect((await finalMessage(text)).content).toEqual([{ type: 'text', text: 'Hi' }]);
    });
  });
});
