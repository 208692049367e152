/**
 * The Agent pane: endpoint profiles, a new conversation run against a real model with the
 * enabled tools (streamed turn by turn: text, reasoning, calls, parse, results, retries,
 * feedback, confirmations), and the recorded conversations (open, timeline, replay against
 * today's parsers, export a turn, delete). Ctrl/Cmd+Enter starts, Esc stops.
 */
import { useEffect, useEffectEvent, useState } from "react";

import { AgentConfirmDialog } from "./AgentConfirmDialog";
import { ConversationList } from "./ConversationList";
import { LiveView } from "./LiveView";
import { NewConversation } from "./NewConversation";
import { ProfilesSection } from "./ProfilesSection";
import { RecordedView } from "./RecordedView";
import { ipc } from "../../lib/ipc";
import { buildSettings, INITIAL_DRAFT, seededFromConfig, toolSubset, type DraftSettings } from "./settingsModel";
import { useAgentRun } from "./useAgentRun";
import { useCatalog } from "./useCatalog";
import { useConversations } from "./useConversations";
import { useProfiles } from "./useProfiles";
import "./agent.css";

export function AgentPane({ active, pollMs }: { active: boolean; pollMs?: number | undefined }) {
  const profiles = useProfiles();
  const catalog = useCatalog(active);
  const [query, setQuery] = useState("");
  const conversations = useConversations(query, active, pollMs);
  const run = useAgentRun(conversations.refresh);
  const [draft, setDraft] = useState<DraftSettings>(INITIAL_DRAFT);
  const [notice, setNotice] = useState<string | null>(null);
  const [startedPrompted, setStartedPrompted] = useState(false);

  // Until one is chosen, the first profile and the first format are the ones used.
  const profileList = profiles.profiles ?? [];
  const profile = profileList.some((p) => p.name === draft.profile) ? draft.profile : (profileList[0]?.name ?? "");
  const format = draft.format !== "" ? draft.format : (catalog.protocols[0]?.id ?? "");
  const effective: DraftSettings = { ...draft, profile, format };

  const change = (patch: Partial<DraftSettings>) => {
    setDraft((previous) => ({ ...previous, ...patch }));
    setNotice(null);
  };

  const start = () => {
    if (run.running) return;
    if (effective.profile === "") {
      setNotice("Add an endpoint profile first.");
      return;
    }
    if (effective.task.trim() === "") {
      setNotice("Describe the task for the model.");
      return;
    }
    const built = buildSettings(effective);
    if (!built.ok) {
      setNotice(built.problem);
      return;
    }
    setNotice(null);
    setStartedPrompted(effective.toolMode === "prompted");
    run.start({
      profile: effective.profile,
      task: effective.task,
      settings: built.settings,
      tools: toolSubset(
        catalog.methods.map((m) => m.routingName),
        effective.disabledTools,
      ),
    });
  };

  // The app's settings say how many iterations and calls a conversation may take and whether
  // every call is confirmed; they seed the form (unreadable settings keep its defaults).
  useEffect(() => {
    let live = true;
    ipc.getSettings().then(
      (settings) => {
        if (live) setDraft((previous) => seededFromConfig(previous, settings.config));
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);

  const onKey = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || event.isComposing || run.confirmation !== null) return;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.altKey) {
      event.preventDefault();
      start();
    } else if (event.key === "Escape" && run.running) {
      event.preventDefault();
      run.stop();
    }
  });
  useEffect(() => {
    if (!active) return;
    const listener = (event: KeyboardEvent) => {
      onKey(event);
    };
    window.addEventListener("keydown", listener);
    return () => {
      window.removeEventListener("keydown", listener);
    };
  }, [active]);

  return (
    <section className="pane ag-pane" data-active={active} aria-labelledby="agent-title">
      <div className="pane-head">
        <div>
          <h2 id="agent-title">Agent</h2>
          <p className="muted">Run a conversation with a real model and the enabled tools; every conversation is recorded.</p>
        </div>
      </div>
      <div className="ag-main">
        <div className="ag-column">
          <ProfilesSection view={profiles} />
          <NewConversation
            draft={effective}
            onChange={change}
            profiles={profileList}
            catalog={catalog}
            running={run.running}
            notice={notice}
            onStart={start}
            onStop={run.stop}
          />
        </div>
        <div className="ag-column">
          <LiveView run={run} prompted={startedPrompted} onOpenRecord={conversations.open} />
        </div>
      </div>
      <ConversationList view={conversations} query={query} onQueryChange={setQuery} />
      {conversations.opened && <RecordedView opened={conversations.opened} view={conversations} />}
      {run.confirmation && <AgentConfirmDialog key={run.confirmation.confirmationId} confirmation={run.confirmation} onAnswer={run.answer} />}
    </section>
  );
}
