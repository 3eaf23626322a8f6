/**
 * Every content block of an Anthropic conversation, wherever it sits (protocols §6.2): in a message's
 * content, inside a `tool_result`'s content, inside a document's `content` source — each with its field
 * path (`messages.2.content.0.content.1`). Read by `anthropicImageUrls` and `anthropicSkippedBlocks`, so
 * what the caller fetches and what the translator skips are found by one walk. Pure.
 */
import {
  type AnthropicContentBlockParam,
  type AnthropicDocumentContentBlockParam,
  type AnthropicMessageParam,
  type AnthropicToolResultContentBlockParam,
  isKnownAnthropicBlock,
} from '../../wire/anthropic';

export type AnthropicAnyBlockParam =
  | AnthropicContentBlockParam
  | AnthropicToolResultContentBlockParam
  | AnthropicDocumentContentBlockParam;

export interface AnthropicBlockAt {
  readonly block: AnthropicAnyBlockParam;
  readonly field: string;
}

export function* anthropicBlocks(messages: readonly AnthropicMessageParam[]): Generator<AnthropicBlockAt> {
  for (const [index, message] of messages.entries()) yield* blocksIn(message.content, `messages.${index}.content`);
}

function* blocksIn(
  content: string | readonly AnthropicAnyBlockParam[] | null | undefined,
  field: string,
): Generator<AnthropicBlockAt> {
  if (typeof content !== 'object' || content === null) return;
  for (const [index, block] of content.entries()) {
    const blockField = `${field}.${index}`;
    yield { block, field: blockField };
    if (!isKnownAnthropicBlock(block)) continue;
    if (block.type === 'tool_result') yield* blocksIn(block.content, `${blockField}.content`);
    if (block.type === 'document' && block.source.type === 'content') {
      yield* blocksIn(block.source.content, `${blockField}.source.content`);
    }
  }
}
