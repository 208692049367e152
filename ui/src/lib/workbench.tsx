/**
 * State shared between the panes: which pane is shown, the call waiting to be loaded into the
 * Executor (from Discovery's "load into executor", the Parser's "send to executor" or a history
 * re-run), and the reply waiting to be loaded into the Parser (a recorded turn's "open in
 * Parser"). Panes stay mounted while hidden, so nothing typed in one is lost.
 */
import { createContext, useContext, useMemo, useState, type ReactNode } from "react";

import type { Value } from "./ipc";

export type PaneId = "discovery" | "parser" | "executor" | "sources" | "agent" | "live" | "metrics" | "settings";

/** A call to open in the Executor. `nonce` makes loading the same call twice a new event. */
export interface ExecutorDraft {
  toolName: string;
  args: Record<string, Value>;
  /** History id of the run this draft re-runs or edits. */
  parentId: string | null;
  nonce: number;
}

/** A reply to open in the Parser, in `format` (a protocol id, or "auto"). */
export interface ParserDraft {
  text: string;
  format: string;
  nonce: number;
}

export interface Workbench {
  activePane: PaneId;
  showPane: (pane: PaneId) => void;
  draft: ExecutorDraft | null;
  /** Opens the Executor with this call. */
  loadIntoExecutor: (toolName: string, args: Record<string, Value>, parentId?: string | null) => void;
  parserDraft: ParserDraft | null;
  /** Opens the Parser with this reply, in place of what it held. */
  loadIntoParser: (text: string, format: string) => void;
}

const WorkbenchContext = createContext<Workbench | null>(null);

export function WorkbenchProvider({ children, initialPane = "discovery" }: { children: ReactNode; initialPane?: PaneId }) {
  const [activePane, setActivePane] = useState<PaneId>(initialPane);
  const [draft, setDraft] = useState<ExecutorDraft | null>(null);
  const [parserDraft, setParserDraft] = useState<ParserDraft | null>(null);
  const value = useMemo<Workbench>(
    () => ({
      activePane,
      showPane: setActivePane,
      draft,
      loadIntoExecutor: (toolName, args, parentId = null) => {
        setDraft((previous) => ({ toolName, args, parentId, nonce: (previous?.nonce ?? 0) + 1 }));
        setActivePane("executor");
      },
      parserDraft,
      loadIntoParser: (text, format) => {
        setParserDraft((previous) => ({ text, format, nonce: (previous?.nonce ?? 0) + 1 }));
        setActivePane("parser");
      },
    }),
    [activePane, draft, parserDraft],
  );
  return <WorkbenchContext.Provider value={value}>{children}</WorkbenchContext.Provider>;
}

export function useWorkbench(): Workbench {
  const workbench = useContext(WorkbenchContext);
  if (!workbench) throw new Error("useWorkbench must be used inside <WorkbenchProvider>");
  return workbench;
}
