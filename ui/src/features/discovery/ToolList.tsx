/**
 * The master list: tools and their methods as one virtualised ARIA treegrid (only the rows in
 * view, plus a few, are in the DOM), with roving focus and keyboard navigation:
 * ↑/↓/Home/End/PageUp/PageDown move, Enter selects a method or folds a tool, ←/→ fold and
 * unfold (← on a method goes to its tool), Space on a tool enables or disables it.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useImperativeHandle, useRef, useState, type KeyboardEvent, type Ref } from "react";

import type { ToolView } from "../../lib/ipc";
import { isDestructive, isReadOnly } from "./annotations";
import type { MethodRow, Row, ToolRow } from "./rows";

/** Row heights in px; discovery.css lays the rows out to fit them exactly. */
export const TOOL_ROW_HEIGHT = 36;
export const METHOD_ROW_HEIGHT = 44;
const OVERSCAN = 6;
const PAGE = 10;

export interface ToolListHandle {
  /** Moves focus into the list: the active row, else the selected method, else the first row. */
  focus: () => boolean;
  /** Makes `key` the active row and scrolls it into view (focusing it when asked). */
  reveal: (key: string, focus: boolean) => void;
  scrollToTop: () => void;
}

export interface ToolListProps {
  rows: Row[];
  selected: string | null;
  pending: ReadonlyMap<string, boolean>;
  onSelect: (routingName: string) => void;
  onToggleCollapse: (toolId: string, collapse: boolean) => void;
  onToggleTool: (tool: ToolView, enabled: boolean) => void;
  ref?: Ref<ToolListHandle>;
}

export function ToolList({ rows, selected, pending, onSelect, onToggleCollapse, onToggleTool, ref }: ToolListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [activeKey, setActiveKey] = useState<string | null>(null);
  // The row to focus once it is rendered: after a scroll it may not be in the DOM yet.
  const focusKey = useRef<string | null>(null);

  const getItemKey = useCallback((index: number) => rows[index]?.key ?? index, [rows]);
  const estimateSize = useCallback(
    (index: number) => (rows[index]?.kind === "tool" ? TOOL_ROW_HEIGHT : METHOD_ROW_HEIGHT),
    [rows],
  );
  // The app is not built with the React Compiler, and nothing the virtualizer returns is
  // passed to a memoised child, so its unmemoisable API is safe here.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize,
    getItemKey,
    overscan: OVERSCAN,
    // flushSync from the virtualizer's layout effects makes React 19 warn (and cannot flush
    // there anyway); React batches the scroll re-render within the frame instead.
    useFlushSync: false,
  });

  const selectedKey = selected === null ? null : `method:${selected}`;
  const indexOf = (key: string | null) => (key === null ? -1 : rows.findIndex((row) => row.key === key));
  let activeIndex = indexOf(activeKey);
  if (activeIndex < 0) activeIndex = indexOf(selectedKey);
  if (activeIndex < 0 && rows.length > 0) activeIndex = 0;

  const moveTo = (index: number, focus = true) => {
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
    if (!row) return;
    setActiveKey(row.key);
    if (focus) focusKey.current = row.key;
    virtualizer.scrollToIndex(rows.indexOf(row), { align: "auto" });
  };

  useImperativeHandle(ref, () => ({
    focus: () => {
      if (rows.length === 0) return false;
      moveTo(activeIndex);
      return true;
    },
    reveal: (key, focus) => {
      const index = indexOf(key);
      if (index >= 0) moveTo(index, focus);
    },
    scrollToTop: () => {
      setActiveKey(null);
      // A scroll command re-renders the list a frame or two later (the virtualizer confirms
      // where it landed), which doubled a keystroke's cost while typing at the top anyway.
      if ((scrollRef.current?.scrollTop ?? 0) !== 0) virtualizer.scrollToOffset(0);
    },
  }));

  const activate = (row: Row) => {
    if (row.kind === "method") onSelect(row.method.routing_name);
    else onToggleCollapse(row.tool.id, !row.collapsed);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const row = rows[activeIndex];
    if (!row) return;
    // Keys typed into the tool's checkbox or chevron keep their own meaning.
    const onControl = event.target instanceof HTMLElement && event.target.closest("input, button") !== null;
    switch (event.key) {
      case "ArrowDown":
        moveTo(activeIndex + 1);
        break;
      case "ArrowUp":
        moveTo(activeIndex - 1);
        break;
      case "Home":
        moveTo(0);
        break;
      case "End":
        moveTo(rows.length - 1);
        break;
      case "PageDown":
        moveTo(activeIndex + PAGE);
        break;
      case "PageUp":
        moveTo(activeIndex - PAGE);
        break;
      case "ArrowLeft":
        if (row.kind === "tool") {
          if (!row.collapsed) onToggleCollapse(row.tool.id, true);
        } else {
          moveTo(indexOf(`tool:${row.tool.id}`));
        }
        break;
      case "ArrowRight":
        if (row.kind === "tool" && row.collapsed) onToggleCollapse(row.tool.id, false);
        else if (row.kind === "tool") moveTo(activeIndex + 1);
        break;
      case "Enter":
        if (onControl) return;
        activate(row);
        break;
      case " ":
        if (onControl) return;
        if (row.kind === "tool") {
          const enabled = pending.get(row.tool.id) ?? row.tool.enabled;
          if (!pending.has(row.tool.id)) onToggleTool(row.tool, !enabled);
        } else {
          activate(row);
        }
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const items = virtualizer.getVirtualItems();

  return (
    <div
      ref={scrollRef}
      className="dv-list"
      role="treegrid"
      aria-label="Tools and methods"
      aria-rowcount={rows.length}
      data-testid="discovery-list"
      onKeyDown={onKeyDown}
    >
      {/* Heights and offsets change per scroll position, so they are set through the CSSOM
          (React's style prop), which the app's CSP allows. */}
      <div role="rowgroup" className="dv-list-inner" style={{ height: `${String(virtualizer.getTotalSize())}px` }}>
        {items.map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          const isActive = item.index === activeIndex;
          const common = {
            ref: (element: HTMLDivElement | null) => {
              if (element && focusKey.current === row.key) {
                focusKey.current = null;
                element.focus({ preventScroll: true });
              }
            },
            role: "row",
            "aria-rowindex": item.index + 1,
            tabIndex: isActive ? 0 : -1,
            style: { transform: `translateY(${String(item.start)}px)`, height: `${String(item.size)}px` },
            onFocus: () => {
              if (!isActive) setActiveKey(row.key);
            },
          };
          return row.kind === "tool" ? (
            <ToolRowView
              key={row.key}
              common={common}
              row={row}
              active={isActive}
              pending={pending.get(row.tool.id)}
              onToggleCollapse={onToggleCollapse}
              onToggleTool={onToggleTool}
            />
          ) : (
            <MethodRowView
              key={row.key}
              common={common}
              row={row}
              active={isActive}
              selected={row.key === selectedKey}
              onSelect={onSelect}
            />
          );
        })}
      </div>
    </div>
  );
}

