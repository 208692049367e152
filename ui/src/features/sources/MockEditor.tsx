/**
 * How one imported definition answers when called: no mock ("no implementation" error), a fixed
 * JSON result, a template filled from the arguments, echo, or an error of a chosen kind, each
 * after an optional latency. JSON is checked here before it is sent; the app checks the rest.
 */
import { useId, useState } from "react";

import { errorMessage, type Mock, type MockErrorKind, type Value } from "../../lib/ipc";

type Kind = "none" | "fixed" | "template" | "echo" | "error";

const KINDS: { value: Kind; label: string }[] = [
  { value: "none", label: "No mock (calls fail: no implementation)" },
  { value: "fixed", label: "Fixed JSON result" },
  { value: "template", label: "Template filled from the arguments" },
  { value: "echo", label: "Echo the arguments" },
  { value: "error", label: "Fail with an error" },
];

interface Props {
  definition: string;
  mock: Mock | null;
  onSave: (mock: Mock | null) => Promise<void>;
}

function initialJson(mock: Mock | null): string {
  if (mock?.reply.type === "fixed") return JSON.stringify(mock.reply.value, null, 2);
  if (mock?.reply.type === "template") return JSON.stringify(mock.reply.template, null, 2);
  return '{\n  "ok": true\n}';
}

function parseJson(text: string): { value: Value } | { error: string } {
  try {
    return { value: JSON.parse(text) as Value };
  } catch (reason: unknown) {
    return { error: `not JSON: ${errorMessage(reason)}` };
  }
}

export function MockEditor({ definition, mock, onSave }: Props) {
  const id = useId();
  const [kind, setKind] = useState<Kind>(mock === null ? "none" : mock.reply.type);
  const [json, setJson] = useState(initialJson(mock));
  const [errorKind, setErrorKind] = useState<MockErrorKind>(mock?.reply.type === "error" ? mock.reply.kind : "tool_error");
  const [message, setMessage] = useState(mock?.reply.type === "error" ? mock.reply.message : "");
  const [latency, setLatency] = useState(String(mock?.latency_ms ?? 0));
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  const build = (): { mock: Mock | null } | { error: string } => {
    if (kind === "none") return { mock: null };
    const latencyMs = Number(latency);
    if (!Number.isInteger(latencyMs) || latencyMs < 0) return { error: "latency must be a whole number of milliseconds" };
    if (kind === "echo") return { mock: { reply: { type: "echo" }, latency_ms: latencyMs } };
    if (kind === "error") {
      if (message.trim() === "") return { error: "say what the tool would report" };
      return { mock: { reply: { type: "error", kind: errorKind, message }, latency_ms: latencyMs } };
    }
    const parsed = parseJson(json);
    if ("error" in parsed) return parsed;
    return kind === "fixed"
      ? { mock: { reply: { type: "fixed", value: parsed.value }, latency_ms: latencyMs } }
      : { mock: { reply: { type: "template", template: parsed.value }, latency_ms: latencyMs } };
  };

  const save = async () => {
    const built = build();
    if ("error" in built) {
      setProblem(built.error);
      return;
    }
    setSaving(true);
    setProblem(null);
    try {
      await onSave(built.mock);
      setSaved(true);
    } catch (reason: unknown) {
      setProblem(errorMessage(reason));
    } finally {
      setSaving(false);
    }
  };

  const touched = () => {
    setSaved(false);
  };

  return (
    <form
      className="src-mock"
      data-testid="mock-editor"
      data-definition={definition}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <label htmlFor={`${id}-kind`}>Mock result</label>
      <select
        className="src-input"
        id={`${id}-kind`}
        value={kind}
        data-testid="mock-kind"
        onChange={(event) => {
          setKind(event.target.value as Kind);
          touched();
        }}
      >
        {KINDS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {(kind === "fixed" || kind === "template") && (
        <>
          <label htmlFor={`${id}-json`}>
            {kind === "fixed" ? "Result (JSON)" : "Template (JSON; {{argument}} or {{a.b.0}} placeholders)"}
          </label>
          <textarea
            id={`${id}-json`}
            className="src-input src-mono"
            rows={5}
            spellCheck={false}
            value={json}
            data-testid="mock-json"
            onChange={(event) => {
              setJson(event.target.value);
              touched();
            }}
          />
        </>
      )}
      {kind === "error" && (
        <>
          <label htmlFor={`${id}-error-kind`}>Error kind</label>
          <select
            className="src-input"
            id={`${id}-error-kind`}
            value={errorKind}
            onChange={(event) => {
              setErrorKind(event.target.value as MockErrorKind);
              touched();
            }}
          >
            <option value="tool_error">tool_error: the tool reports a failure</option>
            <option value="transport">transport: the tool cannot be reached</option>
          </select>
          <label htmlFor={`${id}-message`}>Message</label>
          <input
            className="src-input"
            id={`${id}-message`}
            value={message}
            data-testid="mock-message"
            onChange={(event) => {
              setMessage(event.target.value);
              touched();
            }}
          />
        </>
      )}
      {kind !== "none" && (
        <>
          <label htmlFor={`${id}-latency`}>Latency (ms; above the timeout, a real timeout)</label>
          <input
            className="src-input"
            id={`${id}-latency`}
            type="number"
            min={0}
            value={latency}
            onChange={(event) => {
              setLatency(event.target.value);
              touched();
            }}
          />
        </>
      )}
      <div className="src-mock-actions">
        <button type="submit" className="button src-small" disabled={saving} data-testid="mock-save">
          {saving ? "Saving…" : "Save mock"}
        </button>
        {saved && problem === null && <span className="muted">Saved.</span>}
        {problem !== null && (
          <span className="src-error" role="alert">
            {problem}
          </span>
        )}
      </div>
    </form>
  );
}
