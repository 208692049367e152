/**
 * Shows what MCP servers ask the person while their calls run, from anywhere in the app (the
 * Executor's runs, the Agent's): reads the pending elicitations at start and on every
 * `elicitations-changed` event, shows the oldest in {@link ElicitationDialog}, and sends the
 * answer with `answer_elicitation`. Values the backend refuses keep the form open with why.
 */
import { useCallback, useEffect, useRef, useState } from "react";

import { errorMessage, ipc, IpcError, onElicitationsChanged, type ElicitationAnswer, type PendingElicitation } from "../../lib/ipc";
import { ElicitationDialog } from "./ElicitationDialog";

interface Refusal {
  elicitationId: string;
  message: string;
}

export function ElicitationHost() {
  const [pending, setPending] = useState<PendingElicitation[]>([]);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const mounted = useRef(true);

  const read = useCallback(() => {
    ipc.elicitationsPending().then(
      (list) => {
        if (mounted.current) setPending(list);
      },
      // Outside the app (no backend) there is nothing to show.
      () => undefined,
    );
  }, []);

  useEffect(() => {
    mounted.current = true;
    read();
    const stop = onElicitationsChanged(read);
    return () => {
      mounted.current = false;
      stop();
    };
  }, [read]);

  const current = pending[0];
  const answer = useCallback(
    (elicitationId: string, given: ElicitationAnswer) => {
      ipc.answerElicitation(elicitationId, given).then(
        () => {
          if (!mounted.current) return;
          setRefusal(null);
          setPending((list) => list.filter((p) => p.elicitation_id !== elicitationId));
          read();
        },
        (reason: unknown) => {
          if (!mounted.current) return;
          if (reason instanceof IpcError && reason.kind === "invalid_input") {
            setRefusal({ elicitationId, message: errorMessage(reason) });
          } else {
            setRefusal(null);
            read();
          }
        },
      );
    },
    [read],
  );

  if (!current) return null;
  const id = current.elicitation_id;
  return (
    <ElicitationDialog
      key={id}
      pending={current}
      error={refusal?.elicitationId === id ? refusal.message : null}
      onAnswer={(given) => {
        answer(id, given);
      }}
    />
  );
}
