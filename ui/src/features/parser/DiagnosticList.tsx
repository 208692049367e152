/** The parse's diagnostics: severity, code, message and line:column; clicking shows the span. */
import { memo } from "react";

import type { Diagnostic } from "../../lib/ipc";
import { formatCount, plural } from "./format";
import type { Selection } from "./selection";
import { usePagedList } from "./usePagedList";

interface Props {
  diagnostics: readonly Diagnostic[];
  /** Where the span of an id starts, as `line:column`. */
  locationOf: (id: string) => string | undefined;
  selection: Selection | null;
  onSelect: (id: string) => void;
}

export const DiagnosticList = memo(function DiagnosticList({ diagnostics, locationOf, selection, onSelect }: Props) {
  const { list, shown, rendered, showMore, selectedIndex } = usePagedList(diagnostics, selection, "d");
  if (diagnostics.length === 0) return null;
  return (
    <section className="parser-section" aria-labelledby="parser-diagnostics-title">
      <div className="parser-section-head">
        <h3 id="parser-diagnostics-title">Diagnostics</h3>
        <span className="muted">{plural(diagnostics.length, "diagnostic")}</span>
      </div>
      <ol ref={list} className="parser-list" aria-labelledby="parser-diagnostics-title">
        {diagnostics.slice(0, rendered).map((diagnostic, index) => (
          <DiagnosticItem
            key={index}
            index={index}
            diagnostic={diagnostic}
            location={locationOf(`d${String(index)}`)}
            selected={index === selectedIndex}
            onSelect={onSelect}
          />
        ))}
      </ol>
      {shown < diagnostics.length ? (
        <button type="button" className="button parser-more" onClick={showMore}>
          Show more diagnostics ({formatCount(diagnostics.length - shown)} more)
        </button>
      ) : null}
    </section>
  );
});

const DiagnosticItem = memo(function DiagnosticItem({
  index,
  diagnostic,
  location,
  selected,
  onSelect,
}: {
  index: number;
  diagnostic: Diagnostic;
  /** Where its span starts, as `line:column`. */
  location: string | undefined;
  selected: boolean;
  onSelect: (id: string) => void;
}) {
  const id = `d${String(index)}`;
  return (
    <li
      className={`parser-item parser-diagnostic parser-diagnostic-${diagnostic.severity}${selected ? " is-selected" : ""}`}
      data-testid="parser-diagnostic"
      data-item={id}
      data-severity={diagnostic.severity}
      data-code={diagnostic.code}
      tabIndex={-1}
    >
      <button
        type="button"
        className="parser-item-select parser-diagnostic-button"
        aria-pressed={selected}
        title="Show this diagnostic in the text"
        onClick={() => {
          onSelect(id);
        }}
      >
        <span className={`badge parser-severity parser-severity-${diagnostic.severity}`}>{diagnostic.severity}</span>
        <code className="parser-diagnostic-code">{diagnostic.code}</code>
        {location ? (
          <span className="parser-location" data-testid="parser-location" title="line:column">
            {location}
          </span>
        ) : null}
        <span className="parser-diagnostic-message">{diagnostic.message}</span>
      </button>
    </li>
  );
});
