import { useEffect, useRef } from "react";
import { events } from "../bindings";
import type { Kind, WorkspaceChanged } from "../api/types";

type Subscribe<T> = (cb: (e: { payload: T }) => void) => Promise<() => void>;

/** Listens to a Tauri event; outside Tauri (tests, a plain browser) there are none. */
export function listenSafely<T>(subscribe: Subscribe<T>, cb: (payload: T) => void): () => void {
  let stop: (() => void) | null = null;
  let cancelled = false;
  try {
    subscribe((e) => cb(e.payload))
      .then((un) => {
        if (cancelled) un();
        else stop = un;
      })
      .catch(() => undefined);
  } catch {
    // Not running inside Tauri: no events.
  }
  return () => {
    cancelled = true;
    if (stop) stop();
  };
}

/**
 * Calls `cb` for each `workspaceChanged` event that touches one of `kinds` (every event
 * when `kinds` is `"any"`). Nothing happens for other kinds: a view re-renders only when
 * what it shows changed.
 */
export function useWorkspaceChanged(kinds: readonly Kind[] | "any", cb: (change: WorkspaceChanged) => void): void {
  const latest = useRef(cb);
  useEffect(() => {
    latest.current = cb;
  });
  const key = kinds === "any" ? "any" : kinds.join(",");
  useEffect(() => {
    const wanted = key === "any" ? null : new Set(key.split(","));
    return listenSafely(events.workspaceChanged.listen, (change: WorkspaceChanged) => {
      if (wanted === null || change.kinds.some((k) => wanted.has(k))) latest.current(change);
    });
  }, [key]);
}
