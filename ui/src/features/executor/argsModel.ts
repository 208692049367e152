/**
 * The arguments being edited, in two views that stay in sync: the form edits `args`, the JSON
 * editor edits `text`. Text that does not parse is kept as typed and never replaced; leaving
 * JSON mode with such text is refused with a notice.
 */
import { deepEquals } from "@rjsf/utils";

import { describeProblem, formatArgs, parseArgsText, type Args, type JsonProblem, type ParsedArgs } from "./jsonText";

export type ArgsMode = "form" | "json";

export interface ArgsState {
  mode: ArgsMode;
  /** The last valid arguments (what the form shows). */
  args: Args;
  /** The JSON editor's text (what JSON mode shows). */
  text: string;
  /** Why `text` does not parse, if it does not. */
  problem: JsonProblem | null;
  /** Why the last mode switch was refused. */
  notice: string | null;
}

export type ArgsAction =
  | { type: "load"; args: Args }
  | { type: "form-change"; args: Args }
  | { type: "text-change"; text: string }
  | { type: "switch"; mode: ArgsMode }
  | { type: "dismiss-notice" };

export function initialArgsState(mode: ArgsMode = "form", args: Args = {}): ArgsState {
  return { mode, args, text: formatArgs(args), problem: null, notice: null };
}

export function argsReducer(state: ArgsState, action: ArgsAction): ArgsState {
  switch (action.type) {
    case "load":
      return { ...state, args: action.args, text: formatArgs(action.args), problem: null, notice: null };
    case "form-change":
      if (deepEquals(action.args, state.args)) return state;
      return { ...state, args: action.args };
    case "text-change": {
      if (action.text === state.text) return state;
      const parsed = parseArgsText(action.text);
      return parsed.ok
        ? { ...state, text: action.text, args: parsed.args, problem: null, notice: null }
        : { ...state, text: action.text, problem: parsed.problem };
    }
    case "switch": {
      if (action.mode === state.mode) return state;
      if (action.mode === "json") {
        // Keep the user's own formatting when the form changed nothing.
        const current = parseArgsText(state.text);
        const keep = current.ok && deepEquals(current.args, state.args);
        return { ...state, mode: "json", text: keep ? state.text : formatArgs(state.args), problem: null, notice: null };
      }
      const parsed = parseArgsText(state.text);
      if (!parsed.ok) {
        return {
          ...state,
          problem: parsed.problem,
          notice: `Cannot switch to the form: ${describeProblem(parsed.problem)}. Fix the JSON first — your text is kept.`,
        };
      }
      return { ...state, mode: "form", args: parsed.args, problem: null, notice: null };
    }
    case "dismiss-notice":
      return state.notice === null ? state : { ...state, notice: null };
  }
}

/** The arguments a run would send now: the form's, or the parsed text in JSON mode. */
export function currentArgs(state: ArgsState): ParsedArgs {
  return state.mode === "form" ? { ok: true, args: state.args } : parseArgsText(state.text);
}
