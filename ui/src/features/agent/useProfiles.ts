/**
 * Endpoint profiles: the list from the backend, saved (with a key entered once, which never
 * comes back), removed, and "Test connection" results per profile (the models the endpoint
 * serves, or the classified error's message).
 */
import { useCallback, useEffect, useState } from "react";

import { errorMessage, ipc, type EndpointProfile } from "../../lib/ipc";

export type TestState =
  | { state: "testing" }
  | { state: "ok"; models: string[] }
  | { state: "failed"; message: string };

export interface ProfilesView {
  profiles: EndpointProfile[] | null;
  loading: boolean;
  error: string | null;
  tests: ReadonlyMap<string, TestState>;
  reload: () => void;
  /** Resolves to an error message, or null once saved. */
  save: (profile: EndpointProfile, key: string | null, replacing: string | null) => Promise<string | null>;
  remove: (name: string) => Promise<string | null>;
  test: (name: string) => void;
}

export function useProfiles(): ProfilesView {
  const [profiles, setProfiles] = useState<EndpointProfile[] | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [tests, setTests] = useState<ReadonlyMap<string, TestState>>(new Map());
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    ipc.endpointProfiles().then(
      (list) => {
        if (!live) return;
        setProfiles(list);
        setError(null);
        setLoading(false);
      },
      (reason: unknown) => {
        if (!live) return;
        setError(errorMessage(reason));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [attempt]);

  const reload = useCallback(() => {
    setLoading(true);
    setAttempt((n) => n + 1);
  }, []);

  const setTest = useCallback((name: string, state: TestState | null) => {
    setTests((previous) => {
      const next = new Map(previous);
      if (state) next.set(name, state);
      else next.delete(name);
      return next;
    });
  }, []);

  const save = useCallback(
    async (profile: EndpointProfile, key: string | null, replacing: string | null) => {
      try {
        await ipc.endpointSave(profile, key);
        // A rename saves the new profile first, so a failure leaves the old one in place.
        if (replacing !== null && replacing !== profile.name) await ipc.endpointRemove(replacing);
        setTest(profile.name, null);
        reload();
        return null;
      } catch (reason: unknown) {
        return errorMessage(reason);
      }
    },
    [reload, setTest],
  );

  const remove = useCallback(
    async (name: string) => {
      try {
        await ipc.endpointRemove(name);
        setTest(name, null);
        reload();
        return null;
      } catch (reason: unknown) {
        return errorMessage(reason);
      }
    },
    [reload, setTest],
  );

  const test = useCallback(
    (name: string) => {
      setTest(name, { state: "testing" });
      ipc.endpointTest(name).then(
        (models) => {
          setTest(name, { state: "ok", models });
        },
        (reason: unknown) => {
          setTest(name, { state: "failed", message: errorMessage(reason) });
        },
      );
    },
    [setTest],
  );

  return { profiles, loading, error, tests, reload, save, remove, test };
}
