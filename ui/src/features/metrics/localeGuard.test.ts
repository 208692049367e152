/** The guard that lets uPlot load under LANG=C (navigator.language "C"). */
import { afterEach, describe, expect, it } from "vitest";

import { guardLanguage } from "./localeGuard";

function setLanguage(value: string) {
  Object.defineProperty(navigator, "language", { value, configurable: true });
}

afterEach(() => {
  // Back to the prototype's getter.
  Reflect.deleteProperty(navigator, "language");
});

describe("guardLanguage", () => {
  it("replaces a language Intl refuses and keeps a valid one", () => {
    setLanguage("C");
    expect(() => new Intl.NumberFormat(navigator.language)).toThrow(RangeError);
    guardLanguage();
    expect(navigator.language).toBe("en-US");
    expect(() => new Intl.NumberFormat(navigator.language)).not.toThrow();
    setLanguage("de-DE");
    guardLanguage();
    expect(navigator.language).toBe("de-DE");
  });
});
