/**
 * The Metrics view against a fake backend (mockIPC): the figures of a report, the range and tool
 * sent to `metrics_report`, a refresh after a run elsewhere (at once when shown, when next shown
 * otherwise), the empty and error states. uPlot draws on a canvas jsdom lacks: a stand-in
 * records what the chart was given.
 */
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { emitAppEvent } from "../../lib/appEvents";
import type { CallStats, MetricsRange, MetricsReport } from "../../lib/ipc";
import { MetricsPane } from "./MetricsPane";

const charts = vi.hoisted(() => ({ data: [] as unknown[], created: 0, destroyed: 0 }));

vi.mock("uplot", () => {
  class FakePlot {
    static paths = { bars: () => () => null };
    constructor() {
      charts.created += 1;
    }
    setData(data: unknown) {
      charts.data.push(data);
    }
    setSize() {
      // nothing to lay out
    }
    destroy() {
      charts.destroyed += 1;
    }
  }
  return { default: FakePlot };
});

afterEach(() => {
  cleanup();
  clearMocks();
  charts.data = [];
});

const NOW = Date.UTC(2025, 5, 1, 12);
const MINUTE = 60_000;

function stats(calls: number, failures: number, kinds: Record<string, number> = {}): CallStats {
  return {
    calls,
    successes: calls - failures,
    failures,
    failures_by_kind: kinds,
    truncated: 0,
    bytes_in: calls * 20,
    bytes_out: calls * 2048,
    durations: calls > 0 ? { p50_ms: 3, p95_ms: 12.5, max_ms: 1500 } : null,
    first_ms: calls > 0 ? NOW - 30 * MINUTE : null,
    last_ms: calls > 0 ? NOW - MINUTE : null,
  };
}

function report(calls: number, range: MetricsRange): MetricsReport {
  const failures = calls > 1 ? 1 : 0;
  const kinds = failures ? { timeout: 1 } : {};
  return {
    metrics: {
      query: { since_ms: range.since ? NOW - 3_600_000 : null, until_ms: null, tool: range.tool },
      totals: stats(calls, failures, kinds),
      tools:
        calls === 0
          ? []
          : [
              {
                tool_id: "calculator",
                stats: stats(calls, failures, kinds),
                methods: [{ routing_name: "calculator_evaluate", method: "evaluate", stats: stats(calls, failures, kinds) }],
              },
            ],
      series: {
        bucket_ms: MINUTE,
        buckets: calls === 0 ? [] : [{ start_ms: NOW - 2 * MINUTE, calls, failures }],
      },
    },
    tool_ids: calls === 0 ? [] : ["calculator", "echo"],
    skipped_lines: 0,
    now_ms: NOW,
  };
}

/** A backend whose history holds `calls()` calls; records every range asked for. */
function backend(calls: () => number, fail: (range: MetricsRange) => unknown = () => null) {
  const ranges: MetricsRange[] = [];
  mockIPC((cmd, args) => {
    if (cmd !== "metrics_report") throw new Error(`unexpected ${cmd}`);
    const range = (args as { range: MetricsRange }).range;
    ranges.push(range);
    const failure = fail(range);
    // A command's error is a plain {kind, message, details} object.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (failure) throw failure;
    return report(calls(), range);
  });
  return ranges;
}

