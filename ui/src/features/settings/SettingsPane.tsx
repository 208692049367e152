/**
 * The Settings view: every ToolCallConfig field (execution mode, confirmation, timeout, output
 * cap, call caps, the seed's auto / manual mode, ...) with its value, what it does and a reset to
 * its default. Saved together with one button (or Enter); the backend checks every field and
 * either stores and applies all of them or none, naming each field it refused.
 */
import type { SyntheticEvent } from "react";

import type { PaneProps } from "../../shell/lazyPane";
import { SettingField } from "./SettingField";
import { GROUPS, isChanged } from "./settingsFields";
import { useConfigForm, type ConfigFormState } from "./useConfigForm";
import "./settings.css";

function Actions({ state }: { state: ConfigFormState }) {
  const { changed, saving, saved, discard } = state;
  const fieldErrors = Object.keys(state.fieldErrors).length;
  return (
    <div className="settings-actions">
      <button type="submit" className="button settings-save" disabled={changed === 0 || saving} data-testid="settings-save">
        {saving ? "Saving…" : changed > 1 ? `Save ${String(changed)} changes` : "Save"}
      </button>
      <button type="button" className="button" disabled={changed === 0 || saving} onClick={discard} data-testid="settings-discard">
        Discard changes
      </button>
      <span className="muted" role="status" data-testid="settings-status">
        {fieldErrors > 0
          ? `Not saved: ${String(fieldErrors)} field${fieldErrors === 1 ? "" : "s"} to fix.`
          : saved && changed === 0
            ? "Saved. The next run uses these settings."
            : changed > 0
              ? `${String(changed)} unsaved change${changed === 1 ? "" : "s"}.`
              : ""}
      </span>
    </div>
  );
}

function Form({ state }: { state: ConfigFormState }) {
  const { form, draft, stored, defaults, fieldErrors, setField, resetField } = state;
  if (!form) return null;
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    void state.save();
  };
  return (
    <form className="settings-form" onSubmit={submit} aria-label="Tool-call settings" noValidate>
      {GROUPS.map((group) => (
        <fieldset key={group.title} className="settings-group">
          <legend>{group.title}</legend>
          {group.fields.map((spec) => (
            <SettingField
              key={spec.key}
              spec={spec}
              value={draft[spec.key]}
              defaultValue={defaults[spec.key]}
              changed={isChanged(spec.key, draft, stored)}
              error={fieldErrors[spec.key]}
              limit={form.limits.find((l) => l.field === spec.key)}
              protocols={form.protocols}
              onChange={(value) => {
                setField(spec.key, value);
              }}
              onReset={() => {
                resetField(spec.key);
              }}
            />
          ))}
        </fieldset>
      ))}
      <Actions state={state} />
    </form>
  );
}

export function SettingsPane(_props: PaneProps) {
  const state = useConfigForm();
  const { form, loadError, saveError, reload } = state;
  const otherErrors = Object.entries(state.fieldErrors).filter(([field]) => !GROUPS.some((g) => g.fields.some((f) => f.key === field)));
  return (
    <section className="pane settings-pane" aria-labelledby="settings-title" data-testid="settings-pane">
      <div className="pane-head">
        <div>
          <h2 id="settings-title">Settings</h2>
          <p className="muted">
            How tools are offered and run. Stored in {form ? <code>{form.path}</code> : "the app's settings file"}; the same fields
            as <code>--config</code> of the CLI.
          </p>
        </div>
      </div>
      {loadError && (
        <div className="status status-error" role="alert" data-testid="settings-load-error">
          <p>
            <strong>The settings could not be read.</strong> <code className="kind">{loadError.kind}</code>
          </p>
          <p>{loadError.message}</p>
          <button type="button" className="button button-small" onClick={reload}>
            Try again
          </button>
        </div>
      )}
      {saveError && (
        <div className="status status-error" role="alert" data-testid="settings-save-error">
          <p>
            <strong>Nothing was saved.</strong> <code className="kind">{saveError.kind}</code>
          </p>
          <p>{saveError.message}</p>
        </div>
      )}
      {otherErrors.length > 0 && (
        <div className="status status-error" role="alert">
          {otherErrors.map(([field, message]) => (
            <p key={field}>
              <code>{field}</code> {message}
            </p>
          ))}
        </div>
      )}
      {!form && !loadError && <p className="muted">Loading the settings…</p>}
      <Form state={state} />
    </section>
  );
}
