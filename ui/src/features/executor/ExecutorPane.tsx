/**
 * The Executor pane: pick a method by routing name, edit its arguments as a schema form or as
 * JSON (kept in sync; invalid JSON is never lost), run it through the backend (confirmation,
 * timeout, cancellation are the backend's), read the classified result, and browse, search,
 * re-run or export the persisted run history. Calls from other panes arrive as workbench drafts.
 */
import { deepEquals, type ErrorSchema } from "@rjsf/utils";
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState, type KeyboardEvent } from "react";

import type { HistorySummary } from "../../lib/ipc";
import { Timed } from "../../lib/renderProfile";
import { useWorkbench } from "../../lib/workbench";
import { ArgsForm, formSchema, withDefaults } from "./ArgsForm";
import { argsReducer, currentArgs, initialArgsState, type ArgsMode } from "./argsModel";
import { ConfirmDialog } from "./ConfirmDialog";
import { HistoryList } from "./HistoryList";
import { JsonMode, prefetchJsonEditor } from "./JsonMode";
import { describeProblem, formatArgs, parseArgsText, type Args } from "./jsonText";
import { ResultView } from "./ResultView";
import { RunBar } from "./RunBar";
import { RunProgress } from "./RunProgress";
import { issuesToErrorSchema } from "./schemaValidator";
import { ToolNameInput } from "./ToolNameInput";
import { useExecutorSettings } from "./useExecutorSettings";
import { useHistory } from "./useHistory";
import { useRun } from "./useRun";
import { useToolCatalog } from "./useToolCatalog";
import "./executor.css";

const MODES: readonly { id: ArgsMode; label: string }[] = [
  { id: "form", label: "Form" },
  { id: "json", label: "JSON" },
];

