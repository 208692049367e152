/**
 * The routing-name input: an accessible combobox (WAI-ARIA 1.2 list autocomplete) over the known
 * methods, and below it what the name resolves to — description and annotations — or a note that
 * the name is unknown (it can still be run; the backend classifies the failure).
 */
import { useId, useMemo, useState, type KeyboardEvent } from "react";

import type { Annotations } from "../../lib/ipc";
import type { CatalogMethod } from "./useToolCatalog";

const MAX_OPTIONS = 50;

/** Whether the backend will ask before running: destructive, or not stated to be read-only / non-destructive. */
export function needsConfirmation(annotations: Annotations | undefined): boolean {
  if (!annotations) return true;
  if (annotations.destructive === true) return true;
  return annotations.read_only !== true && annotations.destructive !== false;
}

function rank(method: CatalogMethod, words: readonly string[]): number {
  const name = method.routingName.toLowerCase();
  const text = `${name} ${method.meta.description.toLowerCase()} ${method.toolName.toLowerCase()}`;
  if (!words.every((w) => text.includes(w))) return -1;
  const first = words[0] ?? "";
  if (name.startsWith(first)) return 3;
  if (name.includes(first)) return 2;
  return 1;
}

/** Methods matching the typed text, best first. */
export function filterMethods(methods: Iterable<CatalogMethod>, text: string): CatalogMethod[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  const scored: { method: CatalogMethod; score: number }[] = [];
  for (const method of methods) {
    const score = words.length === 0 ? 1 : rank(method, words);
    if (score > 0) scored.push({ method, score });
  }
  scored.sort((a, b) => b.score - a.score || a.method.routingName.localeCompare(b.method.routingName));
  return scored.slice(0, MAX_OPTIONS).map((s) => s.method);
}

export function annotationBadges(annotations: Annotations | undefined): string[] {
  const a = annotations ?? {};
  const badges: string[] = [];
  if (a.read_only === true) badges.push("read-only");
  if (a.destructive === true) badges.push("destructive");
  if (a.destructive === false) badges.push("non-destructive");
  if (a.idempotent === true) badges.push("idempotent");
  if (a.open_world === true) badges.push("open-world");
  return badges;
}

interface Props {
  value: string;
  onChange: (name: string) => void;
  methods: ReadonlyMap<string, CatalogMethod>;
  catalogLoading: boolean;
  catalogError: string | null;
  onReload: () => void;
}

export function ToolNameInput({ value, onChange, methods, catalogLoading, catalogError, onReload }: Props) {
  const id = useId();
  const listId = `${id}-list`;
  const infoId = `${id}-info`;
  const [open, setOpen] = useState(false);
  const [activeIndex, setActiveIndex] = useState(-1);
  const options = useMemo(() => (open ? filterMethods(methods.values(), value) : []), [open, methods, value]);
  const expanded = open && options.length > 0;
  const active = expanded && activeIndex >= 0 ? options[activeIndex] : undefined;
  const resolved = methods.get(value.trim());

  const choose = (method: CatalogMethod) => {
    onChange(method.routingName);
    setOpen(false);
    setActiveIndex(-1);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    switch (event.key) {
      case "ArrowDown":
        event.preventDefault();
        if (!open) setOpen(true);
        setActiveIndex((i) => (options.length === 0 ? -1 : (i + 1) % options.length));
        break;
      case "ArrowUp":
        event.preventDefault();
        if (!open) setOpen(true);
        setActiveIndex((i) => (options.length === 0 ? -1 : (i - 1 + options.length) % options.length));
        break;
      case "Enter":
        if (active && !event.ctrlKey && !event.metaKey) {
          event.preventDefault();
          choose(active);
        }
        break;
      case "Escape":
        if (expanded) {
          event.preventDefault();
          setOpen(false);
          setActiveIndex(-1);
        }
        break;
      default:
    }
  };

  return (
    <div className="ex-name">
      <label className="ex-label" htmlFor={id}>
        Routing name
      </label>
      <div className="ex-combobox">
        <input
          id={id}
          className="ex-input ex-name-input"
          data-testid="executor-tool-name"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={expanded}
          aria-controls={listId}
          aria-activedescendant={active ? `${listId}-${String(activeIndex)}` : undefined}
          aria-describedby={infoId}
          autoComplete="off"
          spellCheck={false}
          placeholder="toolId_methodName"
          value={value}
          onChange={(event) => {
            onChange(event.target.value);
            setOpen(true);
            setActiveIndex(-1);
          }}
          onFocus={() => {
            setOpen(true);
          }}
          onBlur={() => {
            setOpen(false);
            setActiveIndex(-1);
          }}
          onKeyDown={onKeyDown}
        />
        <ul id={listId} role="listbox" aria-label="Known methods" className="ex-options" hidden={!expanded}>
          {options.map((method, index) => (
            <li
              key={method.routingName}
              id={`${listId}-${String(index)}`}
              role="option"
              aria-selected={index === activeIndex}
              className="ex-option"
              // mousedown, not click: the input must not lose focus (and close the list) first
              onMouseDown={(event) => {
                event.preventDefault();
                choose(method);
              }}
            >
              <code>{method.routingName}</code>
              {method.meta.description !== "" && <span className="ex-option-description">{method.meta.description}</span>}
            </li>
          ))}
        </ul>
      </div>
      <div id={infoId} className="ex-method-info" aria-live="polite">
        <MethodInfo name={value.trim()} method={resolved} loading={catalogLoading} error={catalogError} onReload={onReload} />
      </div>
    </div>
  );
}

function MethodInfo({
  name,
  method,
  loading,
  error,
  onReload,
}: {
  name: string;
  method: CatalogMethod | undefined;
  loading: boolean;
  error: string | null;
  onReload: () => void;
}) {
  if (error !== null && !method) {
    return (
      <p className="ex-warning">
        Methods could not be listed ({error}); any routing name can still be run.{" "}
        <button type="button" className="button ex-small" onClick={onReload}>
          Retry
        </button>
      </p>
    );
  }
  if (name === "") {
    return <p className="muted">Pick a method or type a routing name: {"{toolId}_{methodName}"}.</p>;
  }
  if (!method) {
    if (loading) return <p className="muted">Looking up methods…</p>;
    return (
      <p className="ex-warning" data-testid="executor-unknown-name">
        Unknown routing name <code>{name}</code>. It can still be run: the backend will classify the failure.
      </p>
    );
  }
  const badges = annotationBadges(method.meta.annotations);
  return (
    <div data-testid="executor-method-info">
      <p className="ex-method-description">{method.meta.description || <span className="muted">No description.</span>}</p>
      <p className="ex-badges">
        <span className="badge">{method.source}</span>
        <span className="badge badge-muted">{method.toolName}</span>
        {badges.map((b) => (
          <span key={b} className={b === "destructive" ? "badge ex-badge-danger" : "badge badge-ok"}>
            {b}
          </span>
        ))}
        {badges.length === 0 && <span className="badge badge-muted">no annotations</span>}
        {needsConfirmation(method.meta.annotations) && (
          <span className="badge ex-badge-danger" title="Treated as destructive: the backend asks before running it">
            asks for confirmation
          </span>
        )}
        {!method.meta.agent_callable && <span className="badge ex-badge-warn">not agent-callable</span>}
        {!method.enabled && <span className="badge ex-badge-warn">tool disabled in config</span>}
      </p>
    </div>
  );
}
