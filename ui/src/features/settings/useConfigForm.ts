/**
 * The Settings view's state: the stored config (`config_load`), the person's draft, and a save
 * (`config_save`) that sends only the changed fields. A refused save keeps the draft and puts
 * the backend's message for each field (`details.fields`) next to that field; nothing of it was
 * stored. Settings saved elsewhere (another pane) are read again while there is no draft.
 */
import { useCallback, useEffect, useEffectEvent, useState } from "react";

import { onAppEvent } from "../../lib/appEvents";
import { ipc, IpcError, IPC_FAILURE, type ConfigForm } from "../../lib/ipc";
import { changesOf, toDraft, type ConfigKey, type Draft, type DraftValue } from "./settingsFields";

export interface ConfigFormState {
  form: ConfigForm | null;
  draft: Draft;
  stored: Draft;
  defaults: Draft;
  loadError: IpcError | null;
  saveError: IpcError | null;
  /** Backend messages by field, from the last refused save. */
  fieldErrors: Readonly<Record<string, string>>;
  changed: number;
  saving: boolean;
  /** Set after a save went through, until the next edit. */
  saved: boolean;
  setField: (key: ConfigKey, value: DraftValue) => void;
  resetField: (key: ConfigKey) => void;
  discard: () => void;
  save: () => Promise<void>;
  reload: () => void;
}

function toIpcError(reason: unknown): IpcError {
  return reason instanceof IpcError ? reason : new IpcError(IPC_FAILURE, String(reason));
}

/** `details.fields` of a refused save, as field -> message. */
function fieldMessages(error: IpcError): Record<string, string> | null {
  const details = error.details;
  if (error.kind !== "invalid_input" || typeof details !== "object" || details === null || Array.isArray(details)) return null;
  const fields = details.fields;
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return null;
  const messages: Record<string, string> = {};
  for (const [field, message] of Object.entries(fields)) {
    if (typeof message === "string") messages[field] = message;
  }
  return messages;
}

export function useConfigForm(): ConfigFormState {
  const [form, setForm] = useState<ConfigForm | null>(null);
  const [draft, setDraft] = useState<Draft>({});
  const [loadError, setLoadError] = useState<IpcError | null>(null);
  const [saveError, setSaveError] = useState<IpcError | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Readonly<Record<string, string>>>({});
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [request, setRequest] = useState(0);

  const stored = form ? toDraft(form.config) : {};
  const defaults = form ? toDraft(form.defaults) : {};
  const changed = Object.keys(changesOf(draft, stored)).length;

  const show = useCallback((next: ConfigForm) => {
    setForm(next);
    setDraft(toDraft(next.config));
    setFieldErrors({});
  }, []);

  useEffect(() => {
    let live = true;
    ipc.configLoad().then(
      (next) => {
        if (!live) return;
        show(next);
        setLoadError(null);
      },
      (reason: unknown) => {
        if (live) setLoadError(toIpcError(reason));
      },
    );
    return () => {
      live = false;
    };
  }, [request, show]);

  const reload = useCallback(() => {
    setRequest((n) => n + 1);
  }, []);

  // Another pane saved settings: show them, unless that would throw away the person's edits.
  const onSettingsChanged = useEffectEvent(() => {
    if (changed === 0 && !saving) reload();
  });
  useEffect(
    () =>
      onAppEvent("settings-changed", () => {
        onSettingsChanged();
      }),
    [],
  );

  const setField = useCallback((key: ConfigKey, value: DraftValue) => {
    setDraft((previous) => ({ ...previous, [key]: value }));
    setSaved(false);
    // The message was about the value just replaced.
    setFieldErrors((previous) => {
      if (!(key in previous)) return previous;
      const rest = { ...previous };
      Reflect.deleteProperty(rest, key);
      return rest;
    });
  }, []);

  const resetField = (key: ConfigKey) => {
    const value = defaults[key];
    if (value !== undefined) setField(key, value);
  };

  const discard = useCallback(() => {
    if (form) show(form);
    setSaveError(null);
  }, [form, show]);

  const save = async () => {
    const changes = changesOf(draft, stored);
    if (Object.keys(changes).length === 0) return;
    setSaving(true);
    setSaveError(null);
    try {
      show(await ipc.configSave(changes));
      setSaved(true);
    } catch (reason: unknown) {
      const error = toIpcError(reason);
      const messages = fieldMessages(error);
      if (messages) setFieldErrors(messages);
      else setSaveError(error);
    } finally {
      setSaving(false);
    }
  };

  return {
    form,
    draft,
    stored,
    defaults,
    loadError,
    saveError,
    fieldErrors,
    changed,
    saving,
    saved,
    setField,
    resetField,
    discard,
    save,
    reload,
  };
}
