/**
 * The held window of history entries as a virtualised list: only the rows in view (plus a few)
 * are in the DOM, each a memoised row of fixed height, so the list costs the same with 10
 * entries or 10,000, and a new run re-renders the visible rows only. The rows above the window
 * (entries dropped from it, or new runs made while scrolled down) are placeholders of the same
 * height; the list reports the rows in view, and the history loads the pages they need.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useCallback, useEffect, useRef } from "react";

import { formatDuration, formatTimestamp } from "../../lib/format";
import type { HistorySummary } from "../../lib/ipc";
import { CopyAs } from "../results/CopyAs";

/** Row height in px; executor.css lays a row out to fit it exactly. */
export const HISTORY_ROW_HEIGHT = 58;
const OVERSCAN = 6;
const PREVIEW_CHARS = 120;

function argsPreview(entry: HistorySummary): string {
  const text = JSON.stringify(entry.args);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 3)}…` : text;
}

interface RowProps {
  entry: HistorySummary;
  /** 1-based position in the whole (matching) history. */
  position: number;
  setSize: number;
  top: number;
  busy: boolean;
  onRerun: (entry: HistorySummary) => void;
  onEdit: (entry: HistorySummary) => void;
}

const HistoryRow = memo(function HistoryRow({ entry, position, setSize, top, busy, onRerun, onEdit }: RowProps) {
  return (
    <li
      className="ex-history-item"
      data-testid="history-item"
      data-tool-name={entry.tool_name}
      data-status={entry.status}
      aria-posinset={position}
      aria-setsize={setSize}
      // Offsets change with the scroll position: set through the CSSOM, which the CSP allows.
      style={{ transform: `translateY(${String(top)}px)` }}
    >
      <div className="ex-history-line">
        <time dateTime={new Date(entry.timestamp_ms).toISOString()} className="muted">
          {formatTimestamp(entry.timestamp_ms)}
        </time>
        <code className="ex-history-name" title={entry.tool_name}>
          {entry.tool_name}
        </code>
        <span className={entry.status === "success" ? "badge badge-ok" : "badge ex-badge-danger"}>
          {entry.error_kind ?? entry.status}
        </span>
        <span className="muted">{entry.duration_ms === null ? "–" : formatDuration(entry.duration_ms)}</span>
        {entry.origin !== "app" && <span className="badge badge-muted">{entry.origin}</span>}
        {entry.parent_id && (
          <span className="muted ex-history-parent" title={`follows ${entry.parent_id}`}>
            ↳ {entry.parent_id.slice(0, 8)}
          </span>
        )}
        <span className="ex-history-actions">
          <button
            type="button"
            className="button ex-small"
            data-testid="history-rerun"
            disabled={busy}
            onClick={() => {
              onRerun(entry);
            }}
            aria-label={`Re-run ${entry.tool_name}`}
          >
            Re-run
          </button>
          <button
            type="button"
            className="button ex-small"
            data-testid="history-edit"
            onClick={() => {
              onEdit(entry);
            }}
            aria-label={`Edit and re-run ${entry.tool_name}`}
          >
            Edit
          </button>
          <CopyAs
            source={{ from: "history", id: entry.id }}
            hasResult
            label={`the run of ${entry.tool_name}`}
            compact
          />
        </span>
      </div>
      <code className="ex-history-args muted">{argsPreview(entry)}</code>
    </li>
  );
});

/** A row whose entry is not in the held window (yet): loaded when it comes into view. */
const PlaceholderRow = memo(function PlaceholderRow({ position, setSize, top }: { position: number; setSize: number; top: number }) {
  return (
    <li
      className="ex-history-item ex-history-placeholder muted"
      data-testid="history-placeholder"
      aria-posinset={position}
      aria-setsize={setSize}
      aria-busy="true"
      style={{ transform: `translateY(${String(top)}px)` }}
    >
      Loading…
    </li>
  );
});

interface Props {
  /** The held window of entries... */
  entries: readonly HistorySummary[];
  /** ...and where it starts in the whole (matching) history: the rows above it are placeholders. */
  offset: number;
  /** Matching entries in the whole history (more than the window's end while pages are still to load). */
  total: number;
  busy: boolean;
  labelledBy: string;
  /** The rows in view (positions in the whole history, from 0), whenever they or the window change. */
  onRange: (first: number, last: number) => void;
  onRerun: (entry: HistorySummary) => void;
  onEdit: (entry: HistorySummary) => void;
}

export function HistoryRows({ entries, offset, total, busy, labelledBy, onRange, onRerun, onEdit }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const count = offset + entries.length;
  const getItemKey = useCallback((index: number) => entries[index - offset]?.id ?? `at-${String(index)}`, [entries, offset]);
  const estimateSize = useCallback(() => HISTORY_ROW_HEIGHT, []);
  // Not built with the React Compiler, and nothing the virtualizer returns goes to a memoised
  // child as is, so its unmemoisable API is safe here (as in the Discovery list).
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize,
    getItemKey,
    overscan: OVERSCAN,
    useFlushSync: false,
  });
  const items = virtualizer.getVirtualItems();
  const firstShown = items[0]?.index ?? -1;
  const lastShown = items.at(-1)?.index ?? -1;

  useEffect(() => {
    if (lastShown >= 0) onRange(firstShown, lastShown);
  }, [firstShown, lastShown, offset, count, total, onRange]);

  return (
    <div ref={scrollRef} className="ex-history-scroll" data-empty={count === 0}>
      <ol
        className="ex-history-list"
        data-testid="history-list"
        aria-labelledby={labelledBy}
        style={{ height: `${String(virtualizer.getTotalSize())}px` }}
      >
        {items.map((item) => {
          const entry = entries[item.index - offset];
          if (!entry) {
            return <PlaceholderRow key={item.key} position={item.index + 1} setSize={total} top={item.start} />;
          }
          return (
            <HistoryRow
              key={entry.id}
              entry={entry}
              position={item.index + 1}
              setSize={total}
              top={item.start}
              busy={busy}
              onRerun={onRerun}
              onEdit={onEdit}
            />
          );
        })}
      </ol>
    </div>
  );
}
