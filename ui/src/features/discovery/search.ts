/**
 * Fuzzy search over the loaded tools: tool names and ids, routing and method names, method
 * descriptions and VCP command names. Runs entirely in the UI so a keystroke never waits on IPC.
 *
 * Fuse.js runs over the *vocabulary* (every distinct word), not over the records: fuzzy-scanning
 * 10,000 methods × 4 fields costs 50–250 ms a keystroke, while the vocabulary of the same list is
 * a few thousand short words (a few ms). An inverted index then maps the matched words back to
 * methods. Every word of the query must match (typos allowed), in any field, in any order.
 *
 * Scores live in typed arrays indexed by record (methods, then tools), not in maps keyed by
 * name: a one-letter query matches nearly every one of 10,000 methods, and building and reading
 * maps of that size was most of a keystroke's cost in the webview. A one-word query hands out
 * its cached per-term array as is.
 */
import Fuse from "fuse.js";

import type { MethodView, ToolView } from "../../lib/ipc";

export interface SearchHits {
  /** A matching method's score (0 is a perfect match; lower is better), else undefined. */
  method: (routingName: string) => number | undefined;
  /**
   * The same by the method's record number ({@link forEachMethodRecord}): a typed-array read,
   * for the list's rows, which ask for every one of 10,000 methods on each keystroke.
   */
  methodAt: (record: number) => number | undefined;
  /** The score of a tool whose own name, id or description matches, else undefined. */
  tool: (toolId: string) => number | undefined;
  /** Routing name → score of every matching method (built on first use: tests and tools). */
  readonly methods: ReadonlyMap<string, number>;
  /** Tool id → score of every tool matching by itself (built on first use). */
  readonly tools: ReadonlyMap<string, number>;
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
/** Cached terms; each holds one float per record (40 KB at 10,000 methods). */
const CACHE_LIMIT = 64;
/** The score of a record a term does not match. */
const NO_MATCH = Number.POSITIVE_INFINITY;

/** Lower-case words: `snake_case`, `camelCase`, `kebab-case` and prose all split into words. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

/** The records one word occurs in, each with the penalty of the best field it occurs in. */
interface Posting {
  records: Int32Array;
  penalties: Float32Array;
}

/** One query term's matches: a score per record (`NO_MATCH` elsewhere) and the matched records. */
interface TermMatch {
  scores: Float32Array;
  matched: Int32Array;
}

/** Builds the postings of every word, deduplicating a word repeated within one record. */
class PostingsBuilder {
  private readonly lists = new Map<string, number[]>();

  add(record: number, text: string, penalty: number): void {
    for (const word of tokenize(text)) {
      let list = this.lists.get(word);
      if (!list) {
        list = [];
        this.lists.set(word, list);
      }
      // One word often appears in several fields of a record; keep its best field only.
      const last = list.length - 2;
      if (last >= 0 && list[last] === record) {
        list[last + 1] = Math.min(list[last + 1] ?? penalty, penalty);
      } else {
        list.push(record, penalty);
      }
    }
  }

