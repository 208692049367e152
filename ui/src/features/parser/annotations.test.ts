import { describe, expect, it } from "vitest";

import { annotateRange, excerptAt, excerptWindows, type Annotation, type Piece } from "./annotations";

function annotation(id: string, start: number, end: number, kind: Annotation["kind"] = "request"): Annotation {
  return { id, kind, index: 0, start, end, position: { index: start, line: 1, column: start + 1 }, label: id };
}

/** Pieces as a compact string: marks as [id:…]. */
function show(pieces: Piece[]): string {
  return pieces.map((p) => (p.type === "text" ? p.text : `[${p.annotation.id}:${show(p.children)}]`)).join("");
}

describe("annotateRange", () => {
  const text = "0123456789";

  it("nests contained spans and keeps plain text around them", () => {
    const pieces = annotateRange(text, 0, 10, [annotation("r0", 1, 8), annotation("d0", 3, 5, "error")]);
    expect(show(pieces)).toBe("0[r0:12[d0:34]567]89");
  });

  it("splits a span that only partly overlaps an earlier one", () => {
    const pieces = annotateRange(text, 0, 10, [annotation("r0", 1, 5), annotation("d0", 3, 8, "warning")]);
    expect(show(pieces)).toBe("0[r0:12[d0:34]][d0:567]89");
  });

  it("renders empty spans as empty marks and clips to the range", () => {
    const pieces = annotateRange(text, 2, 8, [annotation("r0", 0, 4), annotation("d0", 6, 6, "error")]);
    expect(show(pieces)).toBe("[r0:23]45[d0:]67");
  });

  it("gives every piece a unique key", () => {
    const pieces = annotateRange(text, 0, 10, [
      annotation("r0", 0, 10),
      annotation("d0", 2, 2, "error"),
      annotation("d1", 2, 6, "warning"),
    ]);
    const keys: string[] = [];
    const walk = (list: Piece[]) => {
      for (const p of list) {
        keys.push(p.key);
        if (p.type === "mark") walk(p.children);
      }
    };
    walk(pieces);
    expect(new Set(keys).size).toBe(keys.length);
    expect(show(pieces)).toBe("[r0:01[d1:[d0:]2345]6789]");
  });
});

describe("excerptWindows", () => {
  it("merges nearby windows and cuts long spans to their ends", () => {
    const text = "x".repeat(100_000);
    const windows = excerptWindows(
      text,
      [annotation("r0", 1000, 1010), annotation("r1", 1100, 1110), annotation("d0", 0, 100_000, "warning")],
      { context: 50, edge: 200 },
    );
    expect(windows).toEqual([
      { from: 0, to: 250 },
      { from: 950, to: 1160 },
      { from: 99_750, to: 100_000 },
    ]);
    expect(excerptAt(windows, 1105)).toBe(1);
    expect(excerptAt(windows, 5000)).toBe(-1);
  });

  it("never cuts a surrogate pair", () => {
    const text = "😀".repeat(100);
    const windows = excerptWindows(text, [annotation("r0", 50, 52)], { context: 3, edge: 10 });
    for (const w of windows) {
      expect(w.from % 2).toBe(0);
      expect(w.to % 2).toBe(0);
    }
  });
});
