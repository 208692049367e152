/**
 * The state of "Run all": progress while it streams, the run's failure, results that could not be
 * placed beside a shown request, and at the end the formatted results block.
 */
import { memo, useState } from "react";

import { copyText } from "../../lib/CopyButton";
import { errorMessage, ipc, type CycleOutcome, type RequestToolsChoice } from "../../lib/ipc";

import { ErrorNotice, noCallsMessage } from "./ParseSummary";
import type { UnmatchedResult } from "./matchResults";
import { ResultsBlock } from "./ResultsBlock";
import { ResultView } from "./ResultView";
import type { RunState } from "./useRun";

export const RunPanel = memo(function RunPanel({ run, unmatched }: { run: RunState; unmatched: readonly UnmatchedResult[] }) {
  if (run.status === "idle") return null;
  const { outcome } = run;
  const results = outcome?.results ?? [...run.streamed.values()];
  const failed = results.filter((result) => result.status === "error").length;
  let line: string;
  switch (run.status) {
    case "running":
      line = `${run.cancelling ? "Cancelling" : "Running"}… ${String(run.streamed.size)} result${run.streamed.size === 1 ? "" : "s"} so far.`;
      break;
    case "done":
      line = `Run finished: ${String(results.length - failed)} succeeded, ${String(failed)} failed.`;
      break;
    case "failed":
      line = "The run failed.";
      break;
  }
  return (
    <section className="parser-section parser-run" aria-labelledby="parser-run-title" data-testid="parser-run" data-status={run.status}>
      <div className="parser-section-head">
        <h3 id="parser-run-title">Run</h3>
        <span className="muted" role="status" aria-live="polite" data-testid="parser-run-status">
          {line}
        </span>
      </div>
      {run.error ? <ErrorNotice title="Run problem" error={run.error} /> : null}
      {outcome && !outcome.has_tool_requests ? (
        <p className="status parser-no-calls">
          {noCallsMessage(outcome.parse.format, outcome.parse.detected)} Nothing was run.
        </p>
      ) : null}
      {unmatched.length > 0 ? (
        <div className="parser-unmatched">
          <p className="muted">Results of the run (the shown requests are from different text):</p>
          {unmatched.map(({ index, result }) => (
            <ResultView key={index} result={result} label={`#${String(index + 1)} ${result.tool_name}`} />
          ))}
        </div>
      ) : null}
      {outcome && outcome.formatted_results !== "" ? <ResultsBlock text={outcome.formatted_results} /> : null}
      {outcome?.has_tool_requests ? <ExportCase reply={run.text} outcome={outcome} tools={run.tools} /> : null}
    </section>
  );
});

/** Copies the run as one line of a `toolscope eval` cases file: the reply, its calls as the
 * expected ones, and what they returned. */
function ExportCase({
  reply,
  outcome,
  tools,
}: {
  reply: string;
  outcome: CycleOutcome;
  tools: RequestToolsChoice | null;
}) {
  const [status, setStatus] = useState("");
  const exportCase = async () => {
    try {
      const line = await ipc.exportTestCase(reply, outcome, tools);
      setStatus((await copyText(line)) ? "Copied as a test case (one JSON line for toolscope eval)." : "Could not copy.");
    } catch (reason: unknown) {
      setStatus(errorMessage(reason));
    }
  };
  return (
    <div className="parser-section-head">
      <button type="button" className="button" data-testid="parser-export-case" onClick={() => void exportCase()}>
        Copy as test case
      </button>
      <span className="muted" role="status" data-testid="parser-export-case-status">
        {status}
      </span>
    </div>
  );
}
