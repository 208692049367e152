/** The progress line of a running call: status messages as they are, streamed text by its newest line. */
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { RunProgress } from "./RunProgress";

afterEach(cleanup);

function shown(message: string | null): string | null {
  render(<RunProgress progress={{ request_id: "r1", progress: 120, total: null, message, task: null }} />);
  return screen.queryByTestId("executor-progress-message")?.textContent ?? null;
}

describe("RunProgress", () => {
  it("shows a status message as it is", () => {
    expect(shown("step 3 of 10")).toBe("step 3 of 10");
  });

  it("shows the newest line of a streamed piece, not the blank lines after it", () => {
    expect(shown('data: {"content":"Section 1"}\n\ndata: {"content":"Section 2"}\n\n')).toBe('data: {"content":"Section 2"}');
    expect(screen.getByTestId("executor-progress-message").getAttribute("title")).toContain("Section 1");
  });

  it("cuts a long line at the front and never inside a character", () => {
    const text = shown(`${"😀".repeat(300)} the end`);
    expect(text?.startsWith("…")).toBe(true);
    expect(text?.endsWith(" the end")).toBe(true);
    expect(Array.from(text ?? "")).toHaveLength(160);
    expect(text).not.toContain("\uFFFD");
  });

  it("shows no message for an empty or whitespace-only piece", () => {
    expect(shown("\n\n")).toBeNull();
    expect(shown(null)).toBeNull();
  });
});
