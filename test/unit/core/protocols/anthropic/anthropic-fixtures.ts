/**
 * Node streams for the Anthropic tests: the shared captured fixtures plus two of its own — thinking, text
 * and then two tool calls (one without an id, one with string arguments), and a reply that ends with a
 * stop sequence the node kept. Read as bytes, the way they arrive from a node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOllamaChatAccumulator } from '../../../../../lib/core/protocols/ollama/ollama-chat-accumulator';
import { parseOllamaChatLine } from '../../../../../lib/core/protocols/ollama/parse-ollama-line';
import { createNdjsonDecoder } from '../../../../../lib/core/stream/ndjson-decoder';
import type { OllamaChatChunk } from '../../../../../lib/core/wire/ollama';
import { CHAT_FIXTURES, type OllamaFixture, readOllamaFixture } from '../../../../fixtures/ollama/read-fixture';

export const LOCAL_FIXTURES = ['text-then-tools', 'stop-sequence'] as const;

type LocalFixture = (typeof LOCAL_FIXTURES)[number];

export type AnthropicFixture = OllamaFixture | LocalFixture;

/** Every fixture that ends with `done: true`. */
export const COMPLETE_FIXTURES: readonly AnthropicFixture[] = [...CHAT_FIXTURES, ...LOCAL_FIXTURES];

function isLocalFixture(name: AnthropicFixture): name is LocalFixture {
  return (LOCAL_FIXTURES as readonly string[]).includes(name);
}

export function readFixture(name: AnthropicFixture): Uint8Array {
  if (!isLocalFixture(name)) return readOllamaFixture(name);
  return new Uint8Array(readFileSync(join(__dirname, 'fixtures', `${name}.ndjson`)));
}

/** The parsed node lines of a fixture. */
export function fixtureChunks(name: AnthropicFixture): OllamaChatChunk[] {
  const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
  return [...decoder.push(readFixture(name)), ...decoder.end()].map((line) => {
    const parsed = parseOllamaChatLine(line);
    if (!parsed.ok) throw parsed.error;
    return parsed.chunk;
  });
}

/** The fixture accumulated into the one object a `stream: false` reply is. */
export function fixtureReply(name: AnthropicFixture): OllamaChatChunk {
  const accumulator = createOllamaChatAccumulator();
  for (const chunk of fixtureChunks(name)) accumulator.push(chunk);
  return accumulator.end();
}
