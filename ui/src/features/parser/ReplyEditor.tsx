/**
 * Where the model reply goes: a plain, uncontrolled textarea (a 5 MB paste stays fast: React
 * never writes the value back, and nothing heavy runs per keystroke), the format select ("auto"
 * or a protocol), and the Parse / Run all / Cancel actions.
 */
import type { Ref } from "react";

import type { ProtocolInfo } from "../../lib/ipc";
import { plural } from "./format";

export const AUTO_FORMAT = "auto";

interface Props {
  textareaRef: Ref<HTMLTextAreaElement>;
  length: number;
  /** `whole` is true when the change pasted or dropped text rather than typed it. */
  onTextChange: (text: string, whole: boolean) => void;
  format: string;
  protocols: readonly ProtocolInfo[];
  onFormatChange: (format: string) => void;
  onParse: () => void;
  onRunAll: () => void;
  onCancel: () => void;
  running: boolean;
  cancelling: boolean;
}

export function ReplyEditor({
  textareaRef,
  length,
  onTextChange,
  format,
  protocols,
  onFormatChange,
  onParse,
  onRunAll,
  onCancel,
  running,
  cancelling,
}: Props) {
  return (
    <div className="parser-editor">
      <label className="parser-label" htmlFor="parser-input">
        Model reply
      </label>
      <textarea
        id="parser-input"
        ref={textareaRef}
        className="parser-input"
        data-testid="parser-input"
        spellCheck={false}
        autoComplete="off"
        placeholder="Paste a model reply with tool calls…"
        onChange={(event) => {
          const native = event.nativeEvent;
          const inputType = native instanceof InputEvent ? native.inputType : "";
          onTextChange(event.currentTarget.value, inputType === "insertFromPaste" || inputType === "insertFromDrop");
        }}
      />
      <div className="parser-toolbar">
        <label className="parser-format">
          <span>Format</span>
          <select
            data-testid="parser-format"
            value={format}
            onChange={(event) => {
              onFormatChange(event.currentTarget.value);
            }}
          >
            <option value={AUTO_FORMAT}>auto (detect)</option>
            {protocols.map((protocol) => (
              <option key={protocol.id} value={protocol.id}>
                {protocol.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="button" data-testid="parser-parse" onClick={onParse}>
          Parse
        </button>
        <button
          type="button"
          className="button parser-button-primary"
          data-testid="parser-run-all"
          onClick={onRunAll}
          disabled={running || length === 0}
          aria-keyshortcuts="Control+Enter Meta+Enter"
          title="Run every request (Ctrl+Enter)"
        >
          {running ? "Running…" : "Run all"}
        </button>
        <button
          type="button"
          className="button"
          data-testid="parser-cancel"
          onClick={onCancel}
          disabled={!running || cancelling}
          aria-keyshortcuts="Escape"
          title="Cancel the run (Esc)"
        >
          {cancelling ? "Cancelling…" : "Cancel"}
        </button>
        <span className="muted parser-length">{plural(length, "character")}</span>
      </div>
    </div>
  );
}
