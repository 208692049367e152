/**
 * The range of the Metrics view: one-click presets, or "since" / "until" typed the way
 * `toolscope stats --since` takes them (applied with Enter or the Apply button), and a tool.
 */
import { useState, type SyntheticEvent } from "react";

import { PRESETS, type PresetId, type RangeChoice } from "./metricsModel";

export interface RangePickerProps {
  choice: RangeChoice;
  toolIds: readonly string[];
  /** The field the backend refused ("since" / "until"), to mark it. */
  invalidField: string | null;
  onChange: (choice: RangeChoice) => void;
}

export function RangePicker({ choice, toolIds, invalidField, onChange }: RangePickerProps) {
  const [since, setSince] = useState(choice.since);
  const [until, setUntil] = useState(choice.until);
  const custom = choice.preset === "custom";

  const pick = (preset: PresetId) => {
    onChange({ ...choice, preset });
  };
  const apply = (event: SyntheticEvent) => {
    event.preventDefault();
    onChange({ ...choice, preset: "custom", since, until });
  };
  // A tool filtered on stays a choice even when the range has no calls to it.
  const tools = choice.tool !== "" && !toolIds.includes(choice.tool) ? [choice.tool, ...toolIds] : toolIds;

  return (
    <div className="metrics-range">
      <div className="metrics-presets" role="group" aria-label="Time range">
        {PRESETS.map((preset) => (
          <button
            key={preset.id}
            type="button"
            className="button button-small metrics-preset"
            aria-pressed={choice.preset === preset.id}
            data-testid={`metrics-range-${preset.id}`}
            onClick={() => {
              pick(preset.id);
            }}
          >
            {preset.label}
          </button>
        ))}
      </div>
      <form className="metrics-custom" onSubmit={apply} aria-label="Custom range">
        <label>
          Since
          <input
            type="text"
            value={since}
            placeholder="2h, 7d, 2025-06-01"
            aria-invalid={custom && invalidField === "since"}
            data-testid="metrics-since"
            onChange={(event) => {
              setSince(event.target.value);
            }}
          />
        </label>
        <label>
          Until
          <input
            type="text"
            value={until}
            placeholder="now"
            aria-invalid={custom && invalidField === "until"}
            data-testid="metrics-until"
            onChange={(event) => {
              setUntil(event.target.value);
            }}
          />
        </label>
        <button type="submit" className="button button-small" aria-pressed={custom} data-testid="metrics-apply">
          Apply
        </button>
      </form>
      <label className="metrics-tool">
        Tool
        <select
          value={choice.tool}
          data-testid="metrics-tool-filter"
          onChange={(event) => {
            onChange({ ...choice, tool: event.target.value });
          }}
        >
          <option value="">Every tool</option>
          {tools.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
