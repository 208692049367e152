/**
 * Live preview of the tool-definition prompt a model would be shown, for a chosen protocol,
 * with its size and a Copy button. It follows the enable toggles (via `revision`).
 */
import { memo, useEffect, useRef, useState } from "react";

import { errorMessage } from "../../lib/ipc";
import { ErrorNotice } from "./ErrorNotice";
import { usePromptText, useProtocols } from "./hooks";

/** Rendering a multi-megabyte <pre> stalls the pane; past this the rest is behind a button. */
export const PREVIEW_LIMIT = 100_000;
const COPIED_FOR_MS = 2000;

type CopyState = { status: "idle" } | { status: "copied" } | { status: "failed"; message: string };

const numberFormat = new Intl.NumberFormat();

/** Memoised: each search keystroke re-renders the pane, and the prompt does not follow the search. */
export const PromptPreview = memo(function PromptPreview({ revision, active }: { revision: number; active: boolean }) {
  const protocols = useProtocols();
  const [chosen, setChosen] = useState<string | null>(null);
  const protocol = chosen ?? protocols.lastProtocol ?? protocols.protocols?.[0]?.id ?? null;
  const prompt = usePromptText(protocol, revision, active);
  const [showAll, setShowAll] = useState(false);
  const [copy, setCopy] = useState<CopyState>({ status: "idle" });
  const copiedTimer = useRef<number | undefined>(undefined);

  useEffect(
    () => () => {
      window.clearTimeout(copiedTimer.current);
    },
    [],
  );

  const text = prompt.text;
  const copyText = async () => {
    if (text === null) return;
    window.clearTimeout(copiedTimer.current);
    try {
      await navigator.clipboard.writeText(text);
      setCopy({ status: "copied" });
      copiedTimer.current = window.setTimeout(() => {
        setCopy({ status: "idle" });
      }, COPIED_FOR_MS);
    } catch (reason: unknown) {
      setCopy({ status: "failed", message: errorMessage(reason) });
    }
  };

  const shown = text !== null && !showAll && text.length > PREVIEW_LIMIT ? text.slice(0, PREVIEW_LIMIT) : text;

  return (
    <section className="dv-prompt" aria-labelledby="dv-prompt-title">
      <div className="dv-prompt-head">
        <h3 id="dv-prompt-title">Tool-definition prompt</h3>
        <label className="dv-field">
          <span>Protocol</span>
          <select
            data-testid="prompt-protocol"
            value={protocol ?? ""}
            disabled={protocols.protocols === null}
            onChange={(event) => {
              setChosen(event.target.value);
              setShowAll(false);
            }}
          >
            {protocols.protocols?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        {text !== null && (
          <span className="dv-muted dv-prompt-size" title="Tokens estimated as characters ÷ 4">
            {numberFormat.format(text.length)} chars · ≈{numberFormat.format(Math.ceil(text.length / 4))} tokens
          </span>
        )}
        {prompt.loading && text !== null && <span className="dv-muted">refreshing…</span>}
        <button
          type="button"
          className="button dv-small"
          data-testid="prompt-copy"
          disabled={text === null}
          onClick={() => {
            void copyText();
          }}
        >
          {copy.status === "copied" ? "Copied" : "Copy"}
        </button>
        <span role="status" className="dv-copy-status">
          {copy.status === "copied" ? "Prompt copied to the clipboard." : ""}
        </span>
      </div>

      {copy.status === "failed" && (
        <p className="dv-inline-error" role="alert">
          Could not copy: {copy.message}
        </p>
      )}
      {protocols.settingsError && (
        <p className="dv-muted">
          The last used protocol is unknown (settings: {protocols.settingsError.message}); showing the first one.
        </p>
      )}
      {protocols.error ? (
        <ErrorNotice title="Could not load the protocols" error={protocols.error} onRetry={protocols.retry} />
      ) : prompt.error && prompt.protocol === protocol ? (
        <ErrorNotice title="Could not generate the prompt" error={prompt.error} onRetry={prompt.retry} />
      ) : text === null ? (
        <p className="dv-muted" role="status">
          Loading the prompt…
        </p>
      ) : (
        <>
          {text === "" && (
            <p className="dv-muted">
              The prompt is empty: tool calling is off, or no enabled tool has an agent-callable method.
            </p>
          )}
          <pre className={prompt.loading ? "dv-prompt-text dv-stale" : "dv-prompt-text"} data-testid="prompt-preview" tabIndex={0}>
            {shown}
          </pre>
          {shown !== null && shown.length < text.length && (
            <p className="dv-muted">
              Showing {numberFormat.format(shown.length)} of {numberFormat.format(text.length)} characters (Copy takes all).{" "}
              <button
                type="button"
                className="dv-link"
                onClick={() => {
                  setShowAll(true);
                }}
              >
                Show all
              </button>
            </p>
          )}
        </>
      )}
    </section>
  );
});
