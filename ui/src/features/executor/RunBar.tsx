/**
 * The run bar: Run (Ctrl/Cmd+Enter), Cancel while running (Esc), elapsed time, the backend's
 * timeout (ToolCallConfig.timeout_ms, editable and saved to settings) and the history entry this
 * run will be recorded under as a child of, if any.
 */
import { useEffect, useId, useState } from "react";

import type { Running } from "./useRun";

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.userAgent);
export const RUN_SHORTCUT = isMac ? "⌘↵" : "Ctrl+Enter";

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => {
      setNow(Date.now());
    }, 100);
    return () => {
      window.clearInterval(timer);
    };
  }, []);
  return <span className="ex-elapsed">{((now - since) / 1000).toFixed(1)} s</span>;
}

/** Parses a timeout typed by the user; null when it is not a whole number of ms ≥ 1. */
export function parseTimeout(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const ms = Number(trimmed);
  return Number.isSafeInteger(ms) && ms >= 1 ? ms : null;
}

function TimeoutField({ timeoutMs, onSave }: { timeoutMs: number; onSave: (ms: number) => Promise<boolean> }) {
  const id = useId();
  const [text, setText] = useState(String(timeoutMs));
  const [problem, setProblem] = useState<string | null>(null);
  // A newly stored timeout replaces the text (without remounting: the input keeps focus).
  const [shown, setShown] = useState(timeoutMs);
  if (shown !== timeoutMs) {
    setShown(timeoutMs);
    setText(String(timeoutMs));
  }

  const commit = () => {
    const ms = parseTimeout(text);
    if (ms === null) {
      setProblem("a whole number of milliseconds, at least 1");
      return;
    }
    setProblem(null);
    if (ms !== timeoutMs) void onSave(ms);
  };

  return (
    <span className="ex-timeout">
      <label htmlFor={id}>Timeout</label>
      <input
        id={id}
        className="ex-input ex-timeout-input"
        data-testid="executor-timeout"
        inputMode="numeric"
        value={text}
        aria-invalid={problem !== null}
        aria-describedby={problem !== null ? `${id}-problem` : undefined}
        onChange={(event) => {
          setText(event.target.value);
        }}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
            event.preventDefault();
            commit();
          }
        }}
      />
      <span>ms</span>
      {problem !== null && (
        <span id={`${id}-problem`} className="ex-field-error" role="alert">
          {problem}
        </span>
      )}
    </span>
  );
}

interface Props {
  running: Running | null;
  canRun: boolean;
  onRun: () => void;
  onCancel: () => void;
  timeoutMs: number | null;
  onSaveTimeout: (ms: number) => Promise<boolean>;
  settingsError: string | null;
  parentId: string | null;
  onClearParent: () => void;
}

export function RunBar({
  running,
  canRun,
  onRun,
  onCancel,
  timeoutMs,
  onSaveTimeout,
  settingsError,
  parentId,
  onClearParent,
}: Props) {
  return (
    <div className="ex-runbar">
      <button
        type="button"
        className="button ex-run"
        data-testid="executor-run"
        onClick={onRun}
        disabled={running !== null || !canRun}
        aria-keyshortcuts="Control+Enter Meta+Enter"
        title={`Run (${RUN_SHORTCUT})`}
      >
        {running ? "Running…" : "Run"} <kbd>{RUN_SHORTCUT}</kbd>
      </button>
      {running && (
        <>
          <button
            type="button"
            className="button"
            data-testid="executor-cancel"
            onClick={onCancel}
            aria-keyshortcuts="Escape"
            title="Cancel (Esc)"
          >
            Cancel <kbd>Esc</kbd>
          </button>
          <Elapsed since={running.startedAt} />
        </>
      )}
      {timeoutMs !== null && <TimeoutField timeoutMs={timeoutMs} onSave={onSaveTimeout} />}
      {parentId !== null && (
        <span className="ex-parent" data-testid="executor-parent">
          re-run of <code title={parentId}>{parentId.slice(0, 8)}</code>
          <button type="button" className="ex-link" onClick={onClearParent} aria-label="Record as a new call, not a re-run">
            ×
          </button>
        </span>
      )}
      {settingsError !== null && (
        <span className="ex-field-error" role="alert">
          {settingsError}
        </span>
      )}
    </div>
  );
}
