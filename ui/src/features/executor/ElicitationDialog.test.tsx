/**
 * The form an MCP server asks for: built from the requested schema (every SEP-1330 enum shape
 * with its labels, defaults filled in), checked before it is sent, and answered through
 * `answer_elicitation`, with the backend's refusal shown and the form kept.
 */
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import type { ElicitationAnswer, PendingElicitation, Value } from "../../lib/ipc";
import { ElicitationDialog } from "./ElicitationDialog";
import { ElicitationHost } from "./ElicitationHost";
import { fieldsOf, initialValues, toContent } from "./elicitationForm";

afterEach(() => {
  cleanup();
  clearMocks();
});

const SCHEMA: Value = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", description: "Your full name" },
    email: { type: "string", format: "email", title: "Email" },
    age: { type: "integer", minimum: 1, maximum: 100, default: 42 },
    agree: { type: "boolean", title: "Agree", default: true },
    friend: { type: "string", enum: ["Monica", "Rachel"], default: "Rachel" },
    hero: { type: "string", oneOf: [{ const: "hero-1", title: "Superman" }, { const: "hero-2", title: "Wonder Woman" }] },
    pet: { type: "string", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"], default: "pet-1" },
    fish: { type: "array", maxItems: 1, items: { anyOf: [{ const: "fish-1", title: "Tuna" }, { const: "fish-2", title: "Salmon" }] }, default: ["fish-1"] },
  },
  required: ["name", "hero"],
};

function pending(id = "e-1"): PendingElicitation {
  return {
    elicitation_id: id,
    request: { server: "everything", message: "Please provide inputs", requested_schema: SCHEMA, task_id: "task-3" },
    sampling: null,
  };
}

function samplingRequest(): PendingElicitation {
  return {
    elicitation_id: "s-1",
    request: {
      server: "everything",
      message: "The server asks for a model reply from 'qwen' (profile 'local').",
      requested_schema: { type: "object", properties: {} },
      task_id: null,
    },
    sampling: {
      endpoint: { profile: "local", model: "qwen", base_url: "http://127.0.0.1:8000/v1" },
      request: {
        server: "everything",
        system_prompt: "You are a helpful test server.",
        messages: [{ role: "user", text: "Resource context: tides\nsecond line" }],
        max_tokens: 100,
        temperature: 0.7,
        stop_sequences: [],
        model_hints: ["claude-3-sonnet"],
        include_context: "thisServer",
        task_id: null,
      },
    },
  };
}

function options(field: string): string[] {
  const select = within(screen.getByTestId(`elicitation-field-${field}`)).getByRole("combobox");
  return [...select.querySelectorAll("option")].map((o) => o.textContent);
}

describe("the elicitation form model", () => {
  it("reads every field in order, with labels for each enum shape and the defaults", () => {
    const fields = fieldsOf(SCHEMA);
    expect(fields.map((f) => f.name)).toEqual(["name", "email", "age", "agree", "friend", "hero", "pet", "fish"]);
    expect(fields.find((f) => f.name === "pet")?.kind).toEqual({
      kind: "choice",
      options: [
        { value: "pet-1", label: "Cats" },
        { value: "pet-2", label: "Dogs" },
      ],
    });
    expect(initialValues(SCHEMA, fields)).toEqual({
      name: "",
      email: "",
      age: "42",
      agree: true,
      friend: "Rachel",
      hero: "",
      pet: "pet-1",
      fish: ["fish-1"],
    });
  });

  it("turns the values into the answer's content, or says what to fix", () => {
    const fields = fieldsOf(SCHEMA);
    const values = initialValues(SCHEMA, fields);
    expect(toContent(fields, values).errors).toEqual({ name: "required", hero: "required" });
    const filled = { ...values, name: " Ada ", hero: "hero-2", age: "7" };
    expect(toContent(fields, filled).content).toEqual({
      name: "Ada",
      age: 7,
      agree: true,
      friend: "Rachel",
      hero: "hero-2",
      pet: "pet-1",
      fish: ["fish-1"],
    });
    expect(toContent(fields, { ...filled, age: "7.5", fish: ["fish-1", "fish-2"] }).errors).toEqual({
      age: "a whole number",
      fish: "pick at most 1",
    });
    expect(toContent(fields, { ...filled, age: "500" }).errors).toEqual({ age: "at most 100" });
  });
});

