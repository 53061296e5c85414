import { useEffect, useState } from "react";
import { commands } from "../bindings";
import { call, unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { AppInfo, LogLevel, Settings, UpdateChannel } from "../api/types";
import { Modal } from "../bulk/Modal";
import { checkForUpdate } from "./Updates";

const LOG_LEVELS: { value: LogLevel; label: string }[] = [
  { value: "error", label: "Errors only" },
  { value: "warn", label: "Warnings" },
  { value: "info", label: "Normal" },
  { value: "debug", label: "Detailed (each request and sync step)" },
  { value: "trace", label: "Everything" },
];

const CHANNELS: { value: UpdateChannel; label: string }[] = [
  { value: "stable", label: "Stable releases" },
  { value: "beta", label: "Beta (release candidates too)" },
];

/** Where the app's files are, the log level and the update channel. */
export function SettingsDialog({ onClose }: { onClose: () => void }) {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [draft, setDraft] = useState<Settings | null>(null);
  useEffect(() => {
    let live = true;
    void unwrap(commands.appInfo()).then((i) => {
      if (live && i) {
        setInfo(i);
        setDraft(i.settings);
      }
    });
    return () => {
      live = false;
    };
  }, []);
  if (!info || !draft) return null;
  const save = async () => {
    const r = await call(commands.saveSettings(draft));
    if (r.ok) {
      setInfo(r.data);
      toast("Settings saved.", "success");
      onClose();
    }
  };
  const route = info.updateRoute;
  return (
    <Modal label="Settings" onClose={onClose}>
      <form
        data-form="settings"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="field">
          <span className="label">Data directory</span>
          <div className="mono small" data-setting="dataDir">
            {info.dataDir}
          </div>
          <div className="muted small">Profiles, workspaces and settings. Start Flightdeck with FLIGHTDECK_DATA_DIR set to keep them elsewhere.</div>
        </div>
        <div className="field">
          <label htmlFor="logLevel">Log level</label>
          <select id="logLevel" name="logLevel" value={draft.logLevel} onChange={(e) => setDraft({ ...draft, logLevel: e.target.value as LogLevel })}>
            {LOG_LEVELS.map((l) => (
              <option key={l.value} value={l.value}>
                {l.label}
              </option>
            ))}
          </select>
          <div className="muted small">
            {info.logSource === "environment" ? "FLIGHTDECK_LOG sets the level for this run; this choice applies from the next start without it. " : ""}
            Logs never hold passwords, tokens or audience identifiers.{" "}
            <button type="button" className="link" data-action="open-logs" onClick={() => void call(commands.openLogsFolder())}>
              Open logs folder
            </button>
            <div className="mono">{info.logDir}</div>
          </div>
        </div>
        <div className="field">
          <label htmlFor="updateChannel">Update channel</label>
          <select id="updateChannel" name="updateChannel" value={draft.updateChannel} onChange={(e) => setDraft({ ...draft, updateChannel: e.target.value as UpdateChannel })}>
            {CHANNELS.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
          <div className="muted small" data-update-route={route.how}>
            {route.how === "inApp"
              ? "Flightdeck checks for updates when it starts and installs them when you say so."
              : route.how === "packageManager"
                ? route.reason
                : "This build has no update feed."}
          </div>
        </div>
        <div className="row">
          <button type="submit" className="primary" data-action="save-settings">
            Save
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Help → About Flightdeck: the version and where its files are. */
export function AboutDialog({ onClose }: { onClose: () => void }) {
  const [info, setInfo] = useState<AppInfo | null>(null);
  useEffect(() => {
    let live = true;
    void unwrap(commands.appInfo()).then((i) => {
      if (live && i) setInfo(i);
    });
    return () => {
      live = false;
    };
  }, []);
  if (!info) return null;
  return (
    <Modal label="About Flightdeck" onClose={onClose}>
      <div className="about" data-about>
        <p className="about-name">
          <span className="logo" aria-hidden="true">
            ✈
          </span>{" "}
          Flightdeck <span data-about-version>{info.version}</span>
        </p>
        <p className="muted">A desktop campaign manager for media buyers: bulk edits, offline drafts, exactly-once posting.</p>
        <dl className="about-paths small">
          <dt>Data</dt>
          <dd className="mono">{info.dataDir}</dd>
          <dt>Logs</dt>
          <dd className="mono">{info.logDir}</dd>
        </dl>
        <div className="row">
          <button type="button" onClick={() => void checkForUpdate(false)} disabled={info.updateRoute.how !== "inApp"}>
            Check for updates
          </button>
          <button type="button" onClick={() => void call(commands.openLogsFolder())}>
            Open logs folder
          </button>
          <button type="button" className="primary" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </Modal>
  );
}
