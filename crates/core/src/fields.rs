//! Each kind's fields by the label the buyer reads: the grid's column header where the
//! grid shows the field ("Max bid"), else the form's label, with the wire path beside it
//! (`max_bid`). The one list bulk edit, find and replace and the CLI's `--set` accept
//! names from, and offer: a label is taken wherever a wire path is.
//!
//! The members come from the model (`WIRE_MEMBERS`, the names its decoders know), so a
//! field the model gains is offered at once; a name that is neither a label nor a member
//! is refused with the nearest names, rather than saved as a new member the next push
//! would send.

use flightdeck_model::validate::Op;
use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, CampaignFlight, Creative, FieldError,
    FlightCap, FrequencyCap, SiteList, TypeObject,
};
use flightdeck_offline::bulk::ops::FieldEdit;
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::Workspace;
use serde::Serialize;
use serde_json::Value;

use crate::query::columns;
use crate::{Error, Result};

/// The code of an edit that names a field its kind does not have.
pub const UNKNOWN_FIELD: &str = "UNKNOWN_FIELD";

/// Suggestions an unknown name gets, at most.
const SUGGESTIONS: usize = 3;

/// One field of a kind as hosts offer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct FieldInfo {
    /// The wire path an edit names (`max_bid`, `flights[*].maxBudget`, `[*].maxBudget`
    /// for every cap of an ad order's flight caps).
    pub path: String,
    /// What the buyer reads: the grid's header where the grid shows the field, else the
    /// form's label ("Max bid").
    pub label: String,
    /// Other names taken for it: the form's label where the grid's differs ("Lifetime
    /// budget" for a campaign's `maxBudget`, whose column reads "Budget").
    pub aliases: Vec<String>,
    /// The service sets it (a creative's review status, an id): shown, never typed.
    pub service_set: bool,
}

/// A member whose own members are listed too, under `prefix` (`flights[*].`).
struct Nested {
    member: &'static str,
    prefix: &'static str,
    members: &'static [&'static str],
}

/// What the model and the screens say about one kind.
struct Spec {
    /// Put before every top-level member: `[*].` for flight caps, a list.
    prefix: &'static str,
    members: &'static [&'static str],
    nested: &'static [Nested],
    /// Fields the grid shows, by column id: their label is its header.
    columns: &'static [(&'static str, &'static str)],
    /// The forms' labels (and labels of fields no screen shows by a name of its own).
    labels: &'static [(&'static str, &'static str)],
    /// Fields the service sets.
    service_set: &'static [&'static str],
}

const NO_NESTED: &[Nested] = &[];

