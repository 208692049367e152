import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { lazyPane, type PaneProps } from "./lazyPane";

afterEach(() => {
  cleanup();
});

function Loaded({ active }: PaneProps) {
  return <p data-testid="loaded">{active ? "active" : "hidden"}</p>;
}

describe("lazyPane", () => {
  it("loads its chunk on first render, once, then renders at once", async () => {
    const load = vi.fn(() => Promise.resolve(Loaded));
    const pane = lazyPane("Test", load);
    const first = render(<pane.Pane active />);
    expect(screen.getByText("Loading the Test pane…")).toBeTruthy();
    expect((await screen.findByTestId("loaded")).textContent).toBe("active");
    first.unmount();
    render(<pane.Pane active={false} />);
    // Already loaded: no loading state, not even for one render.
    expect(screen.getByTestId("loaded").textContent).toBe("hidden");
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("preloads ahead of use", async () => {
    const load = vi.fn(() => Promise.resolve(Loaded));
    const pane = lazyPane("Test", load);
    await act(() => pane.preload());
    render(<pane.Pane active />);
    expect(screen.getByTestId("loaded")).toBeTruthy();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("reports a chunk that fails to load and tries again on request", async () => {
    const load = vi
      .fn<() => Promise<typeof Loaded>>()
      .mockRejectedValueOnce(new Error("chunk missing"))
      .mockResolvedValueOnce(Loaded);
    const pane = lazyPane("Test", load);
    render(<pane.Pane active />);
    expect((await screen.findByRole("alert")).textContent).toContain("The Test pane could not load: chunk missing");
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByTestId("loaded")).toBeTruthy();
    expect(load).toHaveBeenCalledTimes(2);
  });
});
