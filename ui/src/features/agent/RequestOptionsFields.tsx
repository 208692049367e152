/** The optional system prompt and request options (tool choice, parallel calls, temperature, max tokens). */
import { useId } from "react";

import type { ChoiceKind, DraftSettings } from "./settingsModel";

interface Props {
  draft: DraftSettings;
  onChange: (patch: Partial<DraftSettings>) => void;
}

const CHOICES: readonly { id: ChoiceKind; label: string }[] = [
  { id: "auto", label: "auto" },
  { id: "none", label: "none" },
  { id: "required", label: "required" },
  { id: "named", label: "named tool" },
];

export function RequestOptionsFields({ draft, onChange }: Props) {
  const id = useId();
  return (
    <div className="ag-grid">
      <label htmlFor={`${id}-system`}>System prompt</label>
      <textarea
        id={`${id}-system`}
        className="ag-input"
        rows={3}
        value={draft.systemPrompt}
        placeholder="Your own instructions, sent before the tool prompt (optional)"
        onChange={(e) => { onChange({ systemPrompt: e.target.value }); }}
        data-testid="agent-system-prompt"
      />
      <label htmlFor={`${id}-choice`}>Tool choice</label>
      <div className="ag-inline">
        <select
          id={`${id}-choice`}
          className="ag-input"
          value={draft.toolChoice}
          onChange={(e) => { onChange({ toolChoice: e.target.value as ChoiceKind }); }}
          data-testid="agent-tool-choice"
        >
          {CHOICES.map((c) => (
            <option key={c.id} value={c.id}>
              {c.label}
            </option>
          ))}
        </select>
        {draft.toolChoice === "named" && (
          <>
            <label className="visually-hidden" htmlFor={`${id}-named`}>
              Tool name
            </label>
            <input
              id={`${id}-named`}
              className="ag-input ag-mono"
              value={draft.toolChoiceName}
              placeholder="tool name"
              onChange={(e) => { onChange({ toolChoiceName: e.target.value }); }}
              data-testid="agent-tool-choice-name"
            />
          </>
        )}
      </div>
      <label htmlFor={`${id}-parallel`}>Parallel tool calls</label>
      <select
        id={`${id}-parallel`}
        className="ag-input"
        value={draft.parallel}
        onChange={(e) => { onChange({ parallel: e.target.value as DraftSettings["parallel"] }); }}
        data-testid="agent-parallel"
      >
        <option value="default">endpoint default</option>
        <option value="on">allowed</option>
        <option value="off">one at a time</option>
      </select>
      <label htmlFor={`${id}-temperature`}>Temperature</label>
      <input
        id={`${id}-temperature`}
        className="ag-input"
        inputMode="decimal"
        value={draft.temperature}
        placeholder="endpoint default"
        onChange={(e) => { onChange({ temperature: e.target.value }); }}
        data-testid="agent-temperature"
      />
      <label htmlFor={`${id}-max-tokens`}>Max tokens</label>
      <input
        id={`${id}-max-tokens`}
        className="ag-input"
        inputMode="numeric"
        value={draft.maxTokens}
        placeholder="endpoint default"
        onChange={(e) => { onChange({ maxTokens: e.target.value }); }}
        data-testid="agent-max-tokens"
      />
    </div>
  );
}
