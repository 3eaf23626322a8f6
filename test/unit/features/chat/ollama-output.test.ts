import { describe, expect, it } from '@jest/globals';
import { createOllamaOutput } from '../../../../lib/features/chat/ollama-output';
import { driveOutput } from './drive-output';

const bytes = (...lines: object[]) => Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
const metrics = { done_reason: 'stop', total_duration: 1000, prompt_eval_count: 5, eval_count: 3, eval_duration: 900 };

describe('createOllamaOutput, non-streaming', () => {
  it("answers a node's single complete line with that line as the node wrote it", () => {
    // Key order and a field the router does not know are the node's own: the line is not rebuilt.
    const line = `{"model":"m","extra":{"b":1,"a":2},"created_at":"t","message":{"content":"hi","role":"assistant"},"done":true,"done_reason":"stop","eval_count":3}`;
    const output = createOllamaOutput('chat', false, undefined);

    const { text, headers, failure } = driveOutput(output, Buffer.from(`${line}\n`));

    expect(failure).toBeUndefined();
    expect(text).toBe(line);
    expect(headers?.['x-output-tokens']).toBe('3');
    expect(headers?.['x-done-reason']).toBe('stop');
  });

  it('joins several lines into one answer that keeps thinking and tool calls', () => {
    const call = { function: { name: 'f', arguments: { x: 1 } } };
    const output = createOllamaOutput('chat', false, undefined);

    const { text } = driveOutput(
      output,
      bytes(
        { model: 'm', message: { role: 'assistant', content: '', thinking: 'hmm' }, done: false },
        { model: 'm', message: { role: 'assistant', content: 'he' }, done: false },
        { model: 'm', message: { role: 'assistant', content: 'llo', tool_calls: [call] }, done: false },
        { model: 'm', message: { role: 'assistant', content: '' }, done: true, ...metrics },
      ),
    );

    expect(JSON.parse(text)).toEqual({
      model: 'm',
      message: { role: 'assistant', content: 'hello', thinking: 'hmm', tool_calls: [call] },
      done: true,
      ...metrics,
    });
  });

  it('rebuilds a single final line that lacks a message, as the accumulator does', () => {
    const output = createOllamaOutput('chat', false, undefined);

    const { text } = driveOutput(output, bytes({ model: 'm', done: true, ...metrics }));

    expect(JSON.parse(text)).toEqual({
      model: 'm',
      message: { role: 'assistant', content: '' },
      done: true,
      ...metrics,
    });
  });

  it("answers generate's single complete line as it came, and joins several", () => {
    const line = `{"model":"m","response":"ok","done":true,"context":[1,2],"eval_count":1}`;
    expect(driveOutput(createOllamaOutput('generate', false, undefined), Buffer.from(`${line}\n`)).text).toBe(line);

    const { text } = driveOutput(
      createOllamaOutput('generate', false, undefined),
      bytes({ model: 'm', response: 'o', done: false }, { model: 'm', response: 'k', done: true, context: [1] }),
    );
    expect(JSON.parse(text)).toEqual({ model: 'm', response: 'ok', done: true, context: [1] });
  });

  it('fails a reply whose only line is not the last', () => {
    const output = createOllamaOutput('chat', false, undefined);

    const { failure } = driveOutput(
      output,
      bytes({ model: 'm', message: { role: 'assistant', content: 'x' }, done: false }),
    );

    expect(failure?.message).toMatch(/before its final line/);
  });
});

describe('createOllamaOutput, the outcome', () => {
  it.each([true, false])('reports the node’s model load in ms from its last line (streaming: %s)', (streaming) => {
    const output = createOllamaOutput('chat', streaming, undefined);

    driveOutput(
      output,
      bytes(
        { model: 'm', message: { role: 'assistant', content: 'h' }, done: false },
        {
          model: 'm',
          message: { role: 'assistant', content: 'i' },
          done: true,
          ...metrics,
          load_duration: 1_499_600_000,
          prompt_eval_duration: 100_000_000,
        },
      ),
    );

    expect(output.outcome()).toMatchObject({ loadMs: 1500, promptTokens: 5, completionTokens: 3 });
  });

  it('leaves the load out where the node does not report it, and reports no cached tokens (Ollama has none)', () => {
    const output = createOllamaOutput('generate', false, undefined);

    driveOutput(output, bytes({ model: 'm', response: 'ok', done: true, ...metrics }));

    // The answer's own time (900 ns) is kept for the node's decode rate; the prompt's was not reported.
    expect(output.outcome()).toEqual({ promptTokens: 5, completionTokens: 3, finishReason: 'stop', evalMs: 0.0009 });
  });

  it("reports the prompt tokens a node served from its cache, a measured 0 included, for the models' cache hit rate", () => {
    for (const cached of [4, 0]) {
      const output = createOllamaOutput('generate', false, undefined);
      driveOutput(output, bytes({ model: 'm', response: 'ok', done: true, ...metrics, prompt_cache_count: cached }));
      expect(output.outcome()).toMatchObject({ promptTokens: 5, cachedTokens: cached });
    }
  });
});
