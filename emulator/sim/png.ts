/**
 * A tiny PNG encoder (8-bit RGB, one IDAT compressed with node:zlib) for the simulated image generators,
 * and a reader for the IHDR size so tests can check what came back.
 */
import { deflateSync } from 'node:zlib';
import { fnv1a32 } from './hash';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The largest width or height the simulated generators render. */
export const MAX_IMAGE_SIDE = 2048;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function header(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour RGB
  return ihdr; // compression, filter and interlace stay 0
}

export type Rgb = readonly [number, number, number];

/** Encodes `width`×`height` RGB pixels, given as filter-0 scanlines (`1 + 3 * width` bytes each). */
export function encodePng(width: number, height: number, scanlines: Buffer): Buffer {
  const idat = deflateSync(scanlines, { level: 4 });
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header(width, height)),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function colourOf(seed: number): Rgb {
  return [seed & 0xff, (seed >>> 8) & 0xff, (seed >>> 16) & 0xff];
}

/** A diagonal two-colour gradient whose colours derive from `seedText` (the prompt and seed). */
export function gradientPng(width: number, height: number, seedText: string): Buffer {
  const from = colourOf(fnv1a32(`from|${seedText}`));
  const to = colourOf(fnv1a32(`to|${seedText}`));
  const stride = 1 + 3 * width;
  const lines = Buffer.alloc(stride * height);
  const span = Math.max(1, width + height - 2);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    for (let x = 0; x < width; x++) {
      const t = (x + y) / span;
      const at = row + 1 + 3 * x;
      lines[at] = Math.round(from[0] + (to[0] - from[0]) * t);
      lines[at + 1] = Math.round(from[1] + (to[1] - from[1]) * t);
      lines[at + 2] = Math.round(from[2] + (to[2] - from[2]) * t);
    }
  }
  return encodePng(width, height, lines);
}

/** Width and height from a PNG's IHDR, or undefined when `data` is not a PNG. */
export function readPngSize(data: Uint8Array): { width: number; height: number } | undefined {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buffer.length < 24 || !buffer.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  if (buffer.toString('ascii', 12, 16) !== 'IHDR') return undefined;
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

/** Checks a requested image side: a whole number from 1 to MAX_IMAGE_SIDE. */
export function isValidSide(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_IMAGE_SIDE;
}
