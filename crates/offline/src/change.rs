//! The vocabulary shared by the workspace store, the planner and the sync engine.

use flightdeck_model::FieldError;
use flightdeck_model::validate::{self, IgnoredOnUpdate};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What an entity is. The order is the posting order of parents before children.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Advertisers.
    Advertiser,
    /// Campaigns, posted together with their flights (`campaign/save` with `flights`).
    Campaign,
    /// A campaign flight. Only a reference target: flights are edited and posted as part
    /// of their campaign, and get their remote ids when it lands.
    Flight,
    /// Ad orders with their audiences.
    AdOrder,
    /// The flight caps of one ad order (keyed by the ad order's key).
    FlightCaps,
    /// Creatives: created here, and downloaded through each campaign's listing (which
    /// carries no type-specific payload; creatives tied only to an advertiser are not
    /// listed, and the service has no creative delete).
    Creative,
    /// Site lists; the workspace is their only record (no list endpoint).
    SiteList,
    /// First-party audience segments (keyed by `serviceSegmentId` once created).
    AudienceSegment,
}

impl Kind {
    /// Every kind, in posting order.
    pub const ALL: [Kind; 8] = [
        Kind::Advertiser,
        Kind::Campaign,
        Kind::Flight,
        Kind::AdOrder,
        Kind::FlightCaps,
        Kind::Creative,
        Kind::SiteList,
        Kind::AudienceSegment,
    ];

