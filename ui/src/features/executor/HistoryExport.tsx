/**
 * Export of the whole run history as JSONL (every entry in full, oldest first): a download
 * link, started at once and kept for a second try, plus a copy fallback.
 */
import { useEffect, useRef, useState } from "react";

import { errorMessage, ipc } from "../../lib/ipc";
import { CopyButton } from "./ResultView";

interface ExportState {
  text: string;
  url: string;
  lines: number;
}

export function ExportControls() {
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
