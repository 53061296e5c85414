// A stand-in for `../bindings` in tests (used through `vi.mock`): every command answers
// ok with an empty value unless a test says otherwise.
import { vi } from "vitest";
import type { AppInfo, AppSnapshot, Draft, FieldError, MatrixCell, Saved, TableQuery, TableWindow, Timeline } from "../api/types";

export function ok<T>(data: T): Promise<{ status: "ok"; data: T }> {
  return Promise.resolve({ status: "ok" as const, data });
}

export const SIGNED_IN: AppSnapshot = {
  profiles: [{ id: "local", name: "Local sandbox", baseUrl: "http://127.0.0.1:8700", embedded: true }],
  activeId: "local",
  session: { account: "demo", kind: "user" },
  demo: null,
  online: true,
  sandbox: "running",
  pendingCount: 0,
  posting: false,
  postWaiting: null,
  notice: null,
};

const saved: Saved = { target: { kind: "advertiser", key: { type: "local", value: "x" } }, errors: [], pendingCount: 1, row: null };
const timeline: Timeline = { bars: [], overlaps: [], gaps: [], errors: [] };
const noErrors: FieldError[] = [];
const noCells: MatrixCell[] = [];

type Real = typeof import("../bindings").commands;

/** A tag sheet no preset knows, with no rows: what `previewTagSheet` answers unless a test says otherwise. */
export const EMPTY_TAG_PREVIEW: import("../bindings").TagPreview = {
  format: "xlsx",
  sheet: "Tags",
  preset: null,
  headerRow: 1,
  headers: [],
  columns: [],
  fields: [],
  presets: [],
  total: 0,
  refused: 0,
  findings: 0,
  offset: 0,
  rows: [],
};

/** The real kinds: facts generated from Rust, the same in tests as in the app. */
export const KINDS = (await vi.importActual<typeof import("../bindings")>("../bindings")).KINDS;
export const { HAS_FINDINGS, HAS_WARNINGS } = await vi.importActual<typeof import("../bindings")>("../bindings");

export const APP_INFO: AppInfo = {
  version: "0.1.0",
  dataDir: "/home/buyer/.local/share/com.flightdeck.desktop",
  logDir: "/home/buyer/.local/share/com.flightdeck.desktop/logs",
  logSource: "settings",
  settings: { logLevel: "info", updateChannel: "stable" },
  updateRoute: { how: "inApp" },
};

type Preview = import("../bulk/types").Preview;
type MoneySummary = import("../bulk/types").MoneySummary;

export const EMPTY_PREVIEW: Preview = { rows: [], rowCount: 0, rowsId: null, creates: 0, updates: 0, unchanged: 0, refused: 0, invalid: 0, matches: {}, step: null };
/** A preview of `rows` (all of them in its answer, as the Rust side sends 50 or fewer). */
export function previewOf(rows: Preview["rows"], counts: Partial<Preview> = {}): Preview {
  return { ...EMPTY_PREVIEW, ...counts, rows, rowCount: counts.rowCount ?? rows.length };
}
const noBudgets = { lifetime: null, daily: null, flights: null, orderLifetime: null, orderDaily: null };
export const EMPTY_MONEY: MoneySummary = {
  campaigns: [],
  advertisers: [],
  total: { target: null, label: "Total", advertiser: null, before: noBudgets, after: noBudgets },
  bids: [],
  warnings: [],
  goingLive: [],
  goingLiveBudget: 0,
};

function emptyWindow<T>(): TableWindow<T> {
  return { rows: [], offset: 0, total: 0, unfiltered: 0 };
}

/**
 * A query command over `rows`, as the Rust side answers it: every word of the filter in
 * the row's label or `text`, then the window. Use with `mockImplementation`.
 */
export function tableOf<R extends { label: string }>(rows: R[], text: (r: R) => string = (r) => r.label) {
  return (q: TableQuery) => {
    const words = q.filter.toLowerCase().split(/\s+/).filter(Boolean);
    const hits = rows.filter((r) => words.every((w) => `${r.label} ${text(r)}`.toLowerCase().includes(w)));
    const offset = Math.min(q.offset, hits.length);
    return ok<TableWindow<R>>({ rows: hits.slice(offset, offset + q.limit), offset, total: hits.length, unfiltered: rows.length });
  };
}

