/**
 * Importing tool definitions: a name, and the JSON pasted or read from a file (an OpenAI,
 * Anthropic or Gemini tools array or request body, an MCP tools/list result, BFCL JSON Lines).
 * A refused import keeps the dialog open with every problem and its path; nothing is lost.
 */
import { useId, useState } from "react";

import { errorMessage, IpcError, ipc, type Finding, type SetImportReport } from "../../lib/ipc";
import { Dialog } from "./Dialog";
import { FindingList } from "./FindingList";

interface Props {
  /** Pre-filled name (re-import of an existing set). */
  name: string;
  onImported: (report: SetImportReport) => void;
  onCancel: () => void;
}

function isFindingList(value: unknown): value is Finding[] {
  return Array.isArray(value) && value.every((f) => typeof f === "object" && f !== null && "path" in f && "message" in f);
}

export function ImportDialog({ name: initialName, onImported, onCancel }: Props) {
  const id = useId();
  const [name, setName] = useState(initialName);
  const [text, setText] = useState("");
  const [origin, setOrigin] = useState("pasted");
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<{ message: string; findings: Finding[] } | null>(null);

  const submit = async () => {
    if (pending) return;
    if (name.trim() === "" || text.trim() === "") {
      setFailure({ message: "Give the set a name and paste or choose the definitions.", findings: [] });
      return;
    }
    setPending(true);
    try {
      onImported(await ipc.importedImport(name.trim(), text, origin));
    } catch (reason: unknown) {
      const findings = reason instanceof IpcError && isFindingList(reason.details) ? reason.details : [];
      setFailure({ message: errorMessage(reason), findings });
    } finally {
      setPending(false);
    }
  };

  return (
    <Dialog
      title="Import tool definitions"
      confirmLabel={pending ? "Importing…" : "Import"}
      onConfirm={() => void submit()}
      onCancel={onCancel}
      testId="import-dialog"
      initialFocus={initialName === "" ? '[data-testid="import-name"]' : '[data-testid="import-text"]'}
    >
      <div className="src-import-form">
        <label htmlFor={`${id}-name`}>Set name (its tool id is made from it)</label>
        <input
          className="src-input"
          id={`${id}-name`}
          value={name}
          data-testid="import-name"
          onChange={(event) => {
            setName(event.target.value);
          }}
        />
        <label htmlFor={`${id}-file`}>From a file</label>
        <input
          className="src-input"
          id={`${id}-file`}
          type="file"
          accept=".json,.jsonl,application/json"
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file === undefined) return;
            file.text().then(
              (content) => {
                setText(content);
                setOrigin(file.name);
              },
              (reason: unknown) => {
                setFailure({ message: `could not read ${file.name}: ${errorMessage(reason)}`, findings: [] });
              },
            );
          }}
        />
        <label htmlFor={`${id}-text`}>
          Or paste: a tools array or request body (OpenAI, Anthropic, Gemini), an MCP tools/list result, BFCL JSON Lines
        </label>
        <textarea
          className="src-input src-mono"
          id={`${id}-text`}
          rows={10}
          spellCheck={false}
          value={text}
          data-testid="import-text"
          onChange={(event) => {
            setText(event.target.value);
            setOrigin("pasted");
          }}
        />
        {failure !== null && (
          <div className="status status-error" role="alert" data-testid="import-error">
            <p>{failure.message}</p>
            {failure.findings.length > 0 && <FindingList findings={failure.findings} />}
          </div>
        )}
      </div>
    </Dialog>
  );
}
