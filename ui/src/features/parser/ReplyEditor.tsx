/**
 * Where the model reply goes: the reply editor (CodeMirror, uncontrolled, so a 5 MB paste stays
 * fast), the format select ("auto" or a protocol), and the Parse / Run all / Cancel actions.
 */
import { useId, type RefObject } from "react";

import type { ProtocolInfo } from "../../lib/ipc";
import { plural } from "./format";
import { ReplyInput, type ReplyInputHandle } from "./ReplyInput";
import type { ReplyText } from "./replyText";

export const AUTO_FORMAT = "auto";

interface Props {
  editorRef: RefObject<ReplyInputHandle | null>;
  length: number;
  /** `whole` is true when the change pasted or dropped text rather than typed it. */
  onTextChange: (text: ReplyText, whole: boolean) => void;
  /** A pasted text about to become the whole reply (see ReplyInput's `onWholeText`). */
  onWholeText: (text: string) => void;
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
  editorRef,
  length,
  onTextChange,
  onWholeText,
  format,
  protocols,
  onFormatChange,
  onParse,
  onRunAll,
  onCancel,
  running,
  cancelling,
}: Props) {
  const labelId = useId();
  return (
    <div className="parser-editor">
      {/* The editor is no form control, so the label names it by id and focuses it on a click. */}
      <label
        id={labelId}
        className="parser-label"
        onClick={() => {
          editorRef.current?.focus();
        }}
      >
        Model reply
      </label>
      <ReplyInput ref={editorRef} labelledBy={labelId} onChange={onTextChange} onWholeText={onWholeText} />
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
