/**
 * A recorded turn taken out of the app (`conversation_turn_export`): its request as a cURL
 * command, its reply as the fixture a parser reads (with the format that reads it) or opened in
 * the Parser pane, and the turn as a `toolscope eval` case.
 */
import { useState } from "react";

import { CopyButton } from "../../lib/CopyButton";
import { errorMessage, ipc, type TurnExport } from "../../lib/ipc";
import { useWorkbench } from "../../lib/workbench";

type State = { state: "idle" } | { state: "loading" } | { state: "ready"; exported: TurnExport } | { state: "failed"; message: string };

export function TurnExportControls({ conversationId, turn }: { conversationId: string; turn: number }) {
  const [state, setState] = useState<State>({ state: "idle" });
  const { loadIntoParser } = useWorkbench();

  if (state.state === "ready") {
    const { exported } = state;
    return (
      <span className="ag-export" data-testid="agent-turn-export">
        <CopyButton text={exported.curl} label="Copy as cURL" testId="agent-copy-curl" />
        <CopyButton text={exported.reply} label="Export reply" testId="agent-copy-reply" />
        <CopyButton text={exported.eval_case} label="Copy as eval case" testId="agent-copy-eval-case" />
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            loadIntoParser(exported.reply, exported.format);
          }}
          data-testid="agent-open-in-parser"
        >
          Open in Parser
        </button>
        <span className="muted ag-small" data-testid="agent-export-format">
          format <code>{exported.format}</code>
        </span>
      </span>
    );
  }
  return (
    <span className="ag-export">
      <button
        type="button"
        className="button button-small"
        disabled={state.state === "loading"}
        onClick={() => {
          setState({ state: "loading" });
          ipc.conversationTurnExport(conversationId, turn).then(
            (exported) => {
              setState({ state: "ready", exported });
            },
            (reason: unknown) => {
              setState({ state: "failed", message: errorMessage(reason) });
            },
          );
        }}
        data-testid="agent-export-turn"
      >
        {state.state === "loading" ? "Preparing…" : "Export…"}
      </button>
      {state.state === "failed" && (
        <span className="ag-error-text" role="alert">
          {state.message}
        </span>
      )}
    </span>
  );
}
