/**
 * Problems the backend found while starting (a torn history tail set aside, unreadable
 * settings): shown once, dismissible, never silently dropped.
 */
import { useEffect, useState } from "react";

import { errorMessage, ipc } from "../lib/ipc";

export function StartupNotices() {
  const [notices, setNotices] = useState<string[]>([]);

  useEffect(() => {
    let current = true;
    ipc.startupNotices().then(
      (found) => {
        if (current) setNotices(found);
      },
      (reason: unknown) => {
        if (current) setNotices([`could not read startup notices: ${errorMessage(reason)}`]);
      },
    );
    return () => {
      current = false;
    };
  }, []);

  if (notices.length === 0) return null;
  return (
    <div className="startup-notices" role="status" data-testid="startup-notices">
      <ul>
        {notices.map((notice) => (
          <li key={notice}>{notice}</li>
        ))}
      </ul>
      <button
        type="button"
        onClick={() => {
          setNotices([]);
        }}
      >
        Dismiss
      </button>
    </div>
  );
}
