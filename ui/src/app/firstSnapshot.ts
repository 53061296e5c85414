/**
 * The shell's first snapshot, asked for as soon as the page's script runs rather than
 * after React's first render and its effects: the answer then comes while the rest of
 * the bundle evaluates, and the first render can be the screen itself instead of
 * "Loading…" followed by a second render and paint (scripts/bench-ui.sh's cold start).
 */
import { commands } from "../bindings";
import { call, type Outcome } from "../api/call";
import type { AppSnapshot } from "../api/types";
import { mark } from "../util/timing";

let first: Promise<Outcome<AppSnapshot>> | null = null;

/** Asks for the snapshot now; main.tsx calls it before the page renders anything. */
export function askFirstSnapshot(): Promise<Outcome<AppSnapshot>> {
  if (!first) first = ask();
  return first;
}

/** The first snapshot came in time for the first render, which shows it: none is kept. */
export function firstSnapshotShown(): void {
  first = null;
}

/**
 * The snapshot `askFirstSnapshot` asked for, the first time it is taken; a new ask every
 * other time (the start screen's "Try again", or a page that asked nothing ahead).
 */
export function takeSnapshot(): Promise<Outcome<AppSnapshot>> {
  const early = first;
  first = null;
  return early ?? ask();
}

function ask(): Promise<Outcome<AppSnapshot>> {
  mark("fd:snapshot-asked");
  return call(commands.appSnapshot(), { quiet: true }).then((r) => {
    mark("fd:snapshot-answered");
    return r;
  });
}