fn spec(kind: Kind) -> Spec {
    match kind {
        Kind::Advertiser => Spec {
            prefix: "",
            members: Advertiser::WIRE_MEMBERS,
            nested: NO_NESTED,
            columns: &[
                ("name", "name"),
                ("id", "id"),
                ("category", "category"),
                ("currency", "currency"),
                ("timezoneName", "timezone"),
                ("externalAdvertiserId", "external"),
                ("agencyId", "agency"),
            ],
            labels: &[("externalAdvertiserId", "External advertiser id")],
            service_set: &["id"],
        },
        Kind::Campaign => Spec {
            prefix: "",
            members: Campaign::WIRE_MEMBERS,
            nested: &[Nested {
                member: "flights",
                prefix: "flights[*].",
                members: CampaignFlight::WIRE_MEMBERS,
            }],
            columns: &[
                ("name", "name"),
                ("id", "id"),
                ("advertiserId", "advertiser"),
                ("flights", "flights"),
                ("maxBudget", "budget"),
                ("dailyBudget", "daily"),
                ("startDate", "start"),
                ("endDate", "end"),
                ("objective", "objective"),
                ("pacingMode", "pacing"),
                ("domain", "domain"),
                ("ioNumber", "io"),
            ],
            labels: CAMPAIGN_LABELS,
            service_set: &[
                "id",
                "hasFlights",
                "flights[*].id",
                "flights[*].remainingBudget",
            ],
        },
        Kind::Flight => Spec {
            prefix: "",
            members: CampaignFlight::WIRE_MEMBERS,
            nested: NO_NESTED,
            columns: &[],
            labels: FLIGHT_LABELS,
            service_set: &["id", "remainingBudget"],
        },
        Kind::AdOrder => Spec {
            prefix: "",
            members: AdOrder::WIRE_MEMBERS,
            nested: &[Nested {
                member: "frequencyCap",
                prefix: "frequencyCap.",
                members: FrequencyCap::WIRE_MEMBERS,
            }],
            columns: &[
                ("name", "name"),
                ("id", "id"),
                ("campaignId", "campaign"),
                ("optimizationGoal", "goal"),
                ("startDate", "start"),
                ("endDate", "end"),
                ("lifetimeBudget", "budget"),
                ("max_bid", "maxbid"),
                ("hourlyPacingMode", "pacing"),
                ("audiences", "audiences"),
                ("frequencyCap", "freq"),
            ],
            labels: AD_ORDER_LABELS,
            service_set: &["id", "io_number", "costOptimizationEnabled"],
        },
        Kind::FlightCaps => Spec {
            prefix: "[*].",
            members: FlightCap::WIRE_MEMBERS,
            nested: NO_NESTED,
            columns: &[],
            labels: &[
                ("[*].orderId", "Ad order id"),
                ("[*].flightId", "Flight id"),
                ("[*].maxBudget", "Max budget"),
                ("[*].dailyBudget", "Daily budget"),
                ("[*].lifetimeImpressions", "Lifetime impressions"),
                ("[*].dailyImpressions", "Daily impressions"),
            ],
            service_set: &["[*].id"],
        },
        Kind::Creative => Spec {
            prefix: "",
            members: Creative::WIRE_MEMBERS,
            nested: &[
                Nested {
                    member: "type",
                    prefix: "type.",
                    members: TypeObject::WIRE_MEMBERS,
                },
                Nested {
                    member: "size",
                    prefix: "size.",
                    members: &["width", "height"],
                },
            ],
            columns: &[
                ("name", "name"),
                ("id", "id"),
                ("creativeType", "type"),
                ("creativeSubtype", "subtype"),
                ("type.mediaType", "media"),
                ("size", "size"),
                ("status", "status"),
                ("landingPageUrl", "landing"),
                ("externalCreativeid", "external"),
            ],
            labels: CREATIVE_LABELS,
            service_set: &["id", "status"],
        },
        Kind::SiteList => Spec {
            prefix: "",
            members: SiteList::WIRE_MEMBERS,
            nested: NO_NESTED,
            columns: &[
                ("name", "name"),
                ("id", "id"),
                ("typeId", "kind"),
                ("strategy", "strategy"),
                ("insertedCount", "inserted"),
            ],
            labels: &[("siteIds", "Site ids")],
            service_set: &["id", "insertedCount"],
        },
        Kind::AudienceSegment => Spec {
            prefix: "",
            members: AudienceSegment::WIRE_MEMBERS,
            nested: NO_NESTED,
            columns: &[
                ("name", "name"),
                ("serviceSegmentId", "segment"),
                ("externalAudienceId", "external"),
                ("dataType", "dataType"),
                ("status", "status"),
                ("dataCount", "count"),
            ],
            labels: &[
                ("externalAudienceId", "External audience id"),
                ("ttl", "TTL"),
                ("advertiserIds", "Advertiser ids"),
            ],
            service_set: &["serviceSegmentId", "status", "dataCount", "message"],
        },
    }
}

const CAMPAIGN_LABELS: &[(&str, &str)] = &[
    ("advertiserId", "Advertiser id"),
    ("domain", "Advertiser domain"),
    ("maxBudget", "Lifetime budget"),
    ("dailyBudget", "Daily budget"),
    ("dailyFrequencyCap", "Impressions per user"),
    ("frequencyCapDuration", "Frequency cap periods"),
    ("frequencyCapTimePeriod", "Frequency cap period"),
    ("iabCategory", "IAB categories"),
    ("lifetimeImpressionCap", "Lifetime impressions"),
    ("dailyImpressionCap", "Daily impressions"),
    ("lifetimeClickCap", "Lifetime clicks"),
    ("dailyClickCap", "Daily clicks"),
    ("ioNumber", "IO number"),
    ("externalCampaignId", "External campaign id"),
    ("autoAdvertising", "Automated advertising"),
    ("intradayFrontloadPct", "Intraday frontload"),
    ("flights[*].startDate", "Flight start"),
    ("flights[*].endDate", "Flight end"),
    ("flights[*].maxBudget", "Flight budget"),
    ("flights[*].dailyBudget", "Flight daily budget"),
    ("flights[*].budgetType", "Flight budget type"),
    ("flights[*].dailyFrontload", "Flight daily frontload"),
    ("flights[*].dailyImpCap", "Flight daily impression cap"),
    (
        "flights[*].lifetimeImpCap",
        "Flight lifetime impression cap",
    ),
    ("flights[*].status", "Flight status"),
    ("flights[*].id", "Flight id"),
    ("flights[*].remainingBudget", "Flight remaining budget"),
];

