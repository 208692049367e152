/**
 * One definition file's text in a monospace editor: Save (also Ctrl/Cmd+S) validates and
 * writes it through the backend; a refusal is shown here and the text stays as typed.
 */
import type { KeyboardEvent } from "react";

import type { HttpToolProblem } from "../../lib/ipc";

interface Props {
  fileName: string;
  text: string | null;
  readError: string | null;
  dirty: boolean;
  isNew: boolean;
  saving: boolean;
  saveError: string | null;
  problems: readonly HttpToolProblem[];
  onChange: (text: string) => void;
  onSave: () => void;
  onDelete: () => void;
}

export function HttpEditor(props: Props) {
  const { fileName, text, readError, dirty, isNew, saving, saveError, problems, onChange, onSave, onDelete } = props;

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "s") {
      event.preventDefault();
      onSave();
    }
  };

  return (
    <div className="src-editor" data-testid="http-editor">
      <div className="src-editor-head">
        <code className="src-editor-name">{fileName}</code>
        {isNew ? (
          <span className="badge src-badge-warn">new, not saved</span>
        ) : (
          dirty && <span className="badge src-badge-warn">unsaved changes</span>
        )}
        <span className="src-spacer" />
        <button
          type="button"
          className="button src-small src-primary"
          data-testid="http-save"
          disabled={text === null || saving || (!dirty && !isNew)}
          onClick={onSave}
        >
          {saving ? "Saving…" : "Save"} <kbd>Ctrl+S</kbd>
        </button>
        <button type="button" className="button src-small src-danger-link" data-testid="http-delete" onClick={onDelete}>
          {isNew ? "Discard" : "Delete"}
        </button>
      </div>
      {problems.length > 0 && (
        <ul className="src-problems" aria-label={`Problems in ${fileName}`}>
          {problems.map((problem, index) => (
            <li key={`${String(index)}-${problem.message}`}>
              {problem.field !== null && <code>{problem.field}</code>}
              {problem.field !== null && ": "}
              {problem.message}
            </li>
          ))}
        </ul>
      )}
      {saveError !== null && (
        <p className="src-error" role="alert" data-testid="http-save-error">
          Not saved: {saveError}
        </p>
      )}
      {readError !== null ? (
        <p className="src-error" role="alert">
          Could not read {fileName}: {readError}
        </p>
      ) : text === null ? (
        <p className="muted">Reading…</p>
      ) : (
        <textarea
          className="src-input src-mono src-code"
          aria-label={`Contents of ${fileName}`}
          data-testid="http-editor-text"
          spellCheck={false}
          value={text}
          onKeyDown={onKeyDown}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        />
      )}
    </div>
  );
}
