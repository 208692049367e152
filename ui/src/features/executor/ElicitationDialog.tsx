/**
 * An MCP server asks the person for input while a call runs (`elicitation/create`): a modal over
 * the whole app with which server asks, its message, and a form built from the requested schema
 * (elicitationForm.ts). Accept sends the values, Decline says no, Cancel (or Esc) dismisses.
 * A sampling request (`sampling/createMessage`) waits the same way with no fields: the dialog
 * shows what would reach the model (SamplingReview) and accepting sends it.
 */
import { useId, useRef, useState, type KeyboardEvent, type SyntheticEvent } from "react";
import { createPortal } from "react-dom";

import { dialogKeys, useFocusWhileOpen } from "../../lib/dialogKeys";
import type { ElicitationAnswer, PendingElicitation } from "../../lib/ipc";
import { SamplingReview } from "./SamplingReview";
import { fieldsOf, initialValues, toContent, type Field, type FormValue, type FormValues } from "./elicitationForm";

interface Props {
  pending: PendingElicitation;
  /** The backend's word on the last answer (values it refused), if any. */
  error: string | null;
  onAnswer: (answer: ElicitationAnswer) => void;
}

const INPUT_TYPES: Record<string, string> = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

export function ElicitationDialog({ pending, error, onAnswer }: Props) {
  const id = useId();
  const dialog = useRef<HTMLFormElement>(null);
  const { request, sampling } = pending;
  const [fields] = useState(() => fieldsOf(request.requested_schema));
  const [values, setValues] = useState<FormValues>(() => initialValues(request.requested_schema, fields));
  const [problems, setProblems] = useState<Record<string, string>>({});

  useFocusWhileOpen(() => dialog.current?.querySelector<HTMLElement>("input, select, button"), pending.elicitation_id);

  const set = (name: string, value: FormValue) => {
    setValues((current) => ({ ...current, [name]: value }));
  };

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const outcome = toContent(fields, values);
    if (outcome.errors) {
      setProblems(outcome.errors);
      return;
    }
    setProblems({});
    onAnswer({ action: "accept", content: outcome.content });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    dialogKeys(event, dialog.current, () => {
      onAnswer({ action: "cancel", content: null });
    });
  };

  return createPortal(
    <div className="ex-backdrop modal-backdrop">
      <form
        ref={dialog}
        className="ex-dialog ex-elicitation modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-message`}
        data-testid="elicitation-dialog"
        onKeyDown={onKeyDown}
        onSubmit={submit}
        noValidate
      >
        <h3 id={`${id}-title`}>
          MCP server <code data-testid="elicitation-server">{request.server}</code>{" "}
          {sampling === null ? "asks for input" : "asks for a model reply"}
        </h3>
        {request.task_id !== null && <p className="muted">For its task {request.task_id}</p>}
        {sampling === null ? (
          <p id={`${id}-message`} data-testid="elicitation-message">
            {request.message}
          </p>
        ) : (
          <SamplingReview review={sampling} summaryId={`${id}-message`} />
        )}
        {fields.map((field) => (
          <FieldInput
            key={field.name}
            id={`${id}-${field.name}`}
            field={field}
            value={values[field.name]}
            problem={problems[field.name] ?? null}
            onChange={(value) => {
              set(field.name, value);
            }}
          />
        ))}
        {error !== null && (
          <p className="ex-field-error" role="alert" data-testid="elicitation-error">
            {error}
          </p>
        )}
        <div className="modal-buttons">
          <button type="button" className="button" data-testid="elicitation-cancel" onClick={() => {
            onAnswer({ action: "cancel", content: null });
          }}>
            Cancel <kbd>Esc</kbd>
          </button>
          <button type="button" className="button" data-testid="elicitation-decline" onClick={() => {
            onAnswer({ action: "decline", content: null });
          }}>
            {sampling === null ? "Decline" : "Refuse"}
          </button>
          <button type="submit" className="button ex-run" data-testid="elicitation-accept">
            {sampling === null ? "Accept and send" : "Send to the model"}
          </button>
        </div>
      </form>
    </div>,
    document.body,
  );
}

interface FieldProps {
  id: string;
  field: Field;
  value: FormValue | undefined;
  problem: string | null;
  onChange: (value: FormValue) => void;
}

function FieldInput({ id, field, value, problem, onChange }: FieldProps) {
  const { kind } = field;
  const label = `${field.label}${field.required ? " *" : ""}`;
  const described = field.description ?? undefined;
  let control;
  if (kind.kind === "boolean") {
    control = (
      <input id={id} type="checkbox" checked={value === true} onChange={(e) => { onChange(e.target.checked); }} />
    );
  } else if (kind.kind === "choice") {
    control = (
      <select id={id} value={typeof value === "string" ? value : ""} onChange={(e) => { onChange(e.target.value); }}>
        <option value="">{field.required ? "Choose…" : "(none)"}</option>
        {kind.options.map((option) => (
          <option key={option.value} value={option.value}>{option.label}</option>
        ))}
      </select>
    );
  } else if (kind.kind === "multi") {
    const picked = Array.isArray(value) ? value : [];
    control = (
      <span className="ex-elicitation-options" role="group" aria-labelledby={`${id}-label`}>
        {kind.options.map((option) => (
          <label key={option.value}>
            <input
              type="checkbox"
              checked={picked.includes(option.value)}
              onChange={(e) => {
                onChange(e.target.checked ? [...picked, option.value] : picked.filter((v) => v !== option.value));
              }}
            />
            {option.label}
          </label>
        ))}
      </span>
    );
  } else {
    const type = kind.kind === "number" ? "number" : (INPUT_TYPES[kind.format ?? ""] ?? "text");
    control = (
      <input
        id={id}
        type={type}
        step={kind.kind === "number" && kind.integer ? 1 : "any"}
        value={typeof value === "string" ? value : ""}
        onChange={(e) => { onChange(e.target.value); }}
      />
    );
  }
  return (
    <div className="ex-elicitation-field" data-testid={`elicitation-field-${field.name}`}>
      <label id={`${id}-label`} htmlFor={kind.kind === "multi" ? undefined : id} title={described}>
        {label}
      </label>
      {control}
      {described !== undefined && <span className="muted">{described}</span>}
      {problem !== null && (
        <span className="ex-field-error" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}
