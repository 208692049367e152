/** Schema flattening, type labels, example arguments and annotation badges. */
import { describe, expect, it } from "vitest";

import type { MethodMetadata } from "../../lib/ipc";
import { methodBadges } from "./annotations";
import { exampleArgs, hasNoParameters, schemaRows, typeLabel } from "./schema";

describe("typeLabel", () => {
  it("names plain, union, array, enum, const, ref and combined types", () => {
    expect(typeLabel({ type: "string" })).toBe("string");
    expect(typeLabel({ type: ["integer", "null"] })).toBe("integer | null");
    expect(typeLabel({ type: "array", items: { type: "string" } })).toBe("string[]");
    expect(typeLabel({ type: "array" })).toBe("array");
    expect(typeLabel({ enum: ["a", "b"] })).toBe("string");
    expect(typeLabel({ const: 3 })).toBe("integer");
    expect(typeLabel({ $ref: "#/$defs/Point" })).toBe("$ref Point");
    expect(typeLabel({ oneOf: [{ type: "string" }, { type: "number" }] })).toBe("one of 2");
    expect(typeLabel({ properties: {} })).toBe("object");
    expect(typeLabel({})).toBe("any");
  });
});

describe("schemaRows", () => {
  it("lists nested properties, item schemas, typed extra keys and variants with depth", () => {
    const rows = schemaRows({
      type: "object",
      required: ["target"],
      properties: {
        target: {
          oneOf: [{ type: "string", format: "uri" }, { type: "object", properties: { path: { type: "string" } } }],
        },
        headers: { type: "object", additionalProperties: { type: "string", maxLength: 100 } },
        tags: { type: "array", items: { type: "string" }, minItems: 1, uniqueItems: true },
        points: { type: "array", items: { type: "object", properties: { x: { type: "number" } } } },
      },
    });
    expect(rows.map((row) => [row.path, row.depth, row.type])).toEqual([
      ["/target", 0, "one of 2"],
      ["/target/oneOf/0", 1, "string"],
      ["/target/oneOf/1", 1, "object"],
      ["/target/oneOf/1/path", 2, "string"],
      ["/headers", 0, "object"],
      ["/headers/{}", 1, "string"],
      ["/tags", 0, "string[]"],
      ["/points", 0, "object[]"],
      ["/points/[]", 1, "object"],
      ["/points/[]/x", 2, "number"],
    ]);
    expect(rows[0]?.required).toBe(true);
    expect(rows[1]?.constraints).toEqual(["format uri"]);
    expect(rows[5]?.constraints).toEqual(["length 0…100"]);
    expect(rows[6]?.constraints).toEqual(["1…∞ items", "unique items"]);
  });

  it("keeps defaults and enum values as JSON so strings and numbers stay apart", () => {
    const [row] = schemaRows({ properties: { sep: { type: "string", default: " ", enum: [" ", "1"], examples: ["x"] } } });
    expect(row?.defaultValue).toBe('" "');
    expect(row?.enumValues).toEqual(['" "', '"1"']);
    expect(row?.constraints).toEqual(['e.g. "x"']);
  });

  it("stops at a bounded depth", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 20; i++) schema = { type: "object", properties: { deeper: schema } };
    expect(schemaRows(schema as never).length).toBe(8);
  });
});

describe("exampleArgs", () => {
  it("takes the defaults of the top-level properties only", () => {
    expect(
      exampleArgs({
        type: "object",
        properties: {
          a: { type: "integer", default: 1 },
          b: { type: "string" },
          c: { type: "object", properties: { d: { default: true } } },
          e: { default: null },
        },
      }),
    ).toEqual({ a: 1, e: null });
    expect(exampleArgs({ type: "object" })).toEqual({});
    expect(exampleArgs(null)).toEqual({});
  });

  it("recognises a method without parameters", () => {
    expect(hasNoParameters({ type: "object", properties: {} })).toBe(true);
    expect(hasNoParameters({ type: "object", properties: { a: {} } })).toBe(false);
  });
});

describe("methodBadges", () => {
  const meta = (partial: Partial<MethodMetadata>): MethodMetadata => ({
    name: "m",
    description: "",
    parameters: {},
    agent_callable: true,
    ...partial,
  });
  const labels = (partial: Partial<MethodMetadata>) => methodBadges(meta(partial)).map((badge) => badge.label);

  it("treats a method that states nothing as destructive", () => {
    expect(labels({})).toEqual(["destructive (assumed)"]);
    expect(labels({ annotations: { idempotent: true } })).toEqual(["destructive (assumed)", "idempotent"]);
  });

  it("trusts only an explicit read-only or non-destructive hint", () => {
    expect(labels({ annotations: { read_only: true, destructive: true } })).toEqual(["read-only"]);
    expect(labels({ annotations: { destructive: false } })).toEqual([]);
    expect(labels({ annotations: { destructive: true, open_world: true }, agent_callable: false })).toEqual([
      "destructive",
      "open-world",
      "not agent-callable",
    ]);
  });
});
