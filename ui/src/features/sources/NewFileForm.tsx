/** "New file": a name ending in .json or .toml; the file starts from a small valid example. */
import { useId, useState, type SyntheticEvent } from "react";

import { checkFileName } from "./templates";

export function NewFileForm({ existing, onCreate }: { existing: readonly string[]; onCreate: (fileName: string) => void }) {
  const id = useId();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const problem = checkFileName(name, existing);
    setError(problem);
    if (problem !== null) return;
    onCreate(name.trim());
    setName("");
  };

  return (
    <form className="src-new-file" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-name`}>New file</label>
      <div className="src-new-file-row">
        <input
          id={`${id}-name`}
          className="src-input src-mono"
          placeholder="weather.toml"
          value={name}
          spellCheck={false}
          data-testid="http-new-name"
          aria-invalid={error !== null ? true : undefined}
          aria-describedby={error !== null ? `${id}-error` : undefined}
          onChange={(event) => {
            setName(event.target.value);
            if (error !== null) setError(checkFileName(event.target.value, existing));
          }}
        />
        <button type="submit" className="button src-small" data-testid="http-new">
          Create
        </button>
      </div>
      {error !== null && (
        <p id={`${id}-error`} className="src-error" data-testid="http-new-error">
          {error}
        </p>
      )}
    </form>
  );
}
