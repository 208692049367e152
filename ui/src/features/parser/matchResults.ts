/**
 * Which run result belongs to which shown request. The run re-parses the reply itself, so a
 * result is shown beside a request only when the run was over the same text and format. While
 * streaming, `result_ready.index` is the request's index in the run; once the run ends its
 * outcome names each result's request by span, which stays right even when the run dropped
 * requests (strict unknown-tool mode). Anything that does not line up is listed on its own.
 */
import type { ToolExecutionResult } from "../../lib/ipc";
import { nameAt, spanAt } from "./requestOutline";
import type { ParseSnapshot } from "./useParser";
import type { RunState } from "./useRun";

export interface UnmatchedResult {
  /** Index of the request in the run. */
  index: number;
  result: ToolExecutionResult;
}

export interface MatchedResults {
  /** By index of the shown request. */
  byRequest: ReadonlyMap<number, ToolExecutionResult>;
  unmatched: UnmatchedResult[];
}

const spanKey = (span: { start: number; end: number }) => `${String(span.start)}:${String(span.end)}`;

export function matchResults(snapshot: ParseSnapshot | null, run: RunState): MatchedResults {
  const byRequest = new Map<number, ToolExecutionResult>();
  const unmatched: UnmatchedResult[] = [];
  if (run.status === "idle") return { byRequest, unmatched };
  const results: [number, ToolExecutionResult][] = run.outcome
    ? run.outcome.results.map((result, index) => [index, result])
    : [...run.streamed.entries()].sort((a, b) => a[0] - b[0]);
  // The shown requests, when the run was over the same text and format.
  const outline = snapshot !== null && snapshot.text === run.text && snapshot.format === run.format ? snapshot.reply.outline : null;
  const bySpan = new Map<string, number>();
  for (let index = 0; index < (outline?.count ?? 0); index++) {
    if (outline) bySpan.set(spanKey(spanAt(outline, index)), index);
  }
  for (const [index, result] of results) {
    let target: number | undefined;
    if (outline) {
      const runRequest = run.outcome?.parse.requests[index];
      target = runRequest ? bySpan.get(spanKey(runRequest.span)) : index;
      if (target !== undefined && (target >= outline.count || nameAt(outline, target) !== result.tool_name)) target = undefined;
    }
    if (target === undefined || byRequest.has(target)) unmatched.push({ index, result });
    else byRequest.set(target, result);
  }
  return { byRequest, unmatched };
}
