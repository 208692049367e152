/**
 * HTTP tools: the definition files of the tools directory (with the tool each registered, or
 * "not loaded"), the problems the last reload found, and an editor for one file at a time.
 * Edits are kept per file until saved, so moving between files loses nothing.
 */
import { useState } from "react";

import { errorMessage } from "../../lib/ipc";
import { Dialog } from "./Dialog";
import { HttpEditor } from "./HttpEditor";
import { NewFileForm } from "./NewFileForm";
import { ProblemList } from "./ProblemList";
import { template } from "./templates";
import { useHttpTools } from "./useHttpTools";

type TextMap = ReadonlyMap<string, string>;

function withEntry(map: TextMap, key: string, value: string | null): Map<string, string> {
  const next = new Map(map);
  if (value === null) next.delete(key);
  else next.set(key, value);
  return next;
}

export function HttpToolsSection() {
  const http = useHttpTools();
  const { view } = http;
  const [selected, setSelected] = useState<string | null>(null);
  const [saved, setSaved] = useState<TextMap>(new Map());
  const [drafts, setDrafts] = useState<TextMap>(new Map());
  const [created, setCreated] = useState<readonly string[]>([]);
  const [readErrors, setReadErrors] = useState<TextMap>(new Map());
  const [saveErrors, setSaveErrors] = useState<TextMap>(new Map());
  const [saving, setSaving] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);

  const files = view?.files ?? [];
  const onDisk = files.map((file) => file.file_name);
  const pending = created.filter((name) => !onDisk.includes(name));

  const open = (fileName: string) => {
    setSelected(fileName);
    if (saved.has(fileName) || pending.includes(fileName)) return;
    http.read(fileName).then(
      (text) => {
        setSaved((previous) => withEntry(previous, fileName, text));
        setReadErrors((previous) => withEntry(previous, fileName, null));
      },
      (reason: unknown) => {
        setReadErrors((previous) => withEntry(previous, fileName, errorMessage(reason)));
      },
    );
  };

  const create = (fileName: string) => {
    setCreated((previous) => [...previous, fileName]);
    setDrafts((previous) => withEntry(previous, fileName, template(fileName)));
    setSelected(fileName);
  };

  const save = async (fileName: string) => {
    const text = drafts.get(fileName) ?? saved.get(fileName);
    if (text === undefined || saving !== null) return;
    setSaving(fileName);
    try {
      await http.save(fileName, text);
      setSaved((previous) => withEntry(previous, fileName, text));
      setDrafts((previous) => withEntry(previous, fileName, null));
      setSaveErrors((previous) => withEntry(previous, fileName, null));
      setCreated((previous) => previous.filter((name) => name !== fileName));
    } catch (reason: unknown) {
      setSaveErrors((previous) => withEntry(previous, fileName, errorMessage(reason)));
    } finally {
      setSaving(null);
    }
  };

  const forget = (fileName: string) => {
    setDrafts((previous) => withEntry(previous, fileName, null));
    setSaved((previous) => withEntry(previous, fileName, null));
    setSaveErrors((previous) => withEntry(previous, fileName, null));
    setCreated((previous) => previous.filter((name) => name !== fileName));
    if (selected === fileName) setSelected(null);
  };

  const remove = async (fileName: string) => {
    setConfirmDelete(null);
    if (pending.includes(fileName)) {
      forget(fileName);
      return;
    }
    try {
      await http.remove(fileName);
      forget(fileName);
    } catch (reason: unknown) {
      setSaveErrors((previous) => withEntry(previous, fileName, `could not delete: ${errorMessage(reason)}`));
    }
  };

  const problems = view?.problems ?? [];
  const isNew = selected !== null && pending.includes(selected);
  const text = selected === null ? null : (drafts.get(selected) ?? saved.get(selected) ?? null);

  return (
    <section className="src-section" aria-labelledby="src-http-title" data-testid="http-tools">
      <div className="src-section-head">
        <div>
          <h3 id="src-http-title">HTTP tools</h3>
          <p className="muted">
            One tool per .json or .toml file in{" "}
            <code className="src-directory" data-testid="http-directory">
              {view?.directory ?? "…"}
            </code>
            ; edits made elsewhere are picked up within a second.
          </p>
        </div>
      </div>
      {http.loadError !== null && (
        <div className="status status-error" role="alert">
          <p>Could not read the HTTP tools: {http.loadError}</p>
          <button type="button" className="button src-small" onClick={http.reload}>
            Try again
          </button>
        </div>
      )}
      <ProblemList
        problems={problems.map((problem) => ({ ...problem, file: problem.file_name }))}
        label="Problems in definition files"
        testId="http-problems"
      />
      {view !== null && view.disabled.length > 0 && (
        <p className="muted">Disabled in their files: {view.disabled.join(", ")}</p>
      )}
      <div className="src-http-split">
        <div className="src-files">
          <ul className="src-file-list" aria-label="Definition files" data-testid="http-files">
            {[...onDisk, ...pending].map((fileName) => {
              const file = files.find((f) => f.file_name === fileName);
              const dirty = drafts.has(fileName);
              return (
                <li key={fileName}>
                  <button
                    type="button"
                    className="src-file"
                    aria-current={selected === fileName ? "true" : undefined}
                    data-testid="http-file"
                    data-file={fileName}
                    onClick={() => {
                      open(fileName);
                    }}
                  >
                    <code>{fileName}</code>
                    <span className="muted src-file-tool">
                      {file === undefined ? "new" : file.tool_id !== null ? `tool ${file.tool_id}` : file.disabled ? "disabled" : "not loaded"}
                      {dirty ? " · edited" : ""}
                    </span>
                  </button>
                </li>
              );
            })}
            {onDisk.length + pending.length === 0 && view !== null && <li className="muted">No definition files yet.</li>}
          </ul>
          <NewFileForm existing={[...onDisk, ...pending]} onCreate={create} />
        </div>
        {selected === null ? (
          <p className="muted src-placeholder">Select a file to edit it, or create a new one.</p>
        ) : (
          <HttpEditor
            fileName={selected}
            text={text}
            readError={readErrors.get(selected) ?? null}
            dirty={drafts.has(selected) && drafts.get(selected) !== saved.get(selected)}
            isNew={isNew}
            saving={saving === selected}
            saveError={saveErrors.get(selected) ?? null}
            problems={problems.filter((problem) => problem.file_name === selected)}
            onChange={(next) => {
              setDrafts((previous) => withEntry(previous, selected, next));
            }}
            onSave={() => void save(selected)}
            onDelete={() => {
              if (isNew) forget(selected);
              else setConfirmDelete(selected);
            }}
          />
        )}
      </div>
      {confirmDelete !== null && (
        <Dialog
          title={
            <>
              Delete <code>{confirmDelete}</code>?
            </>
          }
          confirmLabel="Delete"
          onConfirm={() => void remove(confirmDelete)}
          onCancel={() => {
            setConfirmDelete(null);
          }}
          testId="delete-dialog"
        >
          <p>The file is removed from the tools directory and its tool is unregistered.</p>
        </Dialog>
      )}
    </section>
  );
}
