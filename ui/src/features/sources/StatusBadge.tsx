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
    case "failed":
      return "failed";
  }
}

const TONE: Record<SourceStatus["state"], string> = {
  disabled: "badge-muted",
  awaiting_approval: "src-badge-warn",
  connecting: "src-badge-info",
  ready: "badge-ok",
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

/** The reason a server failed, on its own line under the row's head. */
export function FailureReason({ status }: { status: SourceStatus }) {
  if (status.state !== "failed") return null;
  return (
    <p className="src-failure" data-testid="server-failure">
      {status.reason}
    </p>
  );
}
