/**
 * A failure's suggestion (seed 001): what a person, or the model reading the result block, can
 * do next. The engine writes it into the classified error, so the Executor and the Parser show
 * the same words the model is sent. Rendered as text, line breaks kept (an argument failure
 * lists one schema fragment per line).
 */
import type { ExecutionError } from "../../lib/ipc";
import "./results.css";

export function SuggestionHint({ error, testId }: { error: ExecutionError | null | undefined; testId: string }) {
  const suggestion = error?.suggestion;
  if (!suggestion) return null;
  return (
    <p className="suggestion-hint" data-testid={testId}>
      <span className="suggestion-hint-label">Suggestion</span> {suggestion}
    </p>
  );
}
