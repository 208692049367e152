/**
 * Pure helpers over a method's JSON Schema: flattening it into indented rows a developer can
 * read at a glance (name, type, required, default, enum, constraints, description), and the
 * example arguments "Load into executor" starts from.
 */
import type { Value } from "../../lib/ipc";

export type JsonObject = Record<string, Value>;

export function isObject(value: Value | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** How a row relates to its parent: a named property, array items, extra keys or a variant. */
export type SchemaRowKind = "property" | "items" | "additional" | "variant";

export interface SchemaRow {
  /** Unique within one schema: a JSON-pointer-like path. */
  path: string;
  name: string;
  kind: SchemaRowKind;
  depth: number;
  type: string;
  required: boolean;
  /** JSON text of the default, so `" "` and `"1"` stay distinguishable from 1. */
  defaultValue: string | null;
  enumValues: string[];
  description: string | null;
  constraints: string[];
}

/** Nesting deeper than this is cut off: real schemas never need it, pathological ones would flood. */
const MAX_DEPTH = 8;

const COMBINATORS = ["oneOf", "anyOf", "allOf"] as const;

function json(value: Value): string {
  return JSON.stringify(value);
}

function valueType(value: Value): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The item schema of an array, when it is a single schema (tuple forms are shown as `any`). */
function itemsOf(schema: JsonObject): JsonObject | null {
  const items = schema.items;
  return isObject(items) ? items : null;
}

/** A short type label: `string`, `integer | null`, `string[]`, `object`, `one of 2`, `$ref Foo`. */
export function typeLabel(schema: JsonObject): string {
  const declared = schema.type;
  if (typeof declared === "string") {
    if (declared === "array") {
      const items = itemsOf(schema);
      if (items && typeof items.type === "string") return `${items.type}[]`;
    }
    return declared;
  }
  if (Array.isArray(declared)) {
    const names = declared.filter((entry): entry is string => typeof entry === "string");
    if (names.length > 0) return names.join(" | ");
  }
  if (typeof schema.$ref === "string") {
    return `$ref ${schema.$ref.split("/").pop() ?? schema.$ref}`;
  }
  for (const combinator of COMBINATORS) {
    const variants = schema[combinator];
    if (Array.isArray(variants)) {
      return `${combinator === "oneOf" ? "one of" : combinator === "anyOf" ? "any of" : "all of"} ${String(variants.length)}`;
    }
  }
  if ("const" in schema) return valueType(schema.const ?? null);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const kinds = new Set(schema.enum.map(valueType));
    return [...kinds].join(" | ");
  }
  if (isObject(schema.properties)) return "object";
  if (isObject(schema.items)) return "array";
  return "any";
}

function constraintsOf(schema: JsonObject): string[] {
  const out: string[] = [];
  const number = (key: string): number | null => {
    const value = schema[key];
    return typeof value === "number" ? value : null;
  };
  const min = number("minimum");
  const max = number("maximum");
  const exclusiveMin = number("exclusiveMinimum");
  const exclusiveMax = number("exclusiveMaximum");
  const lower = min !== null ? `${String(min)} ≤ ` : exclusiveMin !== null ? `${String(exclusiveMin)} < ` : "";
  const upper = max !== null ? ` ≤ ${String(max)}` : exclusiveMax !== null ? ` < ${String(exclusiveMax)}` : "";
  if (lower !== "" || upper !== "") out.push(`${lower}value${upper}`);
  const multipleOf = number("multipleOf");
  if (multipleOf !== null) out.push(`multiple of ${String(multipleOf)}`);
  const minLength = number("minLength");
  const maxLength = number("maxLength");
  if (minLength !== null || maxLength !== null) {
    out.push(`length ${minLength !== null ? String(minLength) : "0"}…${maxLength !== null ? String(maxLength) : "∞"}`);
  }
  const minItems = number("minItems");
  const maxItems = number("maxItems");
  if (minItems !== null || maxItems !== null) {
    out.push(`${minItems !== null ? String(minItems) : "0"}…${maxItems !== null ? String(maxItems) : "∞"} items`);
  }
  if (schema.uniqueItems === true) out.push("unique items");
  if (typeof schema.format === "string") out.push(`format ${schema.format}`);
  if (typeof schema.pattern === "string") out.push(`pattern ${schema.pattern}`);
  if ("const" in schema) out.push(`const ${json(schema.const ?? null)}`);
  if (schema.additionalProperties === false && isObject(schema.properties)) out.push("no other keys");
  if (Array.isArray(schema.examples) && schema.examples.length > 0) {
    out.push(`e.g. ${schema.examples.map(json).join(", ")}`);
  }
  if (schema.deprecated === true) out.push("deprecated");
  return out;
}

