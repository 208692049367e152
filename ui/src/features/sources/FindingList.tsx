/** What an import had to say, entry by entry, with the JSON path of each. */
import type { Finding } from "../../lib/ipc";

const LABEL = { error: "refused", warning: "warning", info: "note" } as const;

export function FindingList({ findings }: { findings: readonly Finding[] }) {
  return (
    <ul className="src-findings" aria-label="Import findings" data-testid="import-findings">
      {findings.map((finding, index) => (
        <li key={`${String(index)}-${finding.path}`} data-level={finding.level}>
          <span className={`src-finding-level src-finding-${finding.level}`}>{LABEL[finding.level]}</span>{" "}
          <code>{finding.path === "" ? "(whole input)" : finding.path}</code>: {finding.message}
        </li>
      ))}
    </ul>
  );
}
