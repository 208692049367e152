/**
 * The recorded conversations: the list (newest first, filtered by a debounced query), the one
 * opened (its records folded into a {@link Conversation}), its replay by today's parsers, and
 * deleting one. While the pane is shown the list is read again every few seconds, so what the
 * model proxy records appears as it happens; an opened proxied conversation that changed is
 * read again with it (each turn as the agent takes it).
 */
import { useCallback, useEffect, useRef, useState } from "react";

import { errorMessage, ipc, type ConversationSummary, type ReplayedTurn, type SkippedLine } from "../../lib/ipc";
import type { Conversation } from "./conversationModel";
import { fromRecords } from "./records";

const SEARCH_DELAY_MS = 200;
/** How often the list is read again while shown (the backend answers from cached summaries). */
export const LIST_POLL_MS = 2000;

/** What changes in a summary when a conversation grows. */
function growth(summary: ConversationSummary | undefined): string {
  if (!summary) return "";
  return JSON.stringify([summary.turns, summary.tool_calls, summary.ended, summary.usage]);
}

export interface Opened {
  id: string;
  conversation: Conversation;
  skipped: SkippedLine[];
}

export type ReplayState = { state: "loading" } | { state: "done"; turns: ReplayedTurn[] } | { state: "failed"; message: string };

export interface ConversationsView {
  list: ConversationSummary[] | null;
  loading: boolean;
  error: string | null;
  refresh: () => void;
  opened: Opened | null;
  openError: string | null;
  opening: string | null;
  open: (id: string) => void;
  close: () => void;
  replay: ReplayState | null;
  runReplay: () => void;
  remove: (id: string) => Promise<string | null>;
}

export function useConversations(query: string, active: boolean, pollMs = LIST_POLL_MS): ConversationsView {
  const [list, setList] = useState<ConversationSummary[] | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [opened, setOpened] = useState<Opened | null>(null);
  const [opening, setOpening] = useState<string | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);
  const [replay, setReplay] = useState<ReplayState | null>(null);

  useEffect(() => {
    if (!active) return;
    let live = true;
    const trimmed = query.trim();
    const timer = window.setTimeout(
      () => {
        setLoading(true);
        ipc.conversationsList(trimmed === "" ? null : trimmed).then(
          (found) => {
            if (!live) return;
            setList(found);
            setError(null);
            setLoading(false);
          },
          (reason: unknown) => {
            if (!live) return;
            setError(errorMessage(reason));
            setLoading(false);
          },
        );
      },
      trimmed === "" ? 0 : SEARCH_DELAY_MS,
    );
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [query, active, version]);

  const refresh = useCallback(() => {
    setVersion((n) => n + 1);
  }, []);

  // The opened conversation and how grown it was when read, for the poll to read it again.
  const watched = useRef<{ id: string; growth: string } | null>(null);

  const reload = useCallback((id: string) => {
    ipc.conversationLoad(id).then(
      (loaded) => {
        if (watched.current?.id !== id) return;
        setOpened({ id: loaded.id, conversation: fromRecords(loaded.records), skipped: loaded.skipped });
      },
      // A failed re-read leaves what is shown; the next poll tries again.
      () => undefined,
    );
  }, []);

  useEffect(() => {
    if (!active) return;
    let live = true;
    const trimmed = query.trim();
    const timer = window.setInterval(() => {
      ipc.conversationsList(trimmed === "" ? null : trimmed).then(
        (found) => {
          if (!live) return;
          setList(found);
          const seen = watched.current;
          if (seen === null) return;
          const summary = found.find((c) => c.id === seen.id);
          const now = growth(summary);
          if (summary?.proxied === true && now !== seen.growth) {
            watched.current = { id: seen.id, growth: now };
            reload(seen.id);
          }
        },
        // The next poll tries again; the list shown stays.
        () => undefined,
      );
    }, pollMs);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [query, active, pollMs, reload]);

  const open = useCallback((id: string) => {
    setOpening(id);
    setOpenError(null);
    setReplay(null);
    watched.current = { id, growth: growth(list?.find((c) => c.id === id)) };
    ipc.conversationLoad(id).then(
      (loaded) => {
        setOpened({ id: loaded.id, conversation: fromRecords(loaded.records), skipped: loaded.skipped });
        setOpening(null);
      },
      (reason: unknown) => {
        setOpenError(errorMessage(reason));
        setOpening(null);
      },
    );
  }, [list]);

  const close = useCallback(() => {
    watched.current = null;
    setOpened(null);
    setReplay(null);
  }, []);

  const openedId = opened?.id ?? null;
  const runReplay = useCallback(() => {
    if (openedId === null) return;
    setReplay({ state: "loading" });
    ipc.conversationReplay(openedId).then(
      (turns) => {
        setReplay({ state: "done", turns });
      },
      (reason: unknown) => {
        setReplay({ state: "failed", message: errorMessage(reason) });
      },
    );
  }, [openedId]);

  const remove = useCallback(
    async (id: string) => {
      try {
        await ipc.conversationDelete(id);
        if (openedId === id) {
          watched.current = null;
          setOpened(null);
          setReplay(null);
        }
        refresh();
        return null;
      } catch (reason: unknown) {
        return errorMessage(reason);
      }
    },
    [openedId, refresh],
  );

  return { list, loading, error, refresh, opened, openError, opening, open, close, replay, runReplay, remove };
}
