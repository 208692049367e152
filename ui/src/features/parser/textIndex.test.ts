import { describe, expect, it } from "vitest";

import { mapByteOffsets } from "./textIndex";

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

describe("mapByteOffsets", () => {
  it("maps UTF-8 byte offsets to UTF-16 indices with CJK text and surrogate pairs", () => {
    const text = "前言「始」x\n😀 b「末」\r\nend";
    // Every character boundary, as the engine would report it.
    const boundaries: number[] = [];
    for (let i = 0; i <= text.length; i += 1) {
      const code = text.charCodeAt(i - 1);
      if (i > 0 && code >= 0xd800 && code <= 0xdbff) continue; // inside the emoji
      boundaries.push(i);
    }
    const map = mapByteOffsets(
      text,
      boundaries.map((i) => bytes(text.slice(0, i))),
    );
    for (const i of boundaries) expect(map.at(bytes(text.slice(0, i))).index).toBe(i);
    expect(map.byteLength).toBe(bytes(text));
    expect(map.lineCount).toBe(3);
  });

  it("gives 1-based line and column in characters", () => {
    const text = "前言\n  「始」值「末」\n😀x";
    const open = bytes("前言\n  ");
    const x = bytes("前言\n  「始」值「末」\n😀");
    const map = mapByteOffsets(text, [open, x, 0]);
    expect(map.at(0)).toEqual({ index: 0, line: 1, column: 1 });
    expect(map.at(open)).toEqual({ index: 5, line: 2, column: 3 });
    // The emoji is two UTF-16 units but one character.
    expect(map.at(x)).toEqual({ index: text.length - 1, line: 3, column: 2 });
  });

  it("counts a lone surrogate as U+FFFD like TextEncoder", () => {
    const text = "a\ud800b";
    const map = mapByteOffsets(text, [bytes("a\ud800")]);
    expect(map.at(bytes("a\ud800")).index).toBe(2);
    expect(map.byteLength).toBe(bytes(text));
  });

  it("resolves an offset inside a character to the next one, and past the end to the end", () => {
    const text = "前x";
    const map = mapByteOffsets(text, [1, 99]);
    expect(map.at(1).index).toBe(1);
    expect(map.at(99).index).toBe(2);
  });

  it("agrees with a per-character walk on mixed text and arbitrary offsets", () => {
    // ASCII runs are crossed in jumps; this checks the jumps against one step per character.
    const pieces = ["plain ascii ", "\n", "前言", "😀", "\ud800", "é", "x", "\r\n", "{\"a\": 1}"];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 50; round += 1) {
      let text = "";
      for (let n = random(40); n > 0; n -= 1) text += pieces[random(pieces.length)] ?? "";
      const expected = referencePositions(text);
      const total = bytes(text);
      const offsets = Array.from({ length: 30 }, () => random(total + 3));
      const map = mapByteOffsets(text, offsets);
      for (const offset of offsets) {
        const want = offset <= 0 ? expected[0] : (expected.find((p) => p.byte >= offset) ?? expected[expected.length - 1]);
        expect(map.at(offset), `offset ${String(offset)} of ${JSON.stringify(text)}`).toEqual({
          index: want?.index,
          line: want?.line,
          column: want?.column,
        });
      }
      expect(map.byteLength).toBe(total);
    }
  });
});

/** Every character boundary of `text` with its byte offset, one character at a time. */
function referencePositions(text: string) {
  const out = [{ byte: 0, index: 0, line: 1, column: 1 }];
  let byte = 0;
  let index = 0;
  let line = 1;
  let column = 1;
  for (const char of text) {
    byte += bytes(char);
    index += char.length;
    if (char === "\n") {
      line += 1;
      column = 1;
    } else {
      column += 1;
    }
    out.push({ byte, index, line, column });
  }
  return out;
}
