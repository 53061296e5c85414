import { useCallback, useEffect, useSyncExternalStore } from "react";
import { commands, events } from "../bindings";
import { call } from "../api/call";
import { toast } from "../api/toast";
import type { UpdateInfo, UpdateProgress } from "../api/types";
import { listenSafely } from "../state/events";

type UpdateState =
  | { phase: "idle" }
  | { phase: "available"; info: UpdateInfo }
  | { phase: "installing"; info: UpdateInfo; progress: UpdateProgress | null }
  | { phase: "failed"; info: UpdateInfo; message: string };

let state: UpdateState = { phase: "idle" };
const listeners = new Set<() => void>();
function set(next: UpdateState): void {
  state = next;
  for (const l of listeners) l();
}
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};
const snapshot = () => state;

/**
 * Asks the update feed for a newer version. At start (`quiet`) nothing is said unless
 * one exists; from Help, the answer is always shown.
 */
export async function checkForUpdate(quiet: boolean): Promise<void> {
  const r = await call(commands.checkForUpdate(), { quiet: true });
  if (!r.ok) {
    if (!quiet) toast(r.error.message, "error");
    return;
  }
  if (r.data) set({ phase: "available", info: r.data });
  else if (!quiet) toast("Flightdeck is up to date.", "success");
}

async function install(info: UpdateInfo): Promise<void> {
  set({ phase: "installing", info, progress: null });
  // On success the app restarts, so only a failure comes back.
  const r = await call(commands.installUpdate(), { quiet: true });
  if (!r.ok) set({ phase: "failed", info, message: r.error.message });
}

function size(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1e3)} kB`;
}

/** The update on offer: what is new, "Install and restart", the download's progress, or why it failed. */
export function UpdateBanner() {
  const s = useSyncExternalStore(subscribe, snapshot, snapshot);
  useEffect(
    () =>
      listenSafely(events.updateProgress.listen, (p: UpdateProgress) => {
        if (state.phase === "installing") set({ ...state, progress: p });
      }),
    [],
  );
  const dismiss = useCallback(() => set({ phase: "idle" }), []);
  if (s.phase === "idle") return null;
  const { info } = s;
  return (
    <div className="update-banner" role="status" aria-label="Update" data-update={s.phase} data-update-version={info.version}>
      <div className="update-line">
        <strong>Flightdeck {info.version} is available</strong>
        <span className="muted"> (you have {info.currentVersion})</span>
        <span className="spacer" />
        {s.phase === "installing" ? (
          <span data-update-progress>
            {s.progress === null
              ? "Downloading…"
              : s.progress.total
                ? `Downloading… ${Math.round((100 * s.progress.downloaded) / s.progress.total)} %`
                : `Downloading… ${size(s.progress.downloaded)}`}
          </span>
        ) : (
          <>
            <button type="button" className="primary" data-action="install-update" onClick={() => void install(info)}>
              Install and restart
            </button>
            <button type="button" data-action="dismiss-update" onClick={dismiss}>
              Later
            </button>
          </>
        )}
      </div>
      {s.phase === "installing" && s.progress?.total ? <progress value={s.progress.downloaded} max={s.progress.total} /> : null}
      {s.phase === "failed" && (
        <div className="form-errors" role="alert" data-update-error>
          {s.message}
        </div>
      )}
      {info.notes && (
        <div className="update-notes" aria-label="What’s new" data-update-notes>
          {info.notes}
        </div>
      )}
    </div>
  );
}
