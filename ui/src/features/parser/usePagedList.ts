/**
 * Long lists (a 1 MB reply can hold thousands of requests) render a page at a time; the selected
 * item is always inside what is rendered, and a span picked in the text scrolls its item into
 * view and focuses it.
 *
 * A new list (a new parse) is rendered in two steps: first the items a screen can show, then the
 * rest of the page in a background render React can interrupt. A 5 MB reply's hundred requests
 * took ~40 ms to render, all of it before the frame that showed the first ones.
 */
import { useDeferredValue, useEffect, useRef, useState } from "react";

import type { Selection } from "./selection";

export const LIST_PAGE = 100;
/** Items rendered with a new list; the rest of the page follows in a deferred render. */
export const FIRST_PAINT = 12;

const NOTHING: readonly unknown[] = [];

export function usePagedList(items: readonly unknown[], selection: Selection | null, prefix: "r" | "d") {
  const count = items.length;
  const [limit, setLimit] = useState(LIST_PAGE);
  const list = useRef<HTMLOListElement>(null);
  const selectedIndex = selection?.id.startsWith(prefix) ? Number(selection.id.slice(1)) : -1;
  const shown = Math.min(count, Math.max(limit, selectedIndex + 1));
  // The list as of the last settled render: until the deferred render catches up with a new
  // list, only its first items (and the selected one) are rendered.
  const settled = useDeferredValue(items, NOTHING);
  const rendered = settled === items ? shown : Math.min(shown, Math.max(FIRST_PAINT, selectedIndex + 1));

  useEffect(() => {
    if (selection?.source !== "text" || !selection.id.startsWith(prefix)) return;
    const item = list.current?.querySelector<HTMLElement>(`[data-item="${selection.id}"]`);
    if (!item) return;
    item.scrollIntoView({ block: "nearest" });
    item.focus({ preventScroll: true });
  }, [selection, prefix]);

  const showMore = () => {
    setLimit(shown + LIST_PAGE);
  };
  return { list, shown, rendered, showMore, selectedIndex };
}
