/**
 * The theme setting (system / light / dark), stored with the other settings. "system" leaves
 * the choice to the OS; the others pin it via `data-theme` on <html> (see styles.css).
 */
import { useEffect, useState } from "react";

import { errorMessage, ipc, type Theme } from "../lib/ipc";

const THEMES: readonly { id: Theme; label: string }[] = [
  { id: "system", label: "System theme" },
  { id: "light", label: "Light" },
  { id: "dark", label: "Dark" },
];

function apply(theme: Theme) {
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

export function ThemeSelect() {
  const [theme, setTheme] = useState<Theme>("system");
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    ipc.getSettings().then(
      (settings) => {
        if (!current) return;
        const stored = settings.theme ?? "system";
        setTheme(stored);
        apply(stored);
      },
      (reason: unknown) => {
        if (current) setError(errorMessage(reason));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  const change = async (next: Theme) => {
    setTheme(next);
    apply(next);
    try {
      const settings = await ipc.getSettings();
      await ipc.saveSettings({ ...settings, theme: next });
      setError(null);
    } catch (reason: unknown) {
      setError(`theme not saved: ${errorMessage(reason)}`);
    }
  };

  return (
    <label className="theme-select">
      <span className="visually-hidden">Theme</span>
      <select
        data-testid="theme-select"
        value={theme}
        onChange={(event) => {
          const next = THEMES.find((t) => t.id === event.target.value);
          if (next) void change(next.id);
        }}
      >
        {THEMES.map((t) => (
          <option key={t.id} value={t.id}>
            {t.label}
          </option>
        ))}
      </select>
      {error !== null && (
        <span className="theme-error" role="alert">
          {error}
        </span>
      )}
    </label>
  );
}
