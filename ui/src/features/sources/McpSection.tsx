/**
 * MCP servers: the list with statuses and actions, the add/edit form, import and export, and
 * the dialogs that guard starting a command line (approval) and removing a server.
 */
import { useState } from "react";

import type { SourceState } from "../../lib/ipc";
import { CommandApprovalDialog } from "./ApprovalDialog";
import { Dialog } from "./Dialog";
import { ExportPanel, ImportPanel } from "./ImportExport";
import { SamplingChoice } from "./SamplingChoice";
import { ServerForm } from "./ServerForm";
import { EMPTY_FIELDS, fieldsOf, type ServerFields } from "./serverForm";
import { ServerRow } from "./ServerRow";
import { useMcpServers } from "./useMcpServers";

type Panel = { kind: "add" } | { kind: "edit"; name: string; fields: ServerFields } | { kind: "import" } | { kind: "export" };

/** The command line a server waits to have approved, if it waits for one. */
function awaitedCommand(server: SourceState): string | null {
  return server.status.state === "awaiting_approval" ? server.status.command_line : null;
}

export function McpSection() {
  const mcp = useMcpServers();
  const [panel, setPanel] = useState<Panel | null>(null);
  const [approving, setApproving] = useState<string | null>(null);
  const [removing, setRemoving] = useState<SourceState | null>(null);
  const servers = mcp.servers ?? [];
  const names = servers.map((server) => server.config.name);
  // The dialog follows the live state: it shows the command line the backend holds now.
  const approval = servers.find((server) => server.config.name === approving);
  const approvalCommand = approval ? awaitedCommand(approval) : null;

  const toggle = (kind: "add" | "import" | "export") => {
    setPanel((current) => (current?.kind === kind ? null : { kind }));
  };

  return (
    <section className="src-section" aria-labelledby="src-mcp-title" data-testid="mcp-servers">
      <div className="src-section-head">
        <div>
          <h3 id="src-mcp-title">MCP servers</h3>
          <p className="muted">Each server&apos;s tools become methods routed as name_tool. A command line runs only once you approve it.</p>
        </div>
        <div className="src-head-buttons">
          {(["add", "import", "export"] as const).map((kind) => (
            <button
              key={kind}
              type="button"
              className="button"
              aria-expanded={panel?.kind === kind}
              data-testid={`mcp-${kind}`}
              onClick={() => {
                toggle(kind);
              }}
            >
              {kind === "add" ? "Add server" : kind === "import" ? "Import" : "Export"}
            </button>
          ))}
        </div>
      </div>
      <SamplingChoice />

      {panel?.kind === "add" && (
        <ServerForm
          initial={EMPTY_FIELDS}
          editing={null}
          takenNames={names}
          onSave={async (config, previous) => {
            const saved = await mcp.save(config, previous);
            if (saved.status.state === "awaiting_approval") setApproving(saved.config.name);
          }}
          onClose={() => {
            setPanel(null);
          }}
        />
      )}
      {panel?.kind === "edit" && (
        <ServerForm
          key={panel.name}
          initial={panel.fields}
          editing={panel.name}
          takenNames={names}
          onSave={mcp.save}
          onClose={() => {
            setPanel(null);
          }}
        />
      )}
      {panel?.kind === "import" && <ImportPanel onImported={mcp.reload} />}
      {panel?.kind === "export" && <ExportPanel />}

      {mcp.loadError !== null && (
        <div className="status status-error" role="alert">
          <p>Could not read the MCP servers: {mcp.loadError}</p>
          <button type="button" className="button src-small" onClick={mcp.reload}>
            Try again
          </button>
        </div>
      )}
      {mcp.servers === null ? (
        mcp.loadError === null && (
          <p className="status" role="status">
            Loading servers…
          </p>
        )
      ) : servers.length === 0 ? (
        <p className="status" data-testid="mcp-empty">
          No MCP servers yet. Add one, or import the config of Claude Desktop, Cursor or VS Code.
        </p>
      ) : (
        <ul className="src-server-list" aria-label="MCP servers">
          {servers.map((server) => (
            <ServerRow
              key={server.config.name}
              server={server}
              busy={mcp.busy.get(server.config.name)}
              error={mcp.errors.get(server.config.name)}
              onAction={(target, action) => void mcp.act(target, action)}
              onAskApproval={(target) => {
                setApproving(target.config.name);
              }}
              onAskRemove={setRemoving}
              onCancelSignIn={mcp.cancelSignIn}
              onEdit={(target) => {
                setPanel({ kind: "edit", name: target.config.name, fields: fieldsOf(target.config) });
              }}
            />
          ))}
        </ul>
      )}

      {approval && approvalCommand !== null && (
        <CommandApprovalDialog
          serverName={approval.config.name}
          commandLine={approvalCommand}
          onApprove={() => {
            setApproving(null);
            void mcp.act(approval, "approve");
          }}
          onCancel={() => {
            setApproving(null);
          }}
        />
      )}
      {removing && (
        <Dialog
          title={
            <>
              Remove <code>{removing.config.name}</code>?
            </>
          }
          confirmLabel="Remove"
          onConfirm={() => {
            setRemoving(null);
            void mcp.act(removing, "remove");
          }}
          onCancel={() => {
            setRemoving(null);
          }}
          testId="remove-dialog"
        >
          <p>The server is stopped and its tools leave the registry. Its configuration is deleted.</p>
        </Dialog>
      )}
    </section>
  );
}
