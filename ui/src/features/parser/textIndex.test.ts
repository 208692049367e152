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
});
