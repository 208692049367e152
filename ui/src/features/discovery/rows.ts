/**
 * Flattens tools and their methods into the rows of the virtualised list, applying the
 * agent-callable filter, the search hits, collapsed tools and the chosen order.
 */
import type { MethodView, ToolView } from "../../lib/ipc";
import type { SearchHits } from "./search";

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
  methods: { method: MethodView; score: number }[];
  hiddenNonCallable: number;
  best: number;
}

interface NameOrder {
  tools: ToolView[];
  methods: Map<string, MethodView[]>;
}

// Sorting 10,000 methods by name costs more than everything else per keystroke, and the order
// only changes with the list itself; the list arrays are immutable, so their identity is the key.
const nameOrders = new WeakMap<readonly ToolView[], NameOrder>();

function nameOrder(tools: readonly ToolView[]): NameOrder {
  let order = nameOrders.get(tools);
  if (!order) {
    order = {
      tools: [...tools].sort((a, b) => collator.compare(a.name, b.name) || collator.compare(a.id, b.id)),
      methods: new Map(
        tools.map((tool) => [tool.id, [...tool.methods].sort((a, b) => collator.compare(a.meta.name, b.meta.name))]),
      ),
    };
    nameOrders.set(tools, order);
  }
  return order;
}

export function buildRows(tools: readonly ToolView[], options: RowOptions): RowsResult {
  const { hits, includeNonCallable, sort, collapsed } = options;
  const order = nameOrder(tools);
  const groups: Group[] = [];
  let hiddenTotal = 0;

  for (const tool of order.tools) {
    const toolScore = hits?.tools.get(tool.id);
    // A tool that matches only by itself (say, its description) brings all its methods along;
    // once some of its methods match, only those are listed.
    const bringAll = hits !== null && toolScore !== undefined && !tool.methods.some((m) => hits.methods.has(m.routing_name));
    const methods: Group["methods"] = [];
    let hidden = 0;
    for (const method of order.methods.get(tool.id) ?? tool.methods) {
      const score = hits === null ? 0 : (hits.methods.get(method.routing_name) ?? (bringAll ? toolScore : undefined));
      if (score === undefined) continue;
      if (!includeNonCallable && !method.meta.agent_callable) {
        hidden += 1;
        continue;
      }
      methods.push({ method, score });
    }
    hiddenTotal += hidden;
    // Without a query every tool stays, so one whose methods are all hidden can still be toggled.
    if (hits !== null && methods.length === 0 && toolScore === undefined) continue;
    const best = methods.reduce((min, m) => Math.min(min, m.score), toolScore ?? Number.POSITIVE_INFINITY);
    groups.push({ tool, methods, hiddenNonCallable: hidden, best });
  }

  // Groups and methods are already in name order, and Array.prototype.sort is stable, so ties
  // keep it.
  const relevance = sort === "relevance" && hits !== null;
  if (sort === "methods") groups.sort((a, b) => b.methods.length - a.methods.length);
  if (relevance) groups.sort((a, b) => a.best - b.best);

  const rows: Row[] = [];
  let methodCount = 0;
  for (const group of groups) {
    if (relevance) group.methods.sort((a, b) => a.score - b.score);
    // While searching every match must be visible, so collapsing is ignored.
    const isCollapsed = hits === null && collapsed.has(group.tool.id);
    rows.push({
      kind: "tool",
      key: toolRowKey(group.tool.id),
      tool: group.tool,
      shown: group.methods.length,
      hiddenNonCallable: group.hiddenNonCallable,
      collapsed: isCollapsed,
    });
    methodCount += group.methods.length;
    if (isCollapsed) continue;
    for (const { method } of group.methods) {
      rows.push({ kind: "method", key: methodRowKey(method.routing_name), tool: group.tool, method });
    }
  }
  return { rows, toolCount: groups.length, methodCount, hiddenNonCallable: hiddenTotal };
}
