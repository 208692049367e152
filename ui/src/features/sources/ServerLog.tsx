/**
 * What a server printed on stderr and sent as log messages, in a scrollable monospace box
 * that follows the end. Read when shown, and again on every `sources-changed` event.
 */
import { useCallback, useEffect, useRef, useState } from "react";

import { errorMessage, ipc } from "../../lib/ipc";
import { useSourcesChanged } from "../../lib/useSourcesChanged";

export function ServerLog({ name }: { name: string }) {
  const [lines, setLines] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [request, setRequest] = useState(0);
  const box = useRef<HTMLPreElement>(null);

  useEffect(() => {
    let current = true;
    ipc.mcpLog(name).then(
      (found) => {
        if (!current) return;
        setLines(found);
        setError(null);
      },
      (reason: unknown) => {
        if (current) setError(errorMessage(reason));
      },
    );
    return () => {
      current = false;
    };
  }, [name, request]);

  const refresh = useCallback(() => {
    setRequest((n) => n + 1);
  }, []);
  useSourcesChanged(refresh);

  useEffect(() => {
    const element = box.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [lines]);

  return (
    <div className="src-log" data-testid="server-log">
      <div className="src-log-head">
        <span className="muted">Server output (stderr and log messages)</span>
        <button type="button" className="button src-small" onClick={refresh}>
          Refresh
        </button>
      </div>
      {error !== null && (
        <p className="src-error" role="alert">
          Could not read the output: {error}
        </p>
      )}
      {lines === null ? (
        error === null && <p className="muted">Reading…</p>
      ) : lines.length === 0 ? (
        <p className="muted" data-testid="server-log-empty">
          No output yet.
        </p>
      ) : (
        <pre ref={box} className="src-log-lines" tabIndex={0} aria-label={`Output of ${name}`} data-testid="server-log-lines">
          {lines.join("\n")}
        </pre>
      )}
    </div>
  );
}
