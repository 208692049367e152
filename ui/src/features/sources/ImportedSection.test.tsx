/**
 * The Imported tools section against the fake backend: sets listed with their counts, an
 * import whose findings stay visible with their paths, a refused import that keeps the pasted
 * text and lists every problem, mocks edited and checked before they are sent.
 */
import { clearMocks } from "@tauri-apps/api/mocks";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { ImportedSection } from "./ImportedSection";
import { installSourcesBackend } from "./testBackend";

afterEach(() => {
  cleanup();
  clearMocks();
});

function change(element: HTMLElement, value: string) {
  fireEvent.change(element, { target: { value } });
}

/** Opens the Billing API set and returns its definitions' rows. */
async function openBilling(): Promise<[HTMLElement, HTMLElement]> {
  render(<ImportedSection />);
  fireEvent.click(await screen.findByTestId("imported-set"));
  const [first, second] = await screen.findAllByTestId("imported-definition");
  if (!first || !second) throw new Error("the set has two definitions");
  return [first, second];
}

describe("Imported tools", () => {
  it("lists the sets and shows a set's definitions with their mock state", async () => {
    installSourcesBackend();
    const definitions = await openBilling();
    expect(screen.getByTestId("imported-set").textContent).toContain("2 definitions · 1 mocked");
    expect(definitions.map((d) => d.querySelector("summary")?.textContent)).toEqual([
      "get_invoice · mocked Fetch an invoice by number.",
      "send_reminder · no mock Email a payment reminder.",
    ]);
    const editor = within(definitions[0]).getByTestId("mock-editor");
    expect(within(editor).getByTestId<HTMLSelectElement>("mock-kind").value).toBe("fixed");
    expect(within(editor).getByTestId<HTMLTextAreaElement>("mock-json").value).toBe('{\n  "status": "open"\n}');
  });

  it("imports pasted definitions and keeps the findings with their paths in view", async () => {
    const backend = installSourcesBackend();
    render(<ImportedSection />);
    fireEvent.click(screen.getByTestId("import-open"));
    const dialog = await screen.findByTestId("import-dialog");
    change(within(dialog).getByTestId("import-name"), "Shop");
    change(within(dialog).getByTestId("import-text"), '[{"type": "function", "function": {"name": "a"}}]');
    fireEvent.click(screen.getByTestId("import-dialog-confirm"));
    const report = await screen.findByTestId("import-report");
    expect(report.textContent).toContain("Imported Shop (tool id Shop): 2 definitions");
    expect(within(report).getByTestId("import-findings").textContent).toContain("refused /1/function: the definition has no `name`");
    expect(backend.argsOf("imported_import")).toEqual([
      { name: "Shop", text: '[{"type": "function", "function": {"name": "a"}}]', origin: "pasted" },
    ]);
    expect(screen.queryByTestId("import-dialog")).toBeNull();
    await waitFor(() => {
      expect(screen.getAllByTestId("imported-set").map((s) => s.dataset.set)).toEqual(["Billing API", "Shop"]);
    });
  });

  it("keeps the pasted text and lists every refused entry when nothing imports", async () => {
    installSourcesBackend({
      imported_import: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- a command's error value is a plain object
        throw {
          kind: "invalid_input",
          message: "no definition could be imported: 2 entries refused",
          details: [
            { path: "/0", level: "error", message: "not a tool definition" },
            { path: "/1/function", level: "error", message: "the definition has no `name`" },
          ],
        };
      },
    });
    render(<ImportedSection />);
    fireEvent.click(screen.getByTestId("import-open"));
    const dialog = await screen.findByTestId("import-dialog");
    change(within(dialog).getByTestId("import-name"), "x");
    change(within(dialog).getByTestId("import-text"), "[1, 2]");
    fireEvent.click(screen.getByTestId("import-dialog-confirm"));
    const error = await within(dialog).findByTestId("import-error");
    expect(error.textContent).toContain("no definition could be imported");
    expect(within(error).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "refused /0: not a tool definition",
      "refused /1/function: the definition has no `name`",
    ]);
    expect(within(dialog).getByTestId<HTMLTextAreaElement>("import-text").value).toBe("[1, 2]");
  });

  it("checks a mock's JSON before sending it, then saves a template", async () => {
    const backend = installSourcesBackend();
    const definitions = await openBilling();
    const editor = within(definitions[1]).getByTestId("mock-editor");
    change(within(editor).getByTestId("mock-kind"), "template");
    change(within(editor).getByTestId("mock-json"), "{ not json");
    fireEvent.click(within(editor).getByTestId("mock-save"));
    expect((await within(editor).findByRole("alert")).textContent).toContain("not JSON");
    expect(backend.argsOf("imported_set_mock")).toEqual([]);

    change(within(editor).getByTestId("mock-json"), '{"sent_to": "{{email}}"}');
    fireEvent.click(within(editor).getByTestId("mock-save"));
    await waitFor(() => {
      expect(backend.argsOf("imported_set_mock")).toEqual([
        {
          name: "Billing API",
          definition: "send_reminder",
          mock: { reply: { type: "template", template: { sent_to: "{{email}}" } }, latency_ms: 0 },
        },
      ]);
    });
  });

  it("clears a mock and removes a set only after confirming", async () => {
    const backend = installSourcesBackend();
    const definitions = await openBilling();
    const editor = within(definitions[0]).getByTestId("mock-editor");
    change(within(editor).getByTestId("mock-kind"), "none");
    fireEvent.click(within(editor).getByTestId("mock-save"));
    await waitFor(() => {
      expect(backend.argsOf("imported_set_mock")).toEqual([{ name: "Billing API", definition: "get_invoice", mock: null }]);
    });
    fireEvent.click(screen.getByRole("button", { name: "Remove" }));
    expect((await screen.findByTestId("imported-remove-dialog")).textContent).toContain("Remove Billing API?");
    fireEvent.click(screen.getByTestId("imported-remove-dialog-confirm"));
    await waitFor(() => {
      expect(screen.queryAllByTestId("imported-set")).toEqual([]);
    });
    expect(backend.argsOf("imported_remove")).toEqual([{ name: "Billing API" }]);
  });
});