const FLIGHT_LABELS: &[(&str, &str)] = &[
    ("startDate", "Start"),
    ("endDate", "End"),
    ("maxBudget", "Budget"),
    ("dailyImpCap", "Daily impression cap"),
    ("lifetimeImpCap", "Lifetime impression cap"),
];

const AD_ORDER_LABELS: &[(&str, &str)] = &[
    ("campaignId", "Campaign id"),
    ("hourlyFrontload", "Hourly frontload"),
    ("ioNumber", "IO number"),
    ("io_number", "IO number (as returned)"),
    ("externalAdOrderId", "External ad order id"),
    ("channelsV2", "Channels (v2)"),
    ("cpaGoal", "CPA goal"),
    ("ctrGoal", "CTR goal"),
    ("vcrGoal", "Video completion rate goal"),
    ("lifetimeImpressionBudget", "Lifetime impressions budget"),
    ("dailyImpressionBudget", "Daily impressions budget"),
    ("frequencyCap.limit", "Frequency cap impressions per user"),
    ("frequencyCap.duration", "Frequency cap periods"),
    ("frequencyCap.timePeriod", "Frequency cap period"),
];

const CREATIVE_LABELS: &[(&str, &str)] = &[
    // "Type" is the grid's `creativeType`.
    ("type", "Media and vendor"),
    ("advertiserId", "Advertiser id"),
    ("campaignId", "Campaign id"),
    ("externalCreativeid", "External creative id"),
    ("crawlableUrl", "Crawlable URL"),
    ("htmlAsset", "HTML asset"),
    ("imageUrl", "Image URL"),
    ("landingPageUrl", "Landing page"),
    ("impressionTrackingPixel_1", "Impression pixel 1"),
    ("impressionTrackingPixel_2", "Impression pixel 2"),
    ("impressionTrackingPixel_3", "Impression pixel 3"),
    ("impressionTrackingPixel_4", "Impression pixel 4"),
    ("type.id", "Creative type id"),
    ("type.vendorId", "Vendor id"),
    ("type.videoType", "Video type"),
    ("size.width", "Width"),
    ("size.height", "Height"),
];

/// `dailyImpCap` as "Daily imp cap": a wire name in words, for members no screen names.
fn words(member: &str) -> String {
    let mut out = String::new();
    for (i, c) in member.chars().enumerate() {
        if c == '_' {
            out.push(' ');
        } else if c.is_ascii_uppercase() && i > 0 {
            out.push(' ');
            out.push(c.to_ascii_lowercase());
        } else if i == 0 {
            out.push(c.to_ascii_uppercase());
        } else {
            out.push(c);
        }
    }
    out.replace("  ", " ")
}

/// The fields of `kind`, in the model's order, each nested list after its member.
pub fn fields(kind: Kind) -> Vec<FieldInfo> {
    let spec = spec(kind);
    let headers = columns(kind);
    let header = |path: &str| {
        spec.columns
            .iter()
            .find(|(p, _)| *p == path)
            .and_then(|(_, id)| headers.iter().find(|c| c.id == *id))
            .map(|c| c.header.clone())
    };
    let own = |path: &str| {
        spec.labels
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, l)| (*l).to_owned())
    };
    let info = |path: String, member: &str, parent: Option<&str>| {
        let named = own(&path).unwrap_or_else(|| match parent {
            Some(p) => format!("{p} {}", words(member).to_lowercase()),
            None => words(member),
        });
        let (label, aliases) = match header(&path) {
            Some(h) if !h.eq_ignore_ascii_case(&named) => (h, vec![named]),
            Some(h) => (h, Vec::new()),
            None => (named, Vec::new()),
        };
        FieldInfo {
            service_set: spec.service_set.contains(&path.as_str()),
            path,
            label,
            aliases,
        }
    };
    let mut out = Vec::new();
    for member in spec.members {
        let path = format!("{}{member}", spec.prefix);
        let field = info(path, member, None);
        let parent = field.label.clone();
        out.push(field);
        if let Some(n) = spec.nested.iter().find(|n| n.member == *member) {
            for child in n.members {
                out.push(info(format!("{}{child}", n.prefix), child, Some(&parent)));
            }
        }
    }
    out
}

