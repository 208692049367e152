/**
 * FORM mode: an @rjsf/core form generated from the method's parameter schema, live-validated by
 * the CSP-safe cfworker validator, with the backend's invalid_args issues shown on their fields.
 * The form shows exactly the arguments that will be sent: schema defaults are not slipped in
 * (use "Fill defaults"), so a call loaded from the Parser is not altered by opening it.
 */
// The package index also loads a test helper importing @rjsf/validator-ajv8 (a devDependency of
// @rjsf/core, not installed, and not CSP-safe anyway), so the Form comes from its own module.
import Form, { type IChangeEvent } from "@rjsf/core/lib/components/Form.js";
import {
  getDefaultFormState,
  type ErrorSchema,
  type Experimental_DefaultFormStateBehavior,
  type IconButtonProps,
  type RJSFSchema,
  type UiSchema,
} from "@rjsf/utils";
import { Component, memo, useCallback, useMemo, type ErrorInfo, type ReactNode } from "react";

import type { Value } from "../../lib/ipc";
import { isArgs, type Args } from "./jsonText";
import { schemaValidator, toJsonValue } from "./schemaValidator";

/** The parameter schema as an object schema rjsf can render. */
export function formSchema(parameters: Value | undefined): RJSFSchema {
  return isArgs(parameters) ? parameters : ANY_OBJECT;
}

const ANY_OBJECT: RJSFSchema = { type: "object" };

/** The arguments a form change stands for (undefined members dropped, as on the wire). */
export function argsFromForm(formData: unknown): Args {
  const value = toJsonValue(formData);
  return isArgs(value) ? value : {};
}

const DEFAULTS_OFF: Experimental_DefaultFormStateBehavior = {
  emptyObjectFields: "skipDefaults",
  arrayMinItems: { populate: "never" },
  constAsDefaults: "never",
};

const DEFAULTS_ALL: Experimental_DefaultFormStateBehavior = { emptyObjectFields: "populateAllDefaults" };

/** `args` with the schema's defaults filled where nothing was given. */
export function withDefaults(parameters: Value | undefined, args: Args): Args {
  const schema = formSchema(parameters);
  try {
    return argsFromForm(getDefaultFormState(schemaValidator, schema, args, schema, false, DEFAULTS_ALL));
  } catch {
    return args;
  }
}

/** Top-level arguments the form has no field for (the form keeps and sends them). */
export function extraKeys(schema: RJSFSchema, args: Args): string[] {
  const properties = schema.properties;
  if (!properties || (schema.additionalProperties !== undefined && schema.additionalProperties !== false)) return [];
  if (schema.patternProperties || schema.oneOf || schema.anyOf || schema.allOf || schema.dependencies) return [];
  return Object.keys(args).filter((key) => !(key in properties));
}

const UI_SCHEMA: UiSchema = { "ui:submitButtonOptions": { norender: true } };

function textButton(symbol: string, label: string, extraClass = "") {
  function TextButton(props: IconButtonProps) {
    const { className, onClick, disabled, id, title } = props;
    return (
      <button
        type="button"
        id={id}
        className={`ex-form-button ${extraClass} ${className ?? ""}`}
        onClick={onClick}
        disabled={disabled}
        title={title ?? label}
        aria-label={label}
      >
        <span aria-hidden="true">{symbol}</span>
        {extraClass === "ex-form-add" && <span> {label}</span>}
      </button>
    );
  }
  TextButton.displayName = `TextButton(${label})`;
  return TextButton;
}

const TEMPLATES = {
  ButtonTemplates: {
    AddButton: textButton("+", "Add", "ex-form-add"),
    CopyButton: textButton("⧉", "Copy item"),
    MoveDownButton: textButton("↓", "Move down"),
    MoveUpButton: textButton("↑", "Move up"),
    RemoveButton: textButton("×", "Remove", "ex-form-remove"),
    ClearButton: textButton("×", "Clear"),
  },
};

interface Props {
  parameters: Value | undefined;
  args: Args;
  onChange: (args: Args) => void;
  extraErrors: ErrorSchema | undefined;
  onUseJson: () => void;
}

// Memoised, with a schema that keeps its identity: rjsf re-derives the whole form (and validates
// it again) when its schema prop is a new object, and the pane re-renders on every step of a run
// (running, result, history): that cost most of a run's time as the person sees it.
export const ArgsForm = memo(function ArgsForm({ parameters, args, onChange, extraErrors, onUseJson }: Props) {
  const schema = useMemo(() => formSchema(parameters), [parameters]);
  const extra = useMemo(() => extraKeys(schema, args), [schema, args]);
  const onFormChange = useCallback(
    (event: IChangeEvent<unknown>) => {
      onChange(argsFromForm(event.formData));
    },
    [onChange],
  );
  return (
    <FormBoundary schema={schema} onUseJson={onUseJson}>
      {extra.length > 0 && (
        <p className="ex-warning" data-testid="executor-extra-keys">
          Also sent, not in the schema (edit them in JSON): {extra.map((k) => JSON.stringify(k)).join(", ")}
        </p>
      )}
      <Form
        className="ex-form"
        tagName="div"
        // rjsf's default ids (root_<field>): the end-to-end tests address fields by them
        idPrefix="root"
        schema={schema}
        uiSchema={UI_SCHEMA}
        validator={schemaValidator}
        formData={args}
        onChange={onFormChange}
        liveValidate="onChange"
        showErrorList={false}
        noHtml5Validate
        templates={TEMPLATES}
        experimental_defaultFormStateBehavior={DEFAULTS_OFF}
        {...(extraErrors ? { extraErrors } : {})}
      />
    </FormBoundary>
  );
});

interface BoundaryProps {
  schema: RJSFSchema;
  onUseJson: () => void;
  children: ReactNode;
}

/** A schema the form cannot render costs the form, not the pane: JSON mode still works. */
class FormBoundary extends Component<BoundaryProps, { error: string | null; schema: RJSFSchema }> {
  constructor(props: BoundaryProps) {
    super(props);
    this.state = { error: null, schema: props.schema };
  }

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error.message : String(error) };
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: { error: string | null; schema: RJSFSchema }) {
    return props.schema === state.schema ? null : { error: null, schema: props.schema };
  }

  override componentDidCatch(_error: unknown, _info: ErrorInfo) {
    // Shown in place by render(); nothing else to do.
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="status status-error" role="alert">
        <p>The form cannot show this schema: {this.state.error}</p>
        <button type="button" className="button" onClick={this.props.onUseJson}>
          Edit as JSON
        </button>
      </div>
    );
  }
}
