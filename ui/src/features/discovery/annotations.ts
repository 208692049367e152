/**
 * The behaviour badges of a method, derived the way the engine reads annotations
 * (engine/src/types.rs): only an explicit read-only hint is trusted, and a method that does not
 * say it is safe is treated as destructive.
 */
import type { MethodMetadata } from "../../lib/ipc";

export type BadgeTone = "ok" | "danger" | "info" | "muted";

export interface Badge {
  label: string;
  tone: BadgeTone;
  /** Why the badge is there, shown as a tooltip. */
  hint: string;
}

export function isReadOnly(meta: MethodMetadata): boolean {
  return meta.annotations?.read_only === true;
}

export function isDestructive(meta: MethodMetadata): boolean {
  if (isReadOnly(meta)) return false;
  return meta.annotations?.destructive !== false;
}

export function methodBadges(meta: MethodMetadata): Badge[] {
  const annotations = meta.annotations ?? {};
  const badges: Badge[] = [];
  if (isReadOnly(meta)) {
    badges.push({ label: "read-only", tone: "ok", hint: "Declares it changes nothing; may run in parallel." });
  }
  if (isDestructive(meta)) {
    const stated = annotations.destructive === true;
    badges.push({
      label: stated ? "destructive" : "destructive (assumed)",
      tone: "danger",
      hint: stated
        ? "Declares it may change or delete things; runs ask for confirmation."
        : "States neither read-only nor non-destructive, so it is treated as destructive.",
    });
  }
  if (annotations.idempotent === true) {
    badges.push({ label: "idempotent", tone: "info", hint: "Repeating a call with the same arguments has no further effect." });
  }
  if (annotations.open_world === true) {
    badges.push({ label: "open-world", tone: "info", hint: "Reaches outside the app (network, other systems)." });
  }
  if (!meta.agent_callable) {
    badges.push({ label: "not agent-callable", tone: "muted", hint: "Hidden from models; only a person can run it." });
  }
  return badges;
}