/// The fields the grid shows, as (wire path, column id) of `kind`'s table.
pub(crate) fn column_paths(kind: Kind) -> &'static [(&'static str, &'static str)] {
    spec(kind).columns
}

/// A name as labels compare: lower case, single spaces.
fn folded(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `flights[0].maxBudget` as `flights[*].maxBudget`: the form the field list names.
pub(crate) fn generic(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        out.push_str("[*]");
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// The wire path `name` stands for in `kind`: a field's label or alias (any case), or a
/// wire path of the kind as typed (indexes kept: `flights[0].maxBudget`), including
/// paths inside a member whose own members are not listed (an ad order's
/// `audiences[0].name`). `None` when the kind has no such field.
pub fn resolve(kind: Kind, name: &str) -> Option<String> {
    let list = fields(kind);
    let typed = name.trim();
    let key = folded(typed);
    if let Some(f) = list
        .iter()
        .find(|f| folded(&f.label) == key || f.aliases.iter().any(|a| folded(a) == key))
    {
        return Some(f.path.clone());
    }
    let wanted = generic(typed);
    if list.iter().any(|f| f.path == wanted) {
        return Some(typed.to_owned());
    }
    // Inside a listed member whose members are not listed: accepted as typed.
    let opaque = list.iter().any(|f| {
        let inside = |sep: &str| wanted.starts_with(&format!("{}{sep}", f.path));
        (inside(".") || inside("[*]"))
            && !list.iter().any(|g| {
                g.path.starts_with(&format!("{}.", f.path))
                    || g.path.starts_with(&format!("{}[*].", f.path))
            })
    });
    opaque.then(|| typed.to_owned())
}

/// The wire path a sheet's column header names: a label or wire path of `kind`, or with
/// no kind given (a whole-account file's `kind` column) the one path every kind that has
/// the name agrees on. `None` leaves the header as it is.
pub fn header_path(kind: Option<Kind>, name: &str) -> Option<String> {
    // A wire name as written stays, even where it reads as another field's label (a
    // creative's `type` object, whose grid column "Type" is `creativeType`).
    let of = |kind: Kind| {
        let wanted = generic(name.trim());
        if fields(kind).iter().any(|f| f.path == wanted) {
            return Some(name.trim().to_owned());
        }
        resolve(kind, name)
    };
    match kind {
        Some(kind) => of(kind),
        None => {
            let mut paths = Kind::tables().filter_map(of);
            let first = paths.next()?;
            paths.all(|p| p == first).then_some(first)
        }
    }
}

/// The fields of `kinds` nearest to `name` by label, alias or wire path, best first.
pub fn suggest(kinds: &[Kind], name: &str) -> Vec<FieldInfo> {
    let key = folded(name);
    let mut scored: Vec<(f64, FieldInfo)> = Vec::new();
    for kind in kinds {
        for f in fields(*kind) {
            if scored.iter().any(|(_, g)| g.path == f.path) {
                continue;
            }
            let score = std::iter::once(&f.label)
                .chain(&f.aliases)
                .map(|l| strsim::normalized_damerau_levenshtein(&key, &folded(l)))
                .chain([strsim::normalized_damerau_levenshtein(
                    &key,
                    &f.path.to_lowercase(),
                )])
                .fold(0.0, f64::max);
            if score >= 0.4 {
                scored.push((score, f));
            }
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .into_iter()
        .take(SUGGESTIONS)
        .map(|(_, f)| f)
        .collect()
}

/// The refusal of `name`, at `at`, naming the nearest fields of `kinds`.
pub fn unknown(kinds: &[Kind], name: &str, at: &str) -> Error {
    let what = match kinds {
        [one] => one.plural().to_owned(),
        _ => "these entities".to_owned(),
    };
    let near = suggest(kinds, name);
    let hint = match near.as_slice() {
        [] => String::new(),
        some => format!(
            "; did you mean {}?",
            some.iter()
                .map(|f| format!("“{}” ({})", f.label, f.path))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    };
    Error::Invalid(FieldError::new(
        at,
        UNKNOWN_FIELD,
        format!("{what} have no field “{}”{hint}", name.trim()),
    ))
}

/// Whether `value` already holds `path`: an unknown member the service sent, which an
/// edit may change (it is sent back as it came). A list with no items holds any path
/// under it (an edit of every item changes none).
fn holds(value: &Value, path: &str) -> bool {
    let mut node = value;
    for part in path.split('.') {
        let (name, mut rest) = part.find('[').map_or((part, ""), |i| part.split_at(i));
        if !name.is_empty() {
            match node.get(name) {
                Some(v) => node = v,
                None => return false,
            }
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let Some(close) = inner.find(']') else {
                return false;
            };
            let Some(items) = node.as_array() else {
                return false;
            };
            let index = inner[..close].parse::<usize>().unwrap_or(0);
            match items.get(index) {
                Some(v) => node = v,
                None => return items.is_empty(),
            }
            rest = &inner[close + 1..];
        }
    }
    true
}

/// The kinds of `targets`, each once.
fn kinds_of(targets: &[EntityRef]) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = Vec::new();
    for t in targets {
        if !kinds.contains(&t.kind) {
            kinds.push(t.kind);
        }
    }
    kinds
}

/// `edits` with each field named by its wire path. A label becomes its path; a name
/// the targets' kind does not have is refused with the nearest names, unless every
/// target already holds it (a member the service sent, kept and sent back) or the buyer
/// forced it (`forced` lists such names as typed: `--set-unknown`).
pub(crate) fn resolve_edits(
    ws: &Workspace,
    targets: &[EntityRef],
    edits: &[FieldEdit],
    forced: &[String],
) -> Result<Vec<FieldEdit>> {
    let kinds = kinds_of(targets);
    let mut out = Vec::with_capacity(edits.len());
    for (i, edit) in edits.iter().enumerate() {
        let name = edit.field.trim();
        if forced.iter().any(|f| f.trim() == name) || kinds.is_empty() {
            out.push(edit.clone());
            continue;
        }
        let path = match kinds
            .first()
            .and_then(|k| resolve(*k, name))
            .filter(|p| kinds.iter().all(|k| resolve(*k, p).is_some()))
        {
            Some(path) => path,
            None => {
                let mut held = true;
                for t in targets {
                    let value = ws.get(t)?.map(|e| e.working);
                    if !value.as_ref().is_some_and(|v| holds(v, name)) {
                        held = false;
                        break;
                    }
                }
                if !held {
                    return Err(unknown(&kinds, name, &format!("edits[{i}].field")));
                }
                name.to_owned()
            }
        };
        out.push(FieldEdit {
            field: path,
            change: edit.change.clone(),
        });
    }
    Ok(out)
}

/// Find-and-replace's field names as wire paths: each a label or path of one of
/// `kinds` (a label may stand for a path in several), refused with the nearest names
/// otherwise. Replace only rewrites text already there, so nothing new is ever sent.
pub(crate) fn resolve_names(kinds: &[Kind], names: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let mut found = false;
        for kind in kinds {
            if let Some(path) = resolve(*kind, name) {
                found = true;
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
        if !found {
            return Err(unknown(kinds, name, &format!("fields[{i}]")));
        }
    }
    Ok(out)
}

/// Whether `kind` needs `path` in `value`, by the model's own rules: the field is
/// taken out and the model's validation asked whether it is now `REQUIRED`. So a
/// campaign with flights does not need its own budget and dates, and an ad order's
/// dates are needed only on create.
pub fn required(kind: Kind, value: &Value, create: bool, paths: &[String]) -> Vec<String> {
    let op = if create { Op::Create } else { Op::Update };
    needed(value, paths, |without| model_errors(kind, without, op))
}

/// The `paths` that `errors` calls `REQUIRED` once each is taken out of `value`.
fn needed(
    value: &Value,
    paths: &[String],
    errors: impl Fn(&Value) -> Vec<FieldError>,
) -> Vec<String> {
    paths
        .iter()
        .filter(|path| {
            let mut without = value.clone();
            remove(&mut without, path);
            errors(&without)
                .iter()
                .any(|e| e.field == **path && e.code == flightdeck_model::validate::codes::REQUIRED)
        })
        .cloned()
        .collect()
}

/// [`required`] for a form's draft: its kind and value as `save` takes them; a site
/// list by the call it makes (each needs other members), flight caps by the caps'
/// own rules. Nothing for a draft without an entity's value (an upload's records).
pub fn required_in(
    draft: &flightdeck_offline::workspace::Draft,
    create: bool,
    paths: &[String],
) -> Vec<String> {
    use flightdeck_model::validate;
    use flightdeck_offline::workspace::Draft;
    fn errors_of<T: serde::de::DeserializeOwned>(
        v: &Value,
        rules: impl Fn(&T) -> std::result::Result<(), flightdeck_model::ValidationErrors>,
    ) -> Vec<FieldError> {
        match serde_json::from_value::<T>(v.clone()).map(|t| rules(&t)) {
            Ok(Err(errors)) => errors.0,
            _ => Vec::new(),
        }
    }
    match draft {
        Draft::SiteList { op, value } => {
            let op = validate::SiteListOp::from(*op);
            let Ok(json) = serde_json::to_value(value) else {
                return Vec::new();
            };
            needed(&json, paths, |v| {
                errors_of(v, |s: &SiteList| validate::site_list(s, op, None))
            })
        }
        Draft::FlightCaps { value, .. } => {
            let Ok(json) = serde_json::to_value(value) else {
                return Vec::new();
            };
            // Each cap's own flight counts as known: only what is missing is asked.
            needed(&json, paths, |v| {
                errors_of(v, |caps: &Vec<FlightCap>| {
                    let ids: Vec<_> = caps.iter().filter_map(|c| c.flight_id).collect();
                    validate::flight_caps(caps, &ids)
                })
            })
        }
        _ => {
            let Ok(json) = serde_json::to_value(draft) else {
                return Vec::new();
            };
            let (Some(kind), Some(value)) = (
                json.get("kind")
                    .and_then(Value::as_str)
                    .and_then(Kind::parse),
                json.get("value"),
            ) else {
                return Vec::new();
            };
            required(kind, value, create, paths)
        }
    }
}

/// Removes the member `path` names (`flights[1].startDate`), if present.
fn remove(value: &mut Value, path: &str) {
    let Some((parent, last)) = path.rsplit_once('.').map_or(Some(("", path)), Some) else {
        return;
    };
    let mut node = value;
    if !parent.is_empty() {
        for part in parent.split('.') {
            let (name, mut rest) = part.find('[').map_or((part, ""), |i| part.split_at(i));
            if !name.is_empty() {
                match node.get_mut(name) {
                    Some(v) => node = v,
                    None => return,
                }
            }
            while let Some(inner) = rest.strip_prefix('[') {
                let Some(close) = inner.find(']') else {
                    return;
                };
                let index = inner[..close].parse::<usize>().unwrap_or(0);
                match node.get_mut(index) {
                    Some(v) => node = v,
                    None => return,
                }
                rest = &inner[close + 1..];
            }
        }
    }
    if let Some(map) = node.as_object_mut() {
        map.remove(last);
    }
}

/// The model's errors for `value` as an entity of `kind` (none for a value that does
/// not decode, or a kind whose rules need more than the value).
fn model_errors(kind: Kind, value: &Value, op: Op) -> Vec<FieldError> {
    use flightdeck_model::validate;
    fn decoded<T: serde::de::DeserializeOwned>(v: &Value) -> Option<T> {
        serde_json::from_value(v.clone()).ok()
    }
    let result = match kind {
        Kind::Advertiser => decoded(value).map(|a: Advertiser| validate::advertiser(&a, op)),
        Kind::Campaign => decoded(value).map(|c: Campaign| validate::campaign(&c, op, None)),
        Kind::AdOrder => decoded(value).map(|o: AdOrder| validate::ad_order(&o, op, None)),
        Kind::Creative => decoded(value).map(|c: Creative| validate::creative(&c)),
        Kind::AudienceSegment => {
            decoded(value).map(|a: AudienceSegment| validate::audience_segment(&a))
        }
        Kind::Flight | Kind::FlightCaps | Kind::SiteList => None,
    };
    match result {
        Some(Err(errors)) => errors.0,
        _ => Vec::new(),
    }
}
