import { type CSSProperties, type ReactNode, Suspense, memo, useEffect, useState } from "react";
import { deferred } from "../util/deferred";
import { commands } from "../bindings";
import { call, unwrap } from "../api/call";
import { kindInfo } from "../api/kinds";
import { fetchAdvertisers, fetchCampaigns } from "../api/queries";
import type { AdvertiserRow, CampaignRow, DownloadOffer as DownloadOfferInfo, Kind } from "../api/types";
import { useWorkspaceChanged } from "../state/events";
import { SCREENS, useEditor, useNavActions, useNavigation, usePaletteOpen } from "../state/navigation";
import { useSession } from "../state/session";
import { useSync } from "../state/sync";
import { plural } from "../util/format";
import { refKey, sameRef } from "../util/refs";
// Loaded after the first frame, or when first opened: a cold start evaluates and lays
// out the shell only (the table comes a frame later), so it starts close to a blank app.
const ScreenView = deferred(() => import("./ScreenView").then((m) => m.ScreenView));
const EditPanel = deferred(() => import("../forms/EditPanel").then((m) => m.EditPanel));
const Palette = deferred(() => import("../components/Palette").then((m) => m.Palette));
const TagSheetHost = deferred(() => import("../bulk/TagSheetDialog").then((m) => m.TagSheetHost));
const openTagSheet = () => import("../bulk/TagSheetDialog").then((m) => m.openTagSheet());
const exportAccount = () => import("../bulk/BulkActions").then((m) => m.exportAccount());
const ExportHost = deferred(() => import("../bulk/SheetDialogs").then((m) => m.ExportHost));
import { PostedNotice, UndoButtons, useUndoKeys } from "../bulk/history";
import { useMenuCommand } from "../state/menu";
import { PanelWidthProvider, usePanelWidth } from "../state/panel";
const DownloadOfferDialog = deferred(() => import("./DownloadOffer").then((m) => m.DownloadOfferDialog));

function ProfileSwitcher() {
  const { snapshot, setSnapshot } = useSession();
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

/** Entries the tree lists per level; the palette finds the others by name. */
const TREE_LIMIT = 200;

type Listing<R> = { rows: R[]; total: number };

/** A few rows of a kind by name, asked again when the workspace changes them. */
function useListing<R>(load: () => Promise<{ rows: R[]; total: number } | undefined>, kind: Kind, key: string, enabled = true): Listing<R> | null {
  const [list, setList] = useState<Listing<R> | null>(null);
  const [changed, setChanged] = useState(0);
  useWorkspaceChanged([kind], () => setChanged((n) => n + 1));
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    void load().then((w) => {
      if (live && w) setList({ rows: w.rows, total: w.total });
    });
    return () => {
      live = false;
    };
    // `load` is rebuilt each render; `key` says what it loads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, changed, enabled]);
  return list;
}

function TreeAdvertiser({ a, open, onToggle }: { a: AdvertiserRow; open: boolean; onToggle: () => void }) {
  const { scope, setScope } = useNavigation();
  const campaigns = useListing<CampaignRow>(
    () => fetchCampaigns({ parent: a.target, filter: "", sort: { column: "name", descending: false }, offset: 0, limit: TREE_LIMIT }),
    "campaign",
    refKey(a.target),
    open,
  );
  const timezone = a.value.timezoneName ?? a.timezone;
  return (
    <li role="treeitem" aria-expanded={open} aria-selected={sameRef(scope?.target, a.target)}>
      <div className="tree-row">
        <button type="button" className="icon-button twisty" aria-label={`${open ? "Collapse" : "Expand"} ${a.label}`} onClick={onToggle}>
          {open ? "▾" : "▸"}
        </button>
        <button
          type="button"
          className={`tree-node ${sameRef(scope?.target, a.target) ? "selected" : ""} ${a.pending ? "pending" : ""}`}
          data-tree-label={a.label}
          onClick={() => setScope({ target: a.target, label: a.label, timezone, advertiser: null, advertiserLabel: null })}
        >
          {a.label}
        </button>
      </div>
      {open && campaigns && (
        <ul role="group">
          {campaigns.rows.map((c) => (
            <li key={refKey(c.target)} role="treeitem" aria-selected={sameRef(scope?.target, c.target)}>
              <button
                type="button"
                className={`tree-node leaf ${sameRef(scope?.target, c.target) ? "selected" : ""} ${c.pending ? "pending" : ""}`}
                data-tree-label={c.label}
                onClick={() => setScope({ target: c.target, label: c.label, timezone: c.timezone ?? timezone, advertiser: a.target, advertiserLabel: a.label })}
              >
                {c.label}
              </button>
            </li>
          ))}
          {campaigns.rows.length === 0 && <li className="muted tree-note">No campaigns</li>}
          {campaigns.total > campaigns.rows.length && <li className="muted tree-note">… {(campaigns.total - campaigns.rows.length).toLocaleString()} more (Ctrl K finds them)</li>}
        </ul>
      )}
    </li>
  );
}

function AccountTree() {
  const { scope, setScope } = useNavigation();
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const advertisers = useListing<AdvertiserRow>(
    () => fetchAdvertisers({ parent: null, filter: "", sort: { column: "name", descending: false }, offset: 0, limit: TREE_LIMIT }),
    "advertiser",
    "all",
  );
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
        {advertisers?.rows.map((a) => {
          const k = refKey(a.target);
          const isOpen = open.has(k) || (scope?.target.kind === "campaign" && sameRef(scope.advertiser, a.target));
          return <TreeAdvertiser key={k} a={a} open={isOpen} onToggle={() => toggle(k)} />;
        })}
        {advertisers && advertisers.total > advertisers.rows.length && (
          <li className="muted tree-note">… {(advertisers.total - advertisers.rows.length).toLocaleString()} more (Ctrl K finds them)</li>
        )}
      </ul>
    </nav>
  );
}

