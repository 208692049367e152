/** "Replay": each recorded reply read again by today's parser, and the turns read differently. */
import type { ParseReport } from "../../lib/ipc";
import type { ReplayState } from "./useConversations";

export function ReplayView({ replay }: { replay: ReplayState }) {
  if (replay.state === "loading") return <p className="muted" aria-live="polite">Reading the replies again…</p>;
  if (replay.state === "failed") {
    return (
      <p className="ag-error" role="alert">
        Replay failed: {replay.message}
      </p>
    );
  }
  const changed = replay.turns.filter((t) => t.changed).length;
  return (
    <section className="ag-replay" aria-label="Replay with today's parser" data-testid="agent-replay">
      <p aria-live="polite" data-testid="agent-replay-summary">
        {replay.turns.length === 0
          ? "No recorded reply to read again."
          : changed === 0
            ? `Today's parser reads all ${String(replay.turns.length)} replies the same way.`
            : `Today's parser reads ${String(changed)} of ${String(replay.turns.length)} replies differently.`}
      </p>
      <ol className="ag-replay-turns">
        {replay.turns.map((t) => (
          <li key={t.turn} className={`ag-replay-turn${t.changed ? " is-changed" : ""}`} data-testid="agent-replay-turn" data-changed={t.changed}>
            <strong>Turn {t.turn}</strong>: {t.changed ? <span className="badge ag-badge-warn">read differently</span> : <span className="badge badge-ok">same</span>}
            {t.changed && (
              <div className="ag-replay-compare">
                <Reading title="Then" report={t.recorded} />
                <Reading title="Now" report={t.today} />
              </div>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Reading({ title, report }: { title: string; report: ParseReport | null }) {
  return (
    <div className="ag-reading">
      <p className="muted ag-small">
        {title}
        {report ? ` (${report.format})` : ""}
      </p>
      {report === null ? (
        <p className="muted">not recorded</p>
      ) : (
        <ul>
          {report.requests.map((r, index) => (
            <li key={index}>
              <code>{r.tool_name}</code> <code className="ag-args-inline">{JSON.stringify(r.args)}</code>
              {r.incomplete === true && " (cut off)"}
            </li>
          ))}
          {report.requests.length === 0 && <li className="muted">no calls</li>}
          {report.diagnostics
            .filter((d) => d.severity === "error")
            .map((d, index) => (
              <li key={`d${String(index)}`} className="ag-error-text">
                {d.code}: {d.message}
              </li>
            ))}
        </ul>
      )}
    </div>
  );
}
