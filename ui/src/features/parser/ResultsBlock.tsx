/**
 * The run's results rendered by the reply's protocol (`formatted_results`), read-only and ready
 * to paste back into the conversation, with a Copy button.
 */
import { useRef, useState } from "react";

export function ResultsBlock({ text }: { text: string }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [status, setStatus] = useState("");

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setStatus("Copied.");
    } catch {
      // No clipboard access: select the text so the usual shortcut copies it.
      area.current?.focus();
      area.current?.select();
      setStatus("Could not copy; the text is selected, press Ctrl+C.");
    }
  };

  return (
    <section className="parser-results-block" aria-labelledby="parser-results-block-title">
      <div className="parser-section-head">
        <h3 id="parser-results-block-title">Results block</h3>
        <button type="button" className="button" data-testid="parser-copy-results" onClick={() => void copy()}>
          Copy
        </button>
        <span className="muted" role="status">
          {status}
        </span>
      </div>
      <textarea
        ref={area}
        className="parser-results-text"
        data-testid="parser-results-block"
        readOnly
        spellCheck={false}
        rows={Math.min(16, Math.max(4, text.split("\n", 17).length))}
        value={text}
        aria-labelledby="parser-results-block-title"
      />
    </section>
  );
}
