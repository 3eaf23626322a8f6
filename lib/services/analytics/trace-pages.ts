/**
 * Trace pages as they fill (./trace): `{"traces":[…]}` documents of at most `maxBytes` UTF-8 bytes,
 * built as traces are recorded. Each trace's JSON is copied into the open page's buffer at once, so
 * the string dies with its request. Kept as strings until the queue drained (up to a second), traces
 * were most of what the router's young collections copied into the old generation under load, and so
 * most of what its full collections then had to mark and free. A buffer lives outside the JS heap: the
 * collector never copies it, and the page goes to the table as these bytes (deflated by the store),
 * never as one large string. Holds state; no I/O.
 */

const PREFIX = '{"traces":[';
const SUFFIX = ']}';
const FIRST_CAPACITY = 16 * 1024;

/**
 * A page ready to write: its document as UTF-8, and the latest start among its traces (the page's key).
 * No trace in a page started after its key, so a reader going down the keys knows when no unread page
 * can hold a newer trace (lib/services/analytics/trace-reader).
 */
export interface PageDocument {
  readonly newestStartedAt: number;
  readonly doc: Buffer;
}

interface Page {
  newestStartedAt: number;
  bytes: Buffer;
  length: number;
  entries: number;
}

export class TracePages {
  private open: Page | undefined;
  private sealed: Page[] = [];

  constructor(private readonly maxBytes: number) {}

  /**
   * Adds one trace's JSON to the open page, sealing that page first when the trace would take it past
   * `maxBytes`. A trace larger than a page on its own gets a page of its own (only with pages smaller
   * than the recorder's: it bounds each trace to a quarter of its default page, ./bounded-trace).
   */
  add(startedAt: number, json: string): void {
    const size = Buffer.byteLength(json);
    let page = this.open;
    if (page !== undefined && page.length + 1 + size + SUFFIX.length > this.maxBytes) {
      this.sealed.push(page);
      page = undefined;
    }
    if (page === undefined) {
      const capacity = Math.max(Math.min(FIRST_CAPACITY, this.maxBytes), PREFIX.length + size + SUFFIX.length);
      page = { newestStartedAt: startedAt, bytes: Buffer.allocUnsafe(capacity), length: 0, entries: 0 };
      page.length = page.bytes.write(PREFIX, 0, 'latin1');
      this.open = page;
    }
    const comma = page.entries > 0 ? 1 : 0;
    const needed = page.length + comma + size + SUFFIX.length;
    if (needed > page.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, Math.min(page.bytes.length * 2, this.maxBytes)));
      page.bytes.copy(grown, 0, 0, page.length);
      page.bytes = grown;
    }
    if (comma === 1) page.length += page.bytes.write(',', page.length, 'latin1');
    page.length += page.bytes.write(json, page.length, 'utf8');
    page.entries += 1;
    if (startedAt > page.newestStartedAt) page.newestStartedAt = startedAt;
  }

  hasPending(): boolean {
    return this.open !== undefined || this.sealed.length > 0;
  }

  /** Every page so far, oldest first, the open one sealed; the next trace starts a new page. */
  take(): PageDocument[] {
    if (this.open !== undefined) this.sealed.push(this.open);
    const pages = this.sealed.map((page) => {
      const length = page.length + page.bytes.write(SUFFIX, page.length, 'latin1');
      return { newestStartedAt: page.newestStartedAt, doc: page.bytes.subarray(0, length) };
    });
    this.open = undefined;
    this.sealed = [];
    return pages;
  }
}
