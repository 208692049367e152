/**
 * The form an MCP server asks for (`elicitation/create`), read from its requested schema: MCP's
 * restricted JSON Schema, a flat object of strings (with `email`, `uri`, `date`, `date-time`
 * formats), numbers, integers, booleans and enums. Enums come in SEP-1330's shapes: `enum`,
 * legacy `enum` + `enumNames`, `oneOf` of `{const, title}`, and arrays of `enum` / `anyOf`
 * items for multi-select. Fields start at the schema's defaults (SEP-1034); the values become
 * the answer's content, left out when empty. The backend checks the answer against the schema
 * again and says what to fix.
 */
import type { Value } from "../../lib/ipc";

export interface Choice {
  value: string;
  label: string;
}

export type FieldKind =
  | { kind: "text"; format: string | null }
  | { kind: "number"; integer: boolean; minimum: number | null; maximum: number | null }
  | { kind: "boolean" }
  | { kind: "choice"; options: Choice[] }
  | { kind: "multi"; options: Choice[]; minItems: number | null; maxItems: number | null };

export interface Field {
  name: string;
  label: string;
  description: string | null;
  required: boolean;
  kind: FieldKind;
}

/** What the inputs hold: text and numbers as typed, booleans, and selected option values. */
export type FormValue = string | boolean | string[];
export type FormValues = Record<string, FormValue>;

type JsonObject = Record<string, Value>;

function isObject(value: Value | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: Value | undefined): string | null {
  return typeof value === "string" ? value : null;
}

function num(value: Value | undefined): number | null {
  return typeof value === "number" ? value : null;
}

/** The options of an enum in any of SEP-1330's shapes, or null if this is not one. */
function choices(schema: JsonObject): Choice[] | null {
  for (const key of ["oneOf", "anyOf"]) {
    const variants = schema[key];
    if (Array.isArray(variants)) {
      return variants.filter(isObject).flatMap((variant) => {
        const value = variant.const;
        if (value === undefined || value === null) return [];
        const shown = typeof value === "string" ? value : JSON.stringify(value);
        return [{ value: shown, label: text(variant.title) ?? shown }];
      });
    }
  }
  const values = schema.enum;
  if (!Array.isArray(values)) return null;
  const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
  return values.map((value, i) => {
    const shown = typeof value === "string" ? value : JSON.stringify(value);
    return { value: shown, label: text(names[i]) ?? shown };
  });
}

function kindOf(schema: JsonObject): FieldKind {
  const options = choices(schema);
  if (options) return { kind: "choice", options };
  switch (schema.type) {
    case "number":
    case "integer":
      return { kind: "number", integer: schema.type === "integer", minimum: num(schema.minimum), maximum: num(schema.maximum) };
    case "boolean":
      return { kind: "boolean" };
    case "array": {
      const items = schema.items;
      const itemOptions = isObject(items) ? choices(items) : null;
      if (itemOptions) {
        return { kind: "multi", options: itemOptions, minItems: num(schema.minItems), maxItems: num(schema.maxItems) };
      }
      return { kind: "text", format: null };
    }
    default:
      return { kind: "text", format: text(schema.format) };
  }
}

/** The fields in the order the server listed them. */
export function fieldsOf(schema: Value): Field[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = Array.isArray(schema.required) ? schema.required.filter((n) => typeof n === "string") : [];
  return Object.entries(schema.properties).flatMap(([name, property]) => {
    if (!isObject(property)) return [];
    return [
      {
        name,
        label: text(property.title) ?? name,
        description: text(property.description),
        required: required.includes(name),
        kind: kindOf(property),
      },
    ];
  });
}

/** Every field at the schema's default, or empty (a checkbox unticked). */
export function initialValues(schema: Value, fields: Field[]): FormValues {
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const values: FormValues = {};
  for (const field of fields) {
    const property = properties[field.name];
    const given = isObject(property) ? property.default : undefined;
    switch (field.kind.kind) {
      case "boolean":
        values[field.name] = given === true;
        break;
      case "multi":
        values[field.name] = Array.isArray(given) ? given.map((v) => (typeof v === "string" ? v : JSON.stringify(v))) : [];
        break;
      default:
        values[field.name] =
          given === undefined || given === null ? "" : typeof given === "string" ? given : JSON.stringify(given);
    }
  }
  return values;
}

export type Outcome = { content: JsonObject; errors: null } | { content: null; errors: Record<string, string> };

/** The answer's content, or what to fix field by field. */
export function toContent(fields: Field[], values: FormValues): Outcome {
  const content: JsonObject = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const value = values[field.name];
    const { kind } = field;
    if (kind.kind === "boolean") {
      content[field.name] = value === true;
      continue;
    }
    if (kind.kind === "multi") {
      const picked = Array.isArray(value) ? value : [];
      if (kind.minItems !== null && picked.length < kind.minItems) errors[field.name] = `pick at least ${String(kind.minItems)}`;
      else if (kind.maxItems !== null && picked.length > kind.maxItems) errors[field.name] = `pick at most ${String(kind.maxItems)}`;
      else content[field.name] = picked;
      continue;
    }
    const typed = typeof value === "string" ? value.trim() : "";
    if (typed === "") {
      if (field.required) errors[field.name] = "required";
      continue;
    }
    if (kind.kind === "number") {
      const number = Number(typed);
      if (!Number.isFinite(number)) errors[field.name] = "not a number";
      else if (kind.integer && !Number.isInteger(number)) errors[field.name] = "a whole number";
      else if (kind.minimum !== null && number < kind.minimum) errors[field.name] = `at least ${String(kind.minimum)}`;
      else if (kind.maximum !== null && number > kind.maximum) errors[field.name] = `at most ${String(kind.maximum)}`;
      else content[field.name] = number;
      continue;
    }
    content[field.name] = typed;
  }
  return Object.keys(errors).length === 0 ? { content, errors: null } : { content: null, errors };
}
