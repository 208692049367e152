/**
 * Long lists (a 1 MB reply can hold thousands of requests) render a page at a time; the selected
 * item is always inside what is rendered, and a span picked in the text scrolls its item into
 * view and focuses it.
 */
import { useEffect, useRef, useState } from "react";

import type { Selection } from "./selection";

export const LIST_PAGE = 100;

export function usePagedList(count: number, selection: Selection | null, prefix: "r" | "d") {
  const [limit, setLimit] = useState(LIST_PAGE);
  const list = useRef<HTMLOListElement>(null);
  const selectedIndex = selection?.id.startsWith(prefix) ? Number(selection.id.slice(1)) : -1;
  const shown = Math.min(count, Math.max(limit, selectedIndex + 1));

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
  return { list, shown, showMore, selectedIndex };
}