export const commands = {
  appSnapshot: vi.fn<Real["appSnapshot"]>(() => ok(SIGNED_IN)),
  addProfile: vi.fn<Real["addProfile"]>(() => ok(SIGNED_IN)),
  switchProfile: vi.fn<Real["switchProfile"]>(() => ok(SIGNED_IN)),
  signIn: vi.fn<Real["signIn"]>(() => ok(SIGNED_IN)),
  partnerSignIn: vi.fn<Real["partnerSignIn"]>(() => ok({ authorizeUrl: "http://127.0.0.1:8700/v1/oauth2/login", opened: true })),
  openSignInPage: vi.fn<Real["openSignInPage"]>(() => ok(null)),
  signOut: vi.fn<Real["signOut"]>(() => ok(SIGNED_IN)),
  setSandboxRunning: vi.fn<Real["setSandboxRunning"]>(() => ok(SIGNED_IN)),
  refresh: vi.fn<Real["refresh"]>(() => ok({ added: 0, changed: 0, removed: 0, keptPending: 0, notices: [] })),
  refreshCampaign: vi.fn<Real["refreshCampaign"]>(() => ok({ added: 0, changed: 0, removed: 0, keptPending: 0, notices: [] })),
  adOrderCreatives: vi.fn<Real["adOrderCreatives"]>(() => ok({ creatives: [], fetchedAt: null, stale: null })),
  creativeNote: vi.fn<Real["creativeNote"]>(() => ok(null)),
  queryAdvertisers: vi.fn<Real["queryAdvertisers"]>(() => ok(emptyWindow())),
  queryCampaigns: vi.fn<Real["queryCampaigns"]>(() => ok(emptyWindow())),
  queryAdOrders: vi.fn<Real["queryAdOrders"]>(() => ok(emptyWindow())),
  listFlightCaps: vi.fn<Real["listFlightCaps"]>(() => ok(null)),
  tableColumns: vi.fn<Real["tableColumns"]>(() => Promise.resolve([])),
  editFields: vi.fn<Real["editFields"]>(() => Promise.resolve([])),
  requiredFields: vi.fn<Real["requiredFields"]>(() => Promise.resolve([])),
  queryCreatives: vi.fn<Real["queryCreatives"]>(() => ok(emptyWindow())),
  querySiteLists: vi.fn<Real["querySiteLists"]>(() => ok(emptyWindow())),
  queryAudienceSegments: vi.fn<Real["queryAudienceSegments"]>(() => ok(emptyWindow())),
  validate: vi.fn<Real["validate"]>(() => ok(noErrors)),
  save: vi.fn<Real["save"]>(() => ok(saved)),
  flightCapChoices: vi.fn<Real["flightCapChoices"]>(() => ok({ campaign: null, flights: [], caps: [] })),
  readIdentifiers: vi.fn<Real["readIdentifiers"]>(() => ok({ values: [], columns: [], column: null, problem: null })),
  audienceUploads: vi.fn<Real["audienceUploads"]>(() => ok([])),
  duplicateAsNew: vi.fn<Real["duplicateAsNew"]>(() => Promise.resolve({ status: "error" as const, error: { code: "state" as const, message: "not set up", fieldErrors: [] } })),
  creativeMatrix: vi.fn<Real["creativeMatrix"]>(() => Promise.resolve(noCells)),
  flightTimeline: vi.fn<Real["flightTimeline"]>(() => Promise.resolve(timeline)),
  previewCreative: vi.fn<Real["previewCreative"]>(() => Promise.resolve({ declared: null, frame: { width: 300, height: 250 }, content: { kind: "empty", reason: "Nothing to preview yet" }, resources: [], live: false })),
  renderLive: vi.fn<Real["renderLive"]>(() => ok("fdpreview://localhost/0123")),
  renderMedia: vi.fn<Real["renderMedia"]>(() => ok("fdpreview://localhost/4567")),
  timezones: vi.fn<Real["timezones"]>(() => Promise.resolve([{ name: "ET" as const, iana: "America/New_York", label: "Eastern" }])),
  queryPendingChanges: vi.fn<Real["queryPendingChanges"]>(() => ok(emptyWindow())),
  pendingSeqs: vi.fn<Real["pendingSeqs"]>(() => ok([])),
  checkChanges: vi.fn<Real["checkChanges"]>(() => ok({ checked: 0, invalid: 0, withFindings: 0, warnings: 0, infos: 0 })),
  postChanges: vi.fn<Real["postChanges"]>(() => ok(null)),
  discardChanges: vi.fn<Real["discardChanges"]>(() => ok([])),
  resolveConflict: vi.fn<Real["resolveConflict"]>(() => ok(null)),
  reviewChange: vi.fn<Real["reviewChange"]>(() =>
    Promise.resolve({ status: "error" as const, error: { code: "state" as const, message: "not set up", fieldErrors: [] } }),
  ),
  settleReview: vi.fn<Real["settleReview"]>(() => ok(null)),
  bulkEdit: vi.fn<Real["bulkEdit"]>(() => ok(EMPTY_PREVIEW)),
  cellFacts: vi.fn<Real["cellFacts"]>(() => Promise.resolve([])),
  editCells: vi.fn<Real["editCells"]>(() => ok(EMPTY_PREVIEW)),
  setStatus: vi.fn<Real["setStatus"]>(() => ok(EMPTY_PREVIEW)),
  findReplace: vi.fn<Real["findReplace"]>(() => ok(EMPTY_PREVIEW)),
  importSheet: vi.fn<Real["importSheet"]>(() => ok(EMPTY_PREVIEW)),
  exportSheet: vi.fn<Real["exportSheet"]>(() => ok("")),
  duplicateMany: vi.fn<Real["duplicateMany"]>(() => ok(EMPTY_PREVIEW)),
  undo: vi.fn<Real["undo"]>(() => ok(null)),
  redo: vi.fn<Real["redo"]>(() => ok(null)),
  revertStep: vi.fn<Real["revertStep"]>(() => ok(EMPTY_PREVIEW)),
  editHistory: vi.fn<Real["editHistory"]>(() => ok([])),
  moneySummary: vi.fn<Real["moneySummary"]>(() => ok(EMPTY_MONEY)),
  pickImportFile: vi.fn<Real["pickImportFile"]>(() => ok(null)),
  pickExportFile: vi.fn<Real["pickExportFile"]>(() => ok(null)),
  importFile: vi.fn<Real["importFile"]>(() => ok(EMPTY_PREVIEW)),
  exportFile: vi.fn<Real["exportFile"]>(() => ok(0)),
  previewRows: vi.fn<Real["previewRows"]>(() => ok({ rows: [], offset: 0, total: 0, unfiltered: 0 })),
  pickTagSheet: vi.fn<Real["pickTagSheet"]>(() => ok(null)),
  previewTagSheet: vi.fn<Real["previewTagSheet"]>(() => ok(EMPTY_TAG_PREVIEW)),
  applyTagSheet: vi.fn<Real["applyTagSheet"]>(() => ok({ made: 0, refused: 0, step: null })),
  saveTagPreset: vi.fn<Real["saveTagPreset"]>(() => ok([])),
  appInfo: vi.fn<Real["appInfo"]>(() => ok(APP_INFO)),
  saveSettings: vi.fn<Real["saveSettings"]>((settings) => ok({ ...APP_INFO, settings })),
  openLogsFolder: vi.fn<Real["openLogsFolder"]>(() => ok(null)),
  rememberPanelWidth: vi.fn<Real["rememberPanelWidth"]>(() => ok(null)),
  downloadOffer: vi.fn<Real["downloadOffer"]>(() => ok(null)),
  answerDownloadOffer: vi.fn<Real["answerDownloadOffer"]>(() => ok(null)),
  checkForUpdate: vi.fn<Real["checkForUpdate"]>(() => ok(null)),
  installUpdate: vi.fn<Real["installUpdate"]>(() => ok(null)),
  creativeChecks: vi.fn<Real["creativeChecks"]>(() => ok({ findings: [], vast: [] })),
  draftChecks: vi.fn<Real["draftChecks"]>(() => ok({ findings: [], vast: [] })),
  checkCreatives: vi.fn<Real["checkCreatives"]>(() => ok({ checked: 0, withFindings: 0, warnings: 0, infos: 0, rules: [], creatives: [] })),
  fetchVast: vi.fn<Real["fetchVast"]>(() => ok([])),
  parentKinds: vi.fn<Real["parentKinds"]>((kind) =>
    Promise.resolve(
      kind === "ad_order"
        ? [{ kind: "campaign" as const, label: "campaign" }]
        : kind === "campaign"
          ? [{ kind: "advertiser" as const, label: "advertiser" }]
          : kind === "creative"
            ? [
                { kind: "advertiser" as const, label: "advertiser" },
                { kind: "campaign" as const, label: "campaign" },
              ]
            : [],
    ),
  ),
};

