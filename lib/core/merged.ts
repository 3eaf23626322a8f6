/**
 * Objects merged left to right (later wins), for the request path. Use this rather than an object
 * literal that starts with a spread and goes on (`{ ...a, ...b }`, `{ ...a, key }`): V8 clones the first
 * source's hidden class into one of its own, and every property added after it then makes a fresh
 * hidden class for that one object — several per request, allocated in old space, and every read or
 * `JSON.stringify` of such an object goes the slow way. `Object.assign` onto `{}`, or a literal that
 * starts with a plain property, reuses the shared ones. test/integration/features/chat/hidden-classes.test.ts
 * asks V8 that the chat path's objects keep one hidden class.
 */
export function merged<T extends object>(
  first?: Source<T>,
  second?: Source<T>,
  third?: Source<T>,
  fourth?: Source<T>,
): T {
  // Up to four named sources, not a rest parameter spread into Object.assign: no array per call.
  return Object.assign({}, first, second, third, fourth) as T;
}

type Source<T> = Readonly<Partial<T>> | undefined;
