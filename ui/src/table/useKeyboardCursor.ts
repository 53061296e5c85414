import { type KeyboardEvent, useState } from "react";

export type CursorKeys = {
  count: number;
  /** Rows a PageUp/PageDown moves (read when the key is pressed). */
  page: () => number;
  /** The cursor moved (scroll the row into view, report it). */
  onMove: (index: number) => void;
  onOpen?: (index: number) => void;
  onToggle?: (index: number) => void;
};

/**
 * The keyboard cursor of a table, by row index in the current query: arrows, Page Up/Down,
 * Home/End move it, Enter opens the row, Space ticks it. `resetKey` (the query) puts it
 * back before the first row when the rows change order.
 */
export function useKeyboardCursor(resetKey: string, keys: CursorKeys) {
  const [active, setActiveState] = useState(-1);
  const [seen, setSeen] = useState(resetKey);
  if (seen !== resetKey) {
    setSeen(resetKey);
    setActiveState(-1);
  }

  const moveTo = (index: number) => {
    if (keys.count === 0) return;
    const i = Math.max(0, Math.min(keys.count - 1, index));
    setActiveState(i);
    keys.onMove(i);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLButtonElement) {
      if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    }
    switch (e.key) {
      case "ArrowDown":
        moveTo(active + 1);
        break;
      case "ArrowUp":
        moveTo(active < 0 ? 0 : active - 1);
        break;
      case "PageDown":
        moveTo(active + keys.page());
        break;
      case "PageUp":
        moveTo(active - keys.page());
        break;
      case "Home":
        moveTo(0);
        break;
      case "End":
        moveTo(keys.count - 1);
        break;
      case "Enter":
        if (active >= 0 && keys.onOpen) keys.onOpen(active);
        else return;
        break;
      case " ":
        if (active >= 0 && keys.onToggle) keys.onToggle(active);
        else return;
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  return { active, setActive: setActiveState, moveTo, onKeyDown };
}
