// The windowed query commands as table fetch functions. Module-level, so each kind's
// function keeps its identity (a new function would mean new rows to a table).
import { commands } from "../bindings";
import { plain, unwrap } from "./call";
import type { AdOrderRow, AdvertiserRow, CampaignRow, ChangeView, CreativeRow, Kind, SegmentRow, SiteListRow } from "./types";
import type { WindowFetch } from "../table/windowCache";

export const fetchAdvertisers: WindowFetch<AdvertiserRow> = (q) => unwrap(commands.queryAdvertisers(q));
export const fetchCampaigns: WindowFetch<CampaignRow> = (q) => unwrap(commands.queryCampaigns(q));
export const fetchAdOrders: WindowFetch<AdOrderRow> = (q) => unwrap(commands.queryAdOrders(q));
export const fetchCreatives: WindowFetch<CreativeRow> = (q) => unwrap(commands.queryCreatives(q));
export const fetchSiteLists: WindowFetch<SiteListRow> = (q) => unwrap(commands.querySiteLists(q));
export const fetchSegments: WindowFetch<SegmentRow> = (q) => unwrap(commands.queryAudienceSegments(q));
export const fetchPendingChanges: WindowFetch<ChangeView> = (q) => unwrap(commands.queryPendingChanges(q));

/** The columns of a kind's table (ids and headers), the core's one list; `undefined` if the call failed. */
export const fetchTableColumns = (kind: Kind) => plain(commands.tableColumns(kind), { quiet: true });
