/**
 * Sorts the WASM view's problems and pending grants under the directory they come from (a
 * tool's manifest lies in an added directory or one level below it), so each directory block
 * shows its own; anything outside every directory stays at the section level.
 */
import type { WasmDirectoryView, WasmPendingGrants, WasmToolProblem, WasmToolsView } from "../../lib/ipc";

export interface DirectoryGroup {
  directory: WasmDirectoryView;
  problems: WasmToolProblem[];
  pending: WasmPendingGrants[];
}

export interface WasmGroups {
  directories: DirectoryGroup[];
  /** Problems and pending grants of no listed directory. */
  problems: WasmToolProblem[];
  pending: WasmPendingGrants[];
}

/** Whether `file` is `directory` itself or lies under it. */
export function isUnder(file: string, directory: string): boolean {
  if (!file.startsWith(directory)) return false;
  if (file.length === directory.length || /[/\\]$/.test(directory)) return true;
  const next = file.charAt(directory.length);
  return next === "/" || next === "\\";
}

/** `file` as shown inside its directory's block: relative to it, or the whole path. */
export function shownPath(file: string, directory: string | null): string {
  if (directory === null || !isUnder(file, directory)) return file;
  if (file === directory) return "(the directory itself)";
  return file.slice(directory.length).replace(/^[/\\]/, "");
}

export function groupByDirectory(view: WasmToolsView): WasmGroups {
  const owner = (file: string) => view.directories.find((directory) => isUnder(file, directory.path))?.path ?? null;
  return {
    directories: view.directories.map((directory) => ({
      directory,
      problems: view.problems.filter((problem) => owner(problem.file) === directory.path),
      pending: view.pending.filter((pending) => owner(pending.manifest) === directory.path),
    })),
    problems: view.problems.filter((problem) => owner(problem.file) === null),
    pending: view.pending.filter((pending) => owner(pending.manifest) === null),
  };
}
