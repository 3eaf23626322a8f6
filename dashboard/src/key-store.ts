/**
 * The API key the page sends (`Authorization: Bearer <key>`) when the router has FLEET_API_KEYS set. The
 * page asks for it once — when a call is refused with 401 — and keeps it in this browser's local storage
 * (per origin), so it is asked again only when the key stops working.
 */
import { localStore } from './local-storage';
import { createStore } from './store';

const STORAGE_KEY = 'fleet-router.api-key';

export interface KeyRequest {
  /**
   * Why the key is asked for: none stored yet, the stored one was refused, or the user asked to give an
   * operator's key (the read-only note's button; nothing waits on it, so it may be dismissed).
   */
  readonly reason: 'missing' | 'refused' | 'operator';
}

/** The open request for a key, or null when none is pending (the dialog shows while one is). */
export const keyRequest = createStore<KeyRequest | null>(null);

let waiting: (() => void)[] = [];

let memoryKey: string | undefined;

export function currentKey(): string | undefined {
  return localStore()?.getItem(STORAGE_KEY) ?? memoryKey;
}

/** The header that carries the key, or none when no key was given. */
export function authHeaders(): Record<string, string> {
  const key = currentKey();
  return key === undefined || key === '' ? {} : { authorization: `Bearer ${key}` };
}

/**
 * Called on a 401 that was sent with `refusedKey`: resolves when the user has entered a key. Every
 * caller refused at the same time waits for the same answer, and a key entered meanwhile (by another
 * caller's prompt) is used at once.
 */
export function needKey(refusedKey: string | undefined): Promise<void> {
  const key = currentKey();
  if (key !== undefined && key !== refusedKey) return Promise.resolve();
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (keyRequest.get() === null) keyRequest.set({ reason: refusedKey === undefined ? 'missing' : 'refused' });
  });
}

/** Keeps the key the user entered and lets every waiting call go again. */
export function submitKey(key: string): void {
  memoryKey = key;
  localStore()?.setItem(STORAGE_KEY, key);
  keyRequest.set(null);
  const resume = waiting;
  waiting = [];
  for (const go of resume) go();
}

/** Opens the prompt for an operator's key, which may change the fleet (issue 46). */
export function askForOperatorKey(): void {
  if (keyRequest.get() === null) keyRequest.set({ reason: 'operator' });
}

/** Closes a prompt no call waits on (an operator's key the user chose not to give). */
export function dismissKeyRequest(): void {
  if (waiting.length === 0) keyRequest.set(null);
}

/** Forgets the stored key (the settings view's "forget key"). */
export function forgetKey(): void {
  memoryKey = undefined;
  localStore()?.removeItem(STORAGE_KEY);
}