/** A Tauri event stand-in: `emit` calls whoever listens. */
function event<T>() {
  const listeners = new Set<(e: { payload: T }) => void>();
  return {
    listen: vi.fn((cb: (e: { payload: T }) => void) => {
      listeners.add(cb);
      return Promise.resolve(() => {
        listeners.delete(cb);
      });
    }),
    once: vi.fn(() => Promise.resolve(() => undefined)),
    emit: (payload: T) => {
      for (const l of [...listeners]) l({ payload });
    },
  };
}

type Payload<E> = E extends { listen: (cb: (e: { payload: infer P }) => void) => unknown } ? P : never;
type DraftValues = { [D in Draft as D["kind"]]: D["value"] };

/** The value of the last draft of `kind` a form sent to `save`, if any. */
export function lastSaved<K extends Draft["kind"]>(kind: K): DraftValues[K] | undefined {
  const draft = commands.save.mock.calls.map((c) => c[2]).filter((d) => d.kind === kind).at(-1);
  // The draft's kind is `K`, so its value is that kind's.
  return draft?.value as DraftValues[K] | undefined;
}

type RealEvents = typeof import("../bindings").events;

export const events = {
  syncProgress: event<Payload<RealEvents["syncProgress"]>>(),
  syncFinished: event<Payload<RealEvents["syncFinished"]>>(),
  sessionChanged: event<Payload<RealEvents["sessionChanged"]>>(),
  signInRequired: event<Payload<RealEvents["signInRequired"]>>(),
  partnerSignInFailed: event<Payload<RealEvents["partnerSignInFailed"]>>(),
  downloadProgress: event<Payload<RealEvents["downloadProgress"]>>(),
  workspaceChanged: event<Payload<RealEvents["workspaceChanged"]>>(),
  menuAction: event<Payload<RealEvents["menuAction"]>>(),
  updateProgress: event<Payload<RealEvents["updateProgress"]>>(),
};
