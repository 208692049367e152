/**
 * Import: paste a Claude Desktop / Cursor / VS Code MCP config and see which servers were
 * added and what was skipped (the text stays on failure). Export: the server list as
 * `mcpServers` JSON, to copy into another client.
 */
import { useState } from "react";

import { CopyButton } from "../../lib/CopyButton";
import { errorMessage, ipc, type ImportReport } from "../../lib/ipc";

const EXAMPLE = `{
  "mcpServers": {
    "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] }
  }
}`;

export function ImportPanel({ onImported }: { onImported: () => void }) {
  const [text, setText] = useState("");
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async () => {
    setBusy(true);
    setError(null);
    setReport(null);
    try {
      setReport(await ipc.mcpImport(text));
      onImported();
    } catch (reason: unknown) {
      setError(errorMessage(reason));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="src-import" data-testid="import-panel">
      <label htmlFor="src-import-text">Paste an MCP config (mcpServers or VS Code servers JSON)</label>
      <textarea
        id="src-import-text"
        className="src-input src-mono"
        rows={6}
        spellCheck={false}
        placeholder={EXAMPLE}
        value={text}
        data-testid="import-text"
        onChange={(event) => {
          setText(event.target.value);
        }}
      />
      <div className="src-form-buttons">
        <button
          type="button"
          className="button src-primary"
          disabled={busy || text.trim() === ""}
          data-testid="import-run"
          onClick={() => void run()}
        >
          {busy ? "Importing…" : "Import"}
        </button>
      </div>
      {error !== null && (
        <p className="src-error" role="alert" data-testid="import-error">
          {error}
        </p>
      )}
      {report && <ImportResult report={report} />}
    </div>
  );
}

function ImportResult({ report }: { report: ImportReport }) {
  const count = report.servers.length;
  return (
    <div className="src-report" role="status" data-testid="import-report">
      <p>
        {count === 0 ? "No servers added." : `Added ${String(count)} ${count === 1 ? "server" : "servers"}: `}
        {report.servers.map((server, index) => (
          <span key={server.name}>
            {index > 0 && ", "}
            <code>{server.name}</code>
          </span>
        ))}
        {report.servers.some((server) => server.transport.type === "stdio") && (
          <span className="muted"> · command lines wait for your approval below.</span>
        )}
      </p>
      {report.warnings.length > 0 && (
        <ul className="src-warnings" data-testid="import-warnings">
          {report.warnings.map((warning, index) => (
            <li key={`${String(index)}-${warning}`}>{warning}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function ExportPanel() {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async () => {
    try {
      setText(await ipc.mcpExport());
      setError(null);
    } catch (reason: unknown) {
      setError(errorMessage(reason));
    }
  };

  return (
    <div className="src-export" data-testid="export-panel">
      <div className="src-form-buttons src-export-buttons">
        <button type="button" className="button" data-testid="export-run" onClick={() => void load()}>
          {text === null ? "Show export" : "Refresh"}
        </button>
        {text !== null && <CopyButton text={text} label="Copy" testId="export-copy" />}
        <span className="muted src-hint">As mcpServers JSON, env and header values included.</span>
      </div>
      {error !== null && (
        <p className="src-error" role="alert">
          {error}
        </p>
      )}
      {text !== null && (
        <pre className="src-code-box" tabIndex={0} data-testid="export-text">
          {text}
        </pre>
      )}
    </div>
  );
}