/** The pending count beside its screen's link: the only part of the sidebar that follows posting. */
function PendingBadge() {
  const { pendingCount } = useSync();
  if (pendingCount === 0) return null;
  return (
    <span className="badge" aria-label={`${pendingCount} pending`}>
      {pendingCount}
    </span>
  );
}

function Sidebar() {
  const { screen, setScreen } = useNavigation();
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
            href={`#${s.nav}`}
            data-nav={s.nav}
            aria-current={screen === s.id ? "page" : undefined}
            className={screen === s.id ? "active" : undefined}
            onClick={(e) => {
              e.preventDefault();
              setScreen(s.id);
            }}
          >
            {s.label}
            {s.id === "pending" && <PendingBadge />}
          </a>
        ))}
      </nav>
      <AccountTree />
    </aside>
  );
}

function TopBar() {
  const { snapshot, signOut } = useSession();
  const { setPaletteOpen } = useNavActions();
  const sync = useSync();
  const n = sync.pendingCount;
  return (
    <header className="topbar" aria-label="Toolbar">
      <button
        type="button"
        data-action="download"
        disabled={sync.download !== null}
        title="Download the account from the service (keeps your pending changes)"
        onClick={() => void sync.startDownload()}
      >
        <span aria-hidden="true">↓</span> {sync.download !== null ? "Downloading…" : "Download"}
      </button>
      <button type="button" className="primary" data-action="post-all" disabled={n === 0 || sync.posting} onClick={() => void sync.post(null)}>
        <span aria-hidden="true">↑</span> Post {plural(n, "change")}
      </button>
      <UndoButtons />
      <button type="button" data-action="export-account" title="Export the whole account to a CSV or TSV file" onClick={exportAccount}>
        Export account…
      </button>
      <button type="button" data-action="import-tags" title="Make draft creatives from an ad server's tag sheet (XLSX, CSV or TSV)" onClick={() => void openTagSheet()}>
        Import tag sheet…
      </button>
      <span className="spacer" />
      <button type="button" className="palette-button" onClick={() => setPaletteOpen(true)} aria-keyshortcuts="Control+K Meta+K">
        Search or jump… <kbd>Ctrl K</kbd>
      </button>
      <span className="account muted" data-session-kind={snapshot.session?.kind} title={snapshot.session?.kind === "partner" ? "Data partner" : "Advertiser / agency"}>
        {snapshot.session?.account}
      </span>
      <button type="button" data-action="sign-out" onClick={() => void signOut()}>
        Sign out
      </button>
    </header>
  );
}

/** The download in flight: what it is fetching, and how far (a bar that fills when the total is known). */
function DownloadStatus() {
  const { download } = useSync();
  if (!download) return null;
  const p = download.latest;
  const counted = p && p.total !== null ? `${p.done.toLocaleString()}/${p.total.toLocaleString()}` : p ? p.done.toLocaleString() : "";
  return (
    <span className="sync" data-download-progress={p ? p.kind : ""}>
      Downloading{p ? ` ${kindInfo(p.kind).plural}` : "…"} {counted}
      <progress max={p?.total ?? undefined} value={p && p.total !== null ? p.done : undefined} aria-label="Download progress" />
    </span>
  );
}

