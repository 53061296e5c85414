import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { commands, events } from "../bindings";
import { call, plain, unwrap } from "../api/call";
import { toast } from "../api/toast";
import type {
  AdOrderRow,
  AdvertiserRow,
  AppSnapshot,
  CampaignRow,
  EntityRef,
  FlightCapsRow,
  MatrixCell,
  SegmentRow,
  SiteListRow,
  CreativeRow,
  SyncProgress,
  TimezoneInfo,
  TimezoneName,
} from "../api/types";
import { plural } from "../util/format";
import { sameRef } from "../util/refs";

export type Screen = "advertisers" | "campaigns" | "ad_orders" | "creatives" | "site_lists" | "audience_segments" | "pending";

export const SCREENS: { id: Screen; label: string }[] = [
  { id: "advertisers", label: "Advertisers" },
  { id: "campaigns", label: "Campaigns" },
  { id: "ad_orders", label: "Ad orders" },
  { id: "creatives", label: "Creatives" },
  { id: "site_lists", label: "Site lists" },
  { id: "audience_segments", label: "Audience segments" },
  { id: "pending", label: "Pending changes" },
];

/** What the edit panel shows. `row` is absent for a new entity. */
export type Editor =
  | { kind: "advertiser"; row?: AdvertiserRow }
  | { kind: "campaign"; row?: CampaignRow; parent?: EntityRef | null }
  | { kind: "ad_order"; row?: AdOrderRow; parent?: EntityRef | null }
  | { kind: "flight_caps"; adOrder: AdOrderRow; row?: FlightCapsRow | null }
  | { kind: "creative"; row?: CreativeRow; parent?: EntityRef | null }
  | { kind: "site_list"; row?: SiteListRow }
  | { kind: "audience_segment"; row?: SegmentRow };

/** Progress of a post in flight. */
export type Progress = { done: number; total: number };

export type AppState = {
  snapshot: AppSnapshot;
  setSnapshot: (s: AppSnapshot) => void;
  reloadSnapshot: () => Promise<void>;
  screen: Screen;
  setScreen: (s: Screen) => void;
  /** Tree selection that filters the tables: an advertiser or a campaign. */
  scope: EntityRef | null;
  setScope: (r: EntityRef | null) => void;
  /** Bumped after anything that changes the workspace; tables reload on it. */
  version: number;
  bump: () => void;
  advertisers: AdvertiserRow[];
  campaigns: CampaignRow[];
  siteLists: SiteListRow[];
  timezones: TimezoneInfo[];
  matrix: MatrixCell[];
  /** IANA zone of an advertiser (by reference), falling back to UTC. */
  zoneOf: (advertiser: EntityRef | null | undefined) => { iana: string; name: TimezoneName | null; label: string };
  advertiserOfCampaign: (campaign: EntityRef | null | undefined) => EntityRef | null;
  editor: Editor | null;
  openEditor: (e: Editor) => void;
  closeEditor: () => void;
  progress: Progress | null;
  paletteOpen: boolean;
  setPaletteOpen: (open: boolean) => void;
  download: () => Promise<void>;
  post: (seqs: number[] | null) => Promise<void>;
  signOut: () => Promise<void>;
  toggleSandbox: () => Promise<void>;
};

const Ctx = createContext<AppState | null>(null);

export function useApp(): AppState {
  const v = useContext(Ctx);
  if (!v) throw new Error("useApp outside AppProvider");
  return v;
}

function listenSafely<T>(subscribe: (cb: (e: { payload: T }) => void) => Promise<() => void>, cb: (payload: T) => void): () => void {
  let stop: (() => void) | null = null;
  let cancelled = false;
  try {
    subscribe((e) => cb(e.payload))
      .then((un) => {
        if (cancelled) un();
        else stop = un;
      })
      .catch(() => undefined);
  } catch {
    // Not running inside Tauri (tests, plain browser): no events.
  }
  return () => {
    cancelled = true;
    if (stop) stop();
  };
}

