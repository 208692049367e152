/**
 * The form that sets one tool's fault: the tool (from the last listing), what happens to its
 * calls, and that kind's fields (FaultKindFields.tsx); what is wrong is said before anything
 * is sent.
 */
import { useId, useState, type SyntheticEvent } from "react";

import type { FaultChange } from "../../lib/ipc";
import { FaultKindFields } from "./FaultKindFields";
import { changeOf, EMPTY_FIELDS, type FaultFields, type FaultKind } from "./faultModel";

interface Props {
  tools: readonly string[];
  onSet: (tool: string, change: FaultChange) => Promise<boolean>;
}

export function FaultForm({ tools, onSet }: Props) {
  const id = useId();
  const [tool, setTool] = useState(tools[0] ?? "");
  const [fields, setFields] = useState<FaultFields>(EMPTY_FIELDS);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const update = (patch: Partial<FaultFields>) => {
    setFields((previous) => ({ ...previous, ...patch }));
  };

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
      <FaultKindFields fields={fields} tool={tool} update={update} />{" "}
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
