/**
 * One setting: its label, its control, one line on what it does, the default and a reset to
 * it, and the backend's message when a save refused the value.
 */
import type { NumberLimit, Value } from "../../lib/ipc";
import { describeValue, type DraftValue, type FieldSpec } from "./settingsFields";

export interface SettingFieldProps {
  spec: FieldSpec;
  value: DraftValue | undefined;
  defaultValue: DraftValue | undefined;
  changed: boolean;
  error: string | undefined;
  limit: NumberLimit | undefined;
  protocols: readonly string[];
  onChange: (value: DraftValue) => void;
  onReset: () => void;
}

function Control({ spec, value, limit, protocols, onChange, describedBy }: SettingFieldProps & { describedBy: string }) {
  const id = `setting-${spec.key}`;
  const common = { id, "aria-describedby": describedBy, "data-testid": id };
  switch (spec.kind) {
    case "bool":
      return (
        <input
          {...common}
          type="checkbox"
          checked={value === true}
          onChange={(event) => {
            onChange(event.target.checked);
          }}
        />
      );
    case "number":
      return (
        <span className="setting-number">
          <input
            {...common}
            type="number"
            inputMode="numeric"
            min={limit?.min}
            max={limit?.max}
            step={1}
            value={typeof value === "string" || typeof value === "number" ? value : ""}
            onChange={(event) => {
              onChange(event.target.value);
            }}
          />
          <span className="muted">{spec.unit}</span>
        </span>
      );
    case "choice":
    case "protocol": {
      const choices = spec.kind === "choice" ? spec.choices : protocols.map((p) => ({ value: p, label: p }));
      const current = typeof value === "string" ? value : "";
      // A stored value the list does not know (a removed declared format) stays selectable.
      const all = choices.some((c) => c.value === current) ? choices : [{ value: current, label: `${current} (unknown)` }, ...choices];
      return (
        <select
          {...common}
          value={current}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        >
          {all.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      );
    }
    case "toggles":
      return <TogglesSummary id={id} describedBy={describedBy} value={value} />;
  }
}

function TogglesSummary({ id, describedBy, value }: { id: string; describedBy: string; value: Value | undefined }) {
  const entries = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
  const off = entries.filter(([, on]) => on === false).map(([tool]) => tool);
  const on = entries.filter(([, enabled]) => enabled === true).map(([tool]) => tool);
  return (
    <output id={id} aria-describedby={describedBy} data-testid={id} className="setting-toggles">
      {entries.length === 0
        ? "None: every tool follows “New tools on”."
        : [off.length > 0 ? `off: ${off.join(", ")}` : "", on.length > 0 ? `on: ${on.join(", ")}` : ""].filter(Boolean).join("; ")}
    </output>
  );
}

export function SettingField(props: SettingFieldProps) {
  const { spec, value, defaultValue, changed, error, onReset } = props;
  const helpId = `setting-${spec.key}-help`;
  const errorId = `setting-${spec.key}-error`;
  const atDefault = JSON.stringify(value) === JSON.stringify(defaultValue);
  return (
    <div className="setting" data-field={spec.key} data-changed={changed} data-invalid={error !== undefined}>
      <label className="setting-label" htmlFor={`setting-${spec.key}`}>
        {spec.label}
        {changed && <span className="setting-changed"> (changed)</span>}
      </label>
      <div className="setting-control">
        <Control {...props} describedBy={error === undefined ? helpId : `${errorId} ${helpId}`} />
        <button
          type="button"
          className="button button-small"
          disabled={atDefault}
          aria-label={`Reset ${spec.label} to its default`}
          data-testid={`setting-${spec.key}-reset`}
          onClick={onReset}
        >
          Reset
        </button>
      </div>
      {error !== undefined && (
        <p className="setting-error" id={errorId} role="alert" data-testid={errorId}>
          {error}
        </p>
      )}
      <p className="setting-help muted" id={helpId}>
        {spec.help} <span className="setting-default">Default: {describeValue(spec, defaultValue)}.</span>
      </p>
    </div>
  );
}
