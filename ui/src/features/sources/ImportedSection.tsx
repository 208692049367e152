/**
 * Imported tools: a person's own definitions as named sets (listed in Discovery, prompted,
 * validated and called like any tool), each method answering from its mock. Import by paste
 * or file; the last import's findings stay visible with their paths until the next one.
 */
import { useState } from "react";

import { errorMessage, type SetImportReport } from "../../lib/ipc";
import { Dialog } from "./Dialog";
import { FindingList } from "./FindingList";
import { ImportDialog } from "./ImportDialog";
import { MockEditor } from "./MockEditor";
import { useImportedSets } from "./useImportedSets";

export function ImportedSection() {
  const imported = useImportedSets();
  const [importing, setImporting] = useState<string | null>(null);
  const [report, setReport] = useState<SetImportReport | null>(null);
  const [confirmRemove, setConfirmRemove] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const sets = imported.sets ?? [];
  const open = imported.open;

  const remove = async (name: string) => {
    setConfirmRemove(null);
    try {
      await imported.remove(name);
      setActionError(null);
    } catch (reason: unknown) {
      setActionError(`could not remove '${name}': ${errorMessage(reason)}`);
    }
  };

  return (
    <section className="src-section" aria-labelledby="src-imported-title" data-testid="imported-tools">
      <div className="src-section-head">
        <div>
          <h3 id="src-imported-title">Imported tools</h3>
          <p className="muted">
            Your own tool definitions: an OpenAI, Anthropic or Gemini tools array, an MCP tools/list result, BFCL
            files. Calls answer from each method&apos;s mock; without one they fail with &ldquo;no implementation&rdquo;.
          </p>
        </div>
        <button
          type="button"
          className="button"
          data-testid="import-open"
          onClick={() => {
            setImporting("");
          }}
        >
          Import definitions…
        </button>
      </div>
      {imported.loadError !== null && (
        <div className="status status-error" role="alert">
          <p>Could not read the imported sets: {imported.loadError}</p>
          <button type="button" className="button src-small" onClick={imported.reload}>
            Try again
          </button>
        </div>
      )}
      {actionError !== null && (
        <p className="src-error" role="alert">
          {actionError}
        </p>
      )}
      {report !== null && (
        <div className="status" data-testid="import-report">
          <p>
            {report.replaced ? "Replaced" : "Imported"} <strong>{report.set.name}</strong> (tool id{" "}
            <code>{report.set.id}</code>): {report.set.definitions} definitions
            {report.repeats_merged > 0 && `, ${String(report.repeats_merged)} identical repeats merged`}
            {report.mocks_dropped.length > 0 && `; mocks dropped: ${report.mocks_dropped.join(", ")}`}.
          </p>
          {report.findings.length > 0 && <FindingList findings={report.findings} />}
        </div>
      )}
      <ul className="src-file-list" aria-label="Imported sets" data-testid="imported-sets">
        {sets.map((set) => (
          <li key={set.id} className="src-set">
            <button
              type="button"
              className="src-file"
              aria-current={imported.openName === set.name ? "true" : undefined}
              aria-expanded={imported.openName === set.name}
              data-testid="imported-set"
              data-set={set.name}
              onClick={() => {
                imported.setOpenName(imported.openName === set.name ? null : set.name);
              }}
            >
              <strong>{set.name}</strong>
              <span className="muted src-file-tool">
                tool {set.id} · {set.definitions} definitions · {set.mocked} mocked · from {set.origin}
              </span>
            </button>
            <button
              type="button"
              className="button src-small"
              onClick={() => {
                setImporting(set.name);
              }}
            >
              Re-import
            </button>
            <button
              type="button"
              className="button src-small"
              onClick={() => {
                setConfirmRemove(set.name);
              }}
            >
              Remove
            </button>
          </li>
        ))}
        {sets.length === 0 && imported.sets !== null && <li className="muted">No imported sets yet.</li>}
      </ul>
      {imported.openError !== null && (
        <p className="src-error" role="alert">
          {imported.openError}
        </p>
      )}
      {open !== null && (
        <div className="src-set-detail" data-testid="imported-detail">
          {open.definitions.map((definition) => (
            <details key={definition.name} className="src-definition" data-testid="imported-definition">
              <summary>
                <code>{definition.name}</code>
                {open.mocks?.[definition.name] !== undefined ? " · mocked" : " · no mock"}
                <span className="muted"> {definition.description}</span>
              </summary>
              <pre className="src-schema">{JSON.stringify(definition.parameters, null, 2)}</pre>
              <MockEditor
                key={`${open.imported_at}-${definition.name}`}
                definition={definition.name}
                mock={open.mocks?.[definition.name] ?? null}
                onSave={(mock) => imported.saveMock(definition.name, mock)}
              />
            </details>
          ))}
        </div>
      )}
      {importing !== null && (
        <ImportDialog
          name={importing}
          onImported={(next) => {
            setReport(next);
            setImporting(null);
            imported.setOpenName(next.set.name);
            imported.reload();
          }}
          onCancel={() => {
            setImporting(null);
          }}
        />
      )}
      {confirmRemove !== null && (
        <Dialog
          title={
            <>
              Remove <code>{confirmRemove}</code>?
            </>
          }
          confirmLabel="Remove"
          onConfirm={() => void remove(confirmRemove)}
          onCancel={() => {
            setConfirmRemove(null);
          }}
          testId="imported-remove-dialog"
        >
          <p>The set, its definitions and its mocks are deleted, and its tool is unregistered.</p>
        </Dialog>
      )}
    </section>
  );
}
