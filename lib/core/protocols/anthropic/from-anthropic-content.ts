/**
 * Anthropic `text`, `image` and `document` blocks → the text and images of an Ollama message
 * (protocols §6.2 → §2.3), for message content, `tool_result` content and a document's `content` source.
 * - Text is joined with "\n" by the caller (a block is a paragraph of its own, as on the OpenAI side).
 * - Images become bare base64: a `base64` source is checked and used as it is; a `url` source (http(s)
 *   only) must be in the caller's map of fetched images (`anthropicImageUrls` lists them); a `file` source
 *   (the Files API) is a 400 — the router has no files to read it from.
 * - Documents: nodes read text, so a `text` source becomes its text (after its title, when it has one)
 *   and a `content` source its text and images; a PDF (`base64`, `url`) or `file` source is a 400 naming
 *   the source, never a silent drop that would leave the model answering about a document it never saw.
 * - Blocks of other types are skipped (`anthropicSkippedBlocks` names them).
 * Pure; throws only `BadRequestError` naming the field.
 */
import { BadRequestError } from '../../errors';
import {
  type AnthropicDocumentBlockParam,
  type AnthropicDocumentContentBlockParam,
  type AnthropicImageBlockParam,
  type AnthropicTextBlockParam,
  type AnthropicToolResultContentBlockParam,
  isKnownAnthropicBlock,
} from '../../wire/anthropic';

export interface ContentParts {
  readonly texts: string[];
  readonly images: string[];
}

type ContentBlock = AnthropicTextBlockParam | AnthropicImageBlockParam | AnthropicDocumentBlockParam;

/** Standard base64 with padding, as Ollama decodes images (Go `StdEncoding`). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** True for the image URLs the caller fetches (`http:` and `https:`). */
export function isFetchedAnthropicImageUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** The text and images of a `string | Block[]` content (absent content is empty). */
export function fromAnthropicContent(
  content:
    | string
    | readonly (AnthropicToolResultContentBlockParam | AnthropicDocumentContentBlockParam)[]
    | null
    | undefined,
  field: string,
  fetched: ReadonlyMap<string, string>,
): ContentParts {
  const parts: ContentParts = { texts: [], images: [] };
  if (content === undefined || content === null) return parts;
  if (typeof content === 'string') {
    parts.texts.push(content);
    return parts;
  }
  content.forEach((block, index) => {
    if (isKnownAnthropicBlock(block)) addAnthropicContentBlock(block, `${field}.${index}`, fetched, parts);
  });
  return parts;
}

/** Adds one text, image or document block to `parts`. */
export function addAnthropicContentBlock(
  block: ContentBlock,
  field: string,
  fetched: ReadonlyMap<string, string>,
  parts: ContentParts,
): void {
  switch (block.type) {
    case 'text':
      parts.texts.push(block.text);
      return;
    case 'image':
      parts.images.push(imageData(block, field, fetched));
      return;
    case 'document':
      addDocument(block, field, fetched, parts);
      return;
  }
}

function imageData(block: AnthropicImageBlockParam, field: string, fetched: ReadonlyMap<string, string>): string {
  const source = block.source;
  switch (source.type) {
    case 'base64': {
      if (source.data.length % 4 !== 0 || !BASE64.test(source.data)) {
        throw new BadRequestError(`${field}.source.data: not valid base64`, `${field}.source.data`);
      }
      return source.data;
    }
    case 'url': {
      const urlField = `${field}.source.url`;
      if (!isFetchedAnthropicImageUrl(source.url)) {
        throw new BadRequestError(`${urlField}: expected an http(s) URL`, urlField);
      }
      const data = fetched.get(source.url);
      if (data === undefined) throw new BadRequestError(`${urlField}: the image could not be fetched`, urlField);
      return data;
    }
    case 'file':
      throw new BadRequestError(
        `${field}.source: file sources are not supported; send the image as base64 or a URL`,
        `${field}.source`,
      );
  }
}

function addDocument(
  block: AnthropicDocumentBlockParam,
  field: string,
  fetched: ReadonlyMap<string, string>,
  parts: ContentParts,
): void {
  const source = block.source;
  const title = block.title ?? '';
  switch (source.type) {
    case 'text':
      parts.texts.push(title === '' ? source.data : `${title}\n${source.data}`);
      return;
    case 'content': {
      const inner = fromAnthropicContent(source.content, `${field}.source.content`, fetched);
      if (title !== '') parts.texts.push(title);
      parts.texts.push(...inner.texts);
      parts.images.push(...inner.images);
      return;
    }
    case 'base64':
    case 'url':
    case 'file':
      throw new BadRequestError(
        `${field}.source: ${source.type} documents (PDF) are not supported; send the document's text`,
        `${field}.source`,
      );
  }
}
