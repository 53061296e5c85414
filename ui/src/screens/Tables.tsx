import { useCallback, useEffect, useMemo, useState } from "react";
import { commands } from "../bindings";
import { type CommandResult, unwrap } from "../api/call";
import type {
  AdOrderRow,
  AdvertiserRow,
  AnyRow,
  CampaignRow,
  CreativeRow,
  EntityRef,
  FlightCap,
  FlightCapsRow,
  SegmentRow,
  SiteListRow,
} from "../api/types";
import { type Column, DataTable } from "../components/DataTable";
import { labelOf, SITE_LIST_RULE_BASED } from "../forms/enums";
import { type Screen, useApp } from "../state/app";
import { publishEntities } from "../state/registry";
import { count, money } from "../util/format";
import { parseRef, refKey, sameRef } from "../util/refs";
import { formatDateTime } from "../util/time";

const rowId = (r: AnyRow) => refKey(r.target);
const rowLabel = (r: AnyRow) => r.label;
const rowMarker = (r: AnyRow) => r.marker;
const rowPending = (r: AnyRow) => r.pending;

/** Loads rows with a command, again whenever the workspace changes. */
function useRows<T>(load: () => Promise<CommandResult<T[]>>, deps: unknown[]): { rows: T[]; loading: boolean } {
  const { version } = useApp();
  const [rows, setRows] = useState<T[]>([]);
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    let live = true;
    setLoading(true);
    void unwrap(load()).then((r) => {
      if (!live) return;
      setRows(r ?? []);
      setLoading(false);
    });
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [version, ...deps]);
  return { rows, loading };
}

/** Offers the loaded rows to the command palette; they stay offered after leaving the screen. */
function usePublish<T extends AnyRow>(source: Screen, kind: string, rows: T[], open: (r: T) => void) {
  const { setScreen } = useApp();
  useEffect(() => {
    publishEntities(source, {
      kind,
      labels: rows.map((r) => r.label),
      open: (i) => {
        setScreen(source);
        open(rows[i]);
      },
    });
  }, [source, kind, rows, open, setScreen]);
}

/** The advertiser the tree selection points at (directly or through a campaign). */
function useScopeAdvertiser(): EntityRef | null {
  const { scope, advertiserOfCampaign } = useApp();
  if (!scope) return null;
  if (scope.kind === "advertiser") return scope;
  if (scope.kind === "campaign") return advertiserOfCampaign(scope);
  return null;
}

function NewButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button type="button" className="primary" data-action="new" onClick={onClick}>
      + {label}
    </button>
  );
}

function ScreenHead({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="screen-head">
      <h1>{title}</h1>
      {children}
    </div>
  );
}

export function AdvertisersScreen() {
  const app = useApp();
  const { rows } = useRows(() => commands.listAdvertisers(), []);
  const open = useCallback((row: AdvertiserRow) => app.openEditor({ kind: "advertiser", row }), [app.openEditor]);
  usePublish("advertisers", "Advertiser", rows, open);
  const columns = useMemo<Column<AdvertiserRow>[]>(
    () => [
      { id: "name", header: "Name", value: (r) => r.label, width: 220 },
      { id: "id", header: "Id", value: (r) => r.value.id ?? null, width: 70, align: "right" },
      { id: "category", header: "Category", value: (r) => r.value.category ?? null, width: 90 },
      { id: "currency", header: "Currency", value: (r) => r.value.currency ?? null, width: 80 },
      { id: "timezone", header: "Timezone", value: (r) => r.value.timezoneName ?? null, width: 90 },
      { id: "external", header: "External id", value: (r) => r.value.externalAdvertiserId ?? null, width: 140 },
      { id: "agency", header: "Agency id", value: (r) => r.value.agencyId ?? null, width: 90, align: "right", hidden: true },
    ],
    [],
  );
  return (
    <section className="screen" aria-label="Advertisers">
      <ScreenHead title="Advertisers" />
      <DataTable
        kind="advertiser"
        label="Advertisers"
        rows={rows}
        columns={columns}
        rowId={rowId}
        rowLabel={rowLabel}
        rowMarker={rowMarker}
        rowPending={rowPending}
        onOpen={open}
        toolbar={<NewButton label="New advertiser" onClick={() => app.openEditor({ kind: "advertiser" })} />}
        emptyText="No advertisers. Download from the service, or create one."
      />
    </section>
  );
}

