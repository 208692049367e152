/** Where a server stands, as a badge; a failure's reason follows it, wrapped, in full. */
import type { SourceStatus } from "../../lib/ipc";

function label(status: SourceStatus): string {
  switch (status.state) {
    case "disabled":
      return "disabled";
    case "awaiting_approval":
      return "awaiting approval";
    case "connecting":
      return "connecting…";
    case "ready":
      return `ready · ${String(status.tools)} ${status.tools === 1 ? "tool" : "tools"}`;
    case "sign_in_required":
      return "sign in required";
    case "signing_in":
      return "signing in…";
    case "failed":
      return "failed";
  }
}

const TONE: Record<SourceStatus["state"], string> = {
  disabled: "badge-muted",
  awaiting_approval: "src-badge-warn",
  connecting: "src-badge-info",
  ready: "badge-ok",
  sign_in_required: "src-badge-warn",
  signing_in: "src-badge-info",
  failed: "src-badge-danger",
};

export function StatusBadge({ status }: { status: SourceStatus }) {
  return (
    <span className="src-status">
      <span className={`badge ${TONE[status.state]}`} data-testid="server-status" data-state={status.state}>
        {label(status)}
      </span>
      {status.state === "ready" && status.server !== null && (
        <span className="muted src-server-info" data-testid="server-info">
          {status.server}
        </span>
      )}
    </span>
  );
}

/** The backend's reasons are clauses ("the server requires signing in"); here one starts a sentence. */
function sentence(clause: string): string {
  return clause.charAt(0).toUpperCase() + clause.slice(1);
}

/**
 * Under the row's head: why a server failed, why it waits for a sign-in, or where the sign-in
 * page is (for a browser that did not open, or another one).
 */
export function FailureReason({ status }: { status: SourceStatus }) {
  switch (status.state) {
    case "failed":
      return (
        <p className="src-failure" data-testid="server-failure">
          {status.reason}
        </p>
      );
    case "sign_in_required":
      return (
        <p className="src-warning src-sign-in-note" data-testid="server-sign-in-reason">
          {sentence(status.reason)}. Sign in opens the server&apos;s sign-in page in your browser.
        </p>
      );
    case "signing_in":
      return (
        <p className="src-sign-in-note muted" data-testid="server-signing-in">
          Finish signing in in your browser. If no page opened, open this address:{" "}
          <code className="src-sign-in-page">{status.page}</code>
        </p>
      );
    default:
      return null;
  }
}
