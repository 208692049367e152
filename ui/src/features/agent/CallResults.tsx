/** The calls of one turn: native calls with their streamed arguments, calls the parser found, diagnostics, decisions, results. */
import { formatDuration } from "../../lib/format";
import type { ParsedToolRequest } from "../../lib/ipc";
import { prettyText } from "../parser/format";
import type { CallOutcome, DecisionEntry, NativeCall, StreamBlock } from "./conversationModel";
import { decisionText } from "./describe";

export function NativeCalls({ calls }: { calls: readonly NativeCall[] }) {
  if (calls.length === 0) return null;
  return (
    <ol className="ag-calls" aria-label="Native calls">
      {calls.map((call) => (
        <li key={call.index} className="ag-call" data-testid="agent-native-call">
          <div className="ag-call-head">
            <code className="ag-call-name">{call.name}</code>
            <span className="muted ag-small">{call.id}</span>
          </div>
          <pre className="ag-code">{call.arguments === "" ? "…" : prettyText(call.arguments)}</pre>
        </li>
      ))}
    </ol>
  );
}

/** Calls from the parse (or, while streaming, the blocks found so far). */
export function ParsedCalls({ requests, blocks }: { requests: readonly ParsedToolRequest[] | null; blocks: readonly StreamBlock[] }) {
  const open = requests === null ? blocks.filter((b) => b.requests.length === 0) : [];
  const calls = requests ?? blocks.flatMap((b) => b.requests);
  if (calls.length === 0 && open.length === 0) return null;
  return (
    <ol className="ag-calls" aria-label="Parsed calls">
      {calls.map((request, index) => (
        <li key={`${request.request_id}-${String(index)}`} className="ag-call" data-testid="agent-parsed-call">
          <div className="ag-call-head">
            <code className="ag-call-name">{request.tool_name}</code>
            <span className="muted ag-small">{request.request_id}</span>
            {request.incomplete === true && <span className="badge ag-badge-warn">cut off</span>}
          </div>
          <pre className="ag-code">{JSON.stringify(request.args, null, 2)}</pre>
        </li>
      ))}
      {open.map((block) => (
        <li key={`open-${String(block.block)}`} className="ag-call ag-call-open" data-testid="agent-open-block">
          <span className="muted">Call block {block.block + 1} arriving…</span>
        </li>
      ))}
    </ol>
  );
}

export function Decisions({ decisions }: { decisions: readonly DecisionEntry[] }) {
  if (decisions.length === 0) return null;
  return (
    <ul className="ag-decisions" aria-label="Your decisions">
      {decisions.map((d, index) => (
        <li key={index} data-testid="agent-decision">
          <code>{d.toolName}</code>: {decisionText(d.decision)}
        </li>
      ))}
    </ul>
  );
}

export function Results({ results }: { results: readonly CallOutcome[] }) {
  if (results.length === 0) return null;
  return (
    <ol className="ag-results" aria-label="Call results">
      {results.map(({ result, suggestion }, index) => {
        const failed = result.status === "error";
        return (
          <li key={`${result.request_id}-${String(index)}`} className={`ag-result${failed ? " ag-result-error" : ""}`} data-testid="agent-result">
            <div className="ag-call-head">
              <code className="ag-call-name">{result.tool_name}</code>
              <span className={`badge ${failed ? "ag-badge-error" : "badge-ok"}`}>{failed ? (result.error?.kind ?? "error") : "success"}</span>
              {result.duration_ms !== null && <span className="muted ag-small">{formatDuration(result.duration_ms)}</span>}
              {result.truncated && <span className="badge ag-badge-warn">output cut</span>}
            </div>
            {failed && result.error && <p className="ag-error-text">{result.error.message}</p>}
            {suggestion !== null && (
              <p className="ag-suggestion" data-testid="agent-suggestion">
                Suggestion sent to the model: {suggestion}
              </p>
            )}
            {!(failed && result.error?.message === result.result) && <pre className="ag-code">{prettyText(result.result)}</pre>}
          </li>
        );
      })}
    </ol>
  );
}
