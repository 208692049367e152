/**
 * Where MCP servers' sampling requests (`sampling/createMessage`) go: one of the endpoint
 * profiles the Agent pane keeps, or nobody (declined with a reason the server sees). Each request
 * still waits for the person's approval in a dialog before it reaches the model.
 */
import { useCallback, useEffect, useId, useRef, useState } from "react";

import { onAppEvent } from "../../lib/appEvents";
import { errorMessage, ipc } from "../../lib/ipc";

export function SamplingChoice() {
  const id = useId();
  const [profiles, setProfiles] = useState<string[]>([]);
  const [chosen, setChosen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Bumped by each choice, so a read that started before it cannot show the older value.
  const choices = useRef(0);

  // Read again when profiles change in the Agent pane, and on focus (another window, the CLI).
  const load = useCallback(() => {
    const before = choices.current;
    Promise.all([ipc.endpointProfiles(), ipc.getSettings()]).then(
      ([listed, settings]) => {
        setProfiles(listed.map((profile) => profile.name));
        if (choices.current === before) setChosen(settings.sampling_profile ?? null);
      },
      (reason: unknown) => {
        setError(errorMessage(reason));
      },
    );
  }, []);
  useEffect(() => {
    load();
    return onAppEvent("profiles-changed", load);
  }, [load]);

  const choose = (value: string) => {
    const profile = value === "" ? null : value;
    choices.current += 1;
    setChosen(profile);
    ipc.setSamplingProfile(profile).then(
      (settings) => {
        setChosen(settings.sampling_profile ?? null);
        setError(null);
      },
      (reason: unknown) => {
        setError(errorMessage(reason));
        load();
      },
    );
  };

  // A stored profile that was removed since still shows, so the person sees why requests fail.
  const names = chosen !== null && !profiles.includes(chosen) ? [...profiles, chosen] : profiles;
  return (
    <div className="src-sampling" data-testid="sampling-choice">
      <label htmlFor={id}>Sampling requests go to</label>
      <select id={id} data-testid="sampling-profile" value={chosen ?? ""} onFocus={load} onChange={(e) => { choose(e.target.value); }}>
        <option value="">nobody: decline them</option>
        {names.map((name) => (
          <option key={name} value={name}>
            {profiles.includes(name) ? name : `${name} (removed)`}
          </option>
        ))}
      </select>
      <span className="muted">
        {profiles.length === 0 ? "Add an endpoint profile in the Agent pane to choose one. " : ""}
        You approve each request before it is sent.
      </span>
      {error !== null && (
        <p className="src-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
