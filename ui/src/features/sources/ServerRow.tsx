/** One MCP server: name, transport (secrets withheld), status, and its actions. */
import { useState } from "react";

import type { SourceState } from "../../lib/ipc";
import { ServerLog } from "./ServerLog";
import { SignInSteps } from "./SignInSteps";
import { FailureReason, StatusBadge } from "./StatusBadge";
import { summarize } from "./summary";
import type { ServerAction } from "./useMcpServers";

interface Props {
  server: SourceState;
  busy: ServerAction | undefined;
  error: string | undefined;
  onAction: (server: SourceState, action: ServerAction) => void;
  onAskApproval: (server: SourceState) => void;
  onAskRemove: (server: SourceState) => void;
  onEdit: (server: SourceState) => void;
  onCancelSignIn: (server: SourceState) => void;
}

const BUSY_LABEL: Record<ServerAction, string> = {
  reconnect: "Reconnecting…",
  approve: "Starting…",
  remove: "Removing…",
  enable: "Enabling…",
  disable: "Disabling…",
  "sign in": "Signing in… (finish in your browser)",
  "sign out": "Signing out…",
};

export function ServerRow({ server, busy, error, onAction, onAskApproval, onAskRemove, onEdit, onCancelSignIn }: Props) {
  const [showLog, setShowLog] = useState(false);
  const [showSteps, setShowSteps] = useState(false);
  const { config, status } = server;
  const summary = summarize(config.transport);
  const enabled = config.enabled ?? true;
  const name = config.name;
  const http = config.transport.type === "http";

  return (
    <li className="src-server" data-testid="server-item" data-name={name} data-state={status.state}>
      <div className="src-server-head">
        <h4 className="src-server-name">{name}</h4>
        <span className="badge badge-muted">{config.transport.type}</span>
        <StatusBadge status={status} />
        <span className="muted src-tool-id">
          tools as <code>{server.tool_id}_…</code>
        </span>
      </div>
      <p className="src-transport" data-testid="server-transport">
        <code>{summary.main}</code>
      </p>
      {(summary.names.length > 0 || summary.cwd !== null) && (
        <p className="muted src-transport-extra">
          {summary.names.length > 0 && (
            <>
              {summary.namesLabel}: {summary.names.join(", ")} <span className="src-hidden-values">(values hidden)</span>
            </>
          )}
          {summary.cwd !== null && (
            <>
              {summary.names.length > 0 && " · "}in <code>{summary.cwd}</code>
            </>
          )}
        </p>
      )}
      <FailureReason status={status} />
      <div className="src-actions">
        {status.state === "awaiting_approval" && (
          <button
            type="button"
            className="button src-small src-primary"
            data-testid="server-approve"
            disabled={busy !== undefined}
            onClick={() => {
              onAskApproval(server);
            }}
          >
            Approve and start…
          </button>
        )}
        {status.state === "sign_in_required" && (
          <button
            type="button"
            className="button src-small src-primary"
            data-testid="server-sign-in"
            disabled={busy !== undefined}
            onClick={() => {
              onAction(server, "sign in");
            }}
          >
            Sign in
          </button>
        )}
        {status.state === "signing_in" && (
          <button
            type="button"
            className="button src-small"
            data-testid="server-cancel-sign-in"
            onClick={() => {
              onCancelSignIn(server);
            }}
          >
            Cancel sign-in
          </button>
        )}
        {server.signed_in && (
          <button
            type="button"
            className="button src-small"
            data-testid="server-sign-out"
            disabled={busy !== undefined}
            onClick={() => {
              onAction(server, "sign out");
            }}
          >
            Sign out
          </button>
        )}
        <button
          type="button"
          className="button src-small"
          data-testid="server-reconnect"
          disabled={busy !== undefined || !enabled || status.state === "awaiting_approval"}
          onClick={() => {
            onAction(server, "reconnect");
          }}
        >
          Reconnect
        </button>
        <button
          type="button"
          className="button src-small"
          data-testid="server-edit"
          disabled={busy !== undefined}
          onClick={() => {
            onEdit(server);
          }}
        >
          Edit
        </button>
        <button
          type="button"
          className="button src-small"
          data-testid="server-toggle"
          disabled={busy !== undefined}
          onClick={() => {
            onAction(server, enabled ? "disable" : "enable");
          }}
        >
          {enabled ? "Disable" : "Enable"}
        </button>
        <button
          type="button"
          className="button src-small"
          data-testid="server-output"
          aria-expanded={showLog}
          onClick={() => {
            setShowLog((shown) => !shown);
          }}
        >
          {showLog ? "Hide output" : "Output"}
        </button>
        {http && (
          <button
            type="button"
            className="button src-small"
            data-testid="server-sign-in-steps"
            aria-expanded={showSteps}
            onClick={() => {
              setShowSteps((shown) => !shown);
            }}
          >
            {showSteps ? "Hide sign-in steps" : "Sign-in steps"}
          </button>
        )}
        <button
          type="button"
          className="button src-small src-danger-link"
          data-testid="server-remove"
          disabled={busy !== undefined}
          onClick={() => {
            onAskRemove(server);
          }}
        >
          Remove
        </button>
        {busy !== undefined && (
          <span className="muted" role="status">
            {BUSY_LABEL[busy]}
          </span>
        )}
      </div>
      {error !== undefined && (
        <p className="src-error" role="alert" data-testid="server-error">
          {error}
        </p>
      )}
      {showLog && <ServerLog name={name} />}
      {showSteps && <SignInSteps name={name} />}
    </li>
  );
}
