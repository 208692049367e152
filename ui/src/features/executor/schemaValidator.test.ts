/** The cfworker-backed validator: issue paths, wrapper filtering, rjsf's ValidatorType contract. */
import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";

import { issuesToErrorSchema, schemaValidator, toJsonValue, validateArgs } from "./schemaValidator";

const schema: RJSFSchema = {
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 2 },
    options: {
      type: "object",
      properties: { depth: { type: "integer" } },
      additionalProperties: false,
    },
    items: {
      type: "array",
      items: { type: "object", required: ["kind"], properties: { kind: { enum: ["a", "b"] } } },
    },
    target: { oneOf: [{ type: "string" }, { type: "number" }] },
    "odd/key": { type: "boolean" },
  },
};

describe("validateArgs", () => {
  it("accepts valid data", () => {
    expect(validateArgs(schema, { name: "ok", items: [{ kind: "a" }], target: 3 })).toEqual([]);
  });

  it("reports each problem once, at its JSON pointer, without wrapper noise", () => {
    const issues = validateArgs(schema, {
      name: "x",
      options: { depth: 1.5, extra: true },
      items: [{ kind: "c" }, {}],
      target: true,
      "odd/key": "yes",
    });
    const lines = issues.map((i) => `- ${i.path}: ${i.message}`);
    expect(lines).toEqual([
      "- /name: String is too short (1 < 2)",
      '- /options/depth: Instance type "number" is invalid. Expected "integer"',
      '- /options: property "extra" is not allowed',
      '- /items/0/kind: Instance does not match any of ["a","b"]',
      '- /items/1: missing required property "kind"',
      "- /target: Instance does not match exactly one subschema (0 matches)",
      '- /odd~1key: Instance type "string" is invalid. Expected "boolean"',
    ]);
  });

  it("reports a missing required property at the object and names it", () => {
    const [issue] = validateArgs(schema, {});
    expect(issue).toMatchObject({ path: "/", keyword: "required", missing: "name" });
  });

  it("treats undefined members as absent, like the backend receives them", () => {
    expect(validateArgs(schema, { name: undefined }).map((i) => i.missing)).toEqual(["name"]);
    expect(toJsonValue({ a: undefined, b: [undefined, 1], c: Number.NaN })).toEqual({ b: [null, 1], c: null });
  });

  it("follows local $refs", () => {
    const withDefs = {
      $defs: { point: { type: "object", properties: { x: { type: "number" } } } },
      type: "object",
      properties: { at: { $ref: "#/$defs/point" } },
    };
    expect(validateArgs(withDefs, { at: { x: "1" } }).map((i) => i.path)).toEqual(["/at/x"]);
  });
});

describe("schemaValidator (rjsf ValidatorType)", () => {
  it("puts errors in the error schema under the failing field", () => {
    const { errors, errorSchema } = schemaValidator.validateFormData({ name: "x", items: [{}] }, schema);
    expect(errors.map((e) => e.property)).toEqual([".name", ".items.0.kind"]);
    expect(errors[1]?.message).toBe("is a required property");
    expect(errorSchema).toMatchObject({
      name: { __errors: ["String is too short (1 < 2)"] },
      items: { 0: { kind: { __errors: ["is a required property"] } } },
    });
  });

  it("checks a sub-schema whose $refs point into the root", () => {
    const root: RJSFSchema = {
      definitions: { mode: { enum: ["fast", "slow"] } },
      type: "object",
      properties: { mode: { $ref: "#/definitions/mode" } },
    };
    const option: RJSFSchema = { type: "object", properties: { mode: { $ref: "#/definitions/mode" } } };
    expect(schemaValidator.isValid(option, { mode: "fast" }, root)).toBe(true);
    expect(schemaValidator.isValid(option, { mode: "warp" }, root)).toBe(false);
  });

  it("applies transformErrors and customValidate", () => {
    const result = schemaValidator.validateFormData(
      { name: "x" },
      schema,
      (_data, errors) => {
        errors.addError("custom problem");
        return errors;
      },
      (errors) => errors.map((e) => ({ ...e, message: `T: ${e.message ?? ""}` })),
    );
    expect(result.errors.map((e) => e.message)).toContain("T: String is too short (1 < 2)");
    expect(result.errorSchema.__errors).toEqual(["custom problem"]);
  });

  it("turns backend issues into rjsf extra errors", () => {
    expect(issuesToErrorSchema([{ path: "/options/depth", message: "bad" }, { path: "/", message: "whole" }])).toEqual({
      options: { depth: { __errors: ["bad"] } },
      __errors: ["whole"],
    });
  });
});
