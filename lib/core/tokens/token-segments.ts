/**
 * Cuts text into segments that are counted one by one, so counting stays linear in the input.
 *
 * BPE merges inside one pre-tokenizer piece take time quadratic in the piece's length, and a piece is a
 * whole run of letters, of punctuation or of whitespace: 64 KB of base64-free letters (a minified blob,
 * `aaaa…`) took 4–6 s in every tokenizer measured. Two kinds of cut:
 * - exact cuts, at a space between two non-space characters, about every `SEGMENT_CHARS`: cl100k always
 *   starts a piece there (a space only ever opens a piece), so the counts of the segments add up to the
 *   count of the whole. They let truncation stop early;
 * - run cuts, inside a run of more than `MAX_RUN_CHARS` letters, punctuation or whitespace: they bound the
 *   work of one piece, at the price of about one extra token per cut. Ordinary text has no such runs
 *   (CJK text is broken by its punctuation), so its count is the encoder's, token for token.
 * Every cut depends only on the text before it and one character after, so a prefix of a text is cut
 * where the text is: truncating and then counting the result agree. Pure.
 */

export const SEGMENT_CHARS = 8_192;
export const MAX_RUN_CHARS = 128;

const LETTER = 0;
const DIGIT = 1;
const SPACE = 2;
const OTHER = 3;
type CharClass = typeof LETTER | typeof DIGIT | typeof SPACE | typeof OTHER;

/** JavaScript's `\s` (what the encoder's pattern means by whitespace), for one UTF-16 unit. */
function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

// cl100k's character classes: letters (\p{L}), digits (\p{N}: never more than three to a piece),
// whitespace (\s), and everything else. ASCII from a table; other characters through the same Unicode
// properties the encoder's pattern uses. (One regex over the text for long runs cost ~140 ms per MB.)
// The table and the patterns are made on the first count, not at load: compiling the Unicode regexes
// costs ~0.8 ms, which the cold start of every bundle that may count would otherwise pay.
let ASCII_CLASS: readonly CharClass[] = [];
let LETTER_AT = /$^/y;
let DIGIT_AT = /$^/y;

function prepareCharClasses(): void {
  if (ASCII_CLASS.length > 0) return;
  ASCII_CLASS = Array.from({ length: 128 }, (_, code) => {
    const char = String.fromCharCode(code);
    if (/\p{L}/u.test(char)) return LETTER;
    if (/\p{N}/u.test(char)) return DIGIT;
    if (/\s/u.test(char)) return SPACE;
    return OTHER;
  });
  LETTER_AT = /\p{L}/uy;
  DIGIT_AT = /\p{N}/uy;
}

/** `prepareCharClasses` must have run. */
function charClassAt(text: string, index: number, code: number): CharClass {
  if (code < 128) return ASCII_CLASS[code] ?? OTHER;
  if (isWhitespace(code)) return SPACE;
  LETTER_AT.lastIndex = index;
  if (LETTER_AT.test(text)) return LETTER;
  DIGIT_AT.lastIndex = index;
  return DIGIT_AT.test(text) ? DIGIT : OTHER;
}

/** The second half of a surrogate pair: never cut before it. */
export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The text's segments, in order; their concatenation is the text, and an empty text has none. One pass,
 * lazily: a caller that stops early (truncation) has scanned only what it used.
 */
export function* tokenSegments(text: string): Generator<string> {
  let start = 0;
  let runClass: CharClass = DIGIT;
  let runStart = 0;
  prepareCharClasses();
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (isLowSurrogate(code)) continue; // the second half of a character classified at its first half
    const charClass = charClassAt(text, index, code);
    let cut: boolean;
    if (charClass !== runClass) {
      // An exact cut: a space after a non-space (the class changed) and before one.
      cut =
        code === 0x20 &&
        index - start >= SEGMENT_CHARS &&
        index + 1 < text.length &&
        !isWhitespace(text.charCodeAt(index + 1));
      runClass = charClass;
      runStart = index;
    } else {
      // A run cut: every MAX_RUN_CHARS of one class (digits are split by the encoder itself).
      cut = runClass !== DIGIT && index - runStart >= MAX_RUN_CHARS;
      if (cut) runStart = index;
    }
    if (cut) {
      yield text.slice(start, index);
      start = index;
    }
  }
  if (start < text.length) yield start === 0 ? text : text.slice(start);
}
