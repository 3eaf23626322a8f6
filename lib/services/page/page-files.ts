/**
 * The dashboard page's built files (scripts/build-page.mjs): read from the `page/` directory beside the
 * function's bundle, as its manifest lists them, each in the encoding the client accepts best (brotli,
 * then gzip, then none — compressed once at build time, never per request). The manifest is read on the
 * first page request and the files as they are first asked for; both are then kept in memory (the whole
 * page is a few hundred KB), so a page request costs no disk read after the first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Negotiator from 'negotiator';

interface ManifestFile {
  readonly type: string;
  readonly size: number;
  readonly etag: string;
  /** Encoding → compressed size, for those written beside the file (`<name>.br`, `<name>.gz`). */
  readonly encodings: Readonly<Record<string, number>>;
}

export interface PageManifest {
  readonly script: string;
  readonly style: string;
  readonly files: Readonly<Record<string, ManifestFile>>;
}

/** One file as it goes out. */
export interface PageFile {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
  /** `br` or `gzip`; undefined when sent as built. */
  readonly encoding: string | undefined;
}

export interface PageFiles {
  /** `name` (`index.html`, `assets/app-<hash>.js`) in the best encoding `acceptEncoding` allows; undefined when not a page file. */
  file(name: string, acceptEncoding: string | undefined): PageFile | undefined;
}

const SUFFIX: Readonly<Record<string, string>> = { br: '.br', gzip: '.gz' };
/** Best first: brotli is 10–15 % smaller than gzip on the page's script. */
const PREFERRED = ['br', 'gzip', 'identity'];

/** negotiator 1.x takes the server's order for ties (`preferred`); its published types predate the option. */
type EncodingChoice = (available: readonly string[], options: { preferred: readonly string[] }) => string | undefined;

/** The encoding to send: the client's highest-rated of `offered`, ties broken by our order (brotli first). */
function bestEncoding(acceptEncoding: string | undefined, offered: readonly string[]): string | undefined {
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding ?? 'identity' } });
  return (negotiator.encoding as EncodingChoice).call(negotiator, offered, { preferred: PREFERRED });
}

export function createPageFiles(dir: string): PageFiles {
  let manifest: PageManifest | undefined;
  const bodies = new Map<string, Buffer>();
  const read = (path: string) => {
    let body = bodies.get(path);
    if (body === undefined) {
      body = readFileSync(join(dir, path));
      bodies.set(path, body);
    }
    return body;
  };
  return {
    file(name, acceptEncoding) {
      manifest ??= JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as PageManifest;
      if (!Object.hasOwn(manifest.files, name)) return undefined;
      const entry = manifest.files[name] as ManifestFile;
      const offered = PREFERRED.filter(
        (encoding) => encoding === 'identity' || entry.encodings[encoding] !== undefined,
      );
      const chosen = bestEncoding(acceptEncoding, offered);
      const encoding = chosen === undefined || chosen === 'identity' ? undefined : chosen;
      return {
        body: read(encoding === undefined ? name : name + SUFFIX[encoding]),
        type: entry.type,
        etag: entry.etag,
        encoding,
      };
    },
  };
}