    /// The kind's one name in every file, command line and binding: the serde name
    /// (`ad_order`, `flight_caps`). Stored in the workspace, so it never changes.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Advertiser => "advertiser",
            Kind::Campaign => "campaign",
            Kind::Flight => "flight",
            Kind::AdOrder => "ad_order",
            Kind::FlightCaps => "flight_caps",
            Kind::Creative => "creative",
            Kind::SiteList => "site_list",
            Kind::AudienceSegment => "audience_segment",
        }
    }

    /// The kind [`Kind::name`] names, exactly; `None` for anything else.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind a person typed: [`Kind::name`] or [`Kind::label`], in any case, with
    /// spaces, dashes or underscores between the words or none (`Ad order`, `ad-order`,
    /// `adorder`); a plural reads as its kind (`ad orders`).
    pub fn parse(text: &str) -> Option<Kind> {
        let squash = |s: &str| -> String {
            s.chars()
                .filter(|c| !matches!(c, ' ' | '-' | '_'))
                .flat_map(char::to_lowercase)
                .collect()
        };
        let typed = squash(text.trim());
        Kind::ALL
            .into_iter()
            .find(|k| typed == squash(k.name()) || typed == squash(k.plural()))
    }

    /// What the buyer reads for the kind, lower case, so hosts need no table of their own
    /// ("ad order", "flight caps").
    pub fn label(self) -> &'static str {
        match self {
            Kind::Advertiser => "advertiser",
            Kind::Campaign => "campaign",
            Kind::Flight => "flight",
            Kind::AdOrder => "ad order",
            Kind::FlightCaps => "flight caps",
            Kind::Creative => "creative",
            Kind::SiteList => "site list",
            Kind::AudienceSegment => "audience segment",
        }
    }

    /// More than one, lower case ("ad orders"; flight caps are already plural).
    pub fn plural(self) -> &'static str {
        match self {
            Kind::Advertiser => "advertisers",
            Kind::Campaign => "campaigns",
            Kind::Flight => "flights",
            Kind::AdOrder => "ad orders",
            Kind::FlightCaps => "flight caps",
            Kind::Creative => "creatives",
            Kind::SiteList => "site lists",
            Kind::AudienceSegment => "audience segments",
        }
    }

    /// Whether the service can change a posted entity of the kind. Creatives and
    /// audience segments have no update (`creative/save` and `POST /v1/audiences` only
    /// create): once posted they are read-only, and "Duplicate as new" is the way to
    /// change one (`validate::NO_UPDATE_ENDPOINT` says so to the buyer).
    pub fn has_update(self) -> bool {
        !matches!(self, Kind::Creative | Kind::AudienceSegment)
    }

    /// Whether the buyer edits entities of the kind on their own. Flights are edited
    /// inside their campaign and posted with it.
    pub fn editable(self) -> bool {
        self != Kind::Flight
    }

    /// Whether the kind has a table of its own (a screen, a CSV, a CLI listing). Flights
    /// show inside their campaign and flight caps beside their ad order.
    pub fn has_table(self) -> bool {
        !matches!(self, Kind::Flight | Kind::FlightCaps)
    }

    /// The kinds with a table, in posting order.
    pub fn tables() -> impl Iterator<Item = Kind> {
        Kind::ALL.into_iter().filter(|k| k.has_table())
    }

    /// The heading of the kind's screen: [`Kind::plural`] with a capital ("Ad orders").
    pub fn title(self) -> String {
        let plural = self.plural();
        let mut chars = plural.chars();
        chars.next().map_or_else(String::new, |first| {
            first.to_uppercase().chain(chars).collect()
        })
    }

    /// The fields a posted entity of the kind cannot change: the service ignores them on
    /// update (`flightdeck_model::validate::*_IGNORED_ON_UPDATE`, the lists the sandbox
    /// and the workspace refuse such edits by). Forms show them read-only with `why`.
    pub fn ignored_on_update(self) -> &'static [IgnoredOnUpdate] {
        match self {
            Kind::Advertiser => validate::ADVERTISER_IGNORED_ON_UPDATE,
            Kind::Campaign => validate::CAMPAIGN_IGNORED_ON_UPDATE,
            Kind::AdOrder => validate::AD_ORDER_IGNORED_ON_UPDATE,
            Kind::Flight
            | Kind::FlightCaps
            | Kind::Creative
            | Kind::SiteList
            | Kind::AudienceSegment => &[],
        }
    }

    /// Everything a host shows about the kind, for the UI's bindings.
    pub fn info(self) -> KindInfo {
        KindInfo {
            kind: self,
            name: self.name().to_owned(),
            label: self.label().to_owned(),
            plural: self.plural().to_owned(),
            title: self.title(),
            has_update: self.has_update(),
            editable: self.editable(),
            has_table: self.has_table(),
            ignored_on_update: self
                .ignored_on_update()
                .iter()
                .map(|rule| IgnoredField {
                    field: rule.field.to_owned(),
                    why: rule.why.to_owned(),
                })
                .collect(),
        }
    }

    /// The wire fields that carry the buyer's own client reference on a create, the one
    /// a create whose answer was lost is found again by. The first is where a generated
    /// reference goes; the others are spellings the service treats as the same value
    /// (`ioNumber` for campaigns and ad orders), so only one of them may be sent. Empty
    /// for kinds without one.
    pub fn client_reference_fields(self) -> &'static [&'static str] {
        match self {
            Kind::Advertiser => &["externalAdvertiserId"],
            Kind::Campaign => &["externalCampaignId", "ioNumber"],
            Kind::AdOrder => &["externalAdOrderId", "ioNumber"],
            Kind::Creative => &["externalCreativeid"],
            Kind::AudienceSegment => &["externalAudienceId"],
            Kind::Flight | Kind::FlightCaps | Kind::SiteList => &[],
        }
    }

    /// The kinds a new entity of this kind (a draft, a copy) can hang under: campaigns
    /// under advertisers, ad orders under campaigns, creatives under either (the service
    /// resolves a creative's advertiser from its campaign). Empty for kinds made on
    /// their own or only inside another entity.
    pub fn parent_kinds(self) -> &'static [Kind] {
        match self {
            Kind::Campaign => &[Kind::Advertiser],
            Kind::AdOrder => &[Kind::Campaign],
            Kind::Creative => &[Kind::Advertiser, Kind::Campaign],
            Kind::FlightCaps => &[Kind::AdOrder],
            Kind::Advertiser | Kind::Flight | Kind::SiteList | Kind::AudienceSegment => &[],
        }
    }

    /// How a create whose answer was lost is found again on the service by its client
    /// reference ([`Lookup`]). Advertisers, campaigns, ad orders and segments are listed;
    /// creatives only in their campaign's listing (`GET /v1/campaign/{id}/creatives`), so
    /// one saved against its advertiser alone cannot be found; site lists have neither
    /// a listing nor a reference. A create that cannot be looked up goes to the buyer for
    /// review rather than risk a duplicate.
    pub fn lost_create_lookup(self) -> Lookup {
        match self {
            Kind::Advertiser | Kind::Campaign | Kind::AdOrder | Kind::AudienceSegment => {
                Lookup::Always
            }
            Kind::Creative => Lookup::ByParent {
                parent: Kind::Campaign,
                field: "campaignId",
            },
            Kind::Flight | Kind::FlightCaps | Kind::SiteList => Lookup::Never,
        }
    }
}

/// Whether a create whose answer was lost can be found again by its client reference
/// ([`Kind::lost_create_lookup`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The service lists the kind: always.
    Always,
    /// Only in the listing of a parent of kind `parent`, which the payload names at
    /// `field`: a create that names none cannot be looked up.
    ByParent {
        /// The parent whose listing holds the kind.
        parent: Kind,
        /// The payload's member naming the parent's id.
        field: &'static str,
    },
    /// Never.
    Never,
}

