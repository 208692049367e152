/**
 * Add or edit an MCP server. Problems are shown next to their field once the user tries to
 * save (and then follow the typing); a backend error is shown above the buttons and nothing
 * typed is lost.
 */
import { useId, useState, type SyntheticEvent, type ReactNode } from "react";

import { errorMessage, type McpServerConfig } from "../../lib/ipc";
import { toConfig, type FieldErrors, type FieldName, type ServerFields, type TransportType } from "./serverForm";

interface Props {
  initial: ServerFields;
  /** The server being edited; null when adding. */
  editing: string | null;
  takenNames: readonly string[];
  onSave: (config: McpServerConfig, previousName: string | null) => Promise<unknown>;
  onClose: () => void;
}

export function ServerForm({ initial, editing, takenNames, onSave, onClose }: Props) {
  const id = useId();
  const [fields, setFields] = useState(initial);
  const [tried, setTried] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const others = takenNames.filter((name) => name !== editing);
  const checked = toConfig(fields, others);
  const errors: FieldErrors = tried && !checked.ok ? checked.errors : {};

  const set = <K extends keyof ServerFields>(key: K, value: ServerFields[K]) => {
    setFields((previous) => ({ ...previous, [key]: value }));
  };

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setTried(true);
    if (!checked.ok || saving) return;
    setSaving(true);
    setSaveError(null);
    try {
      await onSave(checked.config, editing);
      onClose();
    } catch (reason: unknown) {
      setSaveError(errorMessage(reason));
    } finally {
      setSaving(false);
    }
  };

  const text = (name: FieldName, label: string, props: { placeholder?: string; hint?: ReactNode; rows?: number } = {}) => {
    const fieldId = `${id}-${name}`;
    const error = errors[name];
    const described = [error ? `${fieldId}-error` : null, props.hint ? `${fieldId}-hint` : null].filter(Boolean).join(" ");
    const common = {
      id: fieldId,
      value: fields[name],
      placeholder: props.placeholder,
      "aria-invalid": error ? true : undefined,
      "aria-describedby": described || undefined,
      "data-testid": `server-form-${name}`,
      spellCheck: false,
    };
    return (
      <div className="src-field">
        <label htmlFor={fieldId}>{label}</label>
        {props.rows ? (
          <textarea
            {...common}
            rows={props.rows}
            className="src-input src-mono"
            onChange={(event) => {
              set(name, event.target.value);
            }}
          />
        ) : (
          <input
            {...common}
            className={name === "name" ? "src-input" : "src-input src-mono"}
            onChange={(event) => {
              set(name, event.target.value);
            }}
          />
        )}
        {props.hint && (
          <p id={`${fieldId}-hint`} className="muted src-hint">
            {props.hint}
          </p>
        )}
        {error && (
          <p id={`${fieldId}-error`} className="src-error" data-testid={`server-form-${name}-error`}>
            {error}
          </p>
        )}
      </div>
    );
  };

  return (
    <form className="src-form" onSubmit={(event) => void submit(event)} noValidate data-testid="server-form" aria-label={editing ? `Edit ${editing}` : "Add an MCP server"}>
      <h4>{editing ? <>Edit {editing}</> : "Add an MCP server"}</h4>
      {text("name", "Name", { placeholder: "e.g. filesystem", hint: "Its methods are routed as name_tool." })}
      <fieldset className="src-type">
        <legend>Transport</legend>
        {(["stdio", "http"] as const satisfies readonly TransportType[]).map((type) => (
          <label key={type}>
            <input
              type="radio"
              name={`${id}-type`}
              value={type}
              checked={fields.type === type}
              data-testid={`server-form-type-${type}`}
              onChange={() => {
                set("type", type);
              }}
            />{" "}
            {type === "stdio" ? "Command (stdio)" : "URL (streamable HTTP)"}
          </label>
        ))}
      </fieldset>
      {fields.type === "stdio" ? (
        <>
          {text("command", "Command", { placeholder: "npx" })}
          {text("args", "Arguments, one per line", { rows: 3, placeholder: "-y\n@modelcontextprotocol/server-filesystem" })}
          {text("env", "Environment, KEY=VALUE lines", { rows: 2, hint: "${VAR} takes a value from the app's environment." })}
          {text("cwd", "Working directory (optional)")}
        </>
      ) : (
        <>
          {text("url", "URL", { placeholder: "https://example.com/mcp" })}
          {text("headers", "Headers, Name: value lines", { rows: 2, placeholder: "Authorization: Bearer ${TOKEN}" })}
        </>
      )}
      <label className="src-check">
        <input
          type="checkbox"
          checked={fields.enabled}
          onChange={(event) => {
            set("enabled", event.target.checked);
          }}
        />{" "}
        Enabled
      </label>
      {saveError !== null && (
        <p className="src-error src-save-error" role="alert" data-testid="server-form-error">
          {saveError}
        </p>
      )}
      <div className="src-form-buttons">
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="button src-primary" disabled={saving} data-testid="server-form-save">
          {saving ? "Saving…" : editing ? "Save" : "Add server"}
        </button>
      </div>
    </form>
  );
}
