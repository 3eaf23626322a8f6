/**
 * The one owner of header-value safety (issue 19 item 6): every reply header whose value comes from a
 * client's or a node's text (a model name, a node id, the client's model id) goes through
 * `headerValue`. Node refuses to write a value with a control character or anything outside Latin-1
 * (`ERR_INVALID_CHAR`, thrown after the node did the work), and clients refuse long ones ("Header
 * overflow"): a value that is not printable ASCII is percent-encoded (`encodeURIComponent`, so
 * `decodeURIComponent` gives it back), and any value is cut to `MAX_HEADER_VALUE_CHARS`. Pure.
 */

/** Longest header value sent: a 512-byte model name, percent-encoded whole, fits. */
export const MAX_HEADER_VALUE_CHARS = 2048;

/** Printable ASCII and the space: what every client reads back unchanged. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** A high surrogate without its low half, or a low one without its high half. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` as a header value: unchanged when printable ASCII, percent-encoded otherwise, and bounded. */
export function headerValue(text: string): string {
  if (text.length <= MAX_HEADER_VALUE_CHARS && PRINTABLE_ASCII.test(text)) return text;
  const value = PRINTABLE_ASCII.test(text) ? text : encodeURIComponent(text.replace(UNPAIRED_SURROGATE, '\uFFFD'));
  return value.length <= MAX_HEADER_VALUE_CHARS ? value : cut(value);
}

/** `value` cut to the bound, never inside a `%XX` escape. */
function cut(value: string): string {
  let end = MAX_HEADER_VALUE_CHARS;
  const percent = value.lastIndexOf('%', end - 1);
  if (percent !== -1 && percent > end - 3) end = percent;
  return value.slice(0, end);
}