function flightSummary(r: CampaignRow, zone: string): string {
  const flights = r.value.flights ?? [];
  if (flights.length === 0) return "—";
  const starts = flights.map((f) => f.startDate).filter((x): x is number => typeof x === "number");
  const ends = flights.map((f) => f.endDate).filter((x): x is number => typeof x === "number");
  const range = starts.length > 0 && ends.length > 0 ? `${formatDateTime(Math.min(...starts), zone, false)} – ${formatDateTime(Math.max(...ends), zone, false)}` : "";
  return `${flights.length} · ${range}`;
}

export function CampaignsScreen() {
  const app = useApp();
  const advertiser = useScopeAdvertiser();
  const { rows } = useRows(() => commands.listCampaigns(advertiser), [advertiser ? refKey(advertiser) : ""]);
  const open = useCallback((row: CampaignRow) => app.openEditor({ kind: "campaign", row }), [app.openEditor]);
  usePublish("campaigns", "Campaign", rows, open);
  const { zoneOf, advertisers } = app;
  const columns = useMemo<Column<CampaignRow>[]>(
    () => [
      { id: "name", header: "Name", value: (r) => r.label, width: 220 },
      { id: "id", header: "Id", value: (r) => r.value.id ?? null, width: 64, align: "right" },
      { id: "advertiser", header: "Advertiser", value: (r) => advertisers.find((a) => sameRef(a.target, r.parent))?.label ?? null, width: 150 },
      {
        id: "flights",
        header: "Flights",
        value: (r) => (r.value.flights ?? []).length,
        render: (r) => flightSummary(r, zoneOf(r.parent).iana),
        width: 210,
      },
      { id: "budget", header: "Budget", value: (r) => r.value.maxBudget ?? null, render: (r) => money(r.value.maxBudget), width: 110, align: "right" },
      { id: "daily", header: "Daily", value: (r) => r.value.dailyBudget ?? null, render: (r) => money(r.value.dailyBudget), width: 100, align: "right" },
      { id: "start", header: "Start", value: (r) => r.value.startDate ?? null, render: (r) => formatDateTime(r.value.startDate, zoneOf(r.parent).iana), width: 150 },
      { id: "end", header: "End", value: (r) => r.value.endDate ?? null, render: (r) => formatDateTime(r.value.endDate, zoneOf(r.parent).iana), width: 150 },
      { id: "objective", header: "Objective", value: (r) => labelOf(r.value.objective), width: 100 },
      { id: "pacing", header: "Pacing", value: (r) => labelOf(r.value.pacingMode), width: 120, hidden: true },
      { id: "domain", header: "Domain", value: (r) => r.value.domain ?? null, width: 150, hidden: true },
      { id: "io", header: "IO number", value: (r) => r.value.ioNumber ?? r.value.externalCampaignId ?? null, width: 110, hidden: true },
    ],
    [zoneOf, advertisers],
  );
  return (
    <section className="screen" aria-label="Campaigns">
      <ScreenHead title="Campaigns">{advertiser && <ScopeChip />}</ScreenHead>
      <DataTable
        kind="campaign"
        label="Campaigns"
        rows={rows}
        columns={columns}
        rowId={rowId}
        rowLabel={rowLabel}
        rowMarker={rowMarker}
        rowPending={rowPending}
        onOpen={open}
        toolbar={<NewButton label="New campaign" onClick={() => app.openEditor({ kind: "campaign", parent: advertiser })} />}
        emptyText="No campaigns here."
      />
    </section>
  );
}

