/**
 * The controls above the list: fuzzy search (Ctrl/Cmd+K focuses it, Esc clears it, ↓ enters
 * the list, Enter opens the first match), the non-agent-callable filter, the sort order and a
 * one-line summary of what is shown.
 */
import type { KeyboardEvent, Ref } from "react";

import { SORT_ORDERS, type SortOrder } from "./rows";

export interface ToolbarProps {
  query: string;
  onQuery: (query: string) => void;
  onSearchKey: (event: KeyboardEvent<HTMLInputElement>) => void;
  includeNonCallable: boolean;
  onIncludeNonCallable: (include: boolean) => void;
  sort: SortOrder;
  onSort: (sort: SortOrder) => void;
  searchRef: Ref<HTMLInputElement>;
}

const isMac = /Mac|iPhone|iPad/.test(navigator.userAgent);

export function DiscoveryToolbar(props: ToolbarProps) {
  const { query, onQuery, onSearchKey, includeNonCallable, onIncludeNonCallable, sort, onSort, searchRef } = props;
  return (
    <div className="dv-toolbar">
      <label className="dv-search">
        <span className="visually-hidden">Search tools and methods</span>
        <input
          ref={searchRef}
          type="search"
          data-testid="discovery-search"
          placeholder={`Search tools, methods, descriptions (${isMac ? "⌘" : "Ctrl+"}K)`}
          value={query}
          spellCheck={false}
          autoComplete="off"
          onChange={(event) => {
            onQuery(event.target.value);
          }}
          onKeyDown={onSearchKey}
        />
      </label>
      <label className="dv-field dv-check">
        <input
          type="checkbox"
          data-testid="discovery-non-callable"
          checked={includeNonCallable}
          onChange={(event) => {
            onIncludeNonCallable(event.target.checked);
          }}
        />
        <span>show non-agent-callable</span>
      </label>
      <label className="dv-field">
        <span>Sort</span>
        <select
          data-testid="discovery-sort"
          value={sort}
          onChange={(event) => {
            const next = SORT_ORDERS.find((order) => order.id === event.target.value);
            if (next) onSort(next.id);
          }}
        >
          {SORT_ORDERS.map((order) => (
            <option key={order.id} value={order.id}>
              {order.label}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
