/**
 * JSON Schema validation for the Executor without eval: @cfworker/json-schema behind rjsf's
 * `ValidatorType` (the app's CSP forbids the code generation ajv relies on). Also the plain
 * `validateArgs` used outside the form, reporting issues as `{path: JSON pointer, message}`.
 */
import { Validator, type OutputUnit, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import {
  createErrorHandler,
  getDefaultFormState,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorSchema,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from "@rjsf/utils";

import type { Value } from "../../lib/ipc";

/** One problem with a value, located by a JSON pointer (`/` is the value itself). */
export interface SchemaIssue {
  path: string;
  message: string;
  keyword: string;
  /** For `required`: the missing property (the form shows the error on that field). */
  missing?: string;
}

/** Where `$ref`s of a sub-schema point when rjsf validates it against its root schema. */
const ROOT_URI = "https://toolscope.invalid/arguments-root";

/** Keywords whose failure only says "something below failed". */
const WRAPPERS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "allOf",
  "$ref",
  "$recursiveRef",
  "dependentSchemas",
  "dependencies",
  "then",
  "else",
]);

/** A JSON-compatible copy: `undefined` members dropped (as a form leaves them), non-finite numbers null. */
export function toJsonValue(input: unknown): Value | undefined {
  if (input === null || typeof input === "string" || typeof input === "boolean") return input;
  if (typeof input === "number") return Number.isFinite(input) ? input : null;
  if (Array.isArray(input)) return input.map((item: unknown) => toJsonValue(item) ?? null);
  if (typeof input === "object") {
    const out: Record<string, Value> = {};
    for (const [key, member] of Object.entries(input)) {
      const value = toJsonValue(member);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  return undefined;
}

function cloneSchema(schema: unknown): Schema | boolean {
  if (typeof schema === "boolean") return schema;
  const copy = toJsonValue(schema);
  return copy !== null && typeof copy === "object" && !Array.isArray(copy) ? copy : {};
}

/** The draft a schema declares; 2020-12 when it says nothing. */
export function draftOf(schema: unknown): SchemaDraft {
  const declared =
    schema !== null && typeof schema === "object" && "$schema" in schema && typeof schema.$schema === "string"
      ? schema.$schema
      : "";
  if (declared.includes("draft-04")) return "4";
  if (declared.includes("draft-06") || declared.includes("draft-07")) return "7";
  if (declared.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** Points every local `$ref` of a (copied) sub-schema at the root schema. */
function pointRefsAtRoot(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) pointRefsAtRoot(item);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  for (const [key, member] of Object.entries(record)) {
    if (key === "$ref" && typeof member === "string" && member.startsWith("#")) record[key] = ROOT_URI + member;
    else pointRefsAtRoot(member);
  }
}

const rootValidators = new WeakMap<object, Validator>();
const subValidators = new WeakMap<object, WeakMap<object, Validator>>();

function validatorFor(schema: unknown): Validator {
  const key = schema !== null && typeof schema === "object" ? schema : null;
  const cached = key ? rootValidators.get(key) : undefined;
  if (cached) return cached;
  const validator = new Validator(cloneSchema(schema), draftOf(schema), false);
  if (key) rootValidators.set(key, validator);
  return validator;
}

function subValidatorFor(schema: object, rootSchema: object): Validator {
  let bySchema = subValidators.get(rootSchema);
  if (!bySchema) {
    bySchema = new WeakMap();
    subValidators.set(rootSchema, bySchema);
  }
  const cached = bySchema.get(schema);
  if (cached) return cached;
  const sub = cloneSchema(schema);
  pointRefsAtRoot(sub);
  const draft = draftOf(rootSchema);
  let validator = new Validator(sub, draft, true);
  try {
    const root = cloneSchema(rootSchema);
    if (typeof root === "object") validator.addSchema(root, ROOT_URI);
  } catch {
    // A root that cannot be registered (duplicate ids): validate the sub-schema on its own.
    validator = new Validator(cloneSchema(schema), draft, true);
  }
  bySchema.set(schema, validator);
  return validator;
}

function pointerSegments(location: string): string[] {
  const pointer = location.startsWith("#") ? location.slice(1) : location;
  if (pointer === "" || pointer === "/") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // keep the raw segment
      }
      return decoded.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

/** JSON pointer (RFC 6901) of path segments; `/` for the value itself. */
export function toPointer(segments: readonly string[]): string {
  if (segments.length === 0) return "/";
  return segments.map((s) => "/" + s.replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/** Whether the unit sits inside one alternative of a oneOf/anyOf (or under a `not`) that itself failed. */
function insideFailedBranch(unit: OutputUnit, failedLocations: ReadonlySet<string>): boolean {
  const location = unit.keywordLocation;
  for (const match of location.matchAll(/\/(?:oneOf|anyOf)\/\d+(?=\/|$)/g)) {
    const combinator = location.slice(0, match.index + match[0].lastIndexOf("/"));
    if (failedLocations.has(combinator)) return true;
  }
  for (const match of location.matchAll(/\/not(?=\/)/g)) {
    if (failedLocations.has(location.slice(0, match.index + 4))) return true;
  }
  return false;
}

const quoted = (message: string) => /"((?:[^"\\]|\\.)*)"/.exec(message)?.[1];

/** The units that say what is wrong, without the "a sub-schema failed" wrappers around them. */
function issuesOf(units: readonly OutputUnit[]): SchemaIssue[] {
  const failed = new Set(units.map((u) => u.keywordLocation));
  const candidates = units.filter((u) => u.keyword !== "false" && !insideFailedBranch(u, failed));
  let kept = candidates.filter(
    (u) =>
      u.keyword !== "if" &&
      !(
        WRAPPERS.has(u.keyword) &&
        candidates.some((other) => other !== u && other.keywordLocation.startsWith(u.keywordLocation + "/"))
      ),
  );
  if (kept.length === 0) kept = [...units];
  const seen = new Set<string>();
  const issues: SchemaIssue[] = [];
  for (const unit of kept) {
    const segments = pointerSegments(unit.instanceLocation);
    let message = unit.error;
    let missing: string | undefined;
    if (unit.keyword === "required") {
      missing = quoted(unit.error);
      if (missing !== undefined) message = `missing required property "${missing}"`;
    } else if (unit.keyword === "additionalProperties" || unit.keyword === "unevaluatedProperties") {
      const name = quoted(unit.error);
      if (name !== undefined) message = `property "${name}" is not allowed`;
    }
    message = message.replace(/\.$/, "");
    const issue: SchemaIssue = { path: toPointer(segments), message, keyword: unit.keyword };
    if (missing !== undefined) issue.missing = missing;
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

/** Validates `value` against `schema`; an unusable schema is reported as one issue at `/`. */
export function validateArgs(schema: unknown, value: unknown): SchemaIssue[] {
  try {
    const result = validatorFor(schema).validate(toJsonValue(value) ?? null);
    return result.valid ? [] : issuesOf(result.errors);
  } catch (error: unknown) {
    return [{ path: "/", message: `the schema cannot be used: ${describe(error)}`, keyword: "$schema" }];
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** rjsf's accessor notation (`.a.b[0]`, `['odd key']`) for path segments. */
function toProperty(segments: readonly string[]): string {
  if (segments.length === 0) return ".";
  return segments.map((s) => (/^[A-Za-z_$][\w$]*$|^\d+$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`)).join("");
}

/** An issue as rjsf shows it: a missing required property is reported on that property's field. */
export function toRjsfError(issue: SchemaIssue): RJSFValidationError {
  const segments = pointerSegments(issue.path === "/" ? "" : issue.path);
  if (issue.missing !== undefined) {
    const property = toProperty([...segments, issue.missing]);
    return {
      name: "required",
      property,
      message: "is a required property",
      stack: `${property} is a required property`,
      params: { missingProperty: issue.missing },
      schemaPath: "",
    };
  }
  const property = toProperty(segments);
  return {
    name: issue.keyword,
    property,
    message: issue.message,
    stack: `${property === "." ? "" : property + " "}${issue.message}`.trim(),
    params: {},
    schemaPath: "",
  };
}

/** Issues (e.g. the backend's invalid_args) in the shape of rjsf's `extraErrors`. */
export function issuesToErrorSchema(issues: readonly { path: string; message: string }[]): ErrorSchema {
  return toErrorSchema(
    issues.map((issue) => {
      const property = toProperty(pointerSegments(issue.path === "/" ? "" : issue.path));
      return { property, message: issue.message, stack: `${property} ${issue.message}` };
    }),
  );
}

/** rjsf's validator interface over @cfworker/json-schema. */
class CfWorkerValidator implements ValidatorType<unknown> {
  validateFormData(
    formData: unknown,
    schema: RJSFSchema,
    customValidate?: CustomValidator<unknown>,
    transformErrors?: ErrorTransformer<unknown>,
    uiSchema?: UiSchema<unknown>,
  ): ValidationData<unknown> {
    let errors = validateArgs(schema, formData).map(toRjsfError);
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const errorSchema: ErrorSchema<unknown> = toErrorSchema<unknown>(errors);
    if (!customValidate) return { errors, errorSchema };
    const data = getDefaultFormState<unknown>(this, schema, formData, schema, true);
    const handler = customValidate(data, createErrorHandler<unknown>(data), uiSchema, errorSchema);
    return validationDataMerge<unknown>({ errors, errorSchema }, unwrapErrorHandler<unknown>(handler));
  }

  isValid(schema: RJSFSchema, formData: unknown, rootSchema: RJSFSchema): boolean {
    if (typeof schema === "boolean") return schema;
    try {
      return subValidatorFor(schema, rootSchema).validate(toJsonValue(formData) ?? null).valid;
    } catch {
      return false;
    }
  }

  // The signature is rjsf's (ValidatorType.rawValidation is generic in the error type).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  rawValidation<Result = SchemaIssue>(schema: RJSFSchema, formData?: unknown): { errors?: Result[]; validationError?: Error } {
    try {
      const result = validatorFor(schema).validate(toJsonValue(formData) ?? null);
      return { errors: issuesOf(result.errors) as Result[] };
    } catch (error: unknown) {
      return { validationError: error instanceof Error ? error : new Error(String(error)) };
    }
  }
}

/** The shared validator instance (rjsf compares validators by identity). */
export const schemaValidator: ValidatorType<unknown> = new CfWorkerValidator();
