/**
 * What a server printed on stderr and sent as log messages, in a scrollable monospace box
 * that follows the end. Read when shown, and again on every `sources-changed` event.
 */
import { useCallback, useEffect, useRef } from "react";

import { ipc } from "../../lib/ipc";
import { useSourceQuery } from "./useSourceQuery";

export function ServerLog({ name }: { name: string }) {
  const read = useCallback(() => ipc.mcpLog(name), [name]);
  const { data: lines, loadError: error, reload: refresh } = useSourceQuery(read);
  const box = useRef<HTMLPreElement>(null);

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
