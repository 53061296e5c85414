// What each entity screen shows: columns, the query command, the editor a row opens and
// the parent the tree selection narrows it to. One `EntityScreen` renders them all.
import { type ReactNode, useEffect, useState } from "react";
import { TABLE_KINDS, capitalised, kindInfo, type TableKind } from "../api/kinds";
import { fetchAdOrders, fetchAdvertisers, fetchCampaigns, fetchCreatives, fetchSegments, fetchSiteLists, fetchTableColumns } from "../api/queries";
import type { AdOrderRow, AdvertiserRow, AnyRow, CampaignRow, CreativeRow, Kind, SavedRow, SegmentRow, SiteListRow } from "../api/types";
import type { Column } from "../components/DataTable";
import { labelOf, SITE_LIST_RULE_BASED } from "../forms/enums";
import type { Editor, ParentHint, Scope, Screen } from "../state/navigation";
import type { Zone } from "../state/reference";
import type { WindowFetch } from "../table/windowCache";
import { count, money } from "../util/format";
import { refKey } from "../util/refs";
import { formatDateTime } from "../util/time";
import { FlightCapsPane } from "./FlightCapsPane";
import { CreativePreviewPane } from "../preview/CreativePreview";

/** A kind with a screen of its own (the Rust side's `Kind::has_table`). */
export type EntityKind = TableKind;

/** No column sorts until the core has named them. */
const NO_COLUMNS: ReadonlySet<string> = new Set();
const sortable = new Map<EntityKind, Promise<ReadonlySet<string>>>();

/** The ids of `kind`'s sortable columns, asked once per kind (again after a failure). */
function sortableOf(kind: EntityKind): Promise<ReadonlySet<string>> {
  let known = sortable.get(kind);
  if (!known) {
    known = fetchTableColumns(kind).then((columns) => {
      if (!columns?.length) sortable.delete(kind);
      return columns ? new Set(columns.map((c) => c.id)) : NO_COLUMNS;
    });
    sortable.set(kind, known);
  }
  return known;
}

/**
 * The columns the query commands filter and sort by for `kind`: the core's one list
 * (`flightdeck_core::query::columns`, through `tableColumns`; the CLI prints the same).
 * Only these headers sort: a column the Rust side does not know would be refused.
 */
export function useSortable(kind: EntityKind): ReadonlySet<string> {
  const [known, setKnown] = useState<{ kind: EntityKind; ids: ReadonlySet<string> } | null>(null);
  useEffect(() => {
    let live = true;
    void sortableOf(kind).then((ids) => {
      if (live) setKnown({ kind, ids });
    });
    return () => {
      live = false;
    };
  }, [kind]);
  return known?.kind === kind ? known.ids : NO_COLUMNS;
}

export type EntityConfig<R extends AnyRow> = {
  kind: EntityKind;
  screen: Screen;
  /** The heading and the grid's name. */
  title: string;
  /** One of them, as the palette names its group. */
  singular: string;
  fetch: WindowFetch<R>;
  /** A form's saved row, when it is one of this kind's (the table shows the save from it at once). */
  savedRow: (saved: SavedRow) => R | null;
  /** Kinds whose changes refresh the table (a parent's rename shows in the parent column). */
  changes: Kind[];
  columns: (zoneOf: (name: string | null | undefined) => Zone) => Column<R>[];
  /** The editor a row opens. */
  open: (row: R) => Editor;
  /** The editor of a new one, under the parent in view. */
  create: (parent: ParentHint | null) => Editor;
  newLabel: string;
  /** The parent the tree selection narrows the table to (and new ones go under). */
  scopeParent: (scope: Scope | null) => ParentHint | null;
  emptyText: string;
  /** A campaign picker in the head narrows the table (ad orders). */
  campaignFilter?: boolean;
  /** A filter on what the creative checks found, and "Check all creatives" (creatives). */
  checks?: boolean;
  /** A pane beside the table, about the row with the cursor. */
  pane?: (active: R | null) => ReactNode;
};

const noParent = () => null;

