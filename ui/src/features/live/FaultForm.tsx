/**
 * The form that sets one tool's fault: the tool (from the last listing), what happens to its
 * calls, and that kind's fields. An imported mock is chosen from the app's imported sets that
 * have mocks, the definition of the tool's own name first.
 */
import { useEffect, useId, useState, type SyntheticEvent } from "react";

import { errorMessage, ipc, type FaultChange } from "../../lib/ipc";
import { changeOf, EMPTY_FIELDS, ERROR_KINDS, type FaultFields, type FaultKind } from "./faultModel";

interface Props {
  tools: readonly string[];
  onSet: (tool: string, change: FaultChange) => Promise<boolean>;
}

/** The app's imported sets, each with the definitions it has mocks for. */
function useMockedSets(wanted: boolean) {
  const [sets, setSets] = useState<{ name: string; mocked: string[] }[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!wanted || sets !== null) return;
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
  }, [wanted, sets]);
  return { sets, problem };
}

export function FaultForm({ tools, onSet }: Props) {
  const id = useId();
  const [tool, setTool] = useState(tools[0] ?? "");
  const [fields, setFields] = useState<FaultFields>(EMPTY_FIELDS);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { sets, problem: setsProblem } = useMockedSets(fields.kind === "imported");
  const update = (patch: Partial<FaultFields>) => {
    setFields((previous) => ({ ...previous, ...patch }));
  };
  const chosenSet = sets?.find((s) => s.name === fields.set);

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (tool.trim() === "") {
      setProblem("Name the tool the fault is for.");
      return;
    }
    const asked = changeOf(fields);
    if ("problem" in asked) {
      setProblem(asked.problem);
      return;
    }
    setProblem(null);
    setBusy(true);
    void onSet(tool.trim(), asked.change).finally(() => {
      setBusy(false);
    });
  };

  return (
    <form className="lv-fault-form" onSubmit={submit} aria-label="Set a fault" data-testid="fault-form">
      <label>
        Tool{" "}
        <input
          list={`${id}-tools`}
          value={tool}
          onChange={(e) => {
            setTool(e.target.value);
          }}
          data-testid="fault-tool"
        />
        <datalist id={`${id}-tools`}>
          {tools.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </label>{" "}
      <label>
        Its calls are{" "}
        <select
          value={fields.kind}
          onChange={(e) => {
            update({ kind: e.target.value as FaultKind });
          }}
          data-testid="fault-kind"
        >
          <option value="delay">delayed</option>
          <option value="error">answered with an error</option>
          <option value="mock">answered with a mock result</option>
          <option value="imported">answered by an imported tool&apos;s mock</option>
        </select>
      </label>{" "}
      {fields.kind === "delay" && (
        <label>
          by{" "}
          <input type="number" min={0} value={fields.delayMs} onChange={(e) => { update({ delayMs: e.target.value }); }} data-testid="fault-delay" /> ms
        </label>
      )}
      {fields.kind === "error" && (
        <>
          <select value={fields.errorKind} onChange={(e) => { update({ errorKind: e.target.value as FaultFields["errorKind"] }); }} aria-label="Error kind" data-testid="fault-error-kind">
            {ERROR_KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>{" "}
          <input placeholder="message (optional)" value={fields.message} onChange={(e) => { update({ message: e.target.value }); }} aria-label="Error message" />
        </>
      )}
      {fields.kind === "mock" && (
        <textarea rows={3} className="lv-fault-mock" value={fields.mock} onChange={(e) => { update({ mock: e.target.value }); }} aria-label="Mock result (a CallToolResult as JSON)" data-testid="fault-mock" />
      )}
      {fields.kind === "imported" && (
        <>
          {sets === null && setsProblem === null && <span className="muted lv-small">Reading the imported sets…</span>}
          {setsProblem !== null && <span className="lv-error-text">{setsProblem}</span>}
          {sets?.length === 0 && <span className="muted lv-small">No imported set has a mock yet: give one in Sources.</span>}
          {sets !== null && sets.length > 0 && (
            <>
              <select
                value={fields.set}
                onChange={(e) => {
                  const mocked = sets.find((s) => s.name === e.target.value)?.mocked ?? [];
                  update({ set: e.target.value, definition: mocked.includes(tool) ? tool : (mocked[0] ?? "") });
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
              <select value={fields.definition} onChange={(e) => { update({ definition: e.target.value }); }} aria-label="Mocked definition" data-testid="fault-definition">
                {(chosenSet?.mocked ?? []).map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </>
          )}
        </>
      )}{" "}
      <button type="submit" className="button button-small" disabled={busy} data-testid="fault-set-button">
        Set fault
      </button>
      {problem !== null && (
        <p className="lv-error-text" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
