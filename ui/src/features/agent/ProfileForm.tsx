/**
 * Adding or editing an endpoint profile: name, wire, base URL, model and where the key comes
 * from. A key entered here is sent once (`endpoint_save`'s `key`) and never shown again; an
 * edited profile with a stored key keeps it unless another source is chosen.
 */
import { useId, useState, type SyntheticEvent } from "react";

import type { EndpointProfile } from "../../lib/ipc";
import { WIRES } from "./describe";

type KeyChoice = "none" | "env" | "stored" | "enter";

const BASE_URLS: Record<string, string> = {
  openai_chat: "https://api.openai.com/v1",
  openai_responses: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
  gemini: "https://generativelanguage.googleapis.com/v1beta",
};

interface Props {
  /** The profile being edited, or null for a new one. */
  initial: EndpointProfile | null;
  taken: readonly string[];
  onSave: (profile: EndpointProfile, key: string | null) => Promise<string | null>;
  onCancel: () => void;
}

export function ProfileForm({ initial, taken, onSave, onCancel }: Props) {
  const id = useId();
  const [name, setName] = useState(initial?.name ?? "");
  const [wire, setWire] = useState(initial?.wire ?? "openai_chat");
  const [baseUrl, setBaseUrl] = useState(initial?.base_url ?? "");
  const [model, setModel] = useState(initial?.model ?? "");
  const [keyChoice, setKeyChoice] = useState<KeyChoice>(keyChoiceOf(initial));
  const [keyEnv, setKeyEnv] = useState(initial?.key_env ?? "");
  const [key, setKey] = useState("");
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    const missing = validate(trimmed, baseUrl, model, keyChoice, keyEnv, key);
    if (missing) {
      setProblem(missing);
      return;
    }
    if (initial?.key_source === "stored" && keyChoice === "stored" && trimmed !== initial.name) {
      setProblem("The stored key belongs to the old name: enter the key again to rename the profile.");
      return;
    }
    if (trimmed !== initial?.name && taken.includes(trimmed)) {
      setProblem(`A profile named "${trimmed}" already exists.`);
      return;
    }
    const profile: EndpointProfile = {
      name: trimmed,
      wire,
      base_url: baseUrl.trim(),
      model: model.trim(),
      key_source: keyChoice === "enter" ? "stored" : keyChoice,
      key_env: keyChoice === "env" ? keyEnv.trim() : null,
    };
    setSaving(true);
    setProblem(null);
    void onSave(profile, keyChoice === "enter" ? key : null).then((failure) => {
      setSaving(false);
      setKey("");
      if (failure !== null) setProblem(failure);
    });
  };

  return (
    <form className="ag-form ag-profile-form" onSubmit={submit} aria-labelledby={`${id}-title`} data-testid="profile-form">
      <h4 id={`${id}-title`}>{initial ? `Edit ${initial.name}` : "New endpoint profile"}</h4>
      <div className="ag-grid">
        <label htmlFor={`${id}-name`}>Name</label>
        <input id={`${id}-name`} className="ag-input" value={name} onChange={(e) => { setName(e.target.value); }} data-testid="profile-name" />
        <label htmlFor={`${id}-wire`}>Wire</label>
        <select id={`${id}-wire`} className="ag-input" value={wire} onChange={(e) => { setWire(e.target.value); }} data-testid="profile-wire">
          {WIRES.map((w) => (
            <option key={w.id} value={w.id}>
              {w.label} ({w.id})
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-url`}>Base URL</label>
        <input
          id={`${id}-url`}
          className="ag-input"
          type="url"
          value={baseUrl}
          placeholder={BASE_URLS[wire]}
          onChange={(e) => { setBaseUrl(e.target.value); }}
          data-testid="profile-base-url"
        />
        <label htmlFor={`${id}-model`}>Model</label>
        <input id={`${id}-model`} className="ag-input" value={model} onChange={(e) => { setModel(e.target.value); }} data-testid="profile-model" />
        <label htmlFor={`${id}-key`}>Key</label>
        <select
          id={`${id}-key`}
          className="ag-input"
          value={keyChoice}
          onChange={(e) => { setKeyChoice(e.target.value as KeyChoice); }}
          data-testid="profile-key-source"
        >
          <option value="none">None</option>
          <option value="env">Environment variable</option>
          {initial?.key_source === "stored" && <option value="stored">Keep the stored key</option>}
          <option value="enter">Enter a key (stored, never shown again)</option>
        </select>
        {keyChoice === "env" && (
          <>
            <label htmlFor={`${id}-env`}>Variable</label>
            <input
              id={`${id}-env`}
              className="ag-input ag-mono"
              value={keyEnv}
              placeholder="OPENAI_API_KEY"
              onChange={(e) => { setKeyEnv(e.target.value); }}
              data-testid="profile-key-env"
            />
          </>
        )}
        {keyChoice === "enter" && (
          <>
            <label htmlFor={`${id}-secret`}>API key</label>
            <input
              id={`${id}-secret`}
              className="ag-input"
              type="password"
              autoComplete="off"
              value={key}
              onChange={(e) => { setKey(e.target.value); }}
              data-testid="profile-key"
            />
          </>
        )}
      </div>
      {problem !== null && (
        <p className="ag-error" role="alert" data-testid="profile-problem">
          {problem}
        </p>
      )}
      <div className="ag-buttons">
        <button type="submit" className="button" disabled={saving} data-testid="profile-save">
          {saving ? "Saving…" : "Save profile"}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function keyChoiceOf(profile: EndpointProfile | null): KeyChoice {
  switch (profile?.key_source) {
    case "env":
      return "env";
    case "stored":
      return "stored";
    default:
      return "none";
  }
}

function validate(name: string, baseUrl: string, model: string, key: KeyChoice, env: string, secret: string): string | null {
  if (name === "") return "Give the profile a name.";
  if (baseUrl.trim() === "") return "Enter the endpoint's base URL.";
  if (model.trim() === "") return "Enter the model to use.";
  if (key === "env" && env.trim() === "") return "Name the environment variable holding the key.";
  if (key === "enter" && secret.trim() === "") return "Enter the key, or choose another source.";
  return null;
}
