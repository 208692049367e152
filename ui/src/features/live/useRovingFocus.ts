/**
 * Keyboard movement through a list of buttons (roving tabindex): ↑/↓ move, Home/End jump,
 * Enter opens. One item is in the tab order; the others are reached with the arrows.
 */
import { useState, type KeyboardEvent } from "react";

export interface RovingItemProps {
  tabIndex: number;
  "data-roving": string;
  onFocus: () => void;
}

export interface RovingFocus<T extends HTMLElement> {
  /** For the element around the items. */
  onKeyDown: (event: KeyboardEvent<T>) => void;
  itemProps: (index: number) => RovingItemProps;
}

export function useRovingFocus<T extends HTMLElement>(count: number, selected: number, onActivate: (index: number) => void): RovingFocus<T> {
  const [active, setActive] = useState<number | null>(null);
  const current = Math.max(0, Math.min(count - 1, active ?? (selected >= 0 ? selected : 0)));

  const onKeyDown = (event: KeyboardEvent<T>) => {
    if (count === 0) return;
    const container = event.currentTarget;
    const focus = (index: number) => {
      container.querySelectorAll<HTMLElement>("[data-roving]")[index]?.focus();
      setActive(index);
    };
    switch (event.key) {
      case "ArrowDown":
        focus(Math.min(count - 1, current + 1));
        break;
      case "ArrowUp":
        focus(Math.max(0, current - 1));
        break;
      case "Home":
        focus(0);
        break;
      case "End":
        focus(count - 1);
        break;
      case "Enter":
        onActivate(current);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const itemProps = (index: number): RovingItemProps => ({
    tabIndex: index === current ? 0 : -1,
    "data-roving": "",
    onFocus: () => {
      if (index !== active) setActive(index);
    },
  });

  return { onKeyDown, itemProps };
}
