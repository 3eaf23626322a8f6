/** Whole node replies built from the captured fixtures, as the relay would hand them over. */
import { createOllamaChatAccumulator } from '../../../../lib/core/protocols/ollama/ollama-chat-accumulator';
import { parseOllamaChatLine } from '../../../../lib/core/protocols/ollama/parse-ollama-line';
import { createNdjsonDecoder } from '../../../../lib/core/stream/ndjson-decoder';
import type { OllamaChatChunk } from '../../../../lib/core/wire/ollama';
import { type OllamaFixture, readOllamaFixture } from '../../../fixtures/ollama/read-fixture';

/** The parsed node lines of a fixture. */
export function nodeChunks(name: OllamaFixture): OllamaChatChunk[] {
  const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
  return [...decoder.push(readOllamaFixture(name)), ...decoder.end()].map((line) => {
    const parsed = parseOllamaChatLine(line);
    if (!parsed.ok) throw parsed.error;
    return parsed.chunk;
  });
}

/** The fixture accumulated into the one object a `stream: false` reply is. */
export function wholeReply(name: OllamaFixture): OllamaChatChunk {
  const accumulator = createOllamaChatAccumulator();
  for (const chunk of nodeChunks(name)) accumulator.push(chunk);
  return accumulator.end();
}
