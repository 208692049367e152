/**
 * WASM tools: directories of WebAssembly tools (a manifest and its .wasm each) a person added,
 * with the tools each registered, the problems of the last reload, and the tools waiting for
 * the exact access their manifest asks for to be approved. The directories are watched, so a
 * rebuilt module or an edited manifest is picked up within a second.
 */
import { useState } from "react";

import { errorMessage, type WasmPendingGrants } from "../../lib/ipc";
import { GrantsApprovalDialog } from "./ApprovalDialog";
import { Dialog } from "./Dialog";
import { ProblemList } from "./ProblemList";
import { useWasmTools } from "./useWasmTools";
import { PendingList, WasmDirectory } from "./WasmDirectory";
import { WasmDirectoryForm } from "./WasmDirectoryForm";
import { groupByDirectory } from "./wasmGroups";

export function WasmToolsSection() {
  const wasm = useWasmTools();
  const [removing, setRemoving] = useState<string | null>(null);
  const [reviewing, setReviewing] = useState<WasmPendingGrants | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const groups = wasm.view === null ? null : groupByDirectory(wasm.view);
  // The dialog follows the live view: it shows the grants the backend waits on now.
  const review = reviewing === null ? undefined : wasm.view?.pending.find((pending) => pending.key === reviewing.key);

  const act = async (action: () => Promise<void>, failure: string) => {
    try {
      await action();
      setActionError(null);
    } catch (reason: unknown) {
      setActionError(`${failure}: ${errorMessage(reason)}`);
    }
  };

  return (
    <section className="src-section" aria-labelledby="src-wasm-title" data-testid="wasm-tools">
      <div className="src-section-head">
        <div>
          <h3 id="src-wasm-title">WASM tools</h3>
          <p className="muted">
            Sandboxed WebAssembly tools: a directory with a manifest.toml (or .json) and its .wasm, or a folder of such
            directories. A module reaches no file, variable or network unless its manifest asks and you approve.
          </p>
        </div>
        <button type="button" className="button" data-testid="wasm-reload" onClick={() => void act(wasm.rescan, "Could not reload")}>
          Reload
        </button>
      </div>
      <WasmDirectoryForm onAdd={wasm.add} />
      {wasm.loadError !== null && (
        <div className="status status-error" role="alert">
          <p>Could not read the WASM tools: {wasm.loadError}</p>
          <button type="button" className="button src-small" onClick={wasm.reload}>
            Try again
          </button>
        </div>
      )}
      {actionError !== null && (
        <p className="src-error" role="alert" data-testid="wasm-action-error">
          {actionError}
        </p>
      )}
      {groups !== null && (
        <>
          <PendingList pending={groups.pending} directory={null} onReview={setReviewing} />
          <ProblemList problems={groups.problems} label="Problems in WASM tools" testId="wasm-problems" />
          {groups.directories.length === 0 ? (
            <p className="status" data-testid="wasm-empty">
              No WASM tool directories yet.
            </p>
          ) : (
            <ul className="src-server-list" aria-label="WASM tool directories">
              {groups.directories.map((group) => (
                <WasmDirectory key={group.directory.path} group={group} onAskRemove={setRemoving} onReview={setReviewing} />
              ))}
            </ul>
          )}
        </>
      )}
      {review && (
        <GrantsApprovalDialog
          toolId={review.tool_id}
          manifest={review.manifest}
          grants={review.grants}
          onApprove={() => {
            setReviewing(null);
            void act(() => wasm.approve(review.key), `Could not approve the grants of ${review.tool_id}`);
          }}
          onCancel={() => {
            setReviewing(null);
          }}
        />
      )}
      {removing !== null && (
        <Dialog
          title="Remove this WASM tool directory?"
          confirmLabel="Remove"
          onConfirm={() => {
            setRemoving(null);
            void act(() => wasm.remove(removing), `Could not remove ${removing}`);
          }}
          onCancel={() => {
            setRemoving(null);
          }}
          testId="wasm-remove-dialog"
        >
          <p>
            <code className="src-directory">{removing}</code>
          </p>
          <p>Its tools are unregistered. The files stay where they are.</p>
        </Dialog>
      )}
    </section>
  );
}