function ScopeChip() {
  const { scope, setScope, advertisers, campaigns } = useApp();
  if (!scope) return null;
  const label = [...advertisers, ...campaigns].find((r) => sameRef(r.target, scope))?.label ?? "selection";
  return (
    <span className="chip">
      Filtered to {label}
      <button type="button" className="icon-button" aria-label="Clear the tree filter" onClick={() => setScope(null)}>
        ×
      </button>
    </span>
  );
}

type CapLine = { key: string; index: number; cap: FlightCap; row: FlightCapsRow };

export function AdOrdersScreen() {
  const app = useApp();
  const scopeCampaign = app.scope?.kind === "campaign" ? app.scope : null;
  const scopeAdvertiser = useScopeAdvertiser();
  const [campaign, setCampaign] = useState<EntityRef | null>(scopeCampaign);
  useEffect(() => setCampaign(scopeCampaign), [scopeCampaign ? refKey(scopeCampaign) : ""]); // eslint-disable-line react-hooks/exhaustive-deps
  const { rows: all } = useRows(() => commands.listAdOrders(campaign), [campaign ? refKey(campaign) : ""]);
  const rows = useMemo(() => {
    if (campaign || !scopeAdvertiser) return all;
    const ids = new Set(app.campaigns.filter((c) => sameRef(c.parent, scopeAdvertiser)).map((c) => refKey(c.target)));
    return all.filter((r) => r.parent !== null && ids.has(refKey(r.parent)));
  }, [all, campaign, scopeAdvertiser, app.campaigns]);
  const open = useCallback((row: AdOrderRow) => app.openEditor({ kind: "ad_order", row }), [app.openEditor]);
  usePublish("ad_orders", "Ad order", rows, open);
  const [active, setActive] = useState<AdOrderRow | null>(null);
  const { zoneOf, advertiserOfCampaign, campaigns } = app;

  const columns = useMemo<Column<AdOrderRow>[]>(
    () => [
      { id: "name", header: "Name", value: (r) => r.label, width: 220 },
      { id: "id", header: "Id", value: (r) => r.value.id ?? null, width: 64, align: "right" },
      { id: "campaign", header: "Campaign", value: (r) => campaigns.find((c) => sameRef(c.target, r.parent))?.label ?? null, width: 170 },
      { id: "goal", header: "Goal", value: (r) => r.value.optimizationGoal ?? null, width: 90 },
      { id: "start", header: "Start", value: (r) => r.value.startDate ?? null, render: (r) => formatDateTime(r.value.startDate, zoneOf(advertiserOfCampaign(r.parent)).iana), width: 150 },
      { id: "end", header: "End", value: (r) => r.value.endDate ?? null, render: (r) => formatDateTime(r.value.endDate, zoneOf(advertiserOfCampaign(r.parent)).iana), width: 150 },
      { id: "budget", header: "Lifetime budget", value: (r) => r.value.lifetimeBudget ?? null, render: (r) => money(r.value.lifetimeBudget), width: 120, align: "right" },
      { id: "maxbid", header: "Max bid", value: (r) => r.value.max_bid ?? null, render: (r) => money(r.value.max_bid), width: 90, align: "right" },
      { id: "pacing", header: "Hourly pacing", value: (r) => labelOf(r.value.hourlyPacingMode), width: 120 },
      { id: "audiences", header: "Audiences", value: (r) => (r.value.audiences ?? []).length, width: 80, align: "right" },
      {
        id: "freq",
        header: "Frequency cap",
        value: (r) => (r.value.frequencyCap ? `${r.value.frequencyCap.limit ?? "?"} / ${r.value.frequencyCap.duration ?? "?"} ${r.value.frequencyCap.timePeriod ?? ""}` : null),
        width: 120,
        hidden: true,
      },
    ],
    [zoneOf, advertiserOfCampaign, campaigns],
  );

  return (
    <section className="screen split" aria-label="Ad orders">
      <ScreenHead title="Ad orders">
        <label className="inline">
          Campaign{" "}
          <select
            name="filter.campaign"
            value={campaign ? refKey(campaign) : ""}
            onChange={(e) => setCampaign(parseRef(e.target.value))}
          >
            <option value="">All campaigns</option>
            {app.campaigns.map((c) => (
              <option key={refKey(c.target)} value={refKey(c.target)}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
      </ScreenHead>
      <DataTable
        kind="ad_order"
        label="Ad orders"
        rows={rows}
        columns={columns}
        rowId={rowId}
        rowLabel={rowLabel}
        rowMarker={rowMarker}
        rowPending={rowPending}
        onOpen={open}
        onActiveChange={setActive}
        toolbar={<NewButton label="New ad order" onClick={() => app.openEditor({ kind: "ad_order", parent: campaign })} />}
        emptyText="No ad orders here."
      />
      {active ? <FlightCapsPane adOrder={active} /> : <p className="muted pane-hint">Select an ad order to see its flight caps.</p>}
    </section>
  );
}

function FlightCapsPane({ adOrder }: { adOrder: AdOrderRow }) {
  const app = useApp();
  const [row, setRow] = useState<FlightCapsRow | null>(null);
  useEffect(() => {
    let live = true;
    void unwrap(commands.listFlightCaps(adOrder.target), { quiet: true }).then((r) => live && setRow(r ?? null));
    return () => {
      live = false;
    };
  }, [adOrder.target, app.version]);
  const lines = useMemo<CapLine[]>(() => (row ? row.value.map((cap, index) => ({ key: `${index}`, index, cap, row })) : []), [row]);
  const editCaps = () => app.openEditor({ kind: "flight_caps", adOrder, row });
  const columns = useMemo<Column<CapLine>[]>(
    () => [
      { id: "cap", header: "Cap id", value: (l) => l.cap.id ?? null, width: 80, align: "right" },
      { id: "flight", header: "Flight id", value: (l) => l.cap.flightId ?? null, width: 80, align: "right" },
      { id: "max", header: "Max budget", value: (l) => l.cap.maxBudget ?? null, render: (l) => money(l.cap.maxBudget), width: 110, align: "right" },
      { id: "daily", header: "Daily budget", value: (l) => l.cap.dailyBudget ?? null, render: (l) => money(l.cap.dailyBudget), width: 110, align: "right" },
      { id: "lifetime", header: "Lifetime impressions", value: (l) => l.cap.lifetimeImpressions ?? null, render: (l) => count(l.cap.lifetimeImpressions), width: 150, align: "right" },
      { id: "dailyImp", header: "Daily impressions", value: (l) => l.cap.dailyImpressions ?? null, render: (l) => count(l.cap.dailyImpressions), width: 130, align: "right" },
    ],
    [],
  );
  return (
    <div className="caps-pane" aria-label={`Flight caps of ${adOrder.label}`}>
      <DataTable
        kind="flight_caps"
        label={`Flight caps of ${adOrder.label}`}
        rows={lines}
        columns={columns}
        rowId={(l) => l.key}
        rowLabel={(l) => `${adOrder.label} · flight ${l.cap.flightId ?? "?"}`}
        rowMarker={(l) => l.row.marker}
        rowPending={(l) => l.row.pending}
        onOpen={editCaps}
        selectable={false}
        toolbar={
          <button type="button" onClick={editCaps}>
            Edit flight caps
          </button>
        }
        emptyText="No flight caps on this ad order."
      />
    </div>
  );
}

export function CreativesScreen() {
  const app = useApp();
  const advertiser = useScopeAdvertiser();
  const { rows } = useRows(() => commands.listCreatives(advertiser), [advertiser ? refKey(advertiser) : ""]);
  const open = useCallback((row: CreativeRow) => app.openEditor({ kind: "creative", row }), [app.openEditor]);
  usePublish("creatives", "Creative", rows, open);
  const columns = useMemo<Column<CreativeRow>[]>(
    () => [
      { id: "name", header: "Name", value: (r) => r.label, width: 220 },
      { id: "id", header: "Id", value: (r) => r.value.id ?? null, width: 64, align: "right" },
      { id: "type", header: "Type", value: (r) => r.value.creativeType ?? null, width: 80 },
      { id: "subtype", header: "Subtype", value: (r) => r.value.creativeSubtype ?? null, width: 80 },
      { id: "media", header: "Media type", value: (r) => r.value.type?.mediaType ?? null, width: 100 },
      { id: "size", header: "Size", value: (r) => (r.value.size ? `${r.value.size.width ?? "?"}×${r.value.size.height ?? "?"}` : null), width: 90 },
      { id: "status", header: "Status", value: (r) => r.value.status ?? null, width: 90 },
      { id: "landing", header: "Landing page", value: (r) => r.value.landingPageUrl ?? null, width: 200 },
      { id: "external", header: "External id", value: (r) => r.value.externalCreativeid ?? null, width: 120, hidden: true },
    ],
    [],
  );
  return (
    <section className="screen" aria-label="Creatives">
      <ScreenHead title="Creatives">{advertiser && <ScopeChip />}</ScreenHead>
      <DataTable
        kind="creative"
        label="Creatives"
        rows={rows}
        columns={columns}
        rowId={rowId}
        rowLabel={rowLabel}
        rowMarker={rowMarker}
        rowPending={rowPending}
        onOpen={open}
        toolbar={<NewButton label="New creative" onClick={() => app.openEditor({ kind: "creative", parent: advertiser })} />}
        emptyText="No creatives. The service has no creative listing: creatives made here show up."
      />
    </section>
  );
}

function siteListCount(r: SiteListRow): number {
  return r.value.typeId === SITE_LIST_RULE_BASED ? (r.value.rules ?? []).length : (r.value.siteIds ?? []).length;
}

/** The first entries of a list, as one line for the table. */
function siteListContents(r: SiteListRow): string | null {
  const items = r.value.typeId === SITE_LIST_RULE_BASED ? (r.value.rules ?? []).map((x) => x.name ?? "") : (r.value.siteIds ?? []).map(String);
  if (items.length === 0) return null;
  const shown = items.slice(0, 8).join(", ");
  return items.length > 8 ? `${shown}, … (+${items.length - 8})` : shown;
}

export function SiteListsScreen() {
  const app = useApp();
  const { rows } = useRows(() => commands.listSiteLists(), []);
  const open = useCallback((row: SiteListRow) => app.openEditor({ kind: "site_list", row }), [app.openEditor]);
  usePublish("site_lists", "Site list", rows, open);
  const columns = useMemo<Column<SiteListRow>[]>(
    () => [
      { id: "name", header: "Name", value: (r) => r.label, width: 240 },
      { id: "id", header: "Id", value: (r) => r.value.id ?? null, width: 64, align: "right" },
      { id: "kind", header: "Kind", value: (r) => (r.value.typeId === SITE_LIST_RULE_BASED ? "Rule based" : r.value.typeId == null ? null : "Id based"), width: 100 },
      { id: "strategy", header: "Strategy", value: (r) => labelOf(r.value.strategy), width: 90 },
      { id: "inserted", header: "Inserted", value: (r) => r.value.insertedCount ?? null, width: 90, align: "right" },
      { id: "count", header: "Sites / rules", value: (r) => siteListCount(r), width: 100, align: "right" },
      { id: "contents", header: "Contents", value: (r) => siteListContents(r), width: 280 },
    ],
    [],
  );
  return (
    <section className="screen" aria-label="Site lists">
      <ScreenHead title="Site lists" />
      <DataTable
        kind="site_list"
        label="Site lists"
        rows={rows}
        columns={columns}
        rowId={rowId}
        rowLabel={rowLabel}
        rowMarker={rowMarker}
        rowPending={rowPending}
        onOpen={open}
        toolbar={<NewButton label="New site list" onClick={() => app.openEditor({ kind: "site_list" })} />}
        emptyText="No site lists. The service has no site-list listing: lists made here show up."
      />
    </section>
  );
}

const PAGE_SIZES = [50, 100, 250, 1000];

export function AudienceSegmentsScreen() {
  const app = useApp();
  const [offset, setOffset] = useState(0);
  const [limit, setLimit] = useState(100);
  const [page, setPage] = useState<{ rows: SegmentRow[]; total: number }>({ rows: [], total: 0 });
  useEffect(() => {
    let live = true;
    void unwrap(commands.listAudienceSegments(offset, limit)).then((p) => live && p && setPage(p));
    return () => {
      live = false;
    };
  }, [offset, limit, app.version]);
  const open = useCallback((row: SegmentRow) => app.openEditor({ kind: "audience_segment", row }), [app.openEditor]);
  usePublish("audience_segments", "Audience segment", page.rows, open);
  const columns = useMemo<Column<SegmentRow>[]>(
    () => [
      { id: "name", header: "Name", value: (r) => r.label, width: 220 },
      { id: "segment", header: "Segment id", value: (r) => r.value.serviceSegmentId ?? null, width: 130 },
      { id: "external", header: "External id", value: (r) => r.value.externalAudienceId ?? null, width: 130 },
      { id: "dataType", header: "Data type", value: (r) => labelOf(r.value.dataType), width: 160 },
      { id: "status", header: "Status", value: (r) => r.value.status ?? null, width: 90 },
      { id: "count", header: "Identifiers", value: (r) => r.value.dataCount ?? null, render: (r) => count(r.value.dataCount), width: 100, align: "right" },
      { id: "ttl", header: "TTL (s)", value: (r) => r.value.ttl ?? null, render: (r) => count(r.value.ttl), width: 100, align: "right" },
      { id: "advertisers", header: "Advertisers", value: (r) => (r.value.advertiserIds ?? []).join(", "), width: 120 },
    ],
    [],
  );
  const last = Math.max(0, Math.floor((page.total - 1) / limit) * limit);
  const pager = (
    <nav className="pager" aria-label="Pages">
      <button type="button" aria-label="First page" disabled={offset === 0} onClick={() => setOffset(0)}>
        «
      </button>
      <button type="button" aria-label="Previous page" data-action="prev-page" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - limit))}>
        ‹ Prev
      </button>
      <span className="pager-text">
        {page.total === 0 ? "0" : `${(offset + 1).toLocaleString()}–${Math.min(offset + limit, page.total).toLocaleString()}`} of {page.total.toLocaleString()}
      </span>
      <button type="button" aria-label="Next page" data-action="next-page" disabled={offset + limit >= page.total} onClick={() => setOffset(offset + limit)}>
        Next ›
      </button>
      <button type="button" aria-label="Last page" disabled={offset >= last} onClick={() => setOffset(last)}>
        »
      </button>
      <label className="inline">
        Page size{" "}
        <select
          value={limit}
          onChange={(e) => {
            setLimit(Number(e.target.value));
            setOffset(0);
          }}
        >
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
    </nav>
  );
  return (
    <section className="screen" aria-label="Audience segments">
      <ScreenHead title="Audience segments" />
      <DataTable
        kind="audience_segment"
        label="Audience segments"
        rows={page.rows}
        columns={columns}
        rowId={rowId}
        rowLabel={rowLabel}
        rowMarker={rowMarker}
        rowPending={rowPending}
        onOpen={open}
        toolbar={<NewButton label="New audience segment" onClick={() => app.openEditor({ kind: "audience_segment" })} />}
        footer={pager}
        emptyText="No audience segments."
      />
    </section>
  );
}
