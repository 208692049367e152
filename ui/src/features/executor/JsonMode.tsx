/**
 * JSON mode around the lazily loaded CodeMirror editor: the inline syntax error (text is never
 * touched because of it), a Format button, and a plain textarea if the editor cannot load.
 */
import { Component, lazy, Suspense, useId, type ReactNode } from "react";

import type { RJSFSchema } from "@rjsf/utils";
import { describeProblem, formatArgs, parseArgsText, type JsonProblem } from "./jsonText";

const JsonArgsEditor = lazy(() => import("./JsonArgsEditor"));

/** Starts loading the editor's code ahead of use. */
export function prefetchJsonEditor(): void {
  void import("./JsonArgsEditor").catch(() => undefined);
}

interface Props {
  text: string;
  problem: JsonProblem | null;
  schema: RJSFSchema | undefined;
  onChange: (text: string) => void;
}

export function JsonMode({ text, problem, schema, onChange }: Props) {
  const id = useId();
  const problemId = `${id}-problem`;
  const parsed = problem === null ? parseArgsText(text) : null;
  const pretty = parsed?.ok ? formatArgs(parsed.args) : null;
  return (
    <div className="ex-json">
      <EditorBoundary
        fallback={(reason) => (
          <>
            <p className="ex-warning">The code editor could not load ({reason}); editing as plain text.</p>
            <textarea
              className="ex-json-fallback"
              data-testid="executor-json-editor"
              aria-label="Arguments as JSON"
              aria-describedby={problemId}
              spellCheck={false}
              value={text}
              onChange={(event) => {
                onChange(event.target.value);
              }}
            />
          </>
        )}
      >
        <Suspense fallback={<p className="muted ex-json-loading">Loading the JSON editor…</p>}>
          <JsonArgsEditor value={text} onChange={onChange} schema={schema} describedBy={problemId} />
        </Suspense>
      </EditorBoundary>
      <div className="ex-json-status">
        <div id={problemId} aria-live="polite">
          {problem ? (
            <p className="ex-json-problem" data-testid="executor-json-error">
              {describeProblem(problem)}
            </p>
          ) : (
            <p className="muted">Valid JSON.</p>
          )}
        </div>
        {pretty !== null && pretty !== text && (
          <button
            type="button"
            className="button ex-small"
            onClick={() => {
              onChange(pretty);
            }}
          >
            Format
          </button>
        )}
      </div>
    </div>
  );
}

interface BoundaryProps {
  fallback: (reason: string) => ReactNode;
  children: ReactNode;
}

class EditorBoundary extends Component<BoundaryProps, { error: string | null }> {
  override state = { error: null as string | null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error.message : String(error) };
  }

  override render() {
    return this.state.error === null ? this.props.children : this.props.fallback(this.state.error);
  }
}