describe("MetricsPane", () => {
  it("shows the last 24 h: totals, failures by kind, per tool and method, and the chart", async () => {
    const ranges = backend(() => 3);
    render(<MetricsPane active />);
    const calls = await screen.findByTestId("metrics-total-calls");
    expect(calls.textContent).toBe("Calls3");
    expect(ranges[0]).toEqual({ since: "24h", until: null, tool: null });
    expect(screen.getByTestId("metrics-total-failures").textContent).toContain("1 (33 %)");
    expect(screen.getByTestId("metrics-total-bytes-out").textContent).toContain("6.0 KiB");
    expect(screen.getByTestId("metrics-total-p95").textContent).toContain("12.5 ms");
    expect(screen.getByTestId("metrics-total-max").textContent).toContain("1.50 s");
    expect(screen.getByTestId("metrics-failure-kinds").textContent).toContain("timeout 1");
    const rows = screen.getAllByTestId(/metrics-(tool|method)-row$/).map((row) => row.dataset.name);
    expect(rows).toEqual(["calculator", "calculator_evaluate"]);
    expect(screen.getByRole("img").getAttribute("aria-label")).toContain("3 calls, 1 failed");
    await waitFor(() => {
      expect(charts.data.at(-1)).toEqual([[(NOW - 2 * MINUTE + MINUTE / 2) / 1000], [3], [1]]);
    });
  });

  it("asks for the preset, the typed range and the tool chosen", async () => {
    const ranges = backend(() => 3);
    render(<MetricsPane active />);
    await screen.findByTestId("metrics-total-calls");
    fireEvent.click(screen.getByTestId("metrics-range-7d"));
    await waitFor(() => {
      expect(ranges.at(-1)).toEqual({ since: "7d", until: null, tool: null });
    });
    expect(screen.getByTestId("metrics-range-7d").getAttribute("aria-pressed")).toBe("true");
    fireEvent.change(screen.getByTestId("metrics-since"), { target: { value: " 2025-05-01 " } });
    fireEvent.change(screen.getByTestId("metrics-until"), { target: { value: "2h" } });
    expect(ranges).toHaveLength(2); // typing alone does not ask
    fireEvent.click(screen.getByTestId("metrics-apply"));
    await waitFor(() => {
      expect(ranges.at(-1)).toEqual({ since: "2025-05-01", until: "2h", tool: null });
    });
    const tool = await screen.findByRole("option", { name: "echo" });
    fireEvent.change(screen.getByTestId("metrics-tool-filter"), { target: { value: tool.getAttribute("value") } });
    await waitFor(() => {
      expect(ranges.at(-1)).toEqual({ since: "2025-05-01", until: "2h", tool: "echo" });
    });
    fireEvent.click(screen.getByTestId("metrics-range-all"));
    await waitFor(() => {
      expect(ranges.at(-1)).toEqual({ since: null, until: null, tool: "echo" });
    });
  });

  it("reads again after a run: at once when shown, when next shown otherwise, and on demand", async () => {
    let calls = 1;
    const ranges = backend(() => calls);
    const { rerender } = render(<MetricsPane active />);
    await waitFor(() => {
      expect(screen.getByTestId("metrics-total-calls").dataset.value).toBe("1");
    });
    calls = 2;
    emitAppEvent("run-finished");
    await waitFor(() => {
      expect(screen.getByTestId("metrics-total-calls").dataset.value).toBe("2");
    });
    rerender(<MetricsPane active={false} />);
    calls = 3;
    emitAppEvent("run-finished");
    await Promise.resolve();
    expect(ranges).toHaveLength(2);
    rerender(<MetricsPane active />);
    await waitFor(() => {
      expect(screen.getByTestId("metrics-total-calls").dataset.value).toBe("3");
    });
    calls = 4;
    fireEvent.click(screen.getByTestId("metrics-refresh"));
    await waitFor(() => {
      expect(screen.getByTestId("metrics-total-calls").dataset.value).toBe("4");
    });
    expect(ranges).toHaveLength(4);
  });

  it("says when there is nothing to count", async () => {
    backend(() => 0);
    render(<MetricsPane active />);
    expect((await screen.findByTestId("metrics-empty")).textContent).toContain("No calls in this range");
    fireEvent.click(screen.getByTestId("metrics-range-all"));
    await waitFor(() => {
      expect(screen.getByTestId("metrics-empty").textContent).toContain("No runs recorded yet");
    });
    expect(screen.queryByTestId("metrics-chart")).toBeNull();
  });

  it("shows a refused range next to its field and a failed read with a retry", async () => {
    let broken = true;
    backend(
      () => 2,
      (range) =>
        range.since === "soon"
          ? { kind: "invalid_input", message: "since: 'soon' is not a time", details: { field: "since" } }
          : broken && range.since === null
            ? { kind: "history", message: "history file: reading failed", details: null }
            : null,
    );
    render(<MetricsPane active />);
    await screen.findByTestId("metrics-total-calls");
    fireEvent.change(screen.getByTestId("metrics-since"), { target: { value: "soon" } });
    fireEvent.click(screen.getByTestId("metrics-apply"));
    expect((await screen.findByTestId("metrics-error")).textContent).toContain("'soon' is not a time");
    expect(screen.getByTestId("metrics-since").getAttribute("aria-invalid")).toBe("true");
    expect(screen.queryByTestId("metrics-totals")).toBeNull();

    fireEvent.click(screen.getByTestId("metrics-range-all"));
    await waitFor(() => {
      expect(screen.getByRole("alert").textContent).toContain("reading failed");
    });
    expect(screen.getByTestId("metrics-since").getAttribute("aria-invalid")).toBe("false");
    broken = false;
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByTestId("metrics-totals")).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
