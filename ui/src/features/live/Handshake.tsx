/** The `initialize` handshake: who talks to whom, in which protocol version. */
import type { Handshake as HandshakeModel } from "./sessionModel";

export function Handshake({ handshake }: { handshake: HandshakeModel | null }) {
  if (handshake === null) {
    return <p className="muted lv-small" data-testid="handshake-waiting">No handshake yet: the agent has not initialized the session.</p>;
  }
  const mismatch = handshake.requested !== null && handshake.protocol !== null && handshake.requested !== handshake.protocol;
  return (
    <dl className="lv-facts" data-testid="handshake">
      <dt>Client</dt>
      <dd>{handshake.client ?? <span className="muted">not named</span>}</dd>
      <dt>Server</dt>
      <dd>{handshake.server ?? <span className="muted">not named</span>}</dd>
      <dt>Protocol</dt>
      <dd>
        <code>{handshake.protocol ?? handshake.requested ?? "unknown"}</code>
        {mismatch && handshake.requested !== null && <span className="muted"> (the agent asked for {handshake.requested})</span>}
      </dd>
      {handshake.capabilities.length > 0 && (
        <>
          <dt>Capabilities</dt>
          <dd>{handshake.capabilities.join(", ")}</dd>
        </>
      )}
      {handshake.error !== null && (
        <>
          <dt>Error</dt>
          <dd className="lv-error-text">{handshake.error}</dd>
        </>
      )}
      {handshake.instructions !== null && (
        <>
          <dt>Instructions</dt>
          <dd>
            {/* A server's instructions can run to pages: folded to their first line. */}
            <details className="lv-instructions">
              <summary>{firstLine(handshake.instructions)}</summary>
              <div className="lv-pre-wrap">{handshake.instructions}</div>
            </details>
          </dd>
        </>
      )}
    </dl>
  );
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.replace(/^#+\s*/, "") || "(empty)";
}
