/**
 * Imported before uPlot. uPlot builds `new Intl.NumberFormat(navigator.language)` when its module
 * loads, and WebKitGTK passes a POSIX locale through as the language: under `LANG=C` (CI, minimal
 * desktops) `navigator.language` is "C", Intl refuses it with a RangeError and the whole Metrics
 * chunk fails to load. A language Intl cannot use is replaced for this window by "en-US", which is
 * what Intl falls back to for "C" anyway; a valid one is left alone.
 */
export function guardLanguage(): void {
  try {
    new Intl.NumberFormat(navigator.language);
  } catch {
    Object.defineProperty(navigator, "language", { value: "en-US", configurable: true });
  }
}

guardLanguage();
