import { useEffect, useRef } from "react";
import { events } from "../bindings";
import { toast } from "../api/toast";
import type { MenuCommand } from "../api/types";
import { listenSafely } from "./events";

type Handler = () => void;

// The newest handler of each command wins: a screen that mounts takes the command over
// from the app-wide default, and gives it back when it unmounts.
const handlers = new Map<MenuCommand, Handler[]>();

/** What a command does when no screen handles it (the sign-in screen has no tables). */
const UNHANDLED: Partial<Record<MenuCommand, string>> = {
  import: "Open a table to import into.",
  importTags: "Sign in to import a tag sheet.",
  export: "Sign in to export the account.",
  undo: "Sign in to undo.",
  redo: "Sign in to redo.",
  palette: "Sign in to search.",
};

export function runMenuCommand(command: MenuCommand): void {
  const list = handlers.get(command);
  const handler = list?.[list.length - 1];
  if (handler) handler();
  else toast(UNHANDLED[command] ?? "Sign in first.");
}

/** Handles `command` while the calling component is mounted. */
export function useMenuCommand(command: MenuCommand, handler: Handler): void {
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => {
    const h: Handler = () => latest.current();
    const list = handlers.get(command) ?? [];
    list.push(h);
    handlers.set(command, list);
    return () => {
      const now = handlers.get(command) ?? [];
      handlers.set(
        command,
        now.filter((x) => x !== h),
      );
    };
  }, [command]);
}

/** Routes the menu bar's events to their handlers; mounted once, at the top. */
export function useMenuBar(): void {
  useEffect(() => listenSafely(events.menuAction.listen, (a) => runMenuCommand(a.command)), []);
}

// A shortcut can reach the page twice: as the menu's accelerator and as the page's own
// key handler (which one gets it depends on the OS and on how the key was sent). A run
// from one source right after a run of the same action from the other is that same
// press; two presses from one source are two presses, however quick.
const SAME_PRESS_MS = 150;
const lastRun = new Map<string, { source: "menu" | "key"; at: number }>();

/** Runs `f` for `action` coming from `source`, unless the other source just ran it. */
export function once(action: string, source: "menu" | "key", f: () => void): void {
  const now = performance.now();
  const last = lastRun.get(action);
  if (last !== undefined && last.source !== source && now - last.at < SAME_PRESS_MS) return;
  lastRun.set(action, { source, at: now });
  f();
}
