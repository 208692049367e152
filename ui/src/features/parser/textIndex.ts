/**
 * Byte offsets → string positions. The engine reports spans as byte offsets into the UTF-8
 * reply; JS strings index UTF-16 code units. One linear walk over the text per parse result maps
 * every offset the result needs at once, counting each code unit's UTF-8 length exactly as
 * `TextEncoder` encodes it (4 bytes per surrogate pair, 3 for a lone surrogate, which becomes
 * U+FFFD), without allocating a byte copy of a multi-megabyte reply.
 */

/** Where a byte offset falls in the text. */
export interface TextPosition {
  /** UTF-16 index into the JS string (what `slice` and `setSelectionRange` take). */
  index: number;
  /** 1-based line. */
  line: number;
  /** 1-based column, in characters (code points) from the start of the line. */
  column: number;
}

export interface PositionMap {
  /**
   * The position of one of the mapped offsets; an offset inside a character resolves to the next
   * character, one that was not mapped (or lies past the end) to the end of the text.
   */
  at: (byteOffset: number) => TextPosition;
  /** UTF-8 length of the whole text. */
  byteLength: number;
  /** Number of lines (1 + line breaks). */
  lineCount: number;
}

/** Maps every offset in `offsets` in one pass over `text`. */
export function mapByteOffsets(text: string, offsets: Iterable<number>): PositionMap {
  const wanted = [...new Set(offsets)].filter((o) => Number.isFinite(o)).sort((a, b) => a - b);
  const found = new Map<number, TextPosition>();
  let byte = 0;
  let line = 1;
  let column = 1;
  let k = 0;
  let i = 0;
  const length = text.length;
  let next = wanted[0] ?? Infinity;
  for (;;) {
    while (next <= byte) {
      found.set(next, { index: i, line, column });
      k += 1;
      next = wanted[k] ?? Infinity;
    }
    if (i >= length) break;
    // Inlined (this loop runs once per code unit of a possibly multi-megabyte reply).
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      byte += 1;
      i += 1;
    } else if (c < 0x800) {
      byte += 2;
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      byte += 4;
      i += 2;
    } else {
      byte += 3;
      i += 1;
    }
    if (c === 10) {
      line += 1;
      column = 1;
    } else {
      column += 1;
    }
  }
  const end: TextPosition = { index: length, line, column };
  return {
    at: (byteOffset) => found.get(byteOffset) ?? (byteOffset <= 0 ? { index: 0, line: 1, column: 1 } : end),
    byteLength: byte,
    lineCount: line,
  };
}
