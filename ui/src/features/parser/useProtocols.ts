/** The protocols the format select offers (`ipc.listProtocols`), loaded once. */
import { useEffect, useState } from "react";

import { ipc, type ProtocolInfo } from "../../lib/ipc";
import { asShownError, type ShownError } from "./useParser";

export function useProtocols() {
  const [protocols, setProtocols] = useState<ProtocolInfo[]>([]);
  const [error, setError] = useState<ShownError | null>(null);

  useEffect(() => {
    let current = true;
    ipc.listProtocols().then(
      (found) => {
        if (current) setProtocols(found);
      },
      (reason: unknown) => {
        if (current) setError(asShownError(reason));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  return { protocols, error };
}
