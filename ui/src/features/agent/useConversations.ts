/**
 * The recorded conversations: the list (newest first, filtered by a debounced query), the one
 * opened (its records folded into a {@link Conversation}), its replay by today's parsers, and
 * deleting one.
 */
import { useCallback, useEffect, useState } from "react";

import { errorMessage, ipc, type ConversationSummary, type ReplayedTurn, type SkippedLine } from "../../lib/ipc";
import type { Conversation } from "./conversationModel";
import { fromRecords } from "./records";

const SEARCH_DELAY_MS = 200;

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

export function useConversations(query: string, active: boolean): ConversationsView {
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

  const open = useCallback((id: string) => {
    setOpening(id);
    setOpenError(null);
    setReplay(null);
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
  }, []);

  const close = useCallback(() => {
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
