import { describe, expect, it } from "vitest";

import { entry } from "./testBackend";
import { placePage, type HistoryWindow } from "./useHistory";

const e = (id: string) => entry(id, "echo_echo", {}, 0);
const ids = (window: HistoryWindow) => window.entries.map((x) => x.id);
/** Entries e<n-1>..e0 (newest first) of a history of `n` runs, from position `from`, `count` of them. */
const slice = (n: number, from: number, count: number) =>
  Array.from({ length: Math.max(0, Math.min(count, n - from)) }, (_, i) => e(`r${String(n - 1 - from - i)}`));

describe("placePage", () => {
  it("puts the entries newer than the window's first on top", () => {
    // Two runs since the window [c, b, a] was loaded: it moved down by two.
    const placed = placePage({ offset: 0, entries: [e("c"), e("b"), e("a")] }, 2, 0, [e("e"), e("d"), e("c"), e("b")]);
    expect(placed.offset).toBe(0);
    expect(ids(placed)).toEqual(["e", "d", "c", "b", "a"]);
  });

  it("keeps the same entries when nothing is new (no re-render)", () => {
    const entries = [e("b"), e("a")];
    const placed = placePage({ offset: 0, entries }, 0, 0, [e("b"), e("a")]);
    expect(placed.entries).toBe(entries);
    expect(placed.offset).toBe(0);
  });

  it("starts over from the page when it does not reach the window", () => {
    // 30 runs elsewhere, a refresh asks for 25: the page ends above the window.
    const placed = placePage({ offset: 0, entries: slice(100, 0, 100) }, 30, 0, slice(130, 0, 25));
    expect(placed.offset).toBe(0);
    expect(ids(placed)).toEqual(ids({ offset: 0, entries: slice(130, 0, 25) }));
  });

  it("appends an older page without the entries it repeats", () => {
    // Two runs recorded since the window was loaded shift the next page by two.
    const placed = placePage({ offset: 0, entries: [e("d"), e("c")] }, 2, 2, [e("d"), e("c"), e("b"), e("a")]);
    expect(placed.offset).toBe(2);
    expect(ids(placed)).toEqual(["d", "c", "b", "a"]);
  });

  it("holds at most `limit` entries: new runs on top drop the oldest", () => {
    const held = { offset: 0, entries: slice(10, 0, 10) };
    const placed = placePage(held, 1, 0, slice(11, 0, 4), 10);
    expect(placed.offset).toBe(0);
    expect(ids(placed)).toEqual(ids({ offset: 0, entries: slice(11, 0, 10) }));
  });

  it("holds at most `limit` entries: an older page drops the newest, and the window moves down", () => {
    const placed = placePage({ offset: 0, entries: slice(50, 0, 10) }, 0, 10, slice(50, 10, 10), 15);
    expect(placed.offset).toBe(5);
    expect(ids(placed)).toEqual(ids({ offset: 5, entries: slice(50, 5, 15) }));
  });

  it("reads dropped entries back above the window, dropping its far end", () => {
    const placed = placePage({ offset: 20, entries: slice(50, 20, 10) }, 0, 10, slice(50, 10, 10), 15);
    expect(placed.offset).toBe(10);
    expect(ids(placed)).toEqual(ids({ offset: 10, entries: slice(50, 10, 15) }));
  });

  it("replaces the window by a page far from it (a jump) or one that disagrees with it", () => {
    expect(placePage({ offset: 0, entries: slice(500, 0, 10) }, 0, 300, slice(500, 300, 10))).toEqual({
      offset: 300,
      entries: slice(500, 300, 10),
    });
    const other = [e("x"), e("y")];
    expect(placePage({ offset: 0, entries: [e("b"), e("a")] }, 0, 1, other)).toEqual({ offset: 1, entries: other });
  });
});
