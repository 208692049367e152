/**
 * What the reply's calls are checked against: the registry (every enabled source), the tools of
 * the request the reply answered pasted as JSON (any shape an import reads), or an imported set
 * (whose mocks then answer "Run all"). A serving stack checks a reply against its request's
 * tools, so that is what a person debugging their own agent wants to see.
 */
import { ipc, type RequestToolsChoice, type RequestToolsInfo } from "../../lib/ipc";
import { useSourceQuery } from "../sources/useSourceQuery";
import { plural } from "./format";

export const REGISTRY = "registry";
export const PASTED = "pasted";
const SET_PREFIX = "set:";

/** The picker's value as the backend's choice (`null`: the registry). Nothing pasted yet is
 * still the request's tools (the backend says they are missing), never the registry. */
export function requestToolsChoice(value: string, pasted: string): RequestToolsChoice | null {
  if (value === PASTED) return { kind: "pasted", text: pasted };
  if (value.startsWith(SET_PREFIX)) return { kind: "imported_set", name: value.slice(SET_PREFIX.length) };
  return null;
}

/** Whether two choices name the same tools. */
export function sameTools(a: RequestToolsChoice | null, b: RequestToolsChoice | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

interface Props {
  value: string;
  onValueChange: (value: string) => void;
  pasted: string;
  onPastedChange: (text: string) => void;
  /** Drop what a serving stack would not return (cut-off calls, calls to tools not defined). */
  strict: boolean;
  onStrictChange: (strict: boolean) => void;
  /** What the last parse was checked against, when it was a request's tools. */
  info: RequestToolsInfo | null;
}

export function RequestToolsPicker({
  value,
  onValueChange,
  pasted,
  onPastedChange,
  strict,
  onStrictChange,
  info,
}: Props) {
  const { data: sets } = useSourceQuery(ipc.importedSets);
  return (
    <div className="parser-request-tools" data-testid="parser-request-tools">
      <label className="parser-format">
        <span>Check against</span>
        <select
          data-testid="parser-request-tools-source"
          value={value}
          onChange={(event) => {
            onValueChange(event.currentTarget.value);
          }}
        >
          <option value={REGISTRY}>the registry (all enabled tools)</option>
          <option value={PASTED}>the request&apos;s tools (paste them)</option>
          {(sets ?? []).map((set) => (
            <option key={set.name} value={`${SET_PREFIX}${set.name}`}>
              imported set: {set.name}
            </option>
          ))}
        </select>
      </label>
      <label
        className="parser-strict"
        title="Drop what a serving stack would not return: calls cut off before they closed, and calls to tools that are not defined. Each dropped call leaves an error where it was."
      >
        <input
          type="checkbox"
          data-testid="parser-strict"
          checked={strict}
          onChange={(event) => {
            onStrictChange(event.currentTarget.checked);
          }}
        />
        <span>Strict, as a serving stack</span>
      </label>
      {value === PASTED ? (
        <textarea
          className="parser-request-tools-text"
          data-testid="parser-request-tools-text"
          aria-label="The request's tools as JSON"
          spellCheck={false}
          placeholder='The request&apos;s "tools" (OpenAI, Anthropic, Gemini, MCP tools/list, BFCL)…'
          value={pasted}
          onChange={(event) => {
            onPastedChange(event.currentTarget.value);
          }}
        />
      ) : null}
      {info ? (
        <p className="muted parser-request-tools-info" data-testid="parser-request-tools-info">
          Checked against {plural(info.count, "request tool")}: values typed from their schemas, calls to other tools
          flagged.
          {info.findings.length > 0 ? ` ${plural(info.findings.length, "entry", "entries")} of the definitions had problems:` : ""}
        </p>
      ) : value === REGISTRY ? null : (
        <p className="muted parser-request-tools-info">
          Without a schema a text value that is a JSON literal is read as one; the rest stays text.
        </p>
      )}
      {info && info.findings.length > 0 ? (
        <ul className="parser-request-tools-findings">
          {info.findings.map((finding) => (
            <li key={`${finding.path}:${finding.message}`}>
              <code>{finding.path}</code> {finding.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
