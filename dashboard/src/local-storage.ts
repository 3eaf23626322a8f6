/**
 * This browser's local storage for the page's few remembered choices (the API key, the offline alert),
 * or undefined where the browser refuses it (a private window, storage switched off): then the page
 * simply remembers nothing between loads.
 */
export function localStore(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}
