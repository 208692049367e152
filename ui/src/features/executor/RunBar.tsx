/**
 * The run bar: Run (Ctrl/Cmd+Enter), Cancel while running (Esc), elapsed time, the backend's
 * timeout (ToolCallConfig.timeout_ms, editable and saved to settings) and the history entry this
 * run will be recorded under as a child of, if any.
 */
import { useEffect, useId, useState } from "react";

import type { Running } from "./useRun";

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.userAgent);
export const RUN_SHORTCUT = isMac ? "⌘↵" : "Ctrl+Enter";

/** Runs shorter than this show no elapsed time: their result is the feedback, and each change of
 * this text repaints much of the window (WebKitGTK without compositing; see the app bench). */
const ELAPSED_AFTER_MS = 300;

function Elapsed({ since }: { since: number | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (since === null) return;
    const timer = window.setInterval(() => {
      setNow(Date.now());
    }, 100);
    return () => {
      window.clearInterval(timer);
    };
  }, [since]);
  const elapsed = since === null ? 0 : now - since;
  // The same text (and so no DOM change) until the run has lasted long enough to be worth timing.
  return (
    <span className="ex-elapsed" data-shown={elapsed >= ELAPSED_AFTER_MS}>
      {elapsed >= ELAPSED_AFTER_MS ? `${(elapsed / 1000).toFixed(1)} s` : "0.0 s"}
    </span>
  );
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
  // Every control keeps its place whether or not a call runs: the Cancel button and the elapsed
  // time are laid out (invisible) while idle, and the Run button is as wide as its longest label.
  // A bar that changed height or width would move the page under it, and WebKit repaints the
  // whole window when the document's size changes (see tests/e2e/bench.mjs, step probe).
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
        <span className="ex-run-label">
          <span data-shown={running === null}>Run</span>
          <span data-shown={running !== null}>Running…</span>
        </span>{" "}
        <kbd>{RUN_SHORTCUT}</kbd>
      </button>
      <button
        type="button"
        className="button ex-while-running"
        data-testid="executor-cancel"
        data-shown={running !== null}
        disabled={running === null}
        onClick={onCancel}
        aria-keyshortcuts="Escape"
        title="Cancel (Esc)"
      >
        Cancel <kbd>Esc</kbd>
      </button>
      <Elapsed since={running?.startedAt ?? null} />
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