impl Lookup {
    /// Whether a create with this `payload` can be looked up. `parents` are the
    /// payload's references still to be filled in: a creative under a draft campaign
    /// names it there until the campaign lands (its `campaignId` is null till then).
    pub fn finds(self, payload: &Value, parents: &[ParentRef]) -> bool {
        match self {
            Lookup::Always => true,
            Lookup::ByParent { parent, field } => {
                self.parent_id(payload).is_some()
                    || parents.iter().any(|p| {
                        p.target.kind == parent && p.pointer.strip_prefix('/') == Some(field)
                    })
            }
            Lookup::Never => false,
        }
    }

    /// The id of the parent whose listing holds the create, from a payload whose
    /// references are filled in; `None` when the look-up needs no parent or it names none.
    pub fn parent_id(self, payload: &Value) -> Option<i64> {
        match self {
            Lookup::ByParent { field, .. } => payload.get(field).and_then(Value::as_i64),
            Lookup::Always | Lookup::Never => None,
        }
    }
}

/// The facts of one [`Kind`], as the UI reads them through the bindings: the same
/// words the CLI and CSV files use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct KindInfo {
    /// The kind.
    pub kind: Kind,
    /// [`Kind::name`].
    pub name: String,
    /// [`Kind::label`].
    pub label: String,
    /// [`Kind::plural`].
    pub plural: String,
    /// [`Kind::has_update`].
    pub has_update: bool,
    /// [`Kind::editable`].
    pub editable: bool,
    /// [`Kind::has_table`].
    pub has_table: bool,
    /// [`Kind::title`].
    pub title: String,
    /// [`Kind::ignored_on_update`]: read-only once posted, with why.
    pub ignored_on_update: Vec<IgnoredField>,
}

impl KindInfo {
    /// Every kind's facts, in posting order: the UI's one list of kinds.
    pub fn all() -> Vec<KindInfo> {
        Kind::ALL.into_iter().map(Kind::info).collect()
    }
}

/// A field a posted entity cannot change, and what the buyer does instead (the model's
/// text, shown beside the read-only input).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct IgnoredField {
    /// Wire name (`startDate`).
    pub field: String,
    /// Why it cannot change, and what to do instead.
    pub why: String,
}

/// Identity of an entity in the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Key {
    /// A numeric id the service assigned.
    Id(i64),
    /// An audience segment's `serviceSegmentId`.
    Segment(String),
    /// A draft the service has never seen; replaced by the remote key once posted.
    Local(String),
}

impl Key {
    /// A new local key, unique across workspaces.
    pub fn new_local() -> Key {
        Key::Local(format!(
            "{:016x}{:016x}",
            rand::random::<u64>(),
            rand::random::<u64>()
        ))
    }

    /// True for drafts the service has never seen.
    pub fn is_local(&self) -> bool {
        matches!(self, Key::Local(_))
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Id(id) => write!(f, "{id}"),
            Key::Segment(s) => write!(f, "segment {s}"),
            Key::Local(l) => write!(f, "draft {}", l.chars().take(8).collect::<String>()),
        }
    }
}

/// One entity of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EntityRef {
    /// What it is.
    pub kind: Kind,
    /// Which one.
    pub key: Key,
}

impl EntityRef {
    /// Shorthand constructor.
    pub fn new(kind: Kind, key: Key) -> Self {
        Self { kind, key }
    }

    /// A flight of `campaign` that has no id yet (a new flight of a draft campaign, or
    /// one added to a posted campaign by a pending edit), named by its start date: the
    /// flights of one campaign never overlap, so no two start together. Flight caps can
    /// name it ([`crate::workspace::Batch::set_flight_caps_for`]); it gets the service's
    /// id when the campaign change that carries it lands.
    pub fn draft_flight(campaign: &EntityRef, start_date: i64) -> EntityRef {
        EntityRef::new(
            Kind::Flight,
            Key::Local(format!(
                "{}{DRAFT_FLIGHT_MARK}{start_date}",
                crate::workspace::key_text(&campaign.key)
            )),
        )
    }

    /// For a [`EntityRef::draft_flight`]: its campaign (under the key the campaign had when
    /// the flight was named) and its start date.
    pub fn draft_flight_parts(&self) -> Option<(EntityRef, i64)> {
        let Key::Local(text) = &self.key else {
            return None;
        };
        if self.kind != Kind::Flight {
            return None;
        }
        let (campaign, start) = text.rsplit_once(DRAFT_FLIGHT_MARK)?;
        let key = crate::workspace::key_from_text(campaign).ok()?;
        Some((EntityRef::new(Kind::Campaign, key), start.parse().ok()?))
    }
}

