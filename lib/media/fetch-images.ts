/**
 * Fetches the http(s) image URLs of an OpenAI request (`image_url` parts), all at once, each bounded in
 * time and size, so the node receives the image bytes it needs (Ollama takes base64, not URLs). The
 * reference fetched them with a blocking call inside its event loop; here nothing waits but the request.
 * Redirects are followed (at most five, http(s) only), as a browser showing the image would.
 */
import { BadRequestError } from '../errors';
import { describeNetworkError, nodeHttp } from '../fleet/node-http';

export interface FetchImagesOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  /** The request field named in a 400 (`messages` for OpenAI chat). */
  readonly param?: string;
}

const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
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

async function fetchOne(url: string, options: FetchImagesOptions): Promise<string> {
  const { request, agent } = nodeHttp();
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 15_000)];
  if (options.signal !== undefined) signals.push(options.signal);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const signal = AbortSignal.any(signals);
  try {
    let target = url;
    let response = await request(target, { dispatcher: agent, method: 'GET', signal });
    for (let hops = 0; REDIRECT_STATUSES.has(response.statusCode); hops += 1) {
      await response.body.dump();
      const location = response.headers['location'];
      if (typeof location !== 'string') throw new Error(`answered ${response.statusCode} without a Location`);
      if (hops === MAX_REDIRECTS) throw new Error(`redirected more than ${MAX_REDIRECTS} times`);
      target = new URL(location, target).href;
      if (!isHttpUrl(target)) throw new Error(`redirected to ${target}, which is not http(s)`);
      response = await request(target, { dispatcher: agent, method: 'GET', signal });
    }
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new Error(`answered ${response.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += chunk.length;
      if (size > maxBytes) {
        response.body.destroy();
        throw new Error(`is larger than ${maxBytes} bytes`);
      }
      chunks.push(Buffer.from(chunk));
    }
    const bytes = Buffer.concat(chunks);
    checkImage(response.headers['content-type'], bytes);
    return bytes.toString('base64');
  } catch (error) {
    throw new BadRequestError(
      `image ${url} could not be fetched: ${describeNetworkError(error)}`,
      options.param ?? 'messages',
    );
  }
}

/** URL → base64 bytes, for every URL given; any failure is a 400 naming the URL. */
export async function fetchImages(
  urls: readonly string[],
  options: FetchImagesOptions = {},
): Promise<Map<string, string>> {
  const unique = [...new Set(urls)];
  for (const url of unique) {
    if (!isHttpUrl(url))
      throw new BadRequestError(`image URL ${url} must be http(s) or a data: URI`, options.param ?? 'messages');
  }
  const bodies = await Promise.all(unique.map((url) => fetchOne(url, options)));
  return new Map(unique.map((url, index) => [url, bodies[index] ?? '']));
}
