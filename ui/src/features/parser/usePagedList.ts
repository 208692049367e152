/**
 * Long lists (a 1 MB reply can hold thousands of requests) render a page at a time; the selected
 * item is always inside what is rendered, and a span picked in the text scrolls its item into
 * view and focuses it.
 *
 * A new list (a new parse) is rendered in two steps: first the items a screen can show, then the
 * rest of the page in a background render React can interrupt. A 5 MB reply's hundred requests
 * took ~40 ms to render, all of it before the frame that showed the first ones.
 *
 * A list may know more items than it holds (a parse answers with its first requests only):
 * `more.load` is then asked for the pages that showing more, or selecting an item further down,
 * needs, and the items render as they arrive.
 */
import { useDeferredValue, useEffect, useRef, useState } from "react";

import type { Selection } from "./selection";

export const LIST_PAGE = 100;
/** Items rendered with a new list; the rest of the page follows in a deferred render. */
export const FIRST_PAINT = 12;

const NOTHING: readonly unknown[] = [];

/** Items the list knows of but does not hold yet, and how to ask for them. */
export interface MoreItems {
  /** How many items there are in all. */
  total: number;
  /** Asks for the items up to `upTo` (exclusive); they arrive as a longer `items`. */
  load: (upTo: number) => void;
}

export function usePagedList(items: readonly unknown[], selection: Selection | null, prefix: "r" | "d", more?: MoreItems) {
  const total = more?.total ?? items.length;
  const [limit, setLimit] = useState(LIST_PAGE);
  const list = useRef<HTMLOListElement>(null);
  const selectedIndex = selection?.id.startsWith(prefix) ? Number(selection.id.slice(1)) : -1;
  const shown = Math.min(total, Math.max(limit, selectedIndex + 1));
  const held = Math.min(shown, items.length);
  // The list as of the last settled render: until the deferred render catches up with a new
  // list, only its first items (and the selected one) are rendered. A list that only grew (more
  // items arrived) is the same list.
  const settled = useDeferredValue(items, NOTHING);
  const same = settled === items || (settled.length > 0 && settled[0] === items[0]);
  const rendered = same ? held : Math.min(held, Math.max(FIRST_PAINT, selectedIndex + 1));

  const load = more?.load;
  useEffect(() => {
    // Whole pages: the next "show more" then needs no request.
    if (load && shown > items.length) load(Math.min(total, Math.ceil(shown / LIST_PAGE) * LIST_PAGE));
  }, [load, shown, items.length, total]);

  // Once the selected item is rendered (it may have had to arrive first).
  const selectedHeld = selectedIndex >= 0 && selectedIndex < held;
  useEffect(() => {
    if (!selectedHeld || selection?.source !== "text" || !selection.id.startsWith(prefix)) return;
    const item = list.current?.querySelector<HTMLElement>(`[data-item="${selection.id}"]`);
    if (!item) return;
    item.scrollIntoView({ block: "nearest" });
    item.focus({ preventScroll: true });
  }, [selection, prefix, selectedHeld]);

  const showMore = () => {
    setLimit(shown + LIST_PAGE);
  };
  return { list, total, shown, held, rendered, showMore, selectedIndex };
}
