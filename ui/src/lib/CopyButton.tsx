/** Copying text to the clipboard, and a button that says whether it worked. */
import { useState } from "react";

/** Copies text, falling back to a hidden textarea where the async clipboard is unavailable. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    area.select();
    let copied = false;
    try {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the only fallback when the clipboard API is refused
      copied = document.execCommand("copy");
    } catch {
      copied = false;
    }
    area.remove();
    return copied;
  }
}

interface Props {
  text: string;
  label: string;
  testId?: string | undefined;
  className?: string;
  stateClassName?: string;
}

export function CopyButton({ text, label, testId, className = "button button-small", stateClassName = "copy-state" }: Props) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <>
      <button
        type="button"
        className={className}
        data-testid={testId}
        onClick={() => {
          void copyText(text).then((ok) => {
            setState(ok ? "copied" : "failed");
          });
        }}
      >
        {label}
      </button>
      <span className={stateClassName} aria-live="polite">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select the text and copy it" : ""}
      </span>
    </>
  );
}