  build(): Map<string, Posting> {
    const postings = new Map<string, Posting>();
    for (const [word, list] of this.lists) {
      const count = list.length / 2;
      const records = new Int32Array(count);
      const penalties = new Float32Array(count);
      for (let i = 0; i < count; i += 1) {
        records[i] = list[2 * i] ?? 0;
        penalties[i] = list[2 * i + 1] ?? 0;
      }
      postings.set(word, { records, penalties });
    }
    return postings;
  }
}

/**
 * Numbers the methods of `tools` as the index does: in list order, tool by tool. Lists with the
 * same searchable content ({@link sameSearchContent}) number their methods alike, so a reused
 * index answers {@link SearchHits.methodAt} for either. Returns how many there are.
 */
export function forEachMethodRecord(
  tools: readonly ToolView[],
  visit: (method: MethodView, tool: ToolView, record: number) => void,
): number {
  let record = 0;
  for (const tool of tools) {
    for (const method of tool.methods) visit(method, tool, record++);
  }
  return record;
}

export function buildSearchIndex(tools: readonly ToolView[]): SearchIndex {
  // Records are the methods, then the tools.
  const methodRecord = new Map<string, number>();
  const toolRecord = new Map<string, number>();
  const builder = new PostingsBuilder();
  let records = forEachMethodRecord(tools, (method, tool, record) => {
    methodRecord.set(method.routing_name, record);
    builder.add(record, method.routing_name, PENALTY.name);
    builder.add(record, method.meta.name, PENALTY.name);
    const vcp = method.meta.protocol_config?.vcp_command;
    if (vcp) builder.add(record, vcp, PENALTY.vcp);
    builder.add(record, tool.name, PENALTY.toolName);
    builder.add(record, method.meta.description, PENALTY.description);
  });
  for (const tool of tools) {
    const record = records++;
    toolRecord.set(tool.id, record);
    builder.add(record, tool.id, PENALTY.name);
    builder.add(record, tool.name, PENALTY.name);
    builder.add(record, tool.description, PENALTY.description);
  }
  const postings = builder.build();

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
  const cache = new Map<string, TermMatch>();

  const wordScoresOf = (term: string): Map<string, number> => {
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
    return wordScores;
  };

  const matchTerm = (term: string): TermMatch => {
    const cached = cache.get(term);
    if (cached) return cached;
    const scores = new Float32Array(records).fill(NO_MATCH);
    const matched: number[] = [];
    for (const [word, score] of wordScoresOf(term)) {
      const posting = postings.get(word);
      if (!posting) continue;
      const { records: list, penalties } = posting;
      for (let i = 0; i < list.length; i += 1) {
        const record = list[i] ?? 0;
        const total = score + (penalties[i] ?? 0);
        const previous = scores[record] ?? NO_MATCH;
        if (previous === NO_MATCH) matched.push(record);
        if (total < previous) scores[record] = total;
      }
    }
    const match = { scores, matched: Int32Array.from(matched) };
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(term, match);
    return match;
  };

  const hitsOf = (scores: Float32Array): SearchHits => {
    const scoreOf = (record: number | undefined) => {
      if (record === undefined) return undefined;
      const score = scores[record] ?? NO_MATCH;
      return score === NO_MATCH ? undefined : score;
    };
    const mapOf = (byKey: ReadonlyMap<string, number>) => {
      const out = new Map<string, number>();
      for (const [key, record] of byKey) {
        const score = scoreOf(record);
        if (score !== undefined) out.set(key, score);
      }
      return out;
    };
    let methods: Map<string, number> | null = null;
    let toolHits: Map<string, number> | null = null;
    return {
      method: (routingName) => scoreOf(methodRecord.get(routingName)),
      methodAt: scoreOf,
      tool: (toolId) => scoreOf(toolRecord.get(toolId)),
      get methods() {
        methods ??= mapOf(methodRecord);
        return methods;
      },
      get tools() {
        toolHits ??= mapOf(toolRecord);
        return toolHits;
      },
    };
  };

  return {
    search(query) {
      const terms = [...new Set(tokenize(query))];
      if (terms.length === 0) return null;
      // Intersect from the rarest term so the working set shrinks fastest.
      const perTerm = terms.map(matchTerm).sort((a, b) => a.matched.length - b.matched.length);
      const [first, ...rest] = perTerm;
      if (!first) return hitsOf(new Float32Array(records).fill(NO_MATCH));
      if (rest.length === 0) return hitsOf(first.scores);
      const combined = new Float32Array(records).fill(NO_MATCH);
      for (const record of first.matched) {
        let total = first.scores[record] ?? NO_MATCH;
        for (const other of rest) total += other.scores[record] ?? NO_MATCH;
        if (total !== NO_MATCH) combined[record] = total / terms.length;
      }
      return hitsOf(combined);
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
