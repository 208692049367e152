/**
 * Asked before a server's command line runs for the first time: the exact command line the
 * backend will start (monospace, wrapped, selectable) and what approving means.
 */
import { Dialog } from "./Dialog";

interface Props {
  serverName: string;
  commandLine: string;
  onApprove: () => void;
  onCancel: () => void;
}

export function ApprovalDialog({ serverName, commandLine, onApprove, onCancel }: Props) {
  return (
    <Dialog
      title={
        <>
          Start <code>{serverName}</code>?
        </>
      }
      confirmLabel="Approve and start"
      onConfirm={onApprove}
      onCancel={onCancel}
      testId="approval-dialog"
      initialFocus="[data-testid='approval-command-line']"
    >
      <p className="src-warning" role="note">
        This runs a program on this machine, with your permissions. Approve only a command you recognise.
      </p>
      <p className="muted">Command line, exactly as it will run</p>
      <pre className="src-command-line" data-testid="approval-command-line" tabIndex={0}>
        {commandLine}
      </pre>
      <p className="muted">The approval is remembered for this exact command line.</p>
    </Dialog>
  );
}
