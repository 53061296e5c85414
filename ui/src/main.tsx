// First: asks for the snapshot before the rest of the page's script evaluates.
import "./app/askEarly";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { askFirstSnapshot, firstSnapshotShown } from "./app/firstSnapshot";
import { App } from "./App";
import type { Outcome } from "./api/call";
import type { AppSnapshot } from "./api/types";
import "./styles.css";

/**
 * How long the first render waits for the first snapshot. It usually comes within a few
 * milliseconds of the script starting, and the first render is then the screen itself;
 * a slower start shows "Loading…" after this long, as before.
 */
const FIRST_SNAPSHOT_WAIT_MS = 40;

const firstSnapshot = askFirstSnapshot();
const root = document.getElementById("root");
if (root) {
  const show = (initial: Outcome<AppSnapshot> | undefined) => {
    if (initial) firstSnapshotShown();
    createRoot(root).render(
      <StrictMode>
        <App initial={initial} />
      </StrictMode>,
    );
  };
  const waited = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), FIRST_SNAPSHOT_WAIT_MS));
  void Promise.race([firstSnapshot, waited]).then(show);
}
