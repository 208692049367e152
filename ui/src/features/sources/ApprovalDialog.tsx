/**
 * Asked before a source gets to do something on this machine: the exact lines the person
 * approves (monospace, wrapped, selectable, focused first), what is at stake and what the
 * approval is remembered for. Two uses: an MCP server's command line before its first start,
 * and the grants a WASM tool's manifest asks for (directories, environment variables).
 */
import type { ReactNode } from "react";

import { Dialog } from "./Dialog";

interface Props {
  title: ReactNode;
  confirmLabel: string;
  /** Why this needs a person's yes. */
  warning: string;
  /** What the lines are. */
  caption: string;
  /** Shown exactly as the backend holds them, one per line. */
  lines: readonly string[];
  /** What the approval covers. */
  remembered: string;
  testId: string;
  linesTestId: string;
  onApprove: () => void;
  onCancel: () => void;
}

export function ApprovalDialog({ title, confirmLabel, warning, caption, lines, remembered, testId, linesTestId, onApprove, onCancel }: Props) {
  return (
    <Dialog
      title={title}
      confirmLabel={confirmLabel}
      onConfirm={onApprove}
      onCancel={onCancel}
      testId={testId}
      initialFocus={`[data-testid='${linesTestId}']`}
    >
      <p className="src-warning" role="note">
        {warning}
      </p>
      <p className="muted">{caption}</p>
      <pre className="src-command-line" data-testid={linesTestId} tabIndex={0}>
        {lines.join("\n")}
      </pre>
      <p className="muted">{remembered}</p>
    </Dialog>
  );
}

interface CommandProps {
  serverName: string;
  commandLine: string;
  onApprove: () => void;
  onCancel: () => void;
}

/** Before an MCP server's command line runs for the first time. */
export function CommandApprovalDialog({ serverName, commandLine, onApprove, onCancel }: CommandProps) {
  return (
    <ApprovalDialog
      title={
        <>
          Start <code>{serverName}</code>?
        </>
      }
      confirmLabel="Approve and start"
      warning="This runs a program on this machine, with your permissions. Approve only a command you recognise."
      caption="Command line, exactly as it will run"
      lines={[commandLine]}
      remembered="The approval is remembered for this exact command line."
      testId="approval-dialog"
      linesTestId="approval-command-line"
      onApprove={onApprove}
      onCancel={onCancel}
    />
  );
}

interface GrantsProps {
  toolId: string;
  manifest: string;
  grants: readonly string[];
  onApprove: () => void;
  onCancel: () => void;
}

/** Before a WASM tool whose manifest asks for access beyond pure computation is loaded. */
export function GrantsApprovalDialog({ toolId, manifest, grants, onApprove, onCancel }: GrantsProps) {
  return (
    <ApprovalDialog
      title={
        <>
          Allow <code>{toolId}</code> this access?
        </>
      }
      confirmLabel="Approve and load"
      warning={`The module's manifest (${manifest}) asks to reach outside its sandbox. Every call of the tool gets exactly this access; approve only what you expect the tool to need.`}
      caption="Grants, exactly as the module gets them"
      lines={grants}
      remembered="The approval is remembered for this exact list: a manifest that asks for anything else waits for approval again."
      testId="wasm-approval-dialog"
      linesTestId="wasm-approval-grants"
      onApprove={onApprove}
      onCancel={onCancel}
    />
  );
}