/** A kind's words on its screen, from the Rust side's `Kind`: the title, one of them, "New …". */
function wordsOf<K extends EntityKind>(kind: K) {
  const k = kindInfo(kind);
  return { kind, screen: kind, title: k.title, singular: capitalised(k.label), newLabel: `New ${k.label}` };
}

function advertiserOf(scope: Scope | null): ParentHint | null {
  if (scope?.target.kind === "advertiser") return { target: scope.target, label: scope.label, timezone: scope.timezone, advertiser: null };
  if (scope?.target.kind === "campaign" && scope.advertiser) return { target: scope.advertiser, label: scope.advertiserLabel ?? "", timezone: scope.timezone, advertiser: null };
  return null;
}

function campaignOf(scope: Scope | null): ParentHint | null {
  if (scope?.target.kind === "campaign") return { target: scope.target, label: scope.label, timezone: scope.timezone, advertiser: scope.advertiser };
  return null;
}

export const ADVERTISERS: EntityConfig<AdvertiserRow> = {
  ...wordsOf("advertiser"),
  fetch: fetchAdvertisers,
  savedRow: (s) => (s.kind === "advertiser" ? s.row : null),
  changes: ["advertiser"],
  columns: () => [
    { id: "name", header: "Name", value: (r) => r.label, width: 220 },
    { id: "id", header: "Id", value: (r) => r.value.id ?? null, width: 70, align: "right" },
    { id: "category", header: "Category", value: (r) => r.value.category ?? null, width: 90 },
    { id: "currency", header: "Currency", value: (r) => r.value.currency ?? null, width: 80 },
    { id: "timezone", header: "Timezone", value: (r) => r.value.timezoneName ?? null, width: 90 },
    { id: "external", header: "External id", value: (r) => r.value.externalAdvertiserId ?? null, width: 140 },
    { id: "agency", header: "Agency id", value: (r) => r.value.agencyId ?? null, width: 90, align: "right", hidden: true },
  ],
  open: (row) => ({ kind: "advertiser", row }),
  create: () => ({ kind: "advertiser" }),
  scopeParent: noParent,
  emptyText: "No advertisers. Download from the service, or create one.",
};

function flightSummary(r: CampaignRow, zone: string): string {
  const flights = r.value.flights ?? [];
  if (flights.length === 0) return "—";
  const starts = flights.map((f) => f.startDate).filter((x): x is number => typeof x === "number");
  const ends = flights.map((f) => f.endDate).filter((x): x is number => typeof x === "number");
  const range = starts.length > 0 && ends.length > 0 ? `${formatDateTime(Math.min(...starts), zone, false)} – ${formatDateTime(Math.max(...ends), zone, false)}` : "";
  return `${flights.length} · ${range}`;
}

export const CAMPAIGNS: EntityConfig<CampaignRow> = {
  ...wordsOf("campaign"),
  fetch: fetchCampaigns,
  savedRow: (s) => (s.kind === "campaign" ? s.row : null),
  changes: ["campaign", "advertiser"],
  columns: (zoneOf) => [
    { id: "name", header: "Name", value: (r) => r.label, width: 220 },
    { id: "id", header: "Id", value: (r) => r.value.id ?? null, width: 64, align: "right" },
    { id: "advertiser", header: "Advertiser", value: (r) => r.parentLabel, width: 150 },
    { id: "flights", header: "Flights", value: (r) => (r.value.flights ?? []).length, render: (r) => flightSummary(r, zoneOf(r.timezone).iana), width: 210 },
    { id: "budget", header: "Budget", value: (r) => r.value.maxBudget ?? null, render: (r) => money(r.value.maxBudget), width: 110, align: "right" },
    { id: "daily", header: "Daily", value: (r) => r.value.dailyBudget ?? null, render: (r) => money(r.value.dailyBudget), width: 100, align: "right" },
    { id: "start", header: "Start", value: (r) => r.value.startDate ?? null, render: (r) => formatDateTime(r.value.startDate, zoneOf(r.timezone).iana), width: 150 },
    { id: "end", header: "End", value: (r) => r.value.endDate ?? null, render: (r) => formatDateTime(r.value.endDate, zoneOf(r.timezone).iana), width: 150 },
    { id: "objective", header: "Objective", value: (r) => labelOf(r.value.objective), width: 100 },
    { id: "pacing", header: "Pacing", value: (r) => labelOf(r.value.pacingMode), width: 120, hidden: true },
    { id: "domain", header: "Domain", value: (r) => r.value.domain ?? null, width: 150, hidden: true },
    { id: "io", header: "IO number", value: (r) => r.value.ioNumber ?? r.value.externalCampaignId ?? null, width: 110, hidden: true },
  ],
  open: (row) => ({ kind: "campaign", row }),
  create: (parent) => ({ kind: "campaign", parent }),
  scopeParent: advertiserOf,
  emptyText: "No campaigns here.",
};

