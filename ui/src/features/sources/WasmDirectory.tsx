/**
 * One added WASM tool directory: its path, the tools it registered (id, name, method count),
 * the problems of its manifests and the tools waiting for their grants to be approved.
 */
import type { WasmPendingGrants } from "../../lib/ipc";
import { ProblemList } from "./ProblemList";
import { shownPath, type DirectoryGroup } from "./wasmGroups";

interface Props {
  group: DirectoryGroup;
  onAskRemove: (path: string) => void;
  onReview: (pending: WasmPendingGrants) => void;
}

function methodCount(count: number): string {
  return count === 1 ? "1 method" : `${String(count)} methods`;
}

export function WasmDirectory({ group, onAskRemove, onReview }: Props) {
  const { directory, problems, pending } = group;
  return (
    <li className="src-server src-wasm-directory" data-testid="wasm-directory" data-path={directory.path}>
      <div className="src-server-head">
        <code className="src-directory src-wasm-path">{directory.path}</code>
        <button
          type="button"
          className="button src-small src-danger-link src-wasm-remove"
          aria-label={`Remove ${directory.path}`}
          data-testid="wasm-remove"
          onClick={() => {
            onAskRemove(directory.path);
          }}
        >
          Remove
        </button>
      </div>
      {directory.tools.length > 0 ? (
        <ul className="src-wasm-tools" aria-label={`Tools from ${directory.path}`}>
          {directory.tools.map((tool) => (
            <li key={tool.id} data-testid="wasm-tool" data-tool-id={tool.id} title={tool.manifest}>
              <code>{tool.id}</code>
              {tool.name !== tool.id && <span>{tool.name}</span>}
              <span className="muted">{methodCount(tool.methods)}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted src-wasm-none">No tool loaded from here.</p>
      )}
      <PendingList pending={pending} directory={directory.path} onReview={onReview} />
      <ProblemList
        problems={problems.map((problem) => ({ ...problem, file: shownPath(problem.file, directory.path), title: problem.file }))}
        label={`Problems in ${directory.path}`}
        testId="wasm-problems"
      />
    </li>
  );
}

interface PendingProps {
  pending: readonly WasmPendingGrants[];
  directory: string | null;
  onReview: (pending: WasmPendingGrants) => void;
}

/** Tools that load only once someone approves the exact access their manifest asks for. */
export function PendingList({ pending, directory, onReview }: PendingProps) {
  if (pending.length === 0) return null;
  return (
    <ul className="src-wasm-pending-list" aria-label="Waiting for approval">
      {pending.map((item) => (
        <li key={item.key} className="src-warning src-wasm-pending" data-testid="wasm-pending" data-tool-id={item.tool_id}>
          <span>
            <code>{item.tool_id}</code> (<code title={item.manifest}>{shownPath(item.manifest, directory)}</code>) waits for
            your approval of {item.grants.length === 1 ? "1 grant" : `${String(item.grants.length)} grants`}.
          </span>
          <button
            type="button"
            className="button src-small"
            data-testid="wasm-review-grants"
            onClick={() => {
              onReview(item);
            }}
          >
            Review grants…
          </button>
        </li>
      ))}
    </ul>
  );
}
