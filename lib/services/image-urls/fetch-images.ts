/**
 * Fetches the http(s) image URLs of a request (OpenAI `image_url`, Anthropic `source.url`, Responses
 * `input_image`), all at once, each bounded in time and size, so the node receives the image bytes it
 * needs (Ollama takes base64, not URLs). Redirects are followed (at most five, http(s) only), as a browser
 * showing the image would.
 *
 * The router sits inside the fleet's network, so a client-named URL must not reach what only the router
 * can (issue 19 item 3): every connection, redirects included, goes only to a public address or one on
 * the operator's allow list (./image-agent, ./image-destination). Whatever fails — a refused
 * destination, DNS, the connection, a non-2xx, a body that is no image, too many redirects, too large —
 * the client reads the same 400 naming its field and nothing about what is behind the address; the
 * operator's log gets the cause, one line.
 */
import type { Dispatcher } from 'undici';
import { BadRequestError } from '../../core/errors';
import { describeNetworkError, type NodeRequest, requestThrough } from '../node-client/node-http';
import { type ImageUrlAllow, NO_IMAGE_URL_ALLOW } from '../platform/image-url-allow';
import { createImageAgent } from './image-agent';
import { createImageDestination, type ResolveHost } from './image-destination';

/** An image URL and the request field it came from (`messages.0.content.1.image_url.url`). */
export interface ImageUrlAt {
  readonly url: string;
  readonly field: string;
}

export interface FetchImagesOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  /** Private destinations the operator opened (`FLEET_IMAGE_URL_ALLOW`); none by default. */
  readonly allow?: ImageUrlAllow;
  /** How host names are resolved; the system resolver by default (tests point names at 127.0.0.1). */
  readonly resolve?: ResolveHost;
  /** Where the cause of a failed fetch is written; console.warn by default. */
  readonly log?: (line: string) => void;
}

const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Why the fetches still running were stopped, when no fault of their own. */
const ANOTHER_FAILED = new Error('another image URL of the request failed');
const CLIENT_LEFT = new Error('the client left');
/** The most of a URL written to the log. */
const LOGGED_URL_CHARS = 200;

function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** What every failed fetch tells the client: the field, never the cause. */
export function imageFetchFailed(field: string): BadRequestError {
  return new BadRequestError(`${field}: the image URL could not be fetched`, field, { code: 'invalid_image_url' });
}

/** PNG, JPEG, GIF, WebP and BMP by their first bytes: what a server that labels an image wrongly still sends. */
function hasImageSignature(bytes: Buffer): boolean {
  const ascii = (start: number, text: string) => bytes.toString('latin1', start, start + text.length) === text;
  return (
    (bytes[0] === 0x89 && ascii(1, 'PNG')) ||
    (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) ||
    ascii(0, 'GIF8') ||
    (ascii(0, 'RIFF') && ascii(8, 'WEBP')) ||
    ascii(0, 'BM')
  );
}

/**
 * The node would fail on what is not an image (a login page, an error page served with 200), and the
 * client would get a 5xx for its own bad URL: refuse it here, as the 400 it is.
 */
function checkImage(contentType: string | string[] | undefined, bytes: Buffer): void {
  if (bytes.length === 0) throw new Error('is empty');
  const type = (Array.isArray(contentType) ? contentType[0] : contentType)?.split(';')[0]?.trim().toLowerCase();
  if (type?.startsWith('image/') === true || hasImageSignature(bytes)) return;
  throw new Error(`is not an image (${type === undefined || type === '' ? 'no content type' : type})`);
}

interface Fetcher {
  /** GET through the image agent. */
  readonly request: NodeRequest;
  readonly signal: AbortSignal;
  readonly maxBytes: number;
}

/** GET with redirects followed by hand, so each hop is a new connection the agent judges. */
async function follow(url: string, fetcher: Fetcher): Promise<Dispatcher.ResponseData> {
  const { request, signal } = fetcher;
  let target = url;
  let response = await request(target, { method: 'GET', signal });
  for (let hops = 0; REDIRECT_STATUSES.has(response.statusCode); hops += 1) {
    await response.body.dump();
    const location = response.headers['location'];
    if (typeof location !== 'string') throw new Error(`answered ${response.statusCode} without a Location`);
    if (hops === MAX_REDIRECTS) throw new Error(`redirected more than ${MAX_REDIRECTS} times`);
    target = new URL(location, target).href;
    if (!isHttpUrl(target)) throw new Error(`redirected to ${target.slice(0, LOGGED_URL_CHARS)}, not http(s)`);
    response = await request(target, { method: 'GET', signal });
  }
  return response;
}

async function fetchOne(url: string, fetcher: Fetcher): Promise<string> {
  const response = await follow(url, fetcher);
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new Error(`answered ${response.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > fetcher.maxBytes) {
      response.body.destroy();
      throw new Error(`is larger than ${fetcher.maxBytes} bytes`);
    }
    chunks.push(Buffer.from(chunk));
  }
  const bytes = Buffer.concat(chunks);
  checkImage(response.headers['content-type'], bytes);
  return bytes.toString('base64');
}

function logFailure(log: (line: string) => void, image: ImageUrlAt, error: unknown): void {
  const url = image.url.slice(0, LOGGED_URL_CHARS);
  log(
    JSON.stringify({
      level: 'warn',
      message: 'image URL not fetched',
      field: image.field,
      url,
      cause: describeNetworkError(error),
    }),
  );
}

/**
 * URL → base64 bytes, for every URL given (each fetched once); any failure is the one 400 of
 * `imageFetchFailed`, naming the field of the URL that failed first.
 */
export async function fetchImages(
  images: readonly ImageUrlAt[],
  options: FetchImagesOptions = {},
): Promise<Map<string, string>> {
  const unique = [...new Map(images.map((image) => [image.url, image])).values()];
  if (unique.length === 0) return new Map();
  for (const image of unique) {
    if (!isHttpUrl(image.url))
      throw new BadRequestError(`${image.field}: image URLs must be http(s) or a data: URI`, image.field);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const log = options.log ?? ((line: string) => console.warn(line));
  // A timer of our own: a timeout signal can be collected before it fires (nodejs/node#57736).
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error(`took longer than ${timeoutMs} ms`)), timeoutMs);
  const onAbort = () => stop.abort(CLIENT_LEFT);
  if (options.signal?.aborted === true) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const agent = createImageAgent(
    createImageDestination(options.allow ?? NO_IMAGE_URL_ALLOW, options.resolve),
    timeoutMs,
  );
  const fetcher: Fetcher = {
    request: requestThrough(agent),
    signal: stop.signal,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
  };
  const fetchOrFail = async (image: ImageUrlAt): Promise<string> => {
    try {
      return await fetchOne(image.url, fetcher);
    } catch (error) {
      // Stopped because another URL failed first, or because the client left: nothing of its own to say.
      const reason: unknown = stop.signal.reason;
      if (reason !== ANOTHER_FAILED && reason !== CLIENT_LEFT) logFailure(log, image, error);
      stop.abort(ANOTHER_FAILED);
      throw imageFetchFailed(image.field);
    }
  };
  try {
    const bodies = await Promise.all(unique.map(fetchOrFail));
    return new Map(unique.map((image, index) => [image.url, bodies[index] ?? '']));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    await agent.destroy();
  }
}