interface CommonRowProps {
  ref: (element: HTMLDivElement | null) => void;
  role: string;
  "aria-rowindex": number;
  tabIndex: number;
  style: { transform: string; height: string };
  onFocus: () => void;
}

function ToolRowView({
  common,
  row,
  active,
  pending,
  onToggleCollapse,
  onToggleTool,
}: {
  common: CommonRowProps;
  row: ToolRow;
  active: boolean;
  pending: boolean | undefined;
  onToggleCollapse: (toolId: string, collapse: boolean) => void;
  onToggleTool: (tool: ToolView, enabled: boolean) => void;
}) {
  const { tool } = row;
  const enabled = pending ?? tool.enabled;
  const hasChildren = row.shown > 0;
  return (
    <div
      {...common}
      className={`dv-row dv-tool-row${active ? " dv-active" : ""}${enabled ? "" : " dv-disabled"}`}
      data-testid={`tool-item-${tool.id}`}
      aria-level={1}
      {...(hasChildren ? { "aria-expanded": !row.collapsed } : {})}
      onClick={(event) => {
        if (event.target instanceof HTMLElement && event.target.closest("input, label") !== null) return;
        if (hasChildren) onToggleCollapse(tool.id, !row.collapsed);
      }}
    >
      <div role="gridcell" className="dv-cell">
        <span className="dv-chevron" aria-hidden="true">
          {hasChildren ? (row.collapsed ? "▸" : "▾") : "·"}
        </span>
        <label className="dv-toggle" title={enabled ? "Enabled: shown to models" : "Disabled: hidden from models"}>
          <input
            type="checkbox"
            data-testid={`tool-toggle-${tool.id}`}
            aria-label={`Enable ${tool.name}`}
            tabIndex={-1}
            checked={enabled}
            disabled={pending !== undefined}
            onChange={(event) => {
              onToggleTool(tool, event.target.checked);
            }}
          />
        </label>
        <span className="dv-tool-name">{tool.name}</span>
        <code className="dv-tool-id">{tool.id}</code>
        <span className="dv-badge dv-badge-muted dv-source">{tool.source}</span>
        <span className="dv-count">
          {row.shown} {row.shown === 1 ? "method" : "methods"}
          {row.hiddenNonCallable > 0 && <span title="not agent-callable, hidden"> +{row.hiddenNonCallable} hidden</span>}
        </span>
      </div>
    </div>
  );
}

function MethodRowView({
  common,
  row,
  active,
  selected,
  onSelect,
}: {
  common: CommonRowProps;
  row: MethodRow;
  active: boolean;
  selected: boolean;
  onSelect: (routingName: string) => void;
}) {
  const { meta } = row.method;
  return (
    <div
      {...common}
      className={`dv-row dv-method-row${active ? " dv-active" : ""}${selected ? " dv-selected" : ""}${
        row.tool.enabled ? "" : " dv-disabled"
      }`}
      data-testid={`method-item-${row.method.routing_name}`}
      aria-level={2}
      aria-selected={selected}
      onClick={() => {
        onSelect(row.method.routing_name);
      }}
    >
      <div role="gridcell" className="dv-cell dv-method-cell">
        <span className="dv-method-line">
          <code className="dv-routing">{row.method.routing_name}</code>
          {isReadOnly(meta) && <span className="dv-mini dv-mini-ok">read-only</span>}
          {isDestructive(meta) && <span className="dv-mini dv-mini-danger">destructive</span>}
          {!meta.agent_callable && <span className="dv-mini dv-mini-muted">not agent-callable</span>}
        </span>
        <span className="dv-method-description">{meta.description}</span>
      </div>
    </div>
  );
}