describe("ElicitationDialog", () => {
  it("shows who asks and a control per field, and accepts, declines or cancels", () => {
    const answers: ElicitationAnswer[] = [];
    render(<ElicitationDialog pending={pending()} error={null} onAnswer={(a) => answers.push(a)} />);
    expect(screen.getByTestId("elicitation-server").textContent).toBe("everything");
    expect(screen.getByTestId("elicitation-message").textContent).toBe("Please provide inputs");
    expect(options("hero")).toEqual(["Choose…", "Superman", "Wonder Woman"]);
    expect(options("pet")).toEqual(["(none)", "Cats", "Dogs"]);
    expect(screen.getByLabelText("Email").getAttribute("type")).toBe("email");
    expect(screen.getByLabelText<HTMLInputElement>("age").value).toBe("42");

    // Required fields left empty: nothing is sent, the fields say why.
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    expect(answers).toEqual([]);
    expect(within(screen.getByTestId("elicitation-field-name")).getByRole("alert").textContent).toBe("required");

    fireEvent.change(screen.getByLabelText("Name *"), { target: { value: "Ada" } });
    fireEvent.change(within(screen.getByTestId("elicitation-field-hero")).getByRole("combobox"), { target: { value: "hero-1" } });
    fireEvent.click(screen.getByLabelText("Salmon"));
    fireEvent.click(screen.getByLabelText("Tuna"));
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    expect(answers[0]).toEqual({
      action: "accept",
      content: { name: "Ada", age: 42, agree: true, friend: "Rachel", hero: "hero-1", pet: "pet-1", fish: ["fish-2"] },
    });

    fireEvent.click(screen.getByTestId("elicitation-decline"));
    fireEvent.keyDown(screen.getByTestId("elicitation-dialog"), { key: "Escape" });
    expect(answers.slice(1)).toEqual([
      { action: "decline", content: null },
      { action: "cancel", content: null },
    ]);
  });
});

describe("a sampling request in the dialog", () => {
  it("shows what would reach which model, and sends or refuses it", () => {
    const answers: ElicitationAnswer[] = [];
    render(<ElicitationDialog pending={samplingRequest()} error={null} onAnswer={(a) => answers.push(a)} />);
    const review = screen.getByTestId("sampling-review");
    expect(screen.getByRole("dialog").querySelector("h3")?.textContent).toContain("asks for a model reply");
    expect(screen.getByTestId("sampling-model").textContent).toBe("qwen");
    expect(review.textContent).toContain("You are a helpful test server.");
    expect(screen.getByTestId("sampling-message").textContent).toContain("Resource context: tides\nsecond line");
    expect(review.textContent).toContain("The server prefers claude-3-sonnet");
    expect(review.textContent).toContain("none is added");
    expect(screen.queryAllByTestId(/^elicitation-field-/)).toEqual([]);

    expect(screen.getByTestId("elicitation-accept").textContent).toBe("Send to the model");
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    fireEvent.click(screen.getByTestId("elicitation-decline"));
    expect(answers).toEqual([
      { action: "accept", content: {} },
      { action: "decline", content: null },
    ]);
  });
});

describe("ElicitationHost", () => {
  it("shows what waits, sends the answer, keeps the form on a refusal and closes when done", async () => {
    let waiting = [pending()];
    const sent: { elicitationId: string; answer: ElicitationAnswer }[] = [];
    mockIPC(
      (cmd, payload) => {
        const args = payload as { elicitationId: string; answer: ElicitationAnswer };
        switch (cmd) {
          case "elicitations_pending":
            return waiting;
          case "answer_elicitation":
            sent.push(args);
            if (args.answer.action === "accept") {
              // eslint-disable-next-line @typescript-eslint/only-throw-error -- a command's error value is a plain object
              throw { kind: "invalid_input", message: "the answer does not match the requested schema: /name: too short", details: null };
            }
            waiting = [];
            return true;
          default:
            throw new Error(`unexpected command ${cmd}`);
        }
      },
      { shouldMockEvents: true },
    );
    render(<ElicitationHost />);
    expect(await screen.findByTestId("elicitation-dialog")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Name *"), { target: { value: "A" } });
    fireEvent.change(within(screen.getByTestId("elicitation-field-hero")).getByRole("combobox"), { target: { value: "hero-2" } });
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    expect((await screen.findByTestId("elicitation-error")).textContent).toContain("/name: too short");
    expect(screen.getByLabelText<HTMLInputElement>("Name *").value).toBe("A");

    fireEvent.click(screen.getByTestId("elicitation-decline"));
    await act(async () => {
      await emit("elicitations-changed", null);
    });
    expect(screen.queryByTestId("elicitation-dialog")).toBeNull();
    expect(sent.map((s) => [s.elicitationId, s.answer.action])).toEqual([
      ["e-1", "accept"],
      ["e-1", "decline"],
    ]);
  });
});
