import { useEffect, useRef } from "react";
import { events } from "../bindings";
import type { EntityRef, Kind, SavedRow, WorkspaceChanged } from "../api/types";
import { refKey } from "../util/refs";

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
 * What a change means for a table of `kind` that listens to its kinds: `null` when
 * any of its rows may have changed or moved (rows added or removed, another kind such
 * as a parent whose label it shows, or more ids than an event carries: refresh what it
 * shows), else the ids of its own rows changed in place.
 */
export function changedRows(change: WorkspaceChanged, kind: string): ReadonlySet<string> | null {
  if (change.addedOrRemoved || change.ids.length === 0 || change.kinds.some((k) => k !== kind)) return null;
  return new Set(change.ids.map(refKey));
}

/** Whether a change may touch one of `about`: it names one of them, or names no ids (whole kinds changed). */
export function touches(change: WorkspaceChanged, about: readonly EntityRef[]): boolean {
  if (change.ids.length === 0) return true;
  const wanted = new Set(about.map(refKey));
  return change.ids.some((id) => wanted.has(refKey(id)));
}

/**
 * Calls `cb` for each `workspaceChanged` event that touches one of `kinds` (every event
 * when `kinds` is `"any"`) and, when `about` is given, one of those entities (an open
 * form's: a save of another row leaves it alone). Nothing happens for other changes: a
 * view re-renders only when what it shows changed.
 */
export function useWorkspaceChanged(kinds: readonly Kind[] | "any", cb: (change: WorkspaceChanged) => void, about?: readonly EntityRef[]): void {
  const latest = useRef(cb);
  const aboutRef = useRef(about);
  useEffect(() => {
    latest.current = cb;
    aboutRef.current = about;
  });
  const key = kinds === "any" ? "any" : kinds.join(",");
  useEffect(() => {
    const wanted = key === "any" ? null : new Set(key.split(","));
    return listenSafely(events.workspaceChanged.listen, (change: WorkspaceChanged) => {
      if (wanted !== null && !change.kinds.some((k) => wanted.has(k))) return;
      const of = aboutRef.current;
      if (of !== undefined && !touches(change, of)) return;
      latest.current(change);
    });
  }, [key]);
}

type SavedRowListener = (row: SavedRow) => boolean;
const savedRowListeners = new Set<SavedRowListener>();

/**
 * Hands a form's saved row (the save's answer) to every table that shows it, which shows
 * it at once, in this task: the change event's refetch would land one IPC round trip
 * later, behind the frames the page is drawing meanwhile. Whether a table's rows changed.
 */
export function publishSavedRow(row: SavedRow): boolean {
  let changed = false;
  for (const l of savedRowListeners) changed = l(row) || changed;
  return changed;
}

/** Calls `cb` with each row a form saves (see `publishSavedRow`); `cb` says whether the rows on screen changed. */
export function useSavedRows(cb: SavedRowListener): void {
  const latest = useRef(cb);
  useEffect(() => {
    latest.current = cb;
  });
  useEffect(() => {
    const l: SavedRowListener = (row) => latest.current(row);
    savedRowListeners.add(l);
    return () => {
      savedRowListeners.delete(l);
    };
  }, []);
}
