import { describe, expect, it } from '@jest/globals';
import { toResponsesResponse } from '../../../../lib/core/protocols/responses/to-responses-response';
import { createResponsesOutput, type ResponsesOutputContext } from '../../../../lib/features/chat/responses-output';
import { CHAT_FIXTURES, FAILING_CHAT_FIXTURES, readOllamaFixture } from '../../../fixtures/ollama/read-fixture';
import { replayResponses, responsesContext, responsesEvents } from '../../../helpers/replay';
import { wholeReply } from '../../core/protocols/node-replies';
import { driveOutput } from './drive-output';

const CONTEXT: ResponsesOutputContext = {
  ...responsesContext({ input: 'hi', max_output_tokens: 1024 }),
  stored: false,
  streaming: true,
  options: { num_predict: 1024 },
};

describe('createResponsesOutput', () => {
  it.each(CHAT_FIXTURES)('streams the converter events of %s, numbered from 0, ending completed', (name) => {
    const output = createResponsesOutput(CONTEXT);

    const { text, failure } = driveOutput(output, readOllamaFixture(name));
    const events = responsesEvents(text);

    expect(failure).toBeUndefined();
    expect(text).toBe(replayResponses([readOllamaFixture(name)], CONTEXT));
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0]?.type).toBe('response.created');
    expect(events.at(-1)?.type).toMatch(/^response\.(completed|incomplete)$/);
  });

  it.each(CHAT_FIXTURES)("answers %s whole as toResponsesResponse's object, stored nowhere", (name) => {
    const output = createResponsesOutput({ ...CONTEXT, streaming: false });

    const { text, headers } = driveOutput(output, readOllamaFixture(name));
    const body = JSON.parse(text) as { store: boolean };

    expect(body).toEqual(toResponsesResponse(wholeReply(name), CONTEXT));
    expect(body.store).toBe(false);
    expect(headers?.['x-output-tokens']).toMatch(/^\d+$/);
  });

  it.each(FAILING_CHAT_FIXTURES)(
    'reports the failure of %s after the first byte as error and response.failed',
    (name) => {
      const output = createResponsesOutput(CONTEXT);

      const { text, failure } = driveOutput(output, readOllamaFixture(name));
      const events = responsesEvents(text);

      expect(failure?.status).toBe(502);
      expect(events.at(-2)).toMatchObject({ type: 'error', code: 'upstream_error', message: failure?.message });
      expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { status: 'failed' } });
      expect(events.some((event) => event.type === 'response.completed')).toBe(false);
    },
  );

  it('leaves the failure of a whole reply to the handler', () => {
    const output = createResponsesOutput({ ...CONTEXT, streaming: false });

    const { text, failure } = driveOutput(output, readOllamaFixture('node-error'));

    expect(text).toBe('');
    expect(failure?.message).toContain('CUDA error');
  });
});
