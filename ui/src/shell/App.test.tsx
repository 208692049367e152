/**
 * The shell: Discovery is mounted at start, the other panes when first shown (from chunks
 * preloaded once the first pane is up), and a shown pane stays mounted with what was typed.
 */
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { PaneProps } from "./lazyPane";

const mounts = vi.hoisted(() => ({ discovery: 0, parser: 0, executor: 0, sources: 0, agent: 0, live: 0, metrics: 0, settings: 0 }));

function fakePane(name: keyof typeof mounts) {
  return function FakePane({ active }: PaneProps) {
    const [text, setText] = useState("");
    const [mountedOnce] = useState(() => {
      mounts[name] += 1;
      return true;
    });
    return (
      <label data-testid={`${name}-pane`} data-active={active} data-mounted={mountedOnce}>
        {name}
        <input
          value={text}
          onChange={(event) => {
            setText(event.target.value);
          }}
        />
      </label>
    );
  };
}

vi.mock("../features/discovery/DiscoveryPane", () => ({ DiscoveryPane: fakePane("discovery") }));
vi.mock("../features/parser/ParserPane", () => ({ ParserPane: fakePane("parser") }));
vi.mock("../features/executor/ExecutorPane", () => ({ ExecutorPane: fakePane("executor") }));
vi.mock("../features/sources/SourcesPane", () => ({ SourcesPane: fakePane("sources") }));
vi.mock("../features/agent/AgentPane", () => ({ AgentPane: fakePane("agent") }));
vi.mock("../features/live/LivePane", () => ({ LivePane: fakePane("live") }));
vi.mock("../features/metrics/MetricsPane", () => ({ MetricsPane: fakePane("metrics") }));
vi.mock("../features/settings/SettingsPane", () => ({ SettingsPane: fakePane("settings") }));
vi.mock("./StartupNotices", () => ({ StartupNotices: () => null }));
vi.mock("./ThemeSelect", () => ({ ThemeSelect: () => null }));

function inputOf(element: HTMLElement): HTMLInputElement {
  const input = element.querySelector("input");
  if (!input) throw new Error("no input");
  return input;
}

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe("App shell", () => {
  it("mounts a pane when first shown and keeps it mounted, with what was typed in it", async () => {
    const { App } = await import("../App");
    render(<App />);
    expect(screen.getByTestId("discovery-pane")).toBeTruthy();
    expect(screen.queryByTestId("parser-pane")).toBeNull();
    expect(screen.queryByTestId("executor-pane")).toBeNull();

    fireEvent.click(screen.getByRole("tab", { name: "Executor" }));
    const executor = await screen.findByTestId("executor-pane");
    fireEvent.change(inputOf(executor), { target: { value: "kept" } });
    fireEvent.click(screen.getByRole("tab", { name: "Discovery" }));
    fireEvent.click(screen.getByRole("tab", { name: "Executor" }));
    expect(inputOf(screen.getByTestId("executor-pane")).value).toBe("kept");
    expect(mounts.executor).toBe(1);
    expect(screen.queryByTestId("parser-pane")).toBeNull();
  });

  it("preloads the other panes once the first is up, so they show without a loading state", async () => {
    vi.resetModules();
    vi.useFakeTimers();
    const { App } = await import("../App");
    render(<App />);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1500);
      // The chunk's import settles outside the fake clock.
      await import("../features/parser/ParserPane");
    });
    fireEvent.click(screen.getByRole("tab", { name: "Parser" }));
    // Rendered in the same update as the click: no "Loading" in between.
    expect(screen.getByTestId("parser-pane").dataset.active).toBe("true");
    expect(screen.queryByText(/Loading the/)).toBeNull();
  });

  it("reaches every pane from the keyboard, Metrics and Settings last", async () => {
    const { App } = await import("../App");
    render(<App />);
    const tab = (name: string) => screen.getByRole("tab", { name });
    const selected = (name: string) => tab(name).getAttribute("aria-selected") === "true";
    const discovery = tab("Discovery");
    fireEvent.keyDown(discovery, { key: "End" });
    expect(selected("Settings")).toBe(true);
    expect((await screen.findByTestId("settings-pane")).dataset.active).toBe("true");
    fireEvent.keyDown(tab("Settings"), { key: "ArrowLeft" });
    expect(selected("Metrics")).toBe(true);
    expect((await screen.findByTestId("metrics-pane")).dataset.active).toBe("true");
    fireEvent.keyDown(tab("Metrics"), { key: "ArrowLeft" });
    expect(selected("Live")).toBe(true);
    expect((await screen.findByTestId("live-pane")).dataset.active).toBe("true");
    fireEvent.keyDown(tab("Live"), { key: "ArrowLeft" });
    expect(selected("Agent")).toBe(true);
    expect((await screen.findByTestId("agent-pane")).dataset.active).toBe("true");
    fireEvent.keyDown(tab("Agent"), { key: "ArrowLeft" });
    expect(selected("Sources")).toBe(true);
    expect((await screen.findByTestId("sources-pane")).dataset.active).toBe("true");
    for (const name of ["Sources", "Agent", "Live", "Metrics", "Settings"]) fireEvent.keyDown(tab(name), { key: "ArrowRight" });
    expect(discovery.getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(discovery, { key: "ArrowLeft" });
    expect(selected("Settings")).toBe(true);
  });
});
