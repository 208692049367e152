/**
 * "New conversation": the profile, the task, how tools are given (native, or prompted in a
 * format), the limits and the call mode, with the request options and the tool subset folded
 * away. Start (Ctrl+Enter) and Stop (Esc).
 */
import { useId } from "react";

import type { EndpointProfile } from "../../lib/ipc";
import { RequestOptionsFields } from "./RequestOptionsFields";
import type { DraftSettings } from "./settingsModel";
import { ToolSubset } from "./ToolSubset";
import type { Catalog } from "./useCatalog";

interface Props {
  draft: DraftSettings;
  onChange: (patch: Partial<DraftSettings>) => void;
  profiles: readonly EndpointProfile[];
  catalog: Catalog;
  running: boolean;
  notice: string | null;
  onStart: () => void;
  onStop: () => void;
}

export function NewConversation({ draft, onChange, profiles, catalog, running, notice, onStart, onStop }: Props) {
  const id = useId();
  return (
    <section className="ag-section ag-new" aria-labelledby={`${id}-title`}>
      <div className="ag-section-head">
        <h3 id={`${id}-title`}>New conversation</h3>
      </div>
      <div className="ag-grid">
        <label htmlFor={`${id}-profile`}>Endpoint</label>
        <select
          id={`${id}-profile`}
          className="ag-input"
          value={draft.profile}
          onChange={(e) => { onChange({ profile: e.target.value }); }}
          data-testid="agent-profile"
        >
          <option value="">{profiles.length === 0 ? "No profile yet" : "Choose a profile"}</option>
          {profiles.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name} ({p.model})
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-task`}>Task</label>
        <textarea
          id={`${id}-task`}
          className="ag-input ag-task"
          rows={3}
          value={draft.task}
          placeholder="What should the model do with the tools?"
          onChange={(e) => { onChange({ task: e.target.value }); }}
          data-testid="agent-task"
        />
        <label htmlFor={`${id}-tools`}>Tools</label>
        <div className="ag-inline">
          <select
            id={`${id}-tools`}
            className="ag-input"
            value={draft.toolMode}
            onChange={(e) => { onChange({ toolMode: e.target.value === "prompted" ? "prompted" : "native" }); }}
            data-testid="agent-tool-mode"
          >
            <option value="native">Native (the API's tools)</option>
            <option value="prompted">Prompted (in the system prompt)</option>
          </select>
          {draft.toolMode === "prompted" && (
            <>
              <label className="visually-hidden" htmlFor={`${id}-format`}>
                Format
              </label>
              <select
                id={`${id}-format`}
                className="ag-input"
                value={draft.format}
                onChange={(e) => { onChange({ format: e.target.value }); }}
                data-testid="agent-format"
              >
                <option value="">Choose a format</option>
                {catalog.protocols.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.label}
                  </option>
                ))}
              </select>
            </>
          )}
        </div>
        <span>Limits</span>
        <div className="ag-inline">
          <NumberField label="Max iterations" value={draft.maxIterations} testId="agent-max-iterations" onChange={(v) => { onChange({ maxIterations: v }); }} />
          <NumberField label="Max tool calls" value={draft.maxToolCalls} testId="agent-max-calls" onChange={(v) => { onChange({ maxToolCalls: v }); }} />
          <NumberField label="Token budget" value={draft.tokenBudget} placeholder="none" testId="agent-budget" onChange={(v) => { onChange({ tokenBudget: v }); }} />
        </div>
        <span id={`${id}-mode`}>Mode</span>
        <div className="ag-inline" role="radiogroup" aria-labelledby={`${id}-mode`}>
          <label>
            <input type="radio" name={`${id}-mode`} checked={draft.mode === "auto"} onChange={() => { onChange({ mode: "auto" }); }} /> Auto (asks before
            destructive calls)
          </label>
          <label>
            <input type="radio" name={`${id}-mode`} checked={draft.mode === "manual"} onChange={() => { onChange({ mode: "manual" }); }} data-testid="agent-mode-manual" />{" "}
            Manual (asks before every call)
          </label>
        </div>
      </div>
      <details className="ag-details">
        <summary>System prompt and request options</summary>
        <RequestOptionsFields draft={draft} onChange={onChange} />
      </details>
      <ToolSubset methods={catalog.methods} disabled={draft.disabledTools} onChange={(disabledTools) => { onChange({ disabledTools }); }} />
      {catalog.error !== null && <p className="ag-error">Tools unavailable: {catalog.error}</p>}
      <div className="ag-buttons">
        <button
          type="button"
          className="button ag-primary"
          onClick={onStart}
          disabled={running}
          aria-keyshortcuts="Control+Enter Meta+Enter"
          data-testid="agent-start"
        >
          Start <kbd>Ctrl+Enter</kbd>
        </button>
        {running && (
          <button type="button" className="button" onClick={onStop} aria-keyshortcuts="Escape" data-testid="agent-stop">
            Stop <kbd>Esc</kbd>
          </button>
        )}
      </div>
      {notice !== null && (
        <p className="ag-error" role="alert" data-testid="agent-notice">
          {notice}
        </p>
      )}
    </section>
  );
}

function NumberField(props: { label: string; value: string; placeholder?: string; testId: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <span className="ag-number">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        className="ag-input"
        inputMode="numeric"
        value={props.value}
        placeholder={props.placeholder}
        onChange={(e) => { props.onChange(e.target.value); }}
        data-testid={props.testId}
      />
    </span>
  );
}
