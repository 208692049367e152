import { describe, expect, it } from "vitest";

import { entry } from "./testBackend";
import { appendOlder, mergeNewest } from "./useHistory";

const e = (id: string) => entry(id, "echo_echo", {}, 0);
const ids = (list: readonly { id: string }[] | null) => list?.map((x) => x.id) ?? null;

describe("mergeNewest", () => {
  it("puts the entries newer than the list's first on top", () => {
    expect(ids(mergeNewest([e("c"), e("b"), e("a")], [e("e"), e("d"), e("c"), e("b")]))).toEqual(["e", "d", "c", "b", "a"]);
  });

  it("keeps the same list when nothing is new (no re-render)", () => {
    const list = [e("b"), e("a")];
    expect(mergeNewest(list, [e("b"), e("a")])).toBe(list);
  });

  it("takes the page as it is for an empty list, and gives up when the page does not reach the list", () => {
    expect(ids(mergeNewest([], [e("b"), e("a")]))).toEqual(["b", "a"]);
    expect(mergeNewest([e("a")], [e("c"), e("b")])).toBeNull();
  });
});

describe("appendOlder", () => {
  it("appends the page without the entries the list already has", () => {
    // Two runs recorded since the list was loaded shift the next page by two.
    expect(ids(appendOlder([e("d"), e("c")], [e("d"), e("c"), e("b"), e("a")]))).toEqual(["d", "c", "b", "a"]);
  });

  it("keeps the same list when the page brings nothing new", () => {
    const list = [e("b"), e("a")];
    expect(appendOlder(list, [e("a")])).toBe(list);
  });
});
