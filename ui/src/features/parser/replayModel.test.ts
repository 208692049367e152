import { describe, expect, it } from "vitest";

import type { ParsedToolRequest, StreamReplay } from "../../lib/ipc";
import { ByteCursor, fedAfter, frameAt, indexReplay, MAX_LISTED_CALLS } from "./replayModel";

const utf8 = (text: string) => new TextEncoder().encode(text).length;

function request(name: string, start: number, end: number): ParsedToolRequest {
  return {
    request_id: `id-${name}`,
    tool_name: name,
    args: { message: "héllo" },
    raw_block: "",
    span: { start, end },
    format: "hermes",
    untyped_args: false,
  };
}

const OPEN = "<tool_call>";
const BODY = '{"name": "echo_echo", "arguments": {"message": "héllo"}}';
const TEXT = `Voilà 🙂 ${OPEN}${BODY}</tool_call> done`;

function replayOf(text: string): StreamReplay {
  const start = utf8(text.slice(0, text.indexOf(OPEN)));
  const bodyStart = start + utf8(OPEN);
  const end = utf8(text.slice(0, text.indexOf(" done")));
  return {
    format: "hermes",
    incremental: true,
    delta_bytes: 4,
    total_bytes: utf8(text),
    deltas: Math.ceil(utf8(text) / 4),
    calls: [
      {
        block: 0,
        start,
        started_at: bodyStart,
        body_start: bodyStart,
        completed_at: end,
        requests: [request("echo_echo", start, end)],
      },
    ],
    diagnostics: [
      {
        at: end,
        diagnostic: { severity: "warning", code: "stray_text", message: "m", span: { start, end } },
      },
    ],
    reasoning: [],
    elapsed_ms: 0.1,
  };
}

describe("ByteCursor", () => {
  it("maps UTF-8 byte offsets to string indices, forward and after moving back", () => {
    const text = "aé🙂b";
    const cursor = new ByteCursor(text);
    expect(cursor.at(1)).toBe(1);
    expect(cursor.at(3)).toBe(2);
    expect(cursor.at(7)).toBe(4);
    expect(cursor.at(8)).toBe(5);
    expect(cursor.at(3)).toBe(2);
    expect(cursor.at(100)).toBe(text.length);
  });
});

describe("frameAt", () => {
  const replay = replayOf(TEXT);
  const index = indexReplay(replay, TEXT);

  it("shows nothing before the call starts", () => {
    const frame = frameAt(index, 5);
    expect(frame.calls).toEqual([]);
    expect(frame.textTail).toBe("Voilà"); // an offset inside a character shows all of it
    expect(frame.done).toBe(false);
  });

  it("streams the arguments, then shows the decoded call and its diagnostic", () => {
    const bodyStart = replay.calls[0]?.body_start ?? 0;
    const middle = frameAt(index, bodyStart + 10);
    expect(middle.calls).toHaveLength(1);
    expect(middle.calls[0]?.state).toBe("streaming");
    expect(middle.calls[0]?.partial).toBe(BODY.slice(0, 10));
    expect(middle.diagnostics).toEqual([]);

    const end = frameAt(index, replay.total_bytes);
    expect(end.calls[0]?.state).toBe("complete");
    expect(end.calls[0]?.requests[0]?.tool_name).toBe("echo_echo");
    expect(end.completed).toBe(1);
    expect(end.diagnostics).toHaveLength(1);
    expect(end.done).toBe(true);
    expect(end.percent).toBe(100);
    expect(end.textTail).toBe(TEXT);
  });

  it("marks a call the reply ended in as cut", () => {
    const cut = { ...replay, calls: replay.calls.map((c) => ({ ...c, completed_at: null })) };
    const frame = frameAt(indexReplay(cut, TEXT), cut.total_bytes);
    expect(frame.calls[0]?.state).toBe("cut");
  });

  it("lists only the newest calls of a long reply", () => {
    const many: StreamReplay = {
      ...replay,
      calls: Array.from({ length: MAX_LISTED_CALLS + 20 }, (_, block) => ({
        block,
        start: 0,
        started_at: block,
        body_start: 0,
        completed_at: block,
        requests: [],
      })),
    };
    const frame = frameAt(indexReplay(many, TEXT), replay.total_bytes);
    expect(frame.calls).toHaveLength(MAX_LISTED_CALLS);
    expect(frame.started).toBe(MAX_LISTED_CALLS + 20);
    expect(frame.calls[0]?.block).toBe(20);
  });

  it("counts deltas as the engine fed them", () => {
    expect(fedAfter(replay, 2)).toBe(8);
    expect(fedAfter(replay, 10_000)).toBe(replay.total_bytes);
  });
});