export function ExecutorPane({ active }: { active: boolean }) {
  const { draft, loadIntoExecutor } = useWorkbench();
  const catalog = useToolCatalog(active);
  const settings = useExecutorSettings();
  const [toolName, setToolName] = useState("");
  const [parentId, setParentId] = useState<string | null>(null);
  const [argsState, dispatch] = useReducer(argsReducer, undefined, () => initialArgsState());
  const [runNotice, setRunNotice] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const history = useHistory(query, active);
  const run = useRun(history.refresh);
  const modeChosen = useRef(false);
  const tabRefs = useRef(new Map<ArgsMode, HTMLButtonElement>());

  const name = toolName.trim();
  const method = catalog.methods.get(name);
  const parameters = method?.meta.parameters;
  const schema = useMemo(() => (method ? formSchema(parameters) : undefined), [method, parameters]);

  // A call sent here by another pane (or "edit" in the history) replaces name, arguments and parent.
  const draftNonce = draft?.nonce;
  const handledNonce = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!draft || handledNonce.current === draft.nonce) return;
    handledNonce.current = draft.nonce;
    setToolName(draft.toolName);
    setParentId(draft.parentId);
    setRunNotice(null);
    dispatch({ type: "load", args: draft.args });
  }, [draft, draftNonce]);

  // The stored editor mode applies once, unless the user already chose one.
  useEffect(() => {
    if (settings.preferredMode === null || modeChosen.current) return;
    modeChosen.current = true;
    dispatch({ type: "switch", mode: settings.preferredMode });
  }, [settings.preferredMode]);

  const onToolNameChange = (next: string) => {
    setToolName(next);
    setRunNotice(null);
    // A freshly chosen method starts from its schema's defaults, if nothing was typed yet.
    const chosen = catalog.methods.get(next.trim());
    if (!chosen) return;
    const empty =
      argsState.mode === "form" ? Object.keys(argsState.args).length === 0 : isEmptyText(argsState.text);
    if (!empty) return;
    const defaults = withDefaults(chosen.meta.parameters, {});
    if (Object.keys(defaults).length > 0) dispatch({ type: "load", args: defaults });
  };

  const switchMode = (mode: ArgsMode) => {
    modeChosen.current = true;
    const wasValid = argsState.mode === "form" || parseArgsText(argsState.text).ok;
    dispatch({ type: "switch", mode });
    if (mode !== argsState.mode && wasValid) settings.saveMode(mode);
  };

  const fillDefaults = () => {
    const parsed = currentArgs(argsState);
    if (!parsed.ok) {
      setRunNotice(`Defaults not filled: ${describeProblem(parsed.problem)}`);
      return;
    }
    dispatch({ type: "load", args: withDefaults(parameters, parsed.args) });
  };

  const start = () => {
    if (run.running) return;
    if (name === "") {
      setRunNotice("Type a routing name to run.");
      return;
    }
    const parsed = currentArgs(argsState);
    if (!parsed.ok) {
      setRunNotice(`Not run: ${describeProblem(parsed.problem)}. Your text is kept.`);
      return;
    }
    setRunNotice(null);
    run.run({ tool_name: name, args: parsed.args, parent_id: parentId });
  };

  // Stable, so the memoised history list does not re-render on every edit of the arguments.
  const runCall = run.run;
  const rerun = useCallback(
    (entry: HistorySummary) => {
      runCall({ tool_name: entry.tool_name, args: entry.args, parent_id: entry.id });
    },
    [runCall],
  );
  const edit = useCallback(
    (entry: HistorySummary) => {
      loadIntoExecutor(entry.tool_name, entry.args, entry.id);
    },
    [loadIntoExecutor],
  );

  // Keyboard: Ctrl/Cmd+Enter runs, Esc cancels — only while this pane is shown.
  const keys = useRef({ start, cancel: run.cancel, running: run.running !== null, asking: run.confirmation !== null });
  // Synced as the render commits, not in a passive effect after it: Esc pressed as soon as the
  // Cancel button shows must already see the run (a passive effect may run a frame later).
  useLayoutEffect(() => {
    keys.current = { start, cancel: run.cancel, running: run.running !== null, asking: run.confirmation !== null };
  });
  useEffect(() => {
    if (!active) return;
    const onKey = (event: globalThis.KeyboardEvent) => {
      const current = keys.current;
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.altKey) {
        if (current.asking) return;
        event.preventDefault();
        current.start();
      } else if (event.key === "Escape" && current.running && !current.asking && !event.defaultPrevented) {
        event.preventDefault();
        current.cancel();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
    };
  }, [active]);

  // The backend's invalid_args issues, shown on the form's fields while the arguments are the ones that were run.
  const outcome = run.outcome;
  const extraErrors = useMemo<ErrorSchema | undefined>(() => {
    const issues = outcome?.result.error?.kind === "invalid_args" ? outcome.result.error.issues : undefined;
    if (!outcome || !issues || issues.length === 0) return undefined;
    if (outcome.call.tool_name !== name || !deepEquals(outcome.call.args, argsState.args)) return undefined;
    return issuesToErrorSchema(issues);
  }, [outcome, name, argsState.args]);

  const onFormChange = useCallback((args: Args) => {
    dispatch({ type: "form-change", args });
  }, []);
  const onTextChange = useCallback((text: string) => {
    dispatch({ type: "text-change", text });
  }, []);
  const editAsJson = useCallback(() => {
    modeChosen.current = true;
    dispatch({ type: "switch", mode: "json" });
  }, []);

  const onTabKey = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    event.preventDefault();
    const next = argsState.mode === "form" ? "json" : "form";
    switchMode(next);
    tabRefs.current.get(next)?.focus();
  };

  return (
    <section className="pane ex-pane" data-active={active} aria-labelledby="executor-title">
      <div className="pane-head">
        <div>
          <h2 id="executor-title">Executor</h2>
          <p className="muted">Run one method by routing name; every run is recorded in the history below.</p>
        </div>
      </div>

      <div className="ex-main">
        <div className="ex-editor">
          <Timed id="name"><ToolNameInput
            value={toolName}
            onChange={onToolNameChange}
            methods={catalog.methods}
            catalogLoading={catalog.loading}
            catalogError={catalog.error}
            onReload={catalog.reload}
          /></Timed>

          <div className="ex-args-head">
            <div className="ex-modes" role="tablist" aria-label="Argument editor" onKeyDown={onTabKey}>
              {MODES.map((mode) => (
                <button
                  key={mode.id}
                  ref={(element) => {
                    if (element) tabRefs.current.set(mode.id, element);
                    else tabRefs.current.delete(mode.id);
                  }}
                  type="button"
                  role="tab"
                  id={`executor-tab-${mode.id}`}
                  aria-controls="executor-args-panel"
                  aria-selected={argsState.mode === mode.id}
                  tabIndex={argsState.mode === mode.id ? 0 : -1}
                  className="ex-mode"
                  data-testid={`executor-mode-${mode.id}`}
                  onClick={() => {
                    switchMode(mode.id);
                  }}
                  // The JSON editor (CodeMirror, about 800 kB) loads only for JSON mode: from the
                  // moment the pointer or focus reaches its tab.
                  {...(mode.id === "json" ? { onPointerEnter: prefetchJsonEditor, onFocus: prefetchJsonEditor } : {})}
                >
                  {mode.label}
                </button>
              ))}
            </div>
            {method && (
              <button type="button" className="button ex-small" onClick={fillDefaults}>
                Fill defaults
              </button>
            )}
          </div>

          {argsState.notice !== null && (
            <div className="status status-error ex-notice" role="alert" data-testid="executor-mode-notice">
              <p>{argsState.notice}</p>
            </div>
          )}

          <div
            id="executor-args-panel"
            role="tabpanel"
            aria-labelledby={`executor-tab-${argsState.mode}`}
            className="ex-args"
          >
            {argsState.mode === "form" ? (
              method ? (
                <ArgsForm
                  key={method.routingName}
                  parameters={parameters}
                  args={argsState.args}
                  onChange={onFormChange}
                  extraErrors={extraErrors}
                  onUseJson={editAsJson}
                />
              ) : (
                <FormUnavailable name={name} args={argsState.args} onUseJson={editAsJson} />
              )
            ) : (
              <JsonMode text={argsState.text} problem={argsState.problem} schema={schema} onChange={onTextChange} />
            )}
          </div>

          <Timed id="runbar"><RunBar
            running={run.running}
            canRun={name !== ""}
            onRun={start}
            onCancel={run.cancel}
            timeoutMs={settings.timeoutMs}
            onSaveTimeout={settings.saveTimeout}
            settingsError={settings.error}
            parentId={parentId}
            onClearParent={() => {
              setParentId(null);
            }}
          /></Timed>
          {run.running !== null && <RunProgress progress={run.progress} />}
          {runNotice !== null && (
            <p className="ex-field-error" role="alert" data-testid="executor-run-notice">
              {runNotice}
            </p>
          )}
          {run.controlError !== null && (
            <p className="ex-field-error" role="alert">
              {run.controlError}
            </p>
          )}
        </div>

        <Timed id="result"><ResultView outcome={run.outcome} failure={run.failure} /></Timed>
      </div>

      <Timed id="history"><HistoryList
        view={history}
        query={query}
        onQueryChange={setQuery}
        busy={run.running !== null}
        onRerun={rerun}
        onEdit={edit}
      /></Timed>

      {run.confirmation && <ConfirmDialog confirmation={run.confirmation} onAnswer={run.answer} />}
    </section>
  );
}

function isEmptyText(text: string): boolean {
  const parsed = parseArgsText(text);
  return parsed.ok && Object.keys(parsed.args).length === 0;
}

function FormUnavailable({ name, args, onUseJson }: { name: string; args: Args; onUseJson: () => void }) {
  const count = Object.keys(args).length;
  return (
    <div className="status ex-form-unavailable" data-testid="executor-form-unavailable">
      <p>
        {name === ""
          ? "Choose a method to get a form for its parameters."
          : "No schema is known for this routing name, so there is no form."}{" "}
        {count > 0 && <>The {count} argument{count === 1 ? "" : "s"} entered so far are kept. </>}
      </p>
      <button type="button" className="button ex-small" onClick={onUseJson}>
        Edit as JSON
      </button>
      {count > 0 && <pre className="ex-args-preview">{formatArgs(args)}</pre>}
    </div>
  );
}
