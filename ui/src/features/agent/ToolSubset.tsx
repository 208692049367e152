/** Which of the enabled, agent-callable methods the model is offered (all by default). */
import { useId } from "react";

import type { OfferedMethod } from "./useCatalog";

interface Props {
  methods: readonly OfferedMethod[];
  disabled: readonly string[];
  onChange: (disabled: string[]) => void;
}

export function ToolSubset({ methods, disabled, onChange }: Props) {
  const id = useId();
  const off = new Set(disabled);
  const on = methods.filter((m) => !off.has(m.routingName)).length;
  return (
    <details className="ag-details" data-testid="agent-tool-subset">
      <summary>
        Tools offered: {on === methods.length ? `all ${String(methods.length)}` : `${String(on)} of ${String(methods.length)}`}
      </summary>
      {methods.length === 0 ? (
        <p className="muted">No agent-callable method is enabled.</p>
      ) : (
        <fieldset className="ag-tools" aria-describedby={`${id}-hint`}>
          <legend className="visually-hidden">Tools offered to the model</legend>
          <p id={`${id}-hint`} className="muted ag-small">
            Unchecked methods are not offered in this conversation.{" "}
            <button type="button" className="ag-link" onClick={() => { onChange([]); }}>
              All
            </button>
            <button type="button" className="ag-link" onClick={() => { onChange(methods.map((m) => m.routingName)); }}>
              None
            </button>
          </p>
          {methods.map((m) => (
            <label key={m.routingName} className="ag-tool" title={m.description}>
              <input
                type="checkbox"
                checked={!off.has(m.routingName)}
                onChange={(e) => {
                  onChange(e.target.checked ? disabled.filter((n) => n !== m.routingName) : [...disabled, m.routingName]);
                }}
              />{" "}
              <code>{m.routingName}</code> <span className="muted">{m.toolName}</span>
            </label>
          ))}
        </fieldset>
      )}
    </details>
  );
}