export const AD_ORDERS: EntityConfig<AdOrderRow> = {
  ...wordsOf("ad_order"),
  fetch: fetchAdOrders,
  savedRow: (s) => (s.kind === "ad_order" ? s.row : null),
  changes: ["ad_order", "campaign"],
  columns: (zoneOf) => [
    { id: "name", header: "Name", value: (r) => r.label, width: 220 },
    { id: "id", header: "Id", value: (r) => r.value.id ?? null, width: 64, align: "right" },
    { id: "campaign", header: "Campaign", value: (r) => r.parentLabel, width: 170 },
    {
      id: "status",
      header: "Status",
      value: (r) => r.status?.text ?? null,
      // The words and the tooltip are the Rust side's (`StatusCell`).
      render: (r) => (
        <span className={r.status?.pending ? "ad-status pending" : "ad-status"} title={r.status?.why ?? undefined} data-status={r.status?.text}>
          {r.status?.text}
        </span>
      ),
      width: 90,
    },
    { id: "goal", header: "Goal", value: (r) => r.value.optimizationGoal ?? null, width: 90 },
    { id: "start", header: "Start", value: (r) => r.value.startDate ?? null, render: (r) => formatDateTime(r.value.startDate, zoneOf(r.timezone).iana), width: 150 },
    { id: "end", header: "End", value: (r) => r.value.endDate ?? null, render: (r) => formatDateTime(r.value.endDate, zoneOf(r.timezone).iana), width: 150 },
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
  open: (row) => ({ kind: "ad_order", row }),
  create: (parent) => ({ kind: "ad_order", parent }),
  scopeParent: campaignOf,
  emptyText: "No ad orders here.",
  campaignFilter: true,
  pane: (active) => (active ? <FlightCapsPane key={refKey(active.target)} adOrder={active} /> : <p className="muted pane-hint">Select an ad order to see its flight caps.</p>),
};

export const CREATIVES: EntityConfig<CreativeRow> = {
  ...wordsOf("creative"),
  fetch: fetchCreatives,
  savedRow: (s) => (s.kind === "creative" ? s.row : null),
  changes: ["creative"],
  columns: () => [
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
  open: (row) => ({ kind: "creative", row }),
  create: (parent) => ({ kind: "creative", parent }),
  scopeParent: (scope) => campaignOf(scope) ?? advertiserOf(scope),
  emptyText: "No creatives. A download brings the creatives on your campaigns; creatives made here show up too.",
  pane: (active) => <CreativePreviewPane key={active ? refKey(active.target) : ""} row={active} />,
  checks: true,
};

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

export const SITE_LISTS: EntityConfig<SiteListRow> = {
  ...wordsOf("site_list"),
  fetch: fetchSiteLists,
  savedRow: (s) => (s.kind === "site_list" ? s.row : null),
  changes: ["site_list"],
  columns: () => [
    { id: "name", header: "Name", value: (r) => r.label, width: 240 },
    { id: "id", header: "Id", value: (r) => r.value.id ?? null, width: 64, align: "right" },
    { id: "kind", header: "Kind", value: (r) => (r.value.typeId === SITE_LIST_RULE_BASED ? "Rule based" : r.value.typeId == null ? null : "Id based"), width: 100 },
    { id: "strategy", header: "Strategy", value: (r) => labelOf(r.value.strategy), width: 90 },
    { id: "inserted", header: "Inserted", value: (r) => r.value.insertedCount ?? null, width: 90, align: "right" },
    { id: "count", header: "Sites / rules", value: (r) => siteListCount(r), width: 100, align: "right" },
    { id: "contents", header: "Contents", value: (r) => siteListContents(r), width: 280 },
  ],
  open: (row) => ({ kind: "site_list", row }),
  create: () => ({ kind: "site_list" }),
  scopeParent: noParent,
  emptyText: "No site lists. The service has no site-list listing: lists made here show up.",
};

export const SEGMENTS: EntityConfig<SegmentRow> = {
  ...wordsOf("audience_segment"),
  fetch: fetchSegments,
  savedRow: (s) => (s.kind === "audience_segment" ? s.row : null),
  changes: ["audience_segment"],
  columns: () => [
    { id: "name", header: "Name", value: (r) => r.label, width: 220 },
    { id: "segment", header: "Segment id", value: (r) => r.value.serviceSegmentId ?? null, width: 130 },
    { id: "external", header: "External id", value: (r) => r.value.externalAudienceId ?? null, width: 130 },
    { id: "dataType", header: "Data type", value: (r) => labelOf(r.value.dataType), width: 160 },
    { id: "status", header: "Status", value: (r) => r.value.status ?? null, width: 90 },
    { id: "count", header: "Identifiers", value: (r) => r.value.dataCount ?? null, render: (r) => count(r.value.dataCount), width: 100, align: "right" },
    { id: "ttl", header: "TTL (s)", value: (r) => r.value.ttl ?? null, render: (r) => count(r.value.ttl), width: 100, align: "right" },
    { id: "advertisers", header: "Advertisers", value: (r) => (r.value.advertiserIds ?? []).join(", "), width: 120 },
  ],
  open: (row) => ({ kind: "audience_segment", row }),
  create: () => ({ kind: "audience_segment" }),
  scopeParent: noParent,
  emptyText: "No audience segments.",
};

/** What "New …" needs of each kind's screen. */
const NEW_OF: Record<EntityKind, Pick<EntityConfig<AnyRow>, "create" | "scopeParent">> = {
  advertiser: ADVERTISERS,
  campaign: CAMPAIGNS,
  ad_order: AD_ORDERS,
  creative: CREATIVES,
  site_list: SITE_LISTS,
  audience_segment: SEGMENTS,
};

/** The editor of a new entity of `kind` under the tree's selection, as its screen's "+ New" opens it. */
export function newEditor(kind: EntityKind, scope: Scope | null): Editor {
  const c = NEW_OF[kind];
  return c.create(c.scopeParent(scope));
}

/** Finds entities of one kind by name, for the palette. */
export type EntitySearch = { group: string; screen: Screen; search: (text: string, limit: number) => Promise<{ label: string; editor: Editor }[]> };

function searchOf<R extends AnyRow>(c: EntityConfig<R>): EntitySearch {
  return {
    group: c.singular,
    screen: c.screen,
    search: async (text, limit) => {
      const w = await c.fetch({ parent: null, filter: text, sort: null, offset: 0, limit });
      return (w?.rows ?? []).map((r) => ({ label: r.label, editor: c.open(r) }));
    },
  };
}

const SEARCH_OF: Record<EntityKind, EntitySearch> = {
  advertiser: searchOf(ADVERTISERS),
  campaign: searchOf(CAMPAIGNS),
  ad_order: searchOf(AD_ORDERS),
  creative: searchOf(CREATIVES),
  site_list: searchOf(SITE_LISTS),
  audience_segment: searchOf(SEGMENTS),
};

/** Every entity kind the palette finds by name, in the Rust side's order of kinds. */
export const ENTITY_SEARCHES: EntitySearch[] = TABLE_KINDS.map((k) => SEARCH_OF[k.kind]);
