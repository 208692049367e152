/**
 * A pane whose code is a separate chunk. The window opens on Discovery: the Parser and the
 * Executor (with the schema-form library, about 40 % of the code) are neither evaluated nor
 * rendered before the tool list shows. `preload()` fetches a chunk ahead of use (the shell does
 * so once the first pane is up); once loaded, the pane renders at once, with no loading state.
 */
import { useEffect, useState, type ComponentType } from "react";

export interface PaneProps {
  active: boolean;
}

export interface LazyPane {
  Pane: ComponentType<PaneProps>;
  /** Starts loading the chunk (once; again after a failure). */
  preload: () => Promise<ComponentType<PaneProps>>;
}

export function lazyPane(name: string, load: () => Promise<ComponentType<PaneProps>>): LazyPane {
  let loaded: ComponentType<PaneProps> | null = null;
  let pending: Promise<ComponentType<PaneProps>> | null = null;

  const preload = () => {
    pending ??= load().then(
      (component) => {
        loaded = component;
        return component;
      },
      (reason: unknown) => {
        pending = null;
        throw reason;
      },
    );
    return pending;
  };

  function Pane(props: PaneProps) {
    // The loaded component is held in state too, so its arrival re-renders the pane.
    const [component, setComponent] = useState<ComponentType<PaneProps> | null>(() => loaded);
    const [error, setError] = useState<string | null>(null);
    const [attempt, setAttempt] = useState(0);

    useEffect(() => {
      if (component) return;
      let live = true;
      preload().then(
        (next) => {
          if (live) setComponent(() => next);
        },
        (reason: unknown) => {
          if (live) setError(reason instanceof Error ? reason.message : String(reason));
        },
      );
      return () => {
        live = false;
      };
    }, [component, attempt]);

    if (component) return <PaneView component={component} {...props} />;
    if (error !== null) {
      return (
        <div className="status status-error" role="alert">
          <p>
            The {name} pane could not load: {error}
          </p>
          <button
            type="button"
            className="button"
            onClick={() => {
              setError(null);
              setAttempt((n) => n + 1);
            }}
          >
            Try again
          </button>
        </div>
      );
    }
    return <p className="muted pane-loading">Loading the {name} pane…</p>;
  }
  Pane.displayName = `LazyPane(${name})`;

  return { Pane, preload };
}

function PaneView({ component: Component, ...props }: PaneProps & { component: ComponentType<PaneProps> }) {
  return <Component {...props} />;
}
