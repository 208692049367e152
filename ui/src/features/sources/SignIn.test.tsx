/**
 * Signing in to an MCP server from the Sources pane, against the fake backend: a server that
 * requires authorization offers "Sign in" (not an error), the sign-in steps show each request
 * with its outcome, and "Sign out" takes the server back to "sign in required".
 */
import { clearMocks } from "@tauri-apps/api/mocks";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { SourcesPane } from "./SourcesPane";
import { installSourcesBackend, type SourcesBackend } from "./testBackend";

afterEach(() => {
  cleanup();
  clearMocks();
});

function row(name: string): HTMLElement {
  const found = screen.getAllByTestId("server-item").find((item) => item.dataset.name === name);
  if (!found) throw new Error(`no server row ${name}`);
  return found;
}

function withGuardedServer(): SourcesBackend {
  const backend = installSourcesBackend();
  backend.servers.push({
    config: { name: "tracker", transport: { type: "http", url: "https://tracker.example.com/mcp" }, enabled: true },
    tool_id: "tracker",
    command_line: null,
    status: { state: "sign_in_required", reason: "the server requires signing in" },
    signed_in: false,
  });
  backend.steps.tracker = [
    {
      elapsed_ms: 0,
      title: "Refused by the server",
      outcome: "info",
      request: null,
      response: 'WWW-Authenticate: Bearer resource_metadata="https://tracker.example.com/.well-known/oauth-protected-resource/mcp"',
      note: "the challenge names where to discover how to sign in",
    },
    {
      elapsed_ms: 41,
      title: "Token request (authorization code)",
      outcome: "failed",
      request: "POST https://auth.example.com/token\n\ngrant_type=authorization_code&code=•••",
      response: "200 OK\ncontent-type: text/html\n\n<html>login</html>",
      note: "the answer is not JSON, which OAuth endpoints must answer",
    },
  ];
  return backend;
}

describe("signing in to an MCP server", () => {
  it("offers Sign in instead of an error, then Sign out once signed in", async () => {
    const backend = withGuardedServer();
    render(<SourcesPane active />);
    await screen.findAllByTestId("server-item");
    const tracker = row("tracker");
    expect(within(tracker).getByTestId("server-status").textContent).toBe("sign in required");
    expect(within(tracker).queryByTestId("server-failure")).toBeNull();
    expect(within(tracker).getByTestId("server-sign-in-reason").textContent).toContain("requires signing in");
    expect(within(tracker).queryByTestId("server-sign-out")).toBeNull();
    // Stdio servers have no sign-in at all.
    expect(within(row("files")).queryByTestId("server-sign-in-steps")).toBeNull();

    fireEvent.click(within(tracker).getByTestId("server-sign-in"));
    await waitFor(() => {
      expect(within(row("tracker")).getByTestId("server-status").textContent).toBe("ready · 3 tools");
    });
    expect(backend.argsOf("mcp_sign_in")).toEqual([{ name: "tracker" }]);
    expect(within(row("tracker")).queryByTestId("server-sign-in")).toBeNull();

    fireEvent.click(within(row("tracker")).getByTestId("server-sign-out"));
    await waitFor(() => {
      expect(within(row("tracker")).getByTestId("server-status").textContent).toBe("sign in required");
    });
    expect(backend.argsOf("mcp_sign_out")).toEqual([{ name: "tracker" }]);
    expect(within(row("tracker")).queryByTestId("server-sign-out")).toBeNull();
  });

  it("shows each step with its outcome, and opens the exchange of the step that stopped", async () => {
    withGuardedServer();
    render(<SourcesPane active />);
    await screen.findAllByTestId("server-item");
    fireEvent.click(within(row("tracker")).getByTestId("server-sign-in-steps"));
    const steps = await within(row("tracker")).findAllByTestId("sign-in-step");
    expect(steps.map((step) => step.dataset.outcome)).toEqual(["info", "failed"]);
    const [refused, stopped] = steps;
    if (!refused || !stopped) throw new Error("two steps expected");
    expect(stopped.textContent).toContain("not JSON");
    expect(stopped.querySelector("details")?.open).toBe(true);
    expect(refused.querySelector("details")?.open).toBe(false);
    expect(within(stopped).getByLabelText("Request").textContent).toContain("code=•••");
  });

  it("says where the sign-in page is while the browser has it, and cancels it", async () => {
    const backend = withGuardedServer();
    const tracker = backend.servers.find((s) => s.config.name === "tracker");
    if (!tracker) throw new Error("no tracker");
    tracker.status = { state: "signing_in", page: "https://auth.example.com/authorize?client_id=c1" };
    render(<SourcesPane active />);
    await screen.findAllByTestId("server-item");
    const note = within(row("tracker")).getByTestId("server-signing-in");
    expect(note.textContent).toContain("https://auth.example.com/authorize?client_id=c1");

    fireEvent.click(within(row("tracker")).getByTestId("server-cancel-sign-in"));
    await waitFor(() => {
      expect(backend.argsOf("mcp_cancel_sign_in")).toEqual([{ name: "tracker" }]);
    });
  });
});
