/** A Writable that records what a streaming handler wrote, and when, for assertions. */
import { Writable } from 'node:stream';

export class RecordingStream extends Writable {
  readonly chunks: Buffer[] = [];

  constructor(highWaterMark = 16 * 1024) {
    super({ highWaterMark });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk);
    callback();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