/** Whether a schema has anything worth a row of its own beyond a bare type. */
function hasDetail(schema: JsonObject): boolean {
  return Object.keys(schema).some((key) => key !== "type");
}

/**
 * The schema as rows, parents before children: object properties, then (indented) nested
 * properties, array items that carry more than a bare type, typed extra keys and the variants
 * of oneOf / anyOf / allOf.
 */
export function schemaRows(schema: Value): SchemaRow[] {
  const rows: SchemaRow[] = [];
  if (isObject(schema)) visitChildren(schema, "", 0, rows);
  return rows;
}

function visitChildren(schema: JsonObject, path: string, depth: number, rows: SchemaRow[]): void {
  if (depth >= MAX_DEPTH) return;
  const properties = schema.properties;
  if (isObject(properties)) {
    const required = new Set(
      Array.isArray(schema.required) ? schema.required.filter((v): v is string => typeof v === "string") : [],
    );
    for (const [name, child] of Object.entries(properties)) {
      visit(isObject(child) ? child : {}, name, "property", `${path}/${name}`, depth, required.has(name), rows);
    }
  }
  const items = itemsOf(schema);
  // A bare `{type: "string"}` is already said by the parent's `string[]` label.
  if (items && hasDetail(items)) visit(items, "[ ]", "items", `${path}/[]`, depth, false, rows);
  const additional = schema.additionalProperties;
  if (isObject(additional) && Object.keys(additional).length > 0) {
    visit(additional, "{key}", "additional", `${path}/{}`, depth, false, rows);
  }
  for (const combinator of COMBINATORS) {
    const variants = schema[combinator];
    if (!Array.isArray(variants)) continue;
    variants.forEach((variant, index) => {
      if (isObject(variant)) {
        visit(variant, `${combinator}[${String(index)}]`, "variant", `${path}/${combinator}/${String(index)}`, depth, false, rows);
      }
    });
  }
}

function visit(
  schema: JsonObject,
  name: string,
  kind: SchemaRowKind,
  path: string,
  depth: number,
  required: boolean,
  rows: SchemaRow[],
): void {
  rows.push({
    path,
    name,
    kind,
    depth,
    type: typeLabel(schema),
    required,
    defaultValue: "default" in schema ? json(schema.default ?? null) : null,
    enumValues: Array.isArray(schema.enum) ? schema.enum.map(json) : [],
    description: typeof schema.description === "string" && schema.description !== "" ? schema.description : null,
    constraints: constraintsOf(schema),
  });
  visitChildren(schema, path, depth + 1, rows);
}

/** Notes about the top-level object itself (it is not a row). */
export function rootNotes(schema: Value): string[] {
  if (!isObject(schema)) return [`The schema is not an object: ${json(schema)}`];
  const notes: string[] = [];
  if (schema.additionalProperties === false) notes.push("No other keys are accepted.");
  if (typeof schema.description === "string" && schema.description !== "") notes.unshift(schema.description);
  return notes;
}

/** The defaults of the top-level properties: what "Load into executor" starts from. */
export function exampleArgs(schema: Value): Record<string, Value> {
  const args: Record<string, Value> = {};
  if (!isObject(schema) || !isObject(schema.properties)) return args;
  for (const [name, property] of Object.entries(schema.properties)) {
    if (isObject(property) && "default" in property) args[name] = property.default ?? null;
  }
  return args;
}

/** True when the schema declares no properties at all (nothing to show but "no parameters"). */
export function hasNoParameters(schema: Value): boolean {
  if (!isObject(schema)) return false;
  const properties = schema.properties;
  const noProperties = properties === undefined || (isObject(properties) && Object.keys(properties).length === 0);
  return noProperties && !COMBINATORS.some((c) => c in schema) && !isObject(schema.additionalProperties);
}
