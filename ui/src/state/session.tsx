import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { commands, events } from "../bindings";
import { unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { AppSnapshot } from "../api/types";
import { listenSafely } from "./events";

/** The shell's state without the counters that change on every save or post tick. */
export type SessionView = Omit<AppSnapshot, "pendingCount" | "posting">;

export type SessionState = {
  snapshot: SessionView;
  /** Replaces the whole snapshot (sign-in, profile switch, sandbox toggle). */
  setSnapshot: (s: AppSnapshot) => void;
  /** Asks the Rust side for the snapshot again. */
  reloadSnapshot: () => Promise<void>;
  signOut: () => Promise<void>;
  toggleSandbox: () => Promise<void>;
};

/** What changes on every save and post: read by the sync context only. */
export type Counters = { pendingCount: number; posting: boolean };

const SessionCtx = createContext<SessionState | null>(null);
const CountersCtx = createContext<Counters>({ pendingCount: 0, posting: false });

export function useSession(): SessionState {
  const v = useContext(SessionCtx);
  if (!v) throw new Error("useSession outside SessionProvider");
  return v;
}

/** Pending count and posting flag; use `useSync` rather than this. */
export function useCounters(): Counters {
  return useContext(CountersCtx);
}

/** Who is signed in where: changes when the account or profile does. */
export function sessionKey(s: SessionView): string {
  return `${s.activeId}|${s.session?.account ?? ""}`;
}

export function SessionProvider({ initial, children }: { initial: AppSnapshot; children: ReactNode }) {
  const [snapshot, setSnapshot] = useState<AppSnapshot>(initial);

  const reloadSnapshot = useCallback(async () => {
    const s = await unwrap(commands.appSnapshot(), { quiet: true });
    if (s) setSnapshot(s);
  }, []);

  useEffect(() => {
    const stops = [
      listenSafely(events.sessionChanged.listen, (s: AppSnapshot) => setSnapshot(s)),
      listenSafely(events.signInRequired.listen, (m) => {
        toast(m.message || "Your session expired. Sign in again; your pending changes are kept.", "error");
        setSnapshot((s) => ({ ...s, session: null }));
      }),
    ];
    return () => stops.forEach((s) => s());
  }, []);

  const signOut = useCallback(async () => {
    const s = await unwrap(commands.signOut());
    if (s) setSnapshot(s);
  }, []);

  const running = snapshot.sandbox === "running";
  const toggleSandbox = useCallback(async () => {
    const s = await unwrap(commands.setSandboxRunning(!running));
    if (s) setSnapshot(s);
  }, [running]);

  // A new snapshot object arrives with every save (its pending count): the session view
  // changes only when something it holds does, so its readers do not re-render then.
  const { pendingCount, posting, ...rest } = snapshot;
  const restJson = JSON.stringify(rest);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- compared by value through its JSON
  const view = useMemo<SessionView>(() => rest, [restJson]);
  const session = useMemo<SessionState>(
    () => ({ snapshot: view, setSnapshot, reloadSnapshot, signOut, toggleSandbox }),
    [view, reloadSnapshot, signOut, toggleSandbox],
  );
  const counters = useMemo<Counters>(() => ({ pendingCount, posting }), [pendingCount, posting]);
  return (
    <SessionCtx.Provider value={session}>
      <CountersCtx.Provider value={counters}>{children}</CountersCtx.Provider>
    </SessionCtx.Provider>
  );
}
