/**
 * Flattens tools and their methods into the rows of the virtualised list, applying the
 * agent-callable filter, the search hits, collapsed tools and the chosen order.
 */
import type { MethodView, ToolView } from "../../lib/ipc";
import { forEachMethodRecord, type SearchHits } from "./search";

export type SortOrder = "name" | "methods" | "relevance";

export const SORT_ORDERS: readonly { id: SortOrder; label: string }[] = [
  { id: "name", label: "Name" },
  { id: "methods", label: "Method count" },
  { id: "relevance", label: "Best match" },
];

export interface ToolRow {
  kind: "tool";
  key: string;
  tool: ToolView;
  /** Methods listed under the tool (before collapsing). */
  shown: number;
  /** Methods hidden because they are not agent-callable. */
  hiddenNonCallable: number;
  collapsed: boolean;
}

export interface MethodRow {
  kind: "method";
  key: string;
  tool: ToolView;
  method: MethodView;
  /** The method's number in the search index ({@link forEachMethodRecord}). */
  record: number;
}

export type Row = ToolRow | MethodRow;

export interface RowOptions {
  hits: SearchHits | null;
  includeNonCallable: boolean;
  sort: SortOrder;
  collapsed: ReadonlySet<string>;
}

export interface RowsResult {
  rows: Row[];
  toolCount: number;
  methodCount: number;
  /** Matching methods left out only because they are not agent-callable. */
  hiddenNonCallable: number;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

export function toolRowKey(toolId: string): string {
  return `tool:${toolId}`;
}

export function methodRowKey(routingName: string): string {
  return `method:${routingName}`;
}

interface Group {
  tool: ToolView;
  rows: MethodRow[];
  scores: number[];
  hiddenNonCallable: number;
  best: number;
}

/** A tool with its method rows in name order. */
interface OrderedTool {
  tool: ToolView;
  rows: readonly MethodRow[];
}

// Sorting 10,000 methods by name costs more than everything else per keystroke, and the order
// only changes with the list itself; the list arrays are immutable, so their identity is the key.
// The method rows are made here once too: a keystroke that matches every method then allocates
// no row objects or key strings for them.
const nameOrders = new WeakMap<readonly ToolView[], readonly OrderedTool[]>();

function nameOrder(tools: readonly ToolView[]): readonly OrderedTool[] {
  let order = nameOrders.get(tools);
  if (!order) {
    const rowsOf = new Map<ToolView, MethodRow[]>();
    forEachMethodRecord(tools, (method, tool, record) => {
      let rows = rowsOf.get(tool);
      if (!rows) {
        rows = [];
        rowsOf.set(tool, rows);
      }
      rows.push({ kind: "method", key: methodRowKey(method.routing_name), tool, method, record });
    });
    order = [...tools]
      .sort((a, b) => collator.compare(a.name, b.name) || collator.compare(a.id, b.id))
      .map((tool) => ({
        tool,
        rows: (rowsOf.get(tool) ?? []).sort((a, b) => collator.compare(a.method.meta.name, b.method.meta.name)),
      }));
    nameOrders.set(tools, order);
  }
  return order;
}

export function buildRows(tools: readonly ToolView[], options: RowOptions): RowsResult {
  const { hits, includeNonCallable, sort, collapsed } = options;
  const groups: Group[] = [];
  let hiddenTotal = 0;

  for (const { tool, rows: methodRows } of nameOrder(tools)) {
    const toolScore = hits?.tool(tool.id);
    // A tool that matches only by itself (say, its description) brings all its methods along;
    // once some of its methods match, only those are listed.
    const bringAll =
      hits !== null && toolScore !== undefined && !methodRows.some((row) => hits.methodAt(row.record) !== undefined);
    const rows: MethodRow[] = [];
    const scores: number[] = [];
    let hidden = 0;
    for (const row of methodRows) {
      const score = hits === null ? 0 : (hits.methodAt(row.record) ?? (bringAll ? toolScore : undefined));
      if (score === undefined) continue;
      if (!includeNonCallable && !row.method.meta.agent_callable) {
        hidden += 1;
        continue;
      }
      rows.push(row);
      scores.push(score);
    }
    hiddenTotal += hidden;
    // Without a query every tool stays, so one whose methods are all hidden can still be toggled.
    if (hits !== null && rows.length === 0 && toolScore === undefined) continue;
    const best = scores.reduce((min, score) => Math.min(min, score), toolScore ?? Number.POSITIVE_INFINITY);
    groups.push({ tool, rows, scores, hiddenNonCallable: hidden, best });
  }

  // Groups and methods are already in name order, and Array.prototype.sort is stable, so ties
  // keep it.
  const relevance = sort === "relevance" && hits !== null;
  if (sort === "methods") groups.sort((a, b) => b.rows.length - a.rows.length);
  if (relevance) groups.sort((a, b) => a.best - b.best);

  const rows: Row[] = [];
  let methodCount = 0;
  for (const group of groups) {
    // While searching every match must be visible, so collapsing is ignored.
    const isCollapsed = hits === null && collapsed.has(group.tool.id);
    rows.push({
      kind: "tool",
      key: toolRowKey(group.tool.id),
      tool: group.tool,
      shown: group.rows.length,
      hiddenNonCallable: group.hiddenNonCallable,
      collapsed: isCollapsed,
    });
    methodCount += group.rows.length;
    if (isCollapsed) continue;
    if (relevance) {
      const order = group.rows.map((_, i) => i).sort((a, b) => (group.scores[a] ?? 0) - (group.scores[b] ?? 0));
      for (const i of order) {
        const row = group.rows[i];
        if (row) rows.push(row);
      }
    } else {
      for (const row of group.rows) rows.push(row);
    }
  }
  return { rows, toolCount: groups.length, methodCount, hiddenNonCallable: hiddenTotal };
}
