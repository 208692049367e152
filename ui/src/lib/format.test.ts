import { describe, expect, it } from "vitest";

import { formatDuration } from "./format";

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