function StatusBar() {
  const { snapshot, toggleSandbox } = useSession();
  const { pendingCount, posting: postingFlag, progress } = useSync();
  const posting = postingFlag || progress !== null;
  return (
    <footer className="statusbar" aria-label="Status">
      <span data-status={snapshot.online ? "online" : "offline"} className={snapshot.online ? "online" : "offline"}>
        <span className="dot" aria-hidden="true" /> {snapshot.online ? "Online" : "Offline"}
      </span>
      <span>
        Pending: <b data-pending-count="">{pendingCount}</b>
      </span>
      {posting && (
        <span className="sync" data-sync-progress="">
          Posting {progress ? `${progress.done}/${progress.total}` : "…"}
          <progress max={progress?.total || 1} value={progress?.done ?? 0} aria-label="Posting progress" />
        </span>
      )}
      <DownloadStatus />
      <span className="spacer" />
      {snapshot.sandbox !== null && (
        <button type="button" className="small" data-action="toggle-sandbox" onClick={() => void toggleSandbox()}>
          {snapshot.sandbox === "running" ? "Stop local sandbox" : "Start local sandbox"}
        </button>
      )}
    </footer>
  );
}

/** The screen in view: re-renders on navigation only (not on editor, sync or session changes). */
function Content() {
  const { screen } = useNavigation();
  return (
    <main className="content" aria-label="Content">
      <Suspense fallback={<div className="screen-loading" aria-busy="true" />}>
        <ScreenView screen={screen} />
      </Suspense>
    </main>
  );
}

/** View → each screen, File → Export account… and File → Import tag sheet… */
function MenuScreens() {
  const { setScreen } = useNavActions();
  useMenuCommand("showAdvertisers", () => setScreen("advertiser"));
  useMenuCommand("showCampaigns", () => setScreen("campaign"));
  useMenuCommand("showAdOrders", () => setScreen("ad_order"));
  useMenuCommand("showCreatives", () => setScreen("creative"));
  useMenuCommand("showSiteLists", () => setScreen("site_list"));
  useMenuCommand("showAudienceSegments", () => setScreen("audience_segment"));
  useMenuCommand("showPending", () => setScreen("pending"));
  useMenuCommand("export", () => void exportAccount());
  useMenuCommand("importTags", () => void openTagSheet());
  return (
    <Suspense fallback={null}>
      <TagSheetHost />
      <ExportHost />
    </Suspense>
  );
}

function PaletteHost() {
  const open = usePaletteOpen();
  const { setPaletteOpen } = useNavActions();
  useMenuCommand("palette", () => setPaletteOpen(true));
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
  return open ? (
    <Suspense fallback={null}>
      <Palette onClose={() => setPaletteOpen(false)} />
    </Suspense>
  ) : null;
}

/** The edit panel, its forms loaded when a form is first opened. */
function EditPanelHost() {
  const { editor } = useEditor();
  return editor ? (
    <Suspense fallback={null}>
      <EditPanel />
    </Suspense>
  ) : null;
}

/**
 * After the first sign-in to an account (nothing downloaded, the offer not answered),
 * offers to download it at once. Asked once per session: the shell is mounted anew on
 * each sign-in.
 */
function DownloadOffer() {
  const [offer, setOffer] = useState<DownloadOfferInfo | null>(null);
  // A download started another way (the toolbar's Download) answers the offer: it is
  // not shown over that download, nor after it (its answer can come late: it asks the
  // service for the account's size).
  const { download } = useSync();
  const [downloaded, setDownloaded] = useState(false);
  if (download !== null && !downloaded) setDownloaded(true);
  useEffect(() => {
    let live = true;
    void call(commands.downloadOffer(), { quiet: true }).then((r) => {
      if (live && r.ok && r.data) setOffer(r.data);
    });
    return () => {
      live = false;
    };
  }, []);
  return offer && !downloaded ? (
    <Suspense fallback={null}>
      <DownloadOfferDialog offer={offer} onDone={() => setOffer(null)} />
    </Suspense>
  ) : null;
}

/** The window's frame: makes room for the edit panel, at its width, when a form is open. */
function Frame({ children }: { children: ReactNode }) {
  const { editor } = useEditor();
  const { width } = usePanelWidth();
  return (
    <div className={editor ? "shell with-panel" : "shell"} style={editor ? ({ "--panel-width": `${width}px` } as CSSProperties) : undefined}>
      {children}
    </div>
  );
}

/**
 * The main window. Each part reads only the context it shows, so a post's progress tick
 * re-renders the status bar, not the table on screen, and opening a form leaves it alone;
 * a session change (online, sandbox) reaches only the parts that show it.
 */
export const Shell = memo(function Shell() {
  useUndoKeys();
  return (
    <PanelWidthProvider>
      <Frame>
        <Sidebar />
        <TopBar />
        <Content />
        <EditPanelHost />
        <StatusBar />
        <PaletteHost />
        <MenuScreens />
        <PostedNotice />
        <DownloadOffer />
      </Frame>
    </PanelWidthProvider>
  );
});
