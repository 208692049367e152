import { afterEach, describe, expect, it, vi } from "vitest";

import { formatCount, formatDuration, formatTimestamp } from "./format";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("formatDuration", () => {
  it("keeps a readable number of digits", () => {
    expect(formatDuration(0.479931)).toBe("0.48 ms");
    expect(formatDuration(14.917698999999999)).toBe("14.9 ms");
    expect(formatDuration(12)).toBe("12.0 ms");
    expect(formatDuration(2345)).toBe("2.35 s");
    expect(formatDuration(65_000)).toBe("65.0 s");
    expect(formatDuration(null)).toBe("");
  });
});

describe("formatCount", () => {
  it("groups digits the same in every locale", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(12_345)).toBe("12,345");
    expect(formatCount(1_000_000)).toBe("1,000,000");
  });
});

describe("formatTimestamp", () => {
  const noon = new Date(2025, 5, 14, 12, 0, 0).getTime();

  it("shows the time alone today and date and time on other days, as toLocale*String would", () => {
    const morning = new Date(2025, 5, 14, 9, 5, 7).getTime();
    const before = new Date(2025, 5, 13, 23, 59, 59).getTime();
    // The reference output, computed once here (the app never calls these: see format.ts).
    // eslint-disable-next-line no-restricted-syntax
    expect(formatTimestamp(morning, noon)).toBe(new Date(morning).toLocaleTimeString());
    // eslint-disable-next-line no-restricted-syntax
    expect(formatTimestamp(before, noon)).toBe(new Date(before).toLocaleString());
    expect(formatTimestamp(Number.NaN, noon)).toBe("");
  });

  it("makes its formatters once, however many values it formats", () => {
    // The first values of each kind make the formatters (if no earlier call did).
    formatTimestamp(noon, noon);
    formatTimestamp(noon - 86_400_000, noon);
    formatCount(1);
    const made = vi.spyOn(Intl, "DateTimeFormat");
    const number = vi.spyOn(Intl, "NumberFormat");
    for (let i = 0; i < 500; i++) {
      formatTimestamp(noon - i * 60_000, noon);
      formatTimestamp(noon - i * 86_400_000, noon);
      formatCount(i);
    }
    expect(made).not.toHaveBeenCalled();
    expect(number).not.toHaveBeenCalled();
  });
});
