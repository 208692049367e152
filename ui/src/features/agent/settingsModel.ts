/** The "new conversation" form's state and the `AgentSettings` it sends. */
import type { AgentSettings, CallMode, ToolCallConfig, ToolChoice } from "../../lib/ipc";

export type ChoiceKind = ToolChoice["type"];

export interface DraftSettings {
  profile: string;
  task: string;
  toolMode: "native" | "prompted";
  format: string;
  maxIterations: string;
  maxToolCalls: string;
  tokenBudget: string;
  mode: CallMode;
  systemPrompt: string;
  toolChoice: ChoiceKind;
  toolChoiceName: string;
  /** "default" leaves the endpoint's default. */
  parallel: "default" | "on" | "off";
  temperature: string;
  maxTokens: string;
  /** Routing names switched off; empty means every offered method. */
  disabledTools: readonly string[];
}

export const INITIAL_DRAFT: DraftSettings = {
  profile: "",
  task: "",
  toolMode: "native",
  format: "",
  maxIterations: "8",
  maxToolCalls: "32",
  tokenBudget: "",
  mode: "auto",
  systemPrompt: "",
  toolChoice: "auto",
  toolChoiceName: "",
  parallel: "default",
  temperature: "",
  maxTokens: "",
  disabledTools: [],
};

/**
 * The draft with the limits and confirmation mode of the stored ToolCallConfig (seed 000's
 * `maxIterations` and `mode`, seed 002's `max_total_tool_calls`), for fields the person has not
 * changed yet.
 */
export function seededFromConfig(draft: DraftSettings, config: ToolCallConfig | undefined): DraftSettings {
  if (!config) return draft;
  const untouched = (key: keyof DraftSettings) => draft[key] === INITIAL_DRAFT[key];
  return {
    ...draft,
    maxIterations:
      untouched("maxIterations") && config.max_iterations !== undefined ? String(config.max_iterations) : draft.maxIterations,
    maxToolCalls:
      untouched("maxToolCalls") && config.max_total_tool_calls !== undefined
        ? String(config.max_total_tool_calls)
        : draft.maxToolCalls,
    mode: untouched("mode") && config.mode !== undefined ? config.mode : draft.mode,
  };
}

export type Built = { ok: true; settings: AgentSettings } | { ok: false; problem: string };

function whole(text: string, what: string, min: number): number | string {
  const value = Number(text.trim());
  if (text.trim() === "" || !Number.isInteger(value) || value < min) return `${what} must be a whole number of at least ${String(min)}.`;
  return value;
}

function optionalNumber(text: string, what: string, integer: boolean): number | null | string {
  if (text.trim() === "") return null;
  const value = Number(text.trim());
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) return `${what} must be a ${integer ? "whole " : ""}number of at least 0.`;
  return value;
}

/** The settings to start with, or what is wrong with the form. */
export function buildSettings(draft: DraftSettings): Built {
  const maxIterations = whole(draft.maxIterations, "Max iterations", 1);
  if (typeof maxIterations === "string") return { ok: false, problem: maxIterations };
  const maxToolCalls = whole(draft.maxToolCalls, "Max tool calls", 0);
  if (typeof maxToolCalls === "string") return { ok: false, problem: maxToolCalls };
  const budget = optionalNumber(draft.tokenBudget, "The token budget", true);
  if (typeof budget === "string") return { ok: false, problem: budget };
  const temperature = optionalNumber(draft.temperature, "Temperature", false);
  if (typeof temperature === "string") return { ok: false, problem: temperature };
  const maxTokens = optionalNumber(draft.maxTokens, "Max tokens", true);
  if (typeof maxTokens === "string") return { ok: false, problem: maxTokens };
  if (draft.toolMode === "prompted" && draft.format === "") return { ok: false, problem: "Choose the format the tools are prompted in." };
  let toolChoice: ToolChoice;
  if (draft.toolChoice === "named") {
    const name = draft.toolChoiceName.trim();
    if (name === "") return { ok: false, problem: "Name the tool the model must call." };
    toolChoice = { type: "named", name };
  } else {
    toolChoice = { type: draft.toolChoice };
  }
  const systemPrompt = draft.systemPrompt.trim();
  return {
    ok: true,
    settings: {
      tools: draft.toolMode === "native" ? { kind: "native" } : { kind: "prompted", format: draft.format },
      max_iterations: maxIterations,
      max_total_tool_calls: maxToolCalls,
      token_budget: budget,
      mode: draft.mode,
      system_prompt: systemPrompt === "" ? null : draft.systemPrompt,
      request: {
        tool_choice: toolChoice,
        parallel_tool_calls: draft.parallel === "default" ? null : draft.parallel === "on",
        temperature,
        max_tokens: maxTokens,
      },
    },
  };
}

/** The `tools` argument of `agent_start`: null for every offered method, else the ones left on. */
export function toolSubset(all: readonly string[], disabled: readonly string[]): string[] | null {
  if (disabled.length === 0) return null;
  const off = new Set(disabled);
  return all.filter((name) => !off.has(name));
}
