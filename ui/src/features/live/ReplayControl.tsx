/**
 * "Replay against the server" for an opened session (`proxy_session_replay`): the recorded
 * agent messages are sent again to the recorded command line or URL, and each answer is
 * compared with the recorded one. Running a command line is the person's call, so the first
 * click shows what will run and a second one runs it.
 */
import { useState } from "react";

import { errorMessage, ipc, type ProxyReplayReport } from "../../lib/ipc";

type State =
  | { state: "idle" }
  | { state: "confirming" }
  | { state: "running" }
  | { state: "done"; report: ProxyReplayReport }
  | { state: "failed"; message: string };

interface Props {
  name: string;
  sessionId: string;
  argv: readonly string[];
}

export function ReplayControl({ name, sessionId, argv }: Props) {
  const [state, setState] = useState<State>({ state: "idle" });
  const run = () => {
    setState({ state: "running" });
    ipc.proxySessionReplay(name, sessionId).then(
      (report) => {
        setState({ state: "done", report });
      },
      (reason: unknown) => {
        setState({ state: "failed", message: errorMessage(reason) });
      },
    );
  };
  return (
    <div className="lv-replay" data-testid="replay">
      {state.state === "confirming" ? (
        <p className="lv-replay-confirm">
          This runs <code>{argv.join(" ")}</code> again and sends it the agent&apos;s recorded messages.{" "}
          <button type="button" className="button button-small" onClick={run} data-testid="replay-run" autoFocus>
            Run it
          </button>{" "}
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              setState({ state: "idle" });
            }}
          >
            Cancel
          </button>
        </p>
      ) : (
        <button
          type="button"
          className="button button-small"
          disabled={state.state === "running"}
          onClick={() => {
            setState({ state: "confirming" });
          }}
          data-testid="replay-start"
        >
          {state.state === "running" ? "Replaying…" : "Replay against the server"}
        </button>
      )}
      {state.state === "failed" && (
        <p className="lv-error-text" role="alert">
          {state.message}
        </p>
      )}
      {state.state === "done" && <ReplayResult report={state.report} />}
    </div>
  );
}

function ReplayResult({ report }: { report: ProxyReplayReport }) {
  const changed = report.requests.filter((r) => r.verdict !== "same");
  return (
    <div data-testid="replay-result">
      <p className="lv-small">
        {report.requests.length} requests: {report.same} same, {report.different} different, {report.unanswered} unanswered{" "}
        <span className="muted">(recorded as {report.session_id})</span>
      </p>
      {changed.length > 0 && (
        <ul className="lv-replay-list">
          {changed.map((r) => (
            <li key={JSON.stringify(r.id)} data-testid="replay-changed">
              <code>{JSON.stringify(r.id)}</code> {r.method}
              {r.tool !== null && <code> {r.tool}</code>}: {r.verdict.replace("_", " ")}
              {r.paths.length > 0 && (
                <>
                  {" "}
                  at {r.paths.map((p) => <code key={p}>{p} </code>)}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