export function AppProvider({ initial, children }: { initial: AppSnapshot; children: ReactNode }) {
  const [snapshot, setSnapshot] = useState<AppSnapshot>(initial);
  const [screen, setScreen] = useState<Screen>("advertisers");
  const [scope, setScope] = useState<EntityRef | null>(null);
  const [version, setVersion] = useState(0);
  const [advertisers, setAdvertisers] = useState<AdvertiserRow[]>([]);
  const [campaigns, setCampaigns] = useState<CampaignRow[]>([]);
  const [siteLists, setSiteLists] = useState<SiteListRow[]>([]);
  const [timezones, setTimezones] = useState<TimezoneInfo[]>([]);
  const [matrix, setMatrix] = useState<MatrixCell[]>([]);
  const [editor, setEditor] = useState<Editor | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [paletteOpen, setPaletteOpen] = useState(false);
  const signedIn = snapshot.session !== null;

  const bump = useCallback(() => setVersion((v) => v + 1), []);

  // Another profile or account: start from a clean slate.
  const who = `${snapshot.activeId}|${snapshot.session?.account ?? ""}`;
  const partner = snapshot.session?.kind === "partner";
  useEffect(() => {
    setScope(null);
    setEditor(null);
    // Data partners work with audience segments.
    setScreen(partner ? "audience_segments" : "advertisers");
    setAdvertisers([]);
    setCampaigns([]);
    setSiteLists([]);
    setVersion((v) => v + 1);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [who]);
  const reloadSnapshot = useCallback(async () => {
    const s = await unwrap(commands.appSnapshot(), { quiet: true });
    if (s) setSnapshot(s);
  }, []);

  // Reference data every screen uses.
  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    void plain(commands.timezones(), { quiet: true }).then((t) => live && t && setTimezones(t));
    void plain(commands.creativeMatrix(), { quiet: true }).then((m) => live && m && setMatrix(m));
    return () => {
      live = false;
    };
  }, [signedIn]);

  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    // Background loads for the tree, pickers and palette: the screens report failures.
    void unwrap(commands.listAdvertisers(), { quiet: true }).then((r) => live && r && setAdvertisers(r));
    void unwrap(commands.listCampaigns(null), { quiet: true }).then((r) => live && r && setCampaigns(r));
    void unwrap(commands.listSiteLists(), { quiet: true }).then((r) => live && r && setSiteLists(r));
    return () => {
      live = false;
    };
  }, [signedIn, version]);

  // Events from the Rust side.
  const bumpRef = useRef(bump);
  bumpRef.current = bump;
  useEffect(() => {
    const stops = [
      listenSafely(events.syncProgress.listen, (p: SyncProgress) => setProgress({ done: p.done, total: p.total })),
      listenSafely(events.syncFinished.listen, (f) => {
        setProgress(null);
        const parts = [`${f.applied} applied`];
        if (f.failed) parts.push(`${f.failed} failed`);
        if (f.needsReview) parts.push(`${f.needsReview} need review`);
        if (f.conflicts) parts.push(plural(f.conflicts, "conflict"));
        if (f.held) parts.push(`${f.held} held`);
        if (f.unsent) parts.push(`${f.unsent} not sent`);
        const text = `Post finished: ${parts.join(", ")}${f.stopped ? ` — stopped: ${f.stopped}` : ""}`;
        toast(text, f.failed || f.conflicts || f.stopped ? "error" : "success");
        bumpRef.current();
        void unwrap(commands.appSnapshot(), { quiet: true }).then((s) => s && setSnapshot(s));
      }),
      listenSafely(events.sessionChanged.listen, (s) => {
        setSnapshot(s);
        bumpRef.current();
      }),
      listenSafely(events.signInRequired.listen, (m) => {
        toast(m.message || "Your session expired. Sign in again; your pending changes are kept.", "error");
        setSnapshot((s) => ({ ...s, session: null }));
      }),
    ];
    return () => stops.forEach((s) => s());
  }, []);

  const zoneOf = useCallback(
    (advertiser: EntityRef | null | undefined) => {
      const row = advertisers.find((a) => sameRef(a.target, advertiser));
      const name = row?.value.timezoneName ?? null;
      const tz = name ? timezones.find((t) => t.name === name) : undefined;
      if (tz) return { iana: tz.iana, name, label: tz.label };
      return { iana: "UTC", name, label: name ? `${name} (UTC)` : "UTC" };
    },
    [advertisers, timezones],
  );
  const advertiserOfCampaign = useCallback(
    (campaign: EntityRef | null | undefined) => campaigns.find((c) => sameRef(c.target, campaign))?.parent ?? null,
    [campaigns],
  );

  const download = useCallback(async () => {
    const s = await unwrap(commands.refresh());
    if (s) {
      toast(
        `Downloaded: ${s.added} added, ${s.changed} changed, ${s.removed} removed${s.keptPending ? `, ${s.keptPending} kept (pending changes)` : ""}`,
        "success",
      );
      bump();
      await reloadSnapshot();
    }
  }, [bump, reloadSnapshot]);

  const post = useCallback(
    async (seqs: number[] | null) => {
      const r = await call(commands.postChanges(seqs));
      if (r.ok) {
        toast(seqs ? `Posting ${plural(seqs.length, "change")}…` : "Posting changes…", "info");
        setProgress({ done: 0, total: seqs ? seqs.length : snapshot.pendingCount });
        await reloadSnapshot();
      }
    },
    [reloadSnapshot, snapshot.pendingCount],
  );

  const signOut = useCallback(async () => {
    const s = await unwrap(commands.signOut());
    if (s) {
      setEditor(null);
      setSnapshot(s);
    }
  }, []);

  const toggleSandbox = useCallback(async () => {
    const s = await unwrap(commands.setSandboxRunning(snapshot.sandbox !== "running"));
    if (s) setSnapshot(s);
  }, [snapshot.sandbox]);

  const value = useMemo<AppState>(
    () => ({
      snapshot,
      setSnapshot,
      reloadSnapshot,
      screen,
      setScreen,
      scope,
      setScope,
      version,
      bump,
      advertisers,
      campaigns,
      siteLists,
      timezones,
      matrix,
      zoneOf,
      advertiserOfCampaign,
      editor,
      openEditor: setEditor,
      closeEditor: () => setEditor(null),
      progress,
      paletteOpen,
      setPaletteOpen,
      download,
      post,
      signOut,
      toggleSandbox,
    }),
    [snapshot, reloadSnapshot, screen, scope, version, bump, advertisers, campaigns, siteLists, timezones, matrix, zoneOf, advertiserOfCampaign, editor, progress, paletteOpen, download, post, signOut, toggleSandbox],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}
