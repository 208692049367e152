/**
 * The run history (persisted by the backend, newest first): debounced search, per entry time,
 * routing name, status and duration, with re-run (same call, parent = the entry) and
 * edit-and-re-run (into the editor). Export as JSONL: a download link plus a copy fallback.
 * Unreadable lines the backend skipped are reported, never hidden.
 */
import { useEffect, useId, useRef, useState } from "react";

import { errorMessage, ipc, type HistoryEntry } from "../../lib/ipc";
import { CopyButton } from "./ResultView";
import type { HistoryView } from "./useHistory";
import { formatDuration } from "../../lib/format";

function formatTime(ms: number): string {
  const date = new Date(ms);
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay ? date.toLocaleTimeString() : date.toLocaleString();
}

function argsPreview(entry: HistoryEntry): string {
  const text = JSON.stringify(entry.request.args);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

interface ExportState {
  text: string;
  url: string;
  lines: number;
}

function ExportControls() {
  const [exported, setExported] = useState<ExportState | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const link = useRef<HTMLAnchorElement>(null);
  const urlRef = useRef<string | null>(null);

  useEffect(
    () => () => {
      if (urlRef.current) URL.revokeObjectURL(urlRef.current);
    },
    [],
  );

  useEffect(() => {
    // Start the download as soon as the link exists; the link stays for a second try.
    if (exported) link.current?.click();
  }, [exported]);

  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const text = await ipc.historyExport();
      if (urlRef.current) URL.revokeObjectURL(urlRef.current);
      const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
      urlRef.current = url;
      setExported({ text, url, lines: text.split("\n").filter((line) => line.trim() !== "").length });
    } catch (reason: unknown) {
      setError(`export failed: ${errorMessage(reason)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="ex-export">
      <button type="button" className="button ex-small" data-testid="history-export" onClick={() => void run()} disabled={busy}>
        Export JSONL
      </button>
      {exported && (
        <span className="ex-export-ready" data-testid="history-export-ready">
          {exported.lines} entries:{" "}
          <a ref={link} href={exported.url} download="toolscope-history.jsonl" data-testid="history-export-download">
            save file
          </a>{" "}
          <CopyButton text={exported.text} label="Copy JSONL" testId="history-export-copy" />
        </span>
      )}
      {error !== null && (
        <span className="ex-field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

interface Props {
  view: HistoryView;
  query: string;
  onQueryChange: (query: string) => void;
  busy: boolean;
  onRerun: (entry: HistoryEntry) => void;
  onEdit: (entry: HistoryEntry) => void;
}

export function HistoryList({ view, query, onQueryChange, busy, onRerun, onEdit }: Props) {
  const searchId = useId();
  const { page, loading, error } = view;
  const skipped = page?.skipped ?? [];
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
      {page && (
        <p className="muted ex-history-count" aria-live="polite">
          {page.total === 0
            ? query.trim() === ""
              ? "No runs yet."
              : "No run matches."
            : `Showing ${String(page.entries.length)} of ${String(page.total)}${loading ? " (updating…)" : ""}`}
        </p>
      )}
      <ol className="ex-history-list" data-testid="history-list">
        {page?.entries.map((entry) => (
          <li
            key={entry.id}
            className="ex-history-item"
            data-testid="history-item"
            data-tool-name={entry.request.tool_name}
            data-status={entry.result.status}
          >
            <div className="ex-history-line">
              <time dateTime={new Date(entry.timestamp_ms).toISOString()} className="muted">
                {formatTime(entry.timestamp_ms)}
              </time>
              <code className="ex-history-name">{entry.request.tool_name}</code>
              <span className={entry.result.status === "success" ? "badge badge-ok" : "badge ex-badge-danger"}>
                {entry.result.error?.kind ?? entry.result.status}
              </span>
              <span className="muted">{entry.result.duration_ms === null ? "–" : formatDuration(entry.result.duration_ms)}</span>
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
                  aria-label={`Re-run ${entry.request.tool_name}`}
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
                  aria-label={`Edit and re-run ${entry.request.tool_name}`}
                >
                  Edit
                </button>
              </span>
            </div>
            <code className="ex-history-args muted">{argsPreview(entry)}</code>
          </li>
        ))}
      </ol>
      {page && page.total > page.entries.length && (
        <button type="button" className="button ex-small" onClick={view.showMore} disabled={loading}>
          Show more
        </button>
      )}
    </section>
  );
}
