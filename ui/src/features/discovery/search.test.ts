/** The fuzzy search index: typo tolerance, word order, fields, ranking and speed at scale. */
import { describe, expect, it } from "vitest";

import { buildSearchIndex, sameSearchContent, tokenize } from "./search";
import { generatedTools, TOOLS } from "./testing";

describe("tokenize", () => {
  it("splits snake_case, camelCase and prose into lower-case words", () => {
    expect(tokenize("workspace_readFile, then HTTPGet v2!")).toEqual(["workspace", "read", "file", "then", "httpget", "v2"]);
  });
});

describe("buildSearchIndex", () => {
  const index = buildSearchIndex(TOOLS);

  it("filters nothing for an empty query", () => {
    expect(index.search("   ")).toBeNull();
  });

  it("finds a method despite a typo, by routing name, description, tool name or VCP command", () => {
    expect([...(index.search("evalute")?.methods.keys() ?? [])]).toEqual(["calculator_evaluate"]);
    expect([...(index.search("arithmatic")?.methods.keys() ?? [])]).toEqual(["calculator_evaluate"]);
    expect([...(index.search("calculatr")?.methods.keys() ?? [])].sort()).toEqual(["calculator_evaluate", "calculator_reset"]);
    expect([...(index.search("Calculate")?.methods.keys() ?? [])]).toEqual(["calculator_evaluate"]);
  });

  it("keeps typos as a fallback when a word starts with the term as typed", () => {
    const hits = buildSearchIndex(generatedTools(100, 10)).search("tool57");
    expect([...(hits?.methods.keys() ?? [])].every((name) => name.startsWith("tool57_"))).toBe(true);
  });

  it("needs every word to match, in any order and any field", () => {
    expect([...(index.search("file write")?.methods.keys() ?? [])]).toEqual(["workspace_write"]);
    expect([...(index.search("writes workspace")?.methods.keys() ?? [])]).toEqual(["workspace_write"]);
    expect(index.search("write calculator")?.methods.size).toBe(0);
  });

  it("allows no typo in short words, so they do not match everything", () => {
    expect([...(index.search("writ")?.methods.keys() ?? [])]).toEqual(["workspace_write"]);
    expect(index.search("xyzzy")?.methods.size).toBe(0);
  });

  it("reports tools matching by their own name or description", () => {
    expect([...(index.search("files")?.tools.keys() ?? [])]).toEqual(["workspace"]);
  });

  it("ranks an exact word above a prefix above a fuzzy match", () => {
    const hits = buildSearchIndex(generatedTools(3, 30)).search("method2");
    const exact = hits?.methods.get("tool1_method2") ?? 1;
    const prefix = hits?.methods.get("tool1_method21") ?? 1;
    expect(exact).toBeLessThan(prefix);
  });

  it("searches 10,000 methods with typos, every word narrowing the hits", () => {
    // Speed is measured by the app bench (tests/e2e/bench.mjs), not asserted here.
    const tools = generatedTools(100, 100);
    const big = buildSearchIndex(tools);
    const hits = big.search("tool57 metod42");
    expect(hits?.methods.has("tool57_method42")).toBe(true);
    expect(hits?.method("tool57_method42")).toBe(hits?.methods.get("tool57_method42"));
    expect(hits?.method("tool58_method42")).toBeUndefined();
    expect([...(hits?.methods.keys() ?? [])].every((name) => name.startsWith("tool57_"))).toBe(true);
  });

  it("hands the same scores out whether a term is new or cached", () => {
    const big = buildSearchIndex(generatedTools(10, 10));
    const first = [...(big.search("method")?.methods ?? [])];
    big.search("tool3");
    expect([...(big.search("method")?.methods ?? [])]).toEqual(first);
    expect(first).toHaveLength(100);
  });
});

describe("sameSearchContent", () => {
  it("ignores enabled flags but not text", () => {
    const toggled = TOOLS.map((tool) => ({ ...tool, enabled: !tool.enabled }));
    expect(sameSearchContent(TOOLS, toggled)).toBe(true);
    const renamed = TOOLS.map((tool, i) => (i === 0 ? { ...tool, name: "Other" } : tool));
    expect(sameSearchContent(TOOLS, renamed)).toBe(false);
  });
});
