/**
 * "Copy as…" for one call: the request as its backend receives it (cURL for HTTP tools, the
 * JSON-RPC `tools/call` for MCP tools) or its result as the tool-result message of a model API.
 * The backend builds the text (secrets stay `${VAR}` references); this copies it and says so,
 * or says why the call has no such form.
 */
import "./results.css";

import { useState } from "react";

import { copyText } from "../../lib/CopyButton";
import { errorMessage, ipc, type ExportKind, type ExportSource } from "../../lib/ipc";

interface Choice {
  value: string;
  label: string;
  kind: ExportKind;
  needsResult: boolean;
}

const CHOICES: readonly Choice[] = [
  { value: "curl", label: "cURL (HTTP tools)", kind: { kind: "curl" }, needsResult: false },
  { value: "json_rpc", label: "MCP tools/call (JSON-RPC)", kind: { kind: "json_rpc" }, needsResult: false },
  {
    value: "openai_chat",
    label: "OpenAI tool message",
    kind: { kind: "result", format: "openai_chat" },
    needsResult: true,
  },
  {
    value: "anthropic",
    label: "Anthropic tool_result",
    kind: { kind: "result", format: "anthropic" },
    needsResult: true,
  },
  {
    value: "openai_responses",
    label: "Responses function_call_output",
    kind: { kind: "result", format: "openai_responses" },
    needsResult: true,
  },
];

interface Props {
  source: ExportSource;
  /** Whether the call has a result (result messages need one). */
  hasResult: boolean;
  /** What the call is, for the control's accessible name. */
  label: string;
  className?: string;
  /** Where space is tight (a history row): the outcome as a mark with the message as its title. */
  compact?: boolean;
}

export function CopyAs({ source, hasResult, label, className = "", compact = false }: Props) {
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  /** What was exported when the clipboard refused it: shown to copy by hand. */
  const [uncopied, setUncopied] = useState<string | null>(null);

  const copy = async (choice: Choice) => {
    try {
      const text = await ipc.exportCall(choice.kind, source);
      const copied = await copyText(text);
      setUncopied(copied || compact ? null : text);
      setStatus(
        copied
          ? { ok: true, text: `${choice.label} copied.` }
          : { ok: false, text: compact ? "Could not copy." : "Could not copy; select the text below." },
      );
    } catch (reason: unknown) {
      setUncopied(null);
      setStatus({ ok: false, text: errorMessage(reason) });
    }
  };

  return (
    <span className={`copy-as ${className}`}>
      <select
        className="copy-as-select"
        data-testid="copy-as"
        aria-label={`Copy ${label} as`}
        value=""
        onClick={(event) => {
          event.stopPropagation();
        }}
        onChange={(event) => {
          const choice = CHOICES.find((c) => c.value === event.currentTarget.value);
          if (choice) void copy(choice);
        }}
      >
        <option value="">Copy as…</option>
        {CHOICES.map((choice) => (
          <option key={choice.value} value={choice.value} disabled={choice.needsResult && !hasResult}>
            {choice.label}
          </option>
        ))}
      </select>
      {status ? (
        <span
          className={status.ok ? "muted copy-as-status" : "copy-as-status copy-as-failed"}
          role="status"
          data-testid="copy-as-status"
          title={status.text}
        >
          {compact ? (status.ok ? "✓" : "✗") : status.text}
        </span>
      ) : null}
      {uncopied !== null ? (
        <textarea
          className="copy-as-text"
          data-testid="copy-as-text"
          aria-label={`${label}, exported`}
          readOnly
          spellCheck={false}
          rows={Math.min(8, uncopied.split("\n", 9).length)}
          value={uncopied}
          onFocus={(event) => {
            event.currentTarget.select();
          }}
        />
      ) : null}
    </span>
  );
}
