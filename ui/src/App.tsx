import { useEffect, useLayoutEffect, useState } from "react";
import type { Outcome } from "./api/call";
import { Toaster } from "./api/toast";
import type { AppSnapshot } from "./api/types";
import { AppProvider } from "./state/app";
import { sessionKey, useSession } from "./state/session";
import { Shell } from "./screens/Shell";
import { AppMenus } from "./app/AppMenus";
import { ErrorBoundary } from "./app/ErrorBoundary";
import { SignIn } from "./screens/SignIn";
import { afterNextPaint, mark } from "./util/timing";
import { preloadDeferred } from "./util/deferred";
import { takeSnapshot } from "./app/firstSnapshot";

/** How long after the first screen is painted the deferred parts start loading. */
const PRELOAD_AFTER_MS = 500;

function Gate() {
  const { snapshot, setSnapshot } = useSession();
  // The first interactive screen is painted: what scripts/bench-ui.sh times a cold start to.
  // The parts left out of the first bundle (util/deferred) load a moment later, so the
  // first dialog or screen opened does not wait for its code.
  useLayoutEffect(
    () =>
      afterNextPaint(() => {
        mark("fd:ready");
        setTimeout(() => void preloadDeferred(), PRELOAD_AFTER_MS);
      }),
    [],
  );
  return (
    <>
      <AppMenus onSnapshot={setSnapshot} />
      {snapshot.session ? <Shell key={sessionKey(snapshot)} /> : <SignIn snapshot={snapshot} onSnapshot={setSnapshot} />}
    </>
  );
}

/**
 * `initial`: the first snapshot, when it came before the first render (main.tsx waits a
 * moment for it), so that render shows the screen; without it the app asks, showing
 * "Loading…" meanwhile.
 */
export function App({ initial }: { initial?: Outcome<AppSnapshot> }) {
  const [snapshot, setSnapshot] = useState<AppSnapshot | null>(initial?.ok ? initial.data : null);
  const [error, setError] = useState<string | null>(initial && !initial.ok ? initial.error.message : null);
  const load = () => {
    setError(null);
    void takeSnapshot().then((r) => {
      if (r.ok) setSnapshot(r.data);
      else setError(r.error.message);
    });
  };
  useEffect(() => {
    if (!initial) load();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on mount: `initial` is only the first render's
  }, []);

  return (
    <ErrorBoundary>
      {snapshot ? (
        <AppProvider initial={snapshot}>
          <Gate />
        </AppProvider>
      ) : error ? (
        <main className="boot" aria-label="Start-up problem">
          <h1>Flightdeck could not start</h1>
          <p data-toast="error">{error}</p>
          <button type="button" onClick={load}>
            Try again
          </button>
        </main>
      ) : (
        <main className="boot" aria-busy="true" aria-label="Loading">
          Loading…
        </main>
      )}
      <Toaster />
    </ErrorBoundary>
  );
}
