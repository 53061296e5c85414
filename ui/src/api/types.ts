// Every type the UI uses, derived from the signatures of the generated `commands` and
// `events`, so the UI depends only on command and event names, never on the names the
// generator gives to types.
import { commands, events } from "../bindings";

type Cmds = typeof commands;
type AnyCmd = (...args: never[]) => Promise<unknown>;
/** The data of a `Result`, or the value itself for commands that cannot fail. */
type OkOf<R> = R extends { status: "ok"; data: infer T } ? T : R extends { status: "error" } ? never : R;
type ErrOf<R> = R extends { status: "error"; error: infer E } ? E : never;
/** The `data` a command answers with. */
export type Ok<F extends AnyCmd> = OkOf<Awaited<ReturnType<F>>>;
/** The n-th argument of a command. */
export type Arg<F extends AnyCmd, N extends number> = Parameters<F>[N];
type EventPayload<E> = E extends { listen: (cb: (event: { payload: infer P }) => void) => unknown } ? P : never;

export type AppError = ErrOf<Awaited<ReturnType<Cmds["appSnapshot"]>>>;
export type ErrorCode = AppError["code"];
export type FieldError = Ok<Cmds["validate"]>[number];

export type AppSnapshot = Ok<Cmds["appSnapshot"]>;
export type ProfileInfo = AppSnapshot["profiles"][number];
export type SessionInfo = NonNullable<AppSnapshot["session"]>;
export type DemoCredentials = NonNullable<AppSnapshot["demo"]>;
export type PullSummary = Ok<Cmds["refresh"]>;
export type AdOrderCreatives = Ok<Cmds["adOrderCreatives"]>;
/** A file the buyer chose in a dialog: import and export take its token, never a path. */
export type ChosenFile = NonNullable<Ok<Cmds["pickImportFile"]>>;

export type EntityRef = Arg<Cmds["listFlightCaps"], 0>;
export type Kind = EntityRef["kind"];
export type Key = EntityRef["key"];

/** A form's content, tagged by kind: what `save` and `validate` take. */
export type Draft = Arg<Cmds["save"], 2>;
type DraftOf<K extends Draft["kind"]> = Extract<Draft, { kind: K }>;
export type Advertiser = DraftOf<"advertiser">["value"];
export type Campaign = DraftOf<"campaign">["value"];
export type CampaignFlight = Arg<Cmds["flightTimeline"], 0>[number];
export type AdOrder = DraftOf<"ad_order">["value"];
export type FlightCap = DraftOf<"flight_caps">["value"][number];
export type CapChoices = Ok<Cmds["flightCapChoices"]>;
export type CapFlight = CapChoices["flights"][number];
export type Creative = DraftOf<"creative">["value"];
export type SiteList = DraftOf<"site_list">["value"];
export type SiteListOp = DraftOf<"site_list">["op"];
export type AudienceSegment = DraftOf<"audience_segment">["value"];
export type UploadRequest = DraftOf<"audience_data">["value"];
export type IdentifierFile = Ok<Cmds["readIdentifiers"]>;
export type UploadView = Ok<Cmds["audienceUploads"]>[number];
export type AudienceDataResult = NonNullable<UploadView["result"]>;
export type Duplicate = Ok<Cmds["duplicateAsNew"]>;
export type TimezoneName = NonNullable<Advertiser["timezoneName"]>;

/** The rows of a windowed query command. */
type WindowRowOf<F extends AnyCmd> = Ok<F> extends { rows: (infer R)[] } ? R : never;
export type AdvertiserRow = WindowRowOf<Cmds["queryAdvertisers"]>;
export type CampaignRow = WindowRowOf<Cmds["queryCampaigns"]>;
export type AdOrderRow = WindowRowOf<Cmds["queryAdOrders"]>;
export type FlightCapsRow = NonNullable<Ok<Cmds["listFlightCaps"]>>;
export type CreativeRow = WindowRowOf<Cmds["queryCreatives"]>;
export type SiteListRow = WindowRowOf<Cmds["querySiteLists"]>;
export type SegmentRow = WindowRowOf<Cmds["queryAudienceSegments"]>;
export type Marker = NonNullable<AdvertiserRow["marker"]>;

/** What a table view asks for: parent, filter, sort and the window's offset and limit. */
export type TableQuery = Arg<Cmds["queryAdvertisers"], 0>;
export type SortBy = NonNullable<TableQuery["sort"]>;
/** One window of a table: its rows and the counts (with and without the filter). */
export type TableWindow<T> = Omit<Ok<Cmds["queryAdvertisers"]>, "rows"> & { rows: T[] };

/** The common shape of every table row. */
export type AnyRow = Omit<AdvertiserRow, "value">;

export type Saved = Ok<Cmds["save"]>;
/** A saved entity's table row, by kind: a table shows the save from it at once. */
export type SavedRow = NonNullable<Saved["row"]>;
export type MatrixCell = Ok<Cmds["creativeMatrix"]>[number];
export type CreativeType = MatrixCell["creativeType"];
export type CreativeSubtype = MatrixCell["creativeSubtype"];
export type MediaType = MatrixCell["mediaTypes"][number];
export type Timeline = Ok<Cmds["flightTimeline"]>;
export type PartnerStarted = Ok<Cmds["partnerSignIn"]>;
export type TimezoneInfo = Ok<Cmds["timezones"]>[number];

export type ChangeView = WindowRowOf<Cmds["queryPendingChanges"]>;
export type Op = ChangeView["op"];
export type ChangeStatus = ChangeView["status"];
export type FieldDiff = ChangeView["diff"][number];
export type FieldConflict = ChangeView["conflicts"][number];
export type ConflictPick = Arg<Cmds["resolveConflict"], 1>[number];
export type Pick = ConflictPick["pick"];
export type ReviewView = Ok<Cmds["reviewChange"]>;
export type Review = Arg<Cmds["settleReview"], 1>;

export type SyncProgress = EventPayload<typeof events.syncProgress>;
export type SyncFinished = EventPayload<typeof events.syncFinished>;
export type SignInRequired = EventPayload<typeof events.signInRequired>;
export type DownloadProgress = EventPayload<typeof events.downloadProgress>;
export type WorkspaceChanged = EventPayload<typeof events.workspaceChanged>;

export type AppInfo = Ok<Cmds["appInfo"]>;
export type Settings = AppInfo["settings"];
export type LogLevel = Settings["logLevel"];
export type UpdateChannel = Settings["updateChannel"];
export type UpdateRoute = AppInfo["updateRoute"];
export type DownloadOffer = NonNullable<Ok<Cmds["downloadOffer"]>>;
export type UpdateInfo = NonNullable<Ok<Cmds["checkForUpdate"]>>;
export type MenuCommand = EventPayload<typeof events.menuAction>["command"];
export type UpdateProgress = EventPayload<typeof events.updateProgress>;
