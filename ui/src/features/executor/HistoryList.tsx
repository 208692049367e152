/**
 * The run history (persisted by the backend, newest first): debounced search, per entry time,
 * routing name, status and duration, with re-run (same call, parent = the entry) and
 * edit-and-re-run (into the editor), in a virtualised list over a bounded window of entries that
 * loads pages as it scrolls (see useHistory).
 * Export as JSONL. Unreadable lines the backend skipped are reported, never hidden.
 */
import { memo, useId } from "react";

import { formatCount } from "../../lib/format";
import type { HistorySummary } from "../../lib/ipc";
import { ExportControls } from "./HistoryExport";
import { HistoryRows } from "./HistoryRows";
import { HISTORY_PAGE, type HistoryView } from "./useHistory";

interface Props {
  view: HistoryView;
  query: string;
  onQueryChange: (query: string) => void;
  busy: boolean;
  onRerun: (entry: HistorySummary) => void;
  onEdit: (entry: HistorySummary) => void;
}

/** Memoised: typing in the argument editor re-renders the pane, not the history. */
export const HistoryList = memo(function HistoryList({ view, query, onQueryChange, busy, onRerun, onEdit }: Props) {
  const searchId = useId();
  const { list, loading, error } = view;
  const skipped = list?.skipped ?? [];
  return (
    <section className="ex-history" aria-labelledby={`${searchId}-title`}>
      <div className="ex-history-head">
        <h3 id={`${searchId}-title`}>Run history</h3>
        <label className="visually-hidden" htmlFor={searchId}>
          Search history
        </label>
        <input
          id={searchId}
          className="ex-input ex-history-search"
          data-testid="history-search"
          type="search"
          placeholder="Search name, arguments, result, error kind…"
          value={query}
          onChange={(event) => {
            onQueryChange(event.target.value);
          }}
        />
        <button type="button" className="button ex-small" onClick={view.refresh} disabled={loading}>
          Refresh
        </button>
        <ExportControls />
      </div>
      {skipped.length > 0 && (
        <details className="ex-warning ex-skipped" data-testid="history-skipped">
          <summary>
            {skipped.length} unreadable {skipped.length === 1 ? "line" : "lines"} of the history file skipped
          </summary>
          <ul>
            {skipped.slice(0, 50).map((line) => (
              <li key={line.line}>
                line {line.line}: {line.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {error !== null && (
        <div className="status status-error" role="alert">
          <p>History unavailable: {error}</p>
        </div>
      )}
      {list && (
        <p className="muted ex-history-count" aria-live="polite">
          {list.total === 0
            ? list.query === ""
              ? "No runs yet."
              : "No run matches."
            : `${formatCount(list.total)} ${list.total === 1 ? "run" : "runs"}${list.query === "" ? "" : " match"}${
                list.entries.length < list.total ? `, ${formatCount(list.entries.length)} loaded` : ""
              }${loading ? " (updating…)" : ""}`}
        </p>
      )}
      <HistoryRows
        entries={list?.entries ?? []}
        offset={list?.offset ?? 0}
        total={list?.total ?? 0}
        busy={busy}
        labelledBy={`${searchId}-title`}
        onRange={view.show}
        onRerun={onRerun}
        onEdit={onEdit}
      />
      {view.hasMore && (
        <button type="button" className="button ex-small ex-history-more" onClick={view.loadMore} disabled={loading}>
          Load {formatCount(Math.min(HISTORY_PAGE, (list?.total ?? 0) - (list?.offset ?? 0) - (list?.entries.length ?? 0)))} more
        </button>
      )}
    </section>
  );
});
