/**
 * The Discovery pane (seed 000 §7.1): every registered tool and method in a searchable,
 * virtualised master list, the selected method's detail beside it, and a live preview of the
 * tool-definition prompt below. The list is loaded once (non-agent-callable methods included)
 * and filtered here, so typing never waits on the backend.
 */
import { useCallback, useMemo, useRef, useState, type KeyboardEvent } from "react";

import type { MethodView, ToolView } from "../../lib/ipc";
import { Timed } from "../../lib/renderProfile";
import { useSourcesChanged } from "../../lib/useSourcesChanged";
import "./discovery.css";
import { DiscoveryToolbar } from "./DiscoveryToolbar";
import { ErrorNotice } from "./ErrorNotice";
import { useFocusShortcut, useSearchIndex, useToolList, useToolToggles } from "./hooks";
import { MethodDetail } from "./MethodDetail";
import { PromptPreview } from "./PromptPreview";
import { buildRows, type SortOrder } from "./rows";
import { ToolList, type ToolListHandle } from "./ToolList";

export function DiscoveryPane({ active }: { active: boolean }) {
  const list = useToolList();
  const { tools, reload, setEnabled } = list;
  const [promptRevision, setPromptRevision] = useState(0);
  const onSaved = useCallback(
    (toolId: string, enabled: boolean) => {
      setEnabled(toolId, enabled);
      reload();
      setPromptRevision((n) => n + 1);
    },
    [setEnabled, reload],
  );
  const toggles = useToolToggles(onSaved);
  // MCP servers and HTTP definition files add and remove tools while the app runs.
  const onSourcesChanged = useCallback(() => {
    reload();
    setPromptRevision((n) => n + 1);
  }, [reload]);
  useSourcesChanged(onSourcesChanged);

  const [query, setQuery] = useState("");
  // The list follows the query in the keystroke's own render: searching and building the rows of
  // 10,000 methods takes a few milliseconds (typed-array scores, rows made once), so deferring
  // it would only add a frame to every keystroke.
  const deferredQuery = query;
  const [includeNonCallable, setIncludeNonCallable] = useState(false);
  const [sort, setSort] = useState<SortOrder>("name");
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [selected, setSelected] = useState<string | null>(null);

  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<ToolListHandle>(null);

  const index = useSearchIndex(tools);
  const hits = useMemo(() => index?.search(deferredQuery) ?? null, [index, deferredQuery]);
  const view = useMemo(
    () => (tools === null ? null : buildRows(tools, { hits, includeNonCallable, sort, collapsed })),
    [tools, hits, includeNonCallable, sort, collapsed],
  );
  const methods = useMemo(() => {
    const byName = new Map<string, { tool: ToolView; method: MethodView }>();
    for (const tool of tools ?? []) for (const method of tool.methods) byName.set(method.routing_name, { tool, method });
    return byName;
  }, [tools]);
  const selection = selected === null ? undefined : methods.get(selected);

  const focusSearch = useCallback(() => {
    searchRef.current?.focus();
    searchRef.current?.select();
  }, []);
  useFocusShortcut(active, focusSearch);

  const changeQuery = (next: string) => {
    setQuery(next);
    listRef.current?.scrollToTop();
  };

  const onSearchKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Escape") {
      if (query === "") return;
      event.preventDefault();
      // The shell or a dialog may also react to Esc; clearing the search is this key's job here.
      event.stopPropagation();
      changeQuery("");
    } else if (event.key === "ArrowDown") {
      if (listRef.current?.focus()) event.preventDefault();
    } else if (event.key === "Enter") {
      const first = view?.rows.find((row) => row.kind === "method");
      if (first?.kind !== "method") return;
      event.preventDefault();
      setSelected(first.method.routing_name);
      listRef.current?.reveal(first.key, false);
    }
  };

  const onToggleCollapse = useCallback((toolId: string, collapse: boolean) => {
    setCollapsed((previous) => {
      const next = new Set(previous);
      if (collapse) next.add(toolId);
      else next.delete(toolId);
      return next;
    });
  }, []);

  const searching = deferredQuery.trim() !== "";

  return (
    <Timed id="discovery">
      <section className="pane dv-pane" aria-labelledby="discovery-title">
        <div className="pane-head">
          <div>
            <h2 id="discovery-title">Discovery</h2>
            <p className="muted">
              Every registered tool and method. A model sees only enabled tools&apos; agent-callable methods.
            </p>
          </div>
          <button type="button" className="button" onClick={reload} disabled={list.loading}>
            {list.loading && tools !== null ? "Reloading…" : "Reload"}
          </button>
        </div>

        <DiscoveryToolbar
          query={query}
          onQuery={changeQuery}
          onSearchKey={onSearchKey}
          includeNonCallable={includeNonCallable}
          onIncludeNonCallable={setIncludeNonCallable}
          sort={sort}
          onSort={setSort}
          searchRef={searchRef}
        />

        {toggles.failure && (
          <ErrorNotice
            title={`Could not ${toggles.failure.enabled ? "enable" : "disable"} ${toggles.failure.toolName}`}
            error={toggles.failure.error}
            onDismiss={toggles.dismissFailure}
            testId="toggle-error"
          />
        )}
        {list.error && tools !== null && (
          <ErrorNotice title="Could not refresh the tools (showing the last list)" error={list.error} onRetry={reload} />
        )}

        <div className="dv-split">
          <div className="dv-master">
            {tools === null ? (
              list.error ? (
                <ErrorNotice title="Could not load the tools" error={list.error} onRetry={reload} testId="discovery-error" />
              ) : (
                <p className="status" role="status" aria-live="polite">
                  Loading tools…
                </p>
              )
            ) : view === null || view.rows.length === 0 ? (
              <EmptyList
                query={deferredQuery}
                hiddenNonCallable={view?.hiddenNonCallable ?? 0}
                onShowHidden={() => {
                  setIncludeNonCallable(true);
                }}
                noTools={tools.length === 0}
              />
            ) : (
              <>
                <p className="dv-summary" aria-live="polite" data-testid="discovery-summary">
                  {view.toolCount} {view.toolCount === 1 ? "tool" : "tools"}, {view.methodCount}{" "}
                  {view.methodCount === 1 ? "method" : "methods"}
                  {searching && <> matching “{deferredQuery.trim()}”</>}
                  {view.hiddenNonCallable > 0 && (
                    <span className="dv-muted"> · {view.hiddenNonCallable} not agent-callable hidden</span>
                  )}
                </p>
                <Timed id="list">
                  <ToolList
                    ref={listRef}
                    rows={view.rows}
                    selected={selected}
                    pending={toggles.pending}
                    onSelect={setSelected}
                    onToggleCollapse={onToggleCollapse}
                    onToggleTool={toggles.toggle}
                  />
                </Timed>
                <p className="dv-keys dv-muted" aria-hidden="true">
                  ↑↓ move · Enter select · ←→ fold · Space enable/disable tool
                </p>
              </>
            )}
          </div>
          <div className="dv-detail-column">
            {selection ? (
              <MethodDetail tool={selection.tool} method={selection.method} />
            ) : (
              <p className="dv-placeholder dv-muted">Select a method to see its parameters and annotations.</p>
            )}
          </div>
        </div>

        <PromptPreview revision={promptRevision} active={active} />
      </section>
    </Timed>
  );
}

function EmptyList({
  query,
  hiddenNonCallable,
  onShowHidden,
  noTools,
}: {
  query: string;
  hiddenNonCallable: number;
  onShowHidden: () => void;
  noTools: boolean;
}) {
  if (noTools) {
    return (
      <p className="status" role="status">
        No tools are registered.
      </p>
    );
  }
  return (
    <div className="status" role="status" data-testid="discovery-empty">
      <p className="dv-empty-title">No methods match &apos;{query.trim()}&apos;</p>
      {hiddenNonCallable > 0 && (
        <p>
          {hiddenNonCallable} non-agent-callable {hiddenNonCallable === 1 ? "method matches" : "methods match"}.{" "}
          <button type="button" className="dv-link" onClick={onShowHidden}>
            Show them
          </button>
        </p>
      )}
    </div>
  );
}
