/** Problems of tool definition files, one a line: file, field at fault (when one is), message. */
export interface ShownProblem {
  file: string;
  field: string | null;
  message: string;
  /** Shown on hover over the file (its full path when `file` is shortened). */
  title?: string;
}

interface Props {
  problems: readonly ShownProblem[];
  label: string;
  testId: string;
}

export function ProblemList({ problems, label, testId }: Props) {
  if (problems.length === 0) return null;
  return (
    <ul className="src-problems" data-testid={testId} aria-label={label}>
      {problems.map((problem, index) => (
        <li key={`${String(index)}-${problem.file}`}>
          <code title={problem.title}>{problem.file}</code>: {problem.field !== null && <code>{problem.field}</code>}
          {problem.field !== null && ": "}
          {problem.message}
        </li>
      ))}
    </ul>
  );
}
