import { describe, expect, it } from '@jest/globals';
import {
  chatDiagnosticHeaders,
  contextOverflow,
  generateDiagnosticHeaders,
} from '../../../../lib/core/protocols/diagnostic-headers';
import { wholeReply } from './node-replies';

describe('chatDiagnosticHeaders', () => {
  it('splits eval_count between thinking and output by characters and checks the budget', () => {
    // 39 characters of thinking, 16 of content, eval_count 21: round(21 × 39 / 55) = 15.
    expect(chatDiagnosticHeaders(wholeReply('thinking'), { num_predict: 1324 })).toEqual({
      'x-thinking-tokens': '15',
      'x-output-tokens': '6',
      'x-budget-used': '21/1324',
      'x-done-reason': 'stop',
    });
  });

  it('counts tool-call arguments as output', () => {
    // 29 characters of thinking, 33 of arguments, eval_count 29: round(29 × 29 / 62) = 14.
    expect(chatDiagnosticHeaders(wholeReply('tool-call'), undefined)).toEqual({
      'x-thinking-tokens': '14',
      'x-output-tokens': '15',
      'x-done-reason': 'stop',
    });
  });

  it('reports 0 thinking tokens for a reply without thinking, and a spent budget', () => {
    expect(chatDiagnosticHeaders(wholeReply('length'), { num_predict: 8 })).toEqual({
      'x-thinking-tokens': '0',
      'x-output-tokens': '8',
      'x-budget-used': '8/8',
      'x-done-reason': 'length',
    });
  });

  it.each([undefined, null, -1, 0])('sends no budget header for num_predict %p', (budget) => {
    expect(chatDiagnosticHeaders(wholeReply('plain-text'), { num_predict: budget })).not.toHaveProperty(
      'x-budget-used',
    );
  });

  it('counts absent metrics as 0 and leaves out an absent done_reason', () => {
    expect(chatDiagnosticHeaders({ message: { role: 'assistant', content: '' }, done: true }, null)).toEqual({
      'x-thinking-tokens': '0',
      'x-output-tokens': '0',
    });
  });
});

describe('chatDiagnosticHeaders with a strange node', () => {
  it('never copies a done_reason with a line break into a header', () => {
    const final = { done: true, done_reason: 'stop\r\nx-injected: 1', eval_count: 1 };

    expect(chatDiagnosticHeaders(final, null)).not.toHaveProperty('x-done-reason');
  });
});

describe('generateDiagnosticHeaders', () => {
  it('splits eval_count between thinking and response', () => {
    const final = { response: 'Blue.', thinking: 'Short answer.', done: true, done_reason: 'stop', eval_count: 5 };

    // 13 characters of thinking, 5 of response: round(5 × 13 / 18) = 4.
    expect(generateDiagnosticHeaders(final, { num_predict: 100 })).toEqual({
      'x-thinking-tokens': '4',
      'x-output-tokens': '1',
      'x-budget-used': '5/100',
      'x-done-reason': 'stop',
    });
  });
});

describe('contextOverflow', () => {
  it('describes a prompt larger than the loaded context', () => {
    expect(contextOverflow(9000, 8192)).toBe('estimated_tokens=9000; context_length=8192');
  });

  it('says nothing when the prompt fits, exactly full included', () => {
    expect(contextOverflow(8192, 8192)).toBeUndefined();
    expect(contextOverflow(10, 8192)).toBeUndefined();
  });
});
