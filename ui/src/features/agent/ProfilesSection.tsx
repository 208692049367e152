/**
 * Endpoint profiles: each with its wire, model, base URL and key source, "Test connection"
 * (the models listed, or the classified error), edit and remove (asked twice); add a new one.
 */
import { useState } from "react";

import type { EndpointProfile } from "../../lib/ipc";
import { wireLabel } from "./describe";
import { ProfileForm } from "./ProfileForm";
import type { ProfilesView, TestState } from "./useProfiles";

/** Models listed under a successful test before "and N more". */
const MODELS_SHOWN = 12;

export function ProfilesSection({ view }: { view: ProfilesView }) {
  const [editing, setEditing] = useState<EndpointProfile | "new" | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const profiles = view.profiles ?? [];

  const remove = (name: string) => {
    setRemoving(null);
    void view.remove(name).then(setProblem);
  };

  return (
    <section className="ag-section" aria-labelledby="agent-profiles-title">
      <div className="ag-section-head">
        <h3 id="agent-profiles-title">Endpoints</h3>
        <button
          type="button"
          className="button button-small"
          onClick={() => { setEditing("new"); }}
          disabled={editing !== null}
          data-testid="profile-add"
        >
          Add profile
        </button>
      </div>
      {view.error !== null && (
        <div className="status status-error" role="alert">
          <p>Profiles unavailable: {view.error}</p>
          <button type="button" className="button button-small" onClick={view.reload}>
            Try again
          </button>
        </div>
      )}
      {problem !== null && (
        <p className="ag-error" role="alert">
          {problem}
        </p>
      )}
      {view.profiles !== null && profiles.length === 0 && editing === null && (
        <p className="muted">No endpoint yet: add a profile to talk to a model.</p>
      )}
      <ul className="ag-profiles" aria-label="Endpoint profiles">
        {profiles.map((profile) => (
          <li key={profile.name} className="ag-profile" data-testid={`profile-${profile.name}`}>
            <div className="ag-profile-head">
              <strong>{profile.name}</strong>
              <span className="badge">{wireLabel(profile.wire)}</span>
              <code>{profile.model}</code>
            </div>
            <p className="muted ag-small">
              {profile.base_url} · key: {keyText(profile)}
            </p>
            <div className="ag-buttons">
              <button
                type="button"
                className="button button-small"
                disabled={view.tests.get(profile.name)?.state === "testing"}
                onClick={() => { view.test(profile.name); }}
                data-testid="profile-test"
              >
                Test connection
              </button>
              <button type="button" className="button button-small" onClick={() => { setEditing(profile); }} disabled={editing !== null}>
                Edit
              </button>
              {removing === profile.name ? (
                <>
                  <button type="button" className="button button-small ag-danger" onClick={() => { remove(profile.name); }} data-testid="profile-remove-confirm">
                    Remove {profile.name}
                  </button>
                  <button type="button" className="button button-small" onClick={() => { setRemoving(null); }}>
                    Keep
                  </button>
                </>
              ) : (
                <button type="button" className="button button-small" onClick={() => { setRemoving(profile.name); }} data-testid="profile-remove">
                  Remove
                </button>
              )}
            </div>
            <TestResult state={view.tests.get(profile.name)} />
          </li>
        ))}
      </ul>
      {editing !== null && (
        <ProfileForm
          key={editing === "new" ? "" : editing.name}
          initial={editing === "new" ? null : editing}
          taken={profiles.map((p) => p.name)}
          onSave={async (profile, key) => {
            const failure = await view.save(profile, key, editing === "new" ? null : editing.name);
            if (failure === null) setEditing(null);
            return failure;
          }}
          onCancel={() => { setEditing(null); }}
        />
      )}
    </section>
  );
}

function keyText(profile: EndpointProfile): string {
  switch (profile.key_source) {
    case "env":
      return `$${profile.key_env ?? "?"}`;
    case "stored":
      return "stored";
    default:
      return "none";
  }
}

function TestResult({ state }: { state: TestState | undefined }) {
  if (!state) return null;
  if (state.state === "testing") return <p className="muted ag-small" aria-live="polite">Testing…</p>;
  if (state.state === "failed") {
    return (
      <p className="ag-error" role="alert" data-testid="profile-test-result">
        Connection failed: {state.message}
      </p>
    );
  }
  const shown = state.models.slice(0, MODELS_SHOWN);
  return (
    <div className="ag-test-ok" aria-live="polite" data-testid="profile-test-result">
      <p className="ag-small">
        Connected: {state.models.length === 0 ? "the endpoint lists no models." : `${String(state.models.length)} ${state.models.length === 1 ? "model" : "models"}`}
      </p>
      {shown.length > 0 && (
        <ul className="ag-models">
          {shown.map((model) => (
            <li key={model}>
              <code>{model}</code>
            </li>
          ))}
          {state.models.length > shown.length && <li className="muted">and {state.models.length - shown.length} more</li>}
        </ul>
      )}
    </div>
  );
}
