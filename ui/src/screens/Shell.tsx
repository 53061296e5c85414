import { useEffect, useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import { EditPanel } from "../forms/EditPanel";
import { Palette } from "../components/Palette";
import { SCREENS, type Screen, useApp } from "../state/app";
import { clearEntities } from "../state/registry";
import { plural } from "../util/format";
import { refKey, sameRef } from "../util/refs";
import { PendingScreen } from "./Pending";
import { AdOrdersScreen, AdvertisersScreen, AudienceSegmentsScreen, CampaignsScreen, CreativesScreen, SiteListsScreen } from "./Tables";

function ProfileSwitcher() {
  const { snapshot, setSnapshot } = useApp();
  const active = snapshot.profiles.find((p) => p.id === snapshot.activeId);
  const url = active ? (
    <div className="profile-url" title={active.embedded ? "Embedded local sandbox" : "Service"}>
      <span data-profile-url={active.baseUrl}>{active.baseUrl}</span>
    </div>
  ) : null;
  if (snapshot.profiles.length < 2) {
    return (
      <div className="profile-one muted">
        {active ? active.name : ""}
        {url}
      </div>
    );
  }
  return (
    <div className="profiles" role="group" aria-label="Profiles">
      {snapshot.profiles.map((p) => (
        <button
          key={p.id}
          type="button"
          className={p.id === snapshot.activeId ? "profile active" : "profile"}
          aria-pressed={p.id === snapshot.activeId}
          data-profile={p.id}
          title={p.embedded ? "Embedded local sandbox" : p.baseUrl}
          onClick={() => {
            if (p.id !== snapshot.activeId) void unwrap(commands.switchProfile(p.id)).then((s) => s && setSnapshot(s));
          }}
        >
          {p.name}
        </button>
      ))}
      {url}
    </div>
  );
}

function AccountTree() {
  const { advertisers, campaigns, scope, setScope } = useApp();
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (k: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  return (
    <nav className="tree" aria-label="Account tree">
      <div className="tree-title">Account</div>
      <ul role="tree" aria-label="Advertisers and campaigns">
        <li role="treeitem" aria-selected={scope === null}>
          <button type="button" className={scope === null ? "tree-node selected" : "tree-node"} onClick={() => setScope(null)}>
            All advertisers
          </button>
        </li>
        {advertisers.map((a) => {
          const k = refKey(a.target);
          const kids = campaigns.filter((c) => sameRef(c.parent, a.target));
          const isOpen = open.has(k) || (scope !== null && kids.some((c) => sameRef(c.target, scope)));
          return (
            <li key={k} role="treeitem" aria-expanded={kids.length > 0 ? isOpen : undefined} aria-selected={sameRef(scope, a.target)}>
              <div className="tree-row">
                {kids.length > 0 ? (
                  <button type="button" className="icon-button twisty" aria-label={`${isOpen ? "Collapse" : "Expand"} ${a.label}`} onClick={() => toggle(k)}>
                    {isOpen ? "▾" : "▸"}
                  </button>
                ) : (
                  <span className="twisty" />
                )}
                <button
                  type="button"
                  className={`tree-node ${sameRef(scope, a.target) ? "selected" : ""} ${a.pending ? "pending" : ""}`}
                  data-tree-label={a.label}
                  onClick={() => setScope(a.target)}
                >
                  {a.label}
                </button>
              </div>
              {isOpen && kids.length > 0 && (
                <ul role="group">
                  {kids.map((c) => (
                    <li key={refKey(c.target)} role="treeitem" aria-selected={sameRef(scope, c.target)}>
                      <button
                        type="button"
                        className={`tree-node leaf ${sameRef(scope, c.target) ? "selected" : ""} ${c.pending ? "pending" : ""}`}
                        data-tree-label={c.label}
                        onClick={() => setScope(c.target)}
                      >
                        {c.label}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function Sidebar() {
  const { screen, setScreen, snapshot } = useApp();
  return (
    <aside className="sidebar" aria-label="Sidebar">
      <div className="brand">
        <span className="logo" aria-hidden="true">
          ✈
        </span>{" "}
        Flightdeck
      </div>
      <ProfileSwitcher />
      <nav className="nav" aria-label="Screens">
        {SCREENS.map((s) => (
          <a
            key={s.id}
            href={`#${s.id}`}
            data-nav={s.id}
            aria-current={screen === s.id ? "page" : undefined}
            className={screen === s.id ? "active" : undefined}
            onClick={(e) => {
              e.preventDefault();
              setScreen(s.id);
            }}
          >
            {s.label}
            {s.id === "pending" && snapshot.pendingCount > 0 && (
              <span className="badge" aria-label={`${snapshot.pendingCount} pending`}>
                {snapshot.pendingCount}
              </span>
            )}
          </a>
        ))}
      </nav>
      <AccountTree />
    </aside>
  );
}

function TopBar() {
  const app = useApp();
  const n = app.snapshot.pendingCount;
  const [downloading, setDownloading] = useState(false);
  return (
    <header className="topbar" aria-label="Toolbar">
      <button
        type="button"
        data-action="download"
        disabled={downloading}
        title="Download the account from the service (keeps your pending changes)"
        onClick={async () => {
          setDownloading(true);
          await app.download();
          setDownloading(false);
        }}
      >
        <span aria-hidden="true">↓</span> {downloading ? "Downloading…" : "Download"}
      </button>
      <button type="button" className="primary" data-action="post-all" disabled={n === 0 || app.snapshot.posting} onClick={() => void app.post(null)}>
        <span aria-hidden="true">↑</span> Post {plural(n, "change")}
      </button>
      <span className="spacer" />
      <button type="button" className="palette-button" onClick={() => app.setPaletteOpen(true)} aria-keyshortcuts="Control+K Meta+K">
        Search or jump… <kbd>Ctrl K</kbd>
      </button>
      <span
        className="account muted"
        data-session-kind={app.snapshot.session?.kind}
        title={app.snapshot.session?.kind === "partner" ? "Data partner" : "Advertiser / agency"}
      >
        {app.snapshot.session?.account}
      </span>
      <button type="button" data-action="sign-out" onClick={() => void app.signOut()}>
        Sign out
      </button>
    </header>
  );
}

function StatusBar() {
  const app = useApp();
  const { snapshot, progress } = app;
  const posting = snapshot.posting || progress !== null;
  return (
    <footer className="statusbar" aria-label="Status">
      <span data-status={snapshot.online ? "online" : "offline"} className={snapshot.online ? "online" : "offline"}>
        <span className="dot" aria-hidden="true" /> {snapshot.online ? "Online" : "Offline"}
      </span>
      <span>
        Pending: <b data-pending-count="">{snapshot.pendingCount}</b>
      </span>
      {posting && (
        <span className="sync" data-sync-progress="">
          Posting {progress ? `${progress.done}/${progress.total}` : "…"}
          <progress max={progress?.total || 1} value={progress?.done ?? 0} aria-label="Posting progress" />
        </span>
      )}
      <span className="spacer" />
      {snapshot.sandbox !== null && (
        <button type="button" className="small" data-action="toggle-sandbox" onClick={() => void app.toggleSandbox()}>
          {snapshot.sandbox === "running" ? "Stop local sandbox" : "Start local sandbox"}
        </button>
      )}
    </footer>
  );
}

function ScreenView({ screen }: { screen: Screen }) {
  switch (screen) {
    case "advertisers":
      return <AdvertisersScreen />;
    case "campaigns":
      return <CampaignsScreen />;
    case "ad_orders":
      return <AdOrdersScreen />;
    case "creatives":
      return <CreativesScreen />;
    case "site_lists":
      return <SiteListsScreen />;
    case "audience_segments":
      return <AudienceSegmentsScreen />;
    case "pending":
      return <PendingScreen />;
  }
}

export function Shell() {
  const app = useApp();
  const { setPaletteOpen } = app;
  // A new account or profile: the palette forgets the previous one's rows.
  useEffect(() => clearEntities(), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k") {
        e.preventDefault();
        setPaletteOpen(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [setPaletteOpen]);

  return (
    <div className={app.editor ? "shell with-panel" : "shell"}>
      <Sidebar />
      <TopBar />
      <main className="content" aria-label="Content">
        <ScreenView screen={app.screen} />
      </main>
      <EditPanel />
      <StatusBar />
      {app.paletteOpen && <Palette onClose={() => setPaletteOpen(false)} />}
    </div>
  );
}
