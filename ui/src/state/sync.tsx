import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { commands, events } from "../bindings";
import { call, unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { DownloadProgress, PullSummary, SyncFinished, SyncProgress } from "../api/types";
import { plural } from "../util/format";
import { listenSafely } from "./events";
import { useCounters, useSession } from "./session";

/** Progress of a post in flight. */
export type Progress = { done: number; total: number };

/**
 * Posting and downloading: progress, the pending count and the actions. Its value changes
 * on every progress tick, so only the status bar, the top bar and the pending screen read it.
 */
export type SyncState = {
  pendingCount: number;
  posting: boolean;
  /** The post in flight, from its progress events. */
  progress: Progress | null;
  /** The download in flight: `null` when none runs, `{ latest: null }` before its first event. */
  download: { latest: DownloadProgress | null } | null;
  startDownload: () => Promise<void>;
  post: (seqs: number[] | null) => Promise<void>;
};

const Ctx = createContext<SyncState | null>(null);

export function useSync(): SyncState {
  const v = useContext(Ctx);
  if (!v) throw new Error("useSync outside SyncProvider");
  return v;
}

/** The toasts a download ends with: its counts, then each notice once. */
export function announceDownload(s: PullSummary, what = "Downloaded"): void {
  toast(`${what}: ${s.added} added, ${s.changed} changed, ${s.removed} removed${s.keptPending ? `, ${s.keptPending} kept (pending changes)` : ""}`, "success");
  for (const n of s.notices) toast(n, "info");
}

function finishedText(f: SyncFinished): string {
  if (f.unreachable) {
    // Nothing failed: the changes wait, and posting resumes once the platform answers.
    const waiting = f.unsent + f.held;
    return `Not posted: the ad platform cannot be reached (${f.unreachable}).${waiting ? ` ${plural(waiting, "change")} wait, none failed;` : ""} posting resumes by itself once it answers.`;
  }
  const parts = [`${f.applied} applied`];
  if (f.failed) parts.push(`${f.failed} failed`);
  if (f.needsReview) parts.push(`${f.needsReview} need review`);
  if (f.conflicts) parts.push(plural(f.conflicts, "conflict"));
  if (f.held) parts.push(`${f.held} held`);
  if (f.unsent) parts.push(`${f.unsent} not sent`);
  return `Post finished: ${parts.join(", ")}${f.stopped ? ` — stopped: ${f.stopped}` : ""}`;
}

export function SyncProvider({ children }: { children: ReactNode }) {
  const { reloadSnapshot } = useSession();
  const { pendingCount, posting } = useCounters();
  const [progress, setProgress] = useState<Progress | null>(null);
  const [download, setDownload] = useState<{ latest: DownloadProgress | null } | null>(null);
  const downloading = useRef(false);

  useEffect(() => {
    const stops = [
      listenSafely(events.syncProgress.listen, (p: SyncProgress) => setProgress({ done: p.done, total: p.total })),
      listenSafely(events.syncFinished.listen, (f: SyncFinished) => {
        setProgress(null);
        toast(finishedText(f), f.failed || f.conflicts || f.stopped || f.unreachable ? "error" : "success");
        void reloadSnapshot();
      }),
      listenSafely(events.downloadProgress.listen, (p: DownloadProgress) => {
        if (downloading.current) setDownload({ latest: p });
      }),
    ];
    return () => stops.forEach((s) => s());
  }, [reloadSnapshot]);

  const startDownload = useCallback(async () => {
    if (downloading.current) return;
    downloading.current = true;
    setDownload({ latest: null });
    const s = await unwrap(commands.refresh());
    downloading.current = false;
    setDownload(null);
    if (s) {
      announceDownload(s);
      await reloadSnapshot();
    }
  }, [reloadSnapshot]);

  const post = useCallback(
    async (seqs: number[] | null) => {
      const r = await call(commands.postChanges(seqs));
      if (r.ok) {
        toast(seqs ? `Posting ${plural(seqs.length, "change")}…` : "Posting changes…", "info");
        setProgress({ done: 0, total: seqs ? seqs.length : pendingCount });
        await reloadSnapshot();
      }
    },
    [reloadSnapshot, pendingCount],
  );

  const value = useMemo<SyncState>(
    () => ({ pendingCount, posting, progress, download, startDownload, post }),
    [pendingCount, posting, progress, download, startDownload, post],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}
