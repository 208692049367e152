/**
 * "Add directory": a path typed or pasted (Enter submits). The text stays when adding fails,
 * with the backend's reason below it, and clears once the directory is added.
 */
import { useId, useState, type SyntheticEvent } from "react";

import { errorMessage } from "../../lib/ipc";

export function WasmDirectoryForm({ onAdd }: { onAdd: (path: string) => Promise<void> }) {
  const id = useId();
  const [path, setPath] = useState("");
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const trimmed = path.trim();
    if (adding) return;
    if (trimmed === "") {
      setError("Type the path of a tool directory (or of a folder of tool directories).");
      return;
    }
    setAdding(true);
    try {
      await onAdd(trimmed);
      setPath("");
      setError(null);
    } catch (reason: unknown) {
      setError(`Could not add it: ${errorMessage(reason)}`);
    } finally {
      setAdding(false);
    }
  };

  return (
    <form className="src-new-file src-wasm-form" onSubmit={(event) => void submit(event)} noValidate>
      <label htmlFor={`${id}-path`}>Tool directory</label>
      <div className="src-new-file-row">
        <input
          id={`${id}-path`}
          className="src-input src-mono"
          placeholder="/home/me/wasm-tools/textkit"
          value={path}
          spellCheck={false}
          autoComplete="off"
          data-testid="wasm-directory-input"
          aria-invalid={error !== null ? true : undefined}
          aria-describedby={error !== null ? `${id}-error` : undefined}
          onChange={(event) => {
            setPath(event.target.value);
          }}
        />
        <button type="submit" className="button src-small src-nowrap" disabled={adding} data-testid="wasm-add">
          {adding ? "Adding…" : "Add directory"}
        </button>
      </div>
      {error !== null && (
        <p id={`${id}-error`} className="src-error" role="alert" data-testid="wasm-add-error">
          {error}
        </p>
      )}
    </form>
  );
}
