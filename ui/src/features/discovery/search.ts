/**
 * Fuzzy search over the loaded tools: tool names and ids, routing and method names, method
 * descriptions and VCP command names. Runs entirely in the UI so a keystroke never waits on IPC.
 *
 * Fuse.js runs over the *vocabulary* (every distinct word), not over the records: fuzzy-scanning
 * 10,000 methods × 4 fields costs 50–250 ms a keystroke, while the vocabulary of the same list is
 * a few thousand short words (a few ms). An inverted index then maps the matched words back to
 * methods. Every word of the query must match (typos allowed), in any field, in any order.
 */
import Fuse from "fuse.js";

import type { ToolView } from "../../lib/ipc";

export interface SearchHits {
  /** Routing name → score (0 is a perfect match; lower is better). */
  methods: ReadonlyMap<string, number>;
  /** Tool id → score, for tools whose own name, id or description matches. */
  tools: ReadonlyMap<string, number>;
}

export interface SearchIndex {
  /** `null` for a query without words: nothing is filtered out. */
  search: (query: string) => SearchHits | null;
}

/** Fuse's threshold: 0.3 lets `evalute` find `evaluate` without `xyz` matching everything. */
const FUZZY_THRESHOLD = 0.3;
/**
 * Typos allowed in a query word of a given length: none below 5 letters (one typo in `writ`
 * already matches `arithmetic`), one up to 8, two beyond (a transposition counts two).
 */
function maxTypos(length: number): number {
  return length < 5 ? 0 : length < 9 ? 1 : 2;
}
/** How much worse a match in a secondary field ranks than one in the routing name. */
const PENALTY = { name: 0, vcp: 0.03, toolName: 0.08, description: 0.15 } as const;
const CACHE_LIMIT = 128;

/** Lower-case words: `snake_case`, `camelCase`, `kebab-case` and prose all split into words. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

export function buildSearchIndex(tools: readonly ToolView[]): SearchIndex {
  // Records are the methods, then the tools; postings are flat (record, penalty) pairs per word.
  const keys: string[] = [];
  const isTool: boolean[] = [];
  const postings = new Map<string, number[]>();

  const add = (record: number, text: string, penalty: number) => {
    for (const word of tokenize(text)) {
      let list = postings.get(word);
      if (!list) {
        list = [];
        postings.set(word, list);
      }
      // One word often appears in several fields of a record; keep its best field only.
      const last = list.length - 2;
      if (last >= 0 && list[last] === record) {
        list[last + 1] = Math.min(list[last + 1] ?? penalty, penalty);
      } else {
        list.push(record, penalty);
      }
    }
  };

  for (const tool of tools) {
    for (const method of tool.methods) {
      const record = keys.length;
      keys.push(method.routing_name);
      isTool.push(false);
      add(record, method.routing_name, PENALTY.name);
      add(record, method.meta.name, PENALTY.name);
      const vcp = method.meta.protocol_config?.vcp_command;
      if (vcp) add(record, vcp, PENALTY.vcp);
      add(record, tool.name, PENALTY.toolName);
      add(record, method.meta.description, PENALTY.description);
    }
  }
  for (const tool of tools) {
    const record = keys.length;
    keys.push(tool.id);
    isTool.push(true);
    add(record, tool.id, PENALTY.name);
    add(record, tool.name, PENALTY.name);
    add(record, tool.description, PENALTY.description);
  }

  const vocabulary = [...postings.keys()];
  // The vocabulary is already lower-case, so Fuse need not fold case again.
  const fuse = new Fuse(vocabulary, {
    threshold: FUZZY_THRESHOLD,
    ignoreLocation: true,
    ignoreFieldNorm: true,
    includeScore: true,
    isCaseSensitive: true,
    shouldSort: false,
  });
  // Typing extends one word at a time; the other words' matches are reused.
  const cache = new Map<string, Map<number, number>>();

  const matchTerm = (term: string): Map<number, number> => {
    const cached = cache.get(term);
    if (cached) return cached;
    const wordScores = new Map<string, number>();
    let wordStarts = false;
    for (const word of vocabulary) {
      if (word.startsWith(term)) {
        wordStarts = true;
        wordScores.set(word, word === term ? 0 : 0.02);
      } else if (word.includes(term)) {
        wordScores.set(word, 0.06);
      }
    }
    // Typos are the fallback: when some word starts with the term as typed, the near misses
    // (`write` ~ `wrote`, `white`) would only bury it.
    const typos = wordStarts ? 0 : maxTypos(term.length);
    const digits = term.replace(/\D/g, "");
    if (typos > 0) {
      for (const hit of fuse.search(term)) {
        // Without location weighting a Fuse score is errors ÷ query length.
        const fuzzy = hit.score ?? FUZZY_THRESHOLD;
        if (fuzzy * term.length > typos + 0.01) continue;
        // A typo in a number is a different number: `metod42` may find `method42`, not `method4`.
        if (digits !== "" && hit.item.replace(/\D/g, "") !== digits) continue;
        const score = 0.05 + fuzzy;
        const previous = wordScores.get(hit.item);
        if (previous === undefined || score < previous) wordScores.set(hit.item, score);
      }
    }
    const records = new Map<number, number>();
    for (const [word, score] of wordScores) {
      const list = postings.get(word) ?? [];
      for (let i = 0; i < list.length; i += 2) {
        const record = list[i] ?? 0;
        const total = score + (list[i + 1] ?? 0);
        const previous = records.get(record);
        if (previous === undefined || total < previous) records.set(record, total);
      }
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(term, records);
    return records;
  };

  return {
    search(query) {
      const terms = [...new Set(tokenize(query))];
      if (terms.length === 0) return null;
      // Intersect from the rarest term so the working set shrinks fastest.
      const perTerm = terms.map(matchTerm).sort((a, b) => a.size - b.size);
      const [first, ...rest] = perTerm;
      const methods = new Map<string, number>();
      const toolHits = new Map<string, number>();
      if (!first) return { methods, tools: toolHits };
      for (const [record, score] of first) {
        let total = score;
        let everywhere = true;
        for (const other of rest) {
          const s = other.get(record);
          if (s === undefined) {
            everywhere = false;
            break;
          }
          total += s;
        }
        if (!everywhere) continue;
        const key = keys[record];
        if (key === undefined) continue;
        (isTool[record] ? toolHits : methods).set(key, total / terms.length);
      }
      return { methods, tools: toolHits };
    },
  };
}

/**
 * Whether two lists have the same searchable text. A saved toggle or a refresh returns new
 * objects with the same content; comparing is ~100× cheaper than re-indexing 10,000 methods.
 */
export function sameSearchContent(a: readonly ToolView[], b: readonly ToolView[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((toolA, i) => {
    const toolB = b[i];
    if (toolB === undefined) return false;
    if (toolA.id !== toolB.id || toolA.name !== toolB.name || toolA.description !== toolB.description) {
      return false;
    }
    if (toolA.methods.length !== toolB.methods.length) return false;
    return toolA.methods.every((methodA, j) => {
      const methodB = toolB.methods[j];
      if (methodB === undefined) return false;
      return (
        methodA.routing_name === methodB.routing_name &&
        methodA.meta.name === methodB.meta.name &&
        methodA.meta.description === methodB.meta.description &&
        methodA.meta.protocol_config?.vcp_command === methodB.meta.protocol_config?.vcp_command
      );
    });
  });
}
