import { useRef, useState, type KeyboardEvent } from "react";

import { DiscoveryPane } from "./features/discovery/DiscoveryPane";

const TABS = [
  { id: "discovery", label: "Discovery" },
  { id: "parser", label: "Parser" },
  { id: "executor", label: "Executor" },
] as const;

type TabId = (typeof TABS)[number]["id"];

/** The application shell: header and the three workbench tabs. */
export function App() {
  const [selected, setSelected] = useState<TabId>("discovery");
  const tabRefs = useRef(new Map<TabId, HTMLButtonElement>());

  const select = (id: TabId) => {
    setSelected(id);
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
      </header>
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
            <Panel id={tab.id} />
          </div>
        ))}
      </main>
    </div>
  );
}

function Panel({ id }: { id: TabId }) {
  switch (id) {
    case "discovery":
      return <DiscoveryPane />;
    case "parser":
      return (
        <NotYet title="Parser">
          Paste a model reply and see the tool calls each format extracts, with diagnostics for malformed
          blocks.
        </NotYet>
      );
    case "executor":
      return (
        <NotYet title="Executor">
          Run parsed calls against the registered tools, with validation, confirmation, timeouts and results
          formatted for the protocol.
        </NotYet>
      );
  }
}

function NotYet({ title, children }: { title: string; children: string }) {
  return (
    <section className="pane" aria-labelledby={`${title.toLowerCase()}-title`}>
      <h2 id={`${title.toLowerCase()}-title`}>{title}</h2>
      <p className="status">
        The {title} pane is not part of this build yet: it arrives with the desktop-app issue.
      </p>
      <p className="muted">{children}</p>
    </section>
  );
}