/// Separates a draft flight's campaign from its start date in its local key.
const DRAFT_FLIGHT_MARK: &str = "@start:";

/// A reference from a change's payload to another entity, filled in with the remote id
/// when the payload is posted (a draft ad order under a draft campaign has no
/// `campaignId` until the campaign lands).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ParentRef {
    /// JSON pointer into the payload (`/campaignId`, `/0/flightId`).
    pub pointer: String,
    /// The entity whose remote id goes there.
    pub target: EntityRef,
}

/// What posting a change does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Create the entity (`save` without id, `addNewSiteList`, `POST /v1/audiences`).
    Create,
    /// Modify the entity (`save` with id; flight caps `byAdOrder`).
    Update,
    /// `appendToSiteList`.
    SiteListAppend,
    /// `overwriteSiteList`.
    SiteListOverwrite,
    /// `removeSites`.
    SiteListRemoveSites,
    /// `POST /v1/audiences/{id}/data`.
    AudienceData,
    /// `POST /v1/adorder/updateStatus` on an ad order: payload `{"status": <int>}`
    /// (the id is filled in when it is posted). A separate row from the ad order's
    /// create or update, posted after them (`plan.rs`); idempotent, so a lost answer is
    /// simply sent again.
    SetStatus,
}

/// Where a change stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    /// Waiting to be posted.
    Pending,
    /// Breaks validation rules; never posted until fixed.
    Invalid,
    /// Posted, answer not recorded yet. After a crash this means "outcome unknown": the
    /// change is looked up by its client reference before it is sent again.
    Sending,
    /// Applied by the service.
    Applied,
    /// Rejected by the service; its messages say why.
    Failed,
    /// The outcome is unknown and the service offers no look-up; the buyer decides.
    NeedsReview,
    /// The server changed the same fields since the base; held for the buyer.
    Conflict,
    /// Waits on a change that failed, is invalid, needs review or is in conflict (its
    /// message names it). Set by a push; the next push plans it again.
    Blocked,
}

/// A change waiting to be posted, as the planner and the sync engine see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PendingChange {
    /// Outbox order: changes to one entity are posted in this order.
    pub seq: i64,
    /// The entity changed.
    pub target: EntityRef,
    /// What posting does.
    pub op: Op,
    /// References to fill in with remote ids before posting; their targets go first.
    pub parents: Vec<ParentRef>,
    /// The body to post, as the wire type's JSON.
    pub payload: Value,
    /// The server version the edit started from (`None` for creates).
    pub base: Option<Value>,
    /// Broken validation rules, from `flightdeck-model`.
    pub errors: Vec<FieldError>,
    /// Where it stands.
    pub status: ChangeStatus,
    /// The reference written into the resource's external-id field for exactly-once creates.
    pub client_ref: Option<String>,
}

