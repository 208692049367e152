import { useEffect, useRef, useState, type KeyboardEvent } from "react";

import { DiscoveryPane } from "./features/discovery/DiscoveryPane";
import { ElicitationHost } from "./features/executor/ElicitationHost";
import { useWorkbench, WorkbenchProvider, type PaneId } from "./lib/workbench";
import { Timed } from "./lib/renderProfile";
import { lazyPane } from "./shell/lazyPane";
import { StartupNotices } from "./shell/StartupNotices";
import { ThemeSelect } from "./shell/ThemeSelect";

// Discovery is what the window opens on; the other panes are chunks of their own.
const parser = lazyPane("Parser", () => import("./features/parser/ParserPane").then((m) => m.ParserPane));
const executor = lazyPane("Executor", () => import("./features/executor/ExecutorPane").then((m) => m.ExecutorPane));
const sources = lazyPane("Sources", () => import("./features/sources/SourcesPane").then((m) => m.SourcesPane));
const agent = lazyPane("Agent", () => import("./features/agent/AgentPane").then((m) => m.AgentPane));
const live = lazyPane("Live", () => import("./features/live/LivePane").then((m) => m.LivePane));
const metrics = lazyPane("Metrics", () => import("./features/metrics/MetricsPane").then((m) => m.MetricsPane));
const settings = lazyPane("Settings", () => import("./features/settings/SettingsPane").then((m) => m.SettingsPane));
/** After the first pane is up, the others are fetched while the user reads it. */
const PRELOAD_AFTER_MS = 1000;

function preloadPanes() {
  // A failure shows in the pane (with a retry) when it is opened.
  parser.preload().catch(() => undefined);
  executor.preload().catch(() => undefined);
  sources.preload().catch(() => undefined);
  agent.preload().catch(() => undefined);
  live.preload().catch(() => undefined);
  metrics.preload().catch(() => undefined);
  settings.preload().catch(() => undefined);
}

const TABS = [
  { id: "discovery", label: "Discovery" },
  { id: "parser", label: "Parser" },
  { id: "executor", label: "Executor" },
  { id: "sources", label: "Sources" },
  { id: "agent", label: "Agent" },
  { id: "live", label: "Live" },
  { id: "metrics", label: "Metrics" },
  { id: "settings", label: "Settings" },
] as const;

type TabId = PaneId;

/** The application: shared workbench state around the shell. */
export function App() {
  return (
    <WorkbenchProvider>
      <Shell />
    </WorkbenchProvider>
  );
}

/**
 * Header and the workbench tabs. A pane is mounted when first shown and then stays
 * mounted, so nothing typed in it is lost.
 */
function Shell() {
  const { activePane: selected, showPane } = useWorkbench();
  const tabRefs = useRef(new Map<TabId, HTMLButtonElement>());
  const [opened, setOpened] = useState<ReadonlySet<TabId>>(() => new Set([selected]));
  if (!opened.has(selected)) setOpened(new Set(opened).add(selected));

  useEffect(() => {
    const timer = window.setTimeout(preloadPanes, PRELOAD_AFTER_MS);
    return () => {
      window.clearTimeout(timer);
    };
  }, []);

  const select = (id: TabId) => {
    showPane(id);
    tabRefs.current.get(id)?.focus();
  };

  // WAI-ARIA tabs: arrows move between tabs (and select), Home/End jump to the ends.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = TABS.findIndex((tab) => tab.id === selected);
    let next: number;
    switch (event.key) {
      case "ArrowRight":
        next = (index + 1) % TABS.length;
        break;
      case "ArrowLeft":
        next = (index - 1 + TABS.length) % TABS.length;
        break;
      case "Home":
        next = 0;
        break;
      case "End":
        next = TABS.length - 1;
        break;
      default:
        return;
    }
    event.preventDefault();
    const tab = TABS[next];
    if (tab) select(tab.id);
  };

  return (
    <div className="app">
      <header className="app-header">
        <h1>Toolscope</h1>
        <p className="tagline">Workbench for debugging LLM tool calling</p>
        <ThemeSelect />
      </header>
      <StartupNotices />
      <ElicitationHost />
      <div className="tabs" role="tablist" aria-label="Workbench" onKeyDown={onKeyDown}>
        {TABS.map((tab) => (
          <button
            key={tab.id}
            ref={(element) => {
              if (element) tabRefs.current.set(tab.id, element);
              else tabRefs.current.delete(tab.id);
            }}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            className="tab"
            aria-selected={selected === tab.id}
            aria-controls={`panel-${tab.id}`}
            tabIndex={selected === tab.id ? 0 : -1}
            onClick={() => {
              select(tab.id);
            }}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <main className="panels">
        {TABS.map((tab) => (
          <div
            key={tab.id}
            role="tabpanel"
            id={`panel-${tab.id}`}
            aria-labelledby={`tab-${tab.id}`}
            className="panel"
            tabIndex={0}
            hidden={selected !== tab.id}
          >
            {opened.has(tab.id) && <Panel id={tab.id} active={selected === tab.id} />}
          </div>
        ))}
      </main>
    </div>
  );
}

function Panel({ id, active }: { id: TabId; active: boolean }) {
  switch (id) {
    case "discovery":
      return (
        <Timed id="discovery-pane">
          <DiscoveryPane active={active} />
        </Timed>
      );
    case "parser":
      return (
        <Timed id="parser-pane">
          <parser.Pane active={active} />
        </Timed>
      );
    case "executor":
      return (
        <Timed id="executor-pane">
          <executor.Pane active={active} />
        </Timed>
      );
    case "sources":
      return <sources.Pane active={active} />;
    case "agent":
      return <agent.Pane active={active} />;
    case "live":
      return <live.Pane active={active} />;
    case "metrics":
      return <metrics.Pane active={active} />;
    case "settings":
      return <settings.Pane active={active} />;
  }
}
