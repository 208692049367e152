/**
 * Declared format files that could not be used: each with its file, line and column, so the
 * person can fix it in their editor (the formats are read again when they come back).
 */
import type { FormatProblem } from "../../lib/ipc";
import { plural } from "./format";

export function FormatProblems({ problems }: { problems: FormatProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <div className="parser-format-problems" role="status" data-testid="parser-format-problems">
      <p>{plural(problems.length, "declared format file problem")}: those formats are not offered until fixed.</p>
      <ul>
        {problems.map((problem) => (
          <li key={`${problem.file}:${String(problem.line)}:${problem.message}`}>
            <code>
              {problem.file}
              {problem.line > 0 ? `:${String(problem.line)}:${String(problem.column)}` : ""}
            </code>{" "}
            {problem.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
