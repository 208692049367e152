/** MCP content results: recognised only in their exact shape, rendered as text, images and descriptions. */
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { ResultView as ParserResultView } from "../parser/ResultView";
import { base64Bytes, parseMcpContent } from "./mcpContent";
import { McpContentView } from "./McpContentView";

afterEach(() => {
  cleanup();
});

const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const INJECTION = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;

const RICH = JSON.stringify({
  content: [
    { type: "text", text: `two things ${INJECTION}` },
    { type: "image", data: PIXEL, mimeType: "image/png" },
    { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" },
    { type: "resource", resource: { uri: "mem://note", mimeType: "text/plain", text: "a note" } },
    { type: "resource_link", uri: "file:///tmp/report.pdf", name: "report", mimeType: "application/pdf", size: 2048 },
    { type: "image", data: "not base64!", mimeType: "text/html" },
  ],
  structuredContent: { sum: 3 },
});

function view(text: string) {
  const content = parseMcpContent(text);
  if (!content) throw new Error("not MCP content");
  return render(<McpContentView content={content} testId="body" />);
}

describe("parseMcpContent", () => {
  it("takes only MCP's result shape", () => {
    expect(parseMcpContent("42")).toBeNull();
    expect(parseMcpContent('{"content": "text"}')).toBeNull();
    expect(parseMcpContent('{"content": [{"type": "text", "text": "a"}], "other": 1}')).toBeNull();
    expect(parseMcpContent('{"content": [{"text": "no type"}]}')).toBeNull();
    expect(parseMcpContent('{"content": [{"type": "text", "text": "a"}]}')?.blocks).toEqual([{ kind: "text", text: "a" }]);
  });

  it("measures base64 data", () => {
    expect(base64Bytes("UklGRiQAAABXQVZF")).toBe(12);
    expect(base64Bytes("YQ==")).toBe(1);
  });
});

describe("McpContentView", () => {
  it("renders text as text, images and audio from data URLs, resources described", () => {
    view(RICH);
    const blocks = screen.getAllByRole("listitem");
    expect(blocks.map((block) => block.dataset.kind)).toEqual(["text", "image", "audio", "resource", "resource", "image"]);
    expect(blocks[0]?.textContent).toBe(`two things ${INJECTION}`);
    const images = document.querySelectorAll("img");
    expect(images).toHaveLength(1);
    expect(images[0]?.getAttribute("src")).toBe(`data:image/png;base64,${PIXEL}`);
    expect(document.querySelector("script")).toBeNull();
    expect(document.querySelector("[onerror]")).toBeNull();
    expect(document.querySelector("audio")?.getAttribute("src")).toBe("data:audio/wav;base64,UklGRiQAAABXQVZF");
    expect(blocks[2]?.textContent).toBe("audio · audio/wav · 12 B");
    expect(blocks[3]?.textContent).toContain("mem://note");
    expect(blocks[3]?.textContent).toContain("text/plain");
    expect(blocks[3]?.textContent).toContain("a note");
    expect(blocks[4]?.textContent).toContain("file:///tmp/report.pdf · report · application/pdf · 2.0 KiB");
    expect(blocks[5]?.textContent).toContain("not a base64 image");
    expect(JSON.parse(screen.getByTestId("mcp-structured").textContent)).toEqual({ sum: 3 });
  });

  it("shows the raw JSON on request", () => {
    view(RICH);
    fireEvent.click(screen.getByTestId("mcp-raw-toggle"));
    const body = screen.getByTestId("body");
    expect(body.dataset.view).toBe("raw");
    expect(JSON.parse(body.querySelector("pre")?.textContent ?? "")).toEqual(JSON.parse(RICH));
    expect(document.querySelector("img")).toBeNull();
    fireEvent.click(screen.getByTestId("mcp-raw-toggle"));
    expect(within(body).getAllByRole("listitem")).toHaveLength(6);
  });

  it("is what the Parser pane shows for an MCP result too", () => {
    render(
      <ParserResultView
        result={{ request_id: "r", tool_name: "srv_rich", status: "success", result: RICH, duration_ms: 2, error: null, truncated: null }}
      />,
    );
    expect(screen.getByTestId("parser-result").querySelector("[data-format='mcp'] img")).toBeTruthy();
  });
});
