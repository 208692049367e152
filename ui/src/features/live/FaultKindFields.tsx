/**
 * The fields of one kind of fault in the fault form: a delay, an error's kind and message, a
 * mock result typed as JSON, or an imported tool's mock picked from the app's imported sets
 * that have mocks (the definition of the tool's own name first).
 */
import { useEffect, useState } from "react";

import { errorMessage, ipc } from "../../lib/ipc";
import { ERROR_KINDS, type FaultFields } from "./faultModel";

interface Props {
  fields: FaultFields;
  /** The tool the fault is for, to preselect its own definition in an imported set. */
  tool: string;
  update: (patch: Partial<FaultFields>) => void;
}

export function FaultKindFields({ fields, tool, update }: Props) {
  switch (fields.kind) {
    case "delay":
      return (
        <label>
          by{" "}
          <input
            type="number"
            min={0}
            value={fields.delayMs}
            onChange={(e) => {
              update({ delayMs: e.target.value });
            }}
            data-testid="fault-delay"
          />{" "}
          ms
        </label>
      );
    case "error":
      return (
        <>
          <select
            value={fields.errorKind}
            onChange={(e) => {
              update({ errorKind: e.target.value as FaultFields["errorKind"] });
            }}
            aria-label="Error kind"
            data-testid="fault-error-kind"
          >
            {ERROR_KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>{" "}
          <input
            placeholder="message (optional)"
            value={fields.message}
            onChange={(e) => {
              update({ message: e.target.value });
            }}
            aria-label="Error message"
          />
        </>
      );
    case "mock":
      return (
        <textarea
          rows={3}
          className="lv-fault-mock"
          value={fields.mock}
          onChange={(e) => {
            update({ mock: e.target.value });
          }}
          aria-label="Mock result (a CallToolResult as JSON)"
          data-testid="fault-mock"
        />
      );
    case "imported":
      return <ImportedMockPicker fields={fields} tool={tool} update={update} />;
  }
}

/** The app's imported sets, each with the definitions it has mocks for. */
function useMockedSets() {
  const [sets, setSets] = useState<{ name: string; mocked: string[] }[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    ipc
      .importedSets()
      .then((summaries) => Promise.all(summaries.filter((s) => s.mocked > 0).map((s) => ipc.importedSet(s.name))))
      .then(
        (found) => {
          if (current) setSets(found.map((set) => ({ name: set.name, mocked: Object.keys(set.mocks ?? {}) })));
        },
        (reason: unknown) => {
          if (current) setProblem(errorMessage(reason));
        },
      );
    return () => {
      current = false;
    };
  }, []);
  return { sets, problem };
}

function ImportedMockPicker({ fields, tool, update }: Props) {
  const { sets, problem } = useMockedSets();
  if (problem !== null) return <span className="lv-error-text">{problem}</span>;
  if (sets === null) return <span className="muted lv-small">Reading the imported sets…</span>;
  if (sets.length === 0) return <span className="muted lv-small">No imported set has a mock yet: give one in Sources.</span>;
  const mocked = sets.find((s) => s.name === fields.set)?.mocked ?? [];
  return (
    <>
      <select
        value={fields.set}
        onChange={(e) => {
          const chosen = sets.find((s) => s.name === e.target.value)?.mocked ?? [];
          update({ set: e.target.value, definition: chosen.includes(tool) ? tool : (chosen[0] ?? "") });
        }}
        aria-label="Imported set"
        data-testid="fault-set"
      >
        <option value="">choose a set</option>
        {sets.map((s) => (
          <option key={s.name} value={s.name}>
            {s.name}
          </option>
        ))}
      </select>{" "}
      <select
        value={fields.definition}
        onChange={(e) => {
          update({ definition: e.target.value });
        }}
        aria-label="Mocked definition"
        data-testid="fault-definition"
      >
        {mocked.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </>
  );
}
