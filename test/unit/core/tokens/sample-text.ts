/**
 * Texts for the token tests: deterministic prose-and-code of any length (no runs long enough to be cut),
 * and the encoder itself, to compare with.
 */
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';

const WORDS = [
  'the',
  'router',
  'forwards',
  'requests',
  'to',
  'Ollama',
  'nodes;',
  'const',
  'x',
  '=',
  'await',
  'fetch(url,',
  '{',
  'method:',
  "'POST'",
  '});',
  '42',
  '3.14159',
  'naïve',
  'café',
  '日本語',
  '🙂',
  '\n',
  '\n\n',
  '  ',
  '\t',
  "don't",
  '<|endoftext|>',
];

/** About `length` characters of mixed words, code, numbers, CJK, emoji and whitespace. */
export function sampleText(length: number, seed = 1): string {
  let state = seed;
  let text = '';
  while (text.length < length) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += `${WORDS[state % WORDS.length]} `;
  }
  return text;
}

/** The encoder's own count, with special tokens as plain text: what `countTokens` must equal. */
export function encoderCount(text: string): number {
  return cl100k.countTokens(text, { disallowedSpecial: new Set() });
}
