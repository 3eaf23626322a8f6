/**
 * Deterministic hashing for the simulated fleet: digests, seeds and ids derived from names and text, so
 * every simulated answer is reproducible and tests can assert on exact values.
 */
import { createHash } from 'node:crypto';

/** Lower-case hex SHA-256 of a string (64 characters). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** 32-bit FNV-1a: a cheap seed for the PRNG below. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A short lower-case alphanumeric id derived from `text` (`call_` ids, job ids). */
export function shortId(text: string, length = 8): string {
  const hex = sha256Hex(text);
  let id = '';
  for (let i = 0; i < length; i++) {
    id += ID_ALPHABET[Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16) % ID_ALPHABET.length];
  }
  return id;
}