impl PendingChange {
    /// Whether this is a create that can be found again by its client reference should
    /// its answer be lost ([`Kind::lost_create_lookup`]); false for other operations.
    pub fn lost_create_lookup(&self) -> bool {
        self.op == Op::Create
            && self
                .target
                .kind
                .lost_create_lookup()
                .finds(&self.payload, &self.parents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flightdeck_model::{AdOrder, Advertiser, AudienceSegment, Campaign, Creative};

    #[test]
    fn labels_are_what_hosts_showed() {
        let labels: Vec<&str> = Kind::ALL.iter().map(|k| k.label()).collect();
        assert_eq!(
            labels,
            [
                "advertiser",
                "campaign",
                "flight",
                "ad order",
                "flight caps",
                "creative",
                "site list",
                "audience segment"
            ]
        );
        let mut sorted = Kind::ALL.to_vec();
        sorted.sort();
        assert_eq!(sorted, Kind::ALL, "ALL is in posting order");
    }

    /// Each client-reference field is a member the kind's wire type reads and writes
    /// back: a misspelt one would be dropped on the way out and never found again.
    #[test]
    fn client_reference_fields_are_wire_members_of_their_kind() {
        fn round_trips<T: serde::de::DeserializeOwned + Serialize>(field: &str) -> bool {
            let sent = serde_json::json!({ field: "fd-0123456789abcdef" });
            let Ok(parsed) = serde_json::from_value::<T>(sent) else {
                return false;
            };
            let back = serde_json::to_value(&parsed).unwrap_or_default();
            back.get(field).and_then(Value::as_str) == Some("fd-0123456789abcdef")
        }
        for kind in Kind::ALL {
            for field in kind.client_reference_fields() {
                let ok = match kind {
                    Kind::Advertiser => round_trips::<Advertiser>(field),
                    Kind::Campaign => round_trips::<Campaign>(field),
                    Kind::AdOrder => round_trips::<AdOrder>(field),
                    Kind::Creative => round_trips::<Creative>(field),
                    Kind::AudienceSegment => round_trips::<AudienceSegment>(field),
                    _ => false,
                };
                assert!(ok, "{kind:?}: {field} is not a member of its wire type");
            }
        }
    }

    #[test]
    fn only_listed_kinds_with_a_reference_can_find_a_lost_create() {
        let always: Vec<Kind> = Kind::ALL
            .into_iter()
            .filter(|k| k.lost_create_lookup() == Lookup::Always)
            .collect();
        assert_eq!(
            always,
            [
                Kind::Advertiser,
                Kind::Campaign,
                Kind::AdOrder,
                Kind::AudienceSegment
            ]
        );
        for kind in Kind::ALL {
            if kind.lost_create_lookup() != Lookup::Never {
                assert!(!kind.client_reference_fields().is_empty(), "{kind:?}");
            }
        }
        assert_eq!(Kind::SiteList.lost_create_lookup(), Lookup::Never);
        assert!(Kind::SiteList.client_reference_fields().is_empty());

        // A creative is found in its campaign's listing: only when it names a campaign,
        // by id or by a draft campaign still to land.
        let creative = Kind::Creative.lost_create_lookup();
        let draft_campaign = ParentRef {
            pointer: "/campaignId".into(),
            target: EntityRef::new(Kind::Campaign, Key::Local("c".into())),
        };
        let draft_advertiser = ParentRef {
            pointer: "/advertiserId".into(),
            target: EntityRef::new(Kind::Advertiser, Key::Local("a".into())),
        };
        assert!(creative.finds(&serde_json::json!({"campaignId": 7}), &[]));
        assert_eq!(
            creative.parent_id(&serde_json::json!({"campaignId": 7})),
            Some(7)
        );
        assert!(creative.finds(
            &serde_json::json!({"campaignId": null}),
            std::slice::from_ref(&draft_campaign)
        ));
        assert!(!creative.finds(&serde_json::json!({"advertiserId": 3}), &[]));
        assert!(!creative.finds(
            &serde_json::json!({"advertiserId": null}),
            std::slice::from_ref(&draft_advertiser)
        ));
    }

    /// The UI's screen titles are these words, so they stay what the buyer read before.
    #[test]
    fn titles_are_the_plurals_with_a_capital() {
        let titles: Vec<String> = Kind::tables().map(Kind::title).collect();
        assert_eq!(
            titles,
            [
                "Advertisers",
                "Campaigns",
                "Ad orders",
                "Creatives",
                "Site lists",
                "Audience segments"
            ]
        );
    }

    /// Each field a form shows read-only once posted is a wire member of its kind, and
    /// the kinds with no update have no such list (the whole entity is read-only).
    #[test]
    fn fields_read_only_once_posted_are_wire_members_of_their_kind() {
        // A typed member the type reads and writes back, with a value of one of its
        // shapes. An unknown name would be kept too (in `extra`), but would take an
        // object as readily: a typed member refuses one.
        fn kept<T: serde::de::DeserializeOwned + Serialize>(field: &str) -> bool {
            let object = serde_json::json!({ field: { "not": "a scalar" } });
            serde_json::from_value::<T>(object).is_err()
                && [Value::from(1), Value::from("USD"), Value::from("ET")]
                    .into_iter()
                    .any(|v| {
                        serde_json::from_value::<T>(serde_json::json!({ field: v }))
                            .ok()
                            .and_then(|t| serde_json::to_value(t).ok())
                            .is_some_and(|back| back.get(field).is_some())
                    })
        }
        let members = |kind: Kind, field: &str| match kind {
            Kind::Advertiser => kept::<Advertiser>(field),
            Kind::Campaign => kept::<Campaign>(field),
            Kind::AdOrder => kept::<AdOrder>(field),
            _ => false,
        };
        for info in KindInfo::all() {
            for f in &info.ignored_on_update {
                assert!(members(info.kind, &f.field), "{f:?}");
                assert!(!f.why.is_empty());
            }
            if !info.has_update {
                assert!(info.ignored_on_update.is_empty(), "{info:?}");
            }
        }
        let order: Vec<String> = Kind::AdOrder
            .info()
            .ignored_on_update
            .into_iter()
            .map(|f| f.field)
            .collect();
        assert_eq!(
            order,
            ["campaignId", "lifetimeBudget", "startDate", "endDate"]
        );
    }
}
