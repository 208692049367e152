/**
 * Byte offsets → string positions. The engine reports spans as byte offsets into the UTF-8
 * reply; JS strings index UTF-16 code units. One walk over the text per parse result maps every
 * offset the result needs at once, counting each code unit's UTF-8 length exactly as
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

/** The first code unit that is not ASCII, from `lastIndex` on. */
const NON_ASCII = /[\u0080-\uffff]/g;

/**
 * Maps every offset in `offsets` in one pass over `text`. ASCII runs, most of a typical reply,
 * are crossed with the engine's native searches (the next non-ASCII unit, the next line break)
 * instead of one JS step per code unit: a 5 MB reply maps in a few milliseconds, not fifty.
 */
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
  // Both searches are cached: many offsets can fall between two line breaks or non-ASCII units.
  let asciiEnd = -1;
  let lineBreak = -1;
  for (;;) {
    while (next <= byte) {
      found.set(next, { index: i, line, column });
      k += 1;
      next = wanted[k] ?? Infinity;
    }
    if (i >= length) break;
    if (asciiEnd < i) {
      NON_ASCII.lastIndex = i;
      asciiEnd = NON_ASCII.exec(text)?.index ?? length;
    }
    if (asciiEnd > i) {
      // In ASCII one byte is one code unit is one column: jump to the run's end or the next offset.
      const stop = Math.min(asciiEnd, i + (next - byte));
      for (;;) {
        if (lineBreak < i) {
          const found = text.indexOf("\n", i);
          lineBreak = found < 0 ? length : found;
        }
        if (lineBreak >= stop) break;
        line += 1;
        column = 1;
        byte += lineBreak + 1 - i;
        i = lineBreak + 1;
      }
      column += stop - i;
      byte += stop - i;
      i = stop;
      continue;
    }
    const c = text.charCodeAt(i);
    if (c < 0x800) {
      byte += 2;
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      byte += 4;
      i += 2;
    } else {
      byte += 3;
      i += 1;
    }
    column += 1;
  }
  const end: TextPosition = { index: length, line, column };
  return {
    at: (byteOffset) => found.get(byteOffset) ?? (byteOffset <= 0 ? { index: 0, line: 1, column: 1 } : end),
    byteLength: byte,
    lineCount: line,
  };
}
