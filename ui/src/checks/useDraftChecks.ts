// A form's checks while it is edited: asked of the Rust side (`draft_checks`) a moment
// after each change, as the form's errors are (`validate`), the latest answer winning.
import { useEffect, useRef, useState } from "react";
import { commands, type CreativeChecks, type Draft } from "../bindings";
import { unwrap } from "../api/call";

export const CHECKS_DEBOUNCE_MS = 300;

/** The checks of `draft`, `null` until the first answer. */
export function useDraftChecks(draft: Draft): CreativeChecks | null {
  const [checks, setChecks] = useState<CreativeChecks | null>(null);
  const seq = useRef(0);
  const key = JSON.stringify(draft);
  const latest = useRef(draft);
  latest.current = draft;
  useEffect(() => {
    const mine = ++seq.current;
    const timer = setTimeout(() => {
      void unwrap(commands.draftChecks(latest.current), { quiet: true }).then((c) => {
        if (c && mine === seq.current) setChecks(c);
      });
    }, CHECKS_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [key]);
  return checks;
}
