//! The columns of each kind's table: what a cell holds, how the filter reads it, and the
//! id and header hosts show. The one list the app's tables, the UI's sortable headers
//! and the CLI's listings read.

use super::*;

/// A column as tables filter and sort it.
pub(super) struct Column {
    pub(super) id: &'static str,
    /// What a person reads above it.
    header: &'static str,
    pub(super) cell: for<'a> fn(&Doc<'a>, &Context<'a>) -> Extracted<'a>,
    /// The filter looks in it. Dates are not searched: their cells hold Unix
    /// milliseconds, whose digits are not what the buyer sees; a host shows them as
    /// dates.
    pub(super) search: bool,
}

pub(super) enum Extracted<'a> {
    Empty,
    Num(f64),
    Text(std::borrow::Cow<'a, str>),
}

/// What cells may look up beyond their row: the parent's label, and an ad order's
/// status (kept apart from its JSON: the service's listings carry none).
pub(super) struct Context<'a> {
    pub(super) parent_label: Option<&'a str>,
    /// [`StatusView::word`]; `None` reads as `unknown`.
    pub(super) status: Option<&'a str>,
}

/// An ad order's Status cell: the pending status if any, else the known one, else
/// `unknown`.
pub(super) fn status_cell<'a>(_: &Doc<'a>, ctx: &Context<'a>) -> Extracted<'a> {
    Extracted::Text(ctx.status.unwrap_or("unknown").into())
}

/// The top-level members of a row's JSON, each left as raw text: a row is tokenised
/// once and only the members a column reads are parsed (an ad order's audiences, for one,
/// are skipped over, never built).
pub(super) struct Doc<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'a> Doc<'a> {
    pub(super) fn parse(json: &'a str) -> serde_json::Result<Doc<'a>> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = Vec<(&'de str, &'de RawValue)>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(16));
                while let Some(entry) = map.next_entry::<&'de str, &'de RawValue>()? {
                    out.push(entry);
                }
                Ok(out)
            }
        }
        let mut de = serde_json::Deserializer::from_str(json);
        let members = serde::Deserializer::deserialize_map(&mut de, Members)?;
        de.end()?;
        Ok(Doc(members))
    }

    fn raw(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// A member parsed in full, for the few columns that read inside one.
    fn value(&self, key: &str) -> Option<Value> {
        self.raw(key)
            .and_then(|r| serde_json::from_str(r.get()).ok())
    }
}

pub(super) fn scalar(raw: &RawValue) -> Extracted<'_> {
    let text = raw.get();
    match text.as_bytes().first() {
        // Borrowed unless it has escapes.
        Some(b'"') => match serde_json::from_str::<&str>(text) {
            Ok("") => Extracted::Empty,
            Ok(s) => Extracted::Text(s.into()),
            Err(_) => match serde_json::from_str::<String>(text) {
                Ok(s) if !s.is_empty() => Extracted::Text(s.into()),
                _ => Extracted::Empty,
            },
        },
        Some(b't') => Extracted::Text("true".into()),
        Some(b'f') => Extracted::Text("false".into()),
        Some(b'-' | b'0'..=b'9') => text.parse().map_or(Extracted::Empty, Extracted::Num),
        _ => Extracted::Empty,
    }
}

pub(super) fn value_scalar(v: &Value) -> Extracted<'static> {
    match v {
        Value::String(s) if !s.is_empty() => Extracted::Text(s.clone().into()),
        Value::Number(n) => n.as_f64().map_or(Extracted::Empty, Extracted::Num),
        Value::Bool(b) => Extracted::Text(b.to_string().into()),
        _ => Extracted::Empty,
    }
}

pub(super) fn str_at<'a>(d: &Doc<'a>, path: &[&str]) -> Extracted<'a> {
    match path {
        [] => Extracted::Empty,
        [one] => d.raw(one).map_or(Extracted::Empty, scalar),
        [first, rest @ ..] => {
            let Some(mut cur) = d.value(first) else {
                return Extracted::Empty;
            };
            for p in rest {
                match cur.get_mut(p) {
                    Some(next) => cur = next.take(),
                    None => return Extracted::Empty,
                }
            }
            value_scalar(&cur)
        }
    }
}

pub(super) fn len_at<'a>(d: &Doc<'a>, field: &str) -> Extracted<'a> {
    let n = d
        .raw(field)
        .and_then(|r| serde_json::from_str::<Vec<serde::de::IgnoredAny>>(r.get()).ok())
        .map_or(0, |v| v.len());
    Extracted::Num(n as f64)
}

pub(super) fn name_cell<'a>(v: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
    str_at(v, &["name"])
}

pub(super) fn parent_cell<'a>(_: &Doc<'a>, ctx: &Context<'a>) -> Extracted<'a> {
    ctx.parent_label
        .map_or(Extracted::Empty, |l| Extracted::Text(l.into()))
}

pub(super) fn frequency_cap<'a>(d: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Cap<'a> {
        limit: Option<serde_json::Number>,
        duration: Option<serde_json::Number>,
        #[serde(borrow)]
        time_period: Option<std::borrow::Cow<'a, str>>,
    }
    let Some(cap) = d
        .raw("frequencyCap")
        .and_then(|r| serde_json::from_str::<Cap<'_>>(r.get()).ok())
    else {
        return Extracted::Empty;
    };
    let part = |n: Option<serde_json::Number>| n.map_or("?".to_owned(), |n| n.to_string());
    Extracted::Text(
        format!(
            "{} / {} {}",
            part(cap.limit),
            part(cap.duration),
            cap.time_period.as_deref().unwrap_or("")
        )
        .into(),
    )
}

pub(super) fn creative_size<'a>(d: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
    let Some(size) = d.value("size").filter(|s| s.is_object()) else {
        return Extracted::Empty;
    };
    let dim = |f: &str| {
        size.get(f)
            .and_then(Value::as_i64)
            .map_or("?".to_owned(), |n| n.to_string())
    };
    Extracted::Text(format!("{}×{}", dim("width"), dim("height")).into())
}

pub(super) fn site_list_kind<'a>(d: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
    match d.value("typeId").and_then(|v| v.as_i64()) {
        None => Extracted::Empty,
        Some(flightdeck_model::SITE_LIST_TYPE_RULE_BASED) => Extracted::Text("Rule based".into()),
        Some(_) => Extracted::Text("Id based".into()),
    }
}

pub(super) fn rule_based(d: &Doc) -> bool {
    d.value("typeId").and_then(|v| v.as_i64()) == Some(flightdeck_model::SITE_LIST_TYPE_RULE_BASED)
}

pub(super) fn site_list_count<'a>(v: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
    len_at(v, if rule_based(v) { "rules" } else { "siteIds" })
}

pub(super) fn site_list_contents<'a>(d: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
    let items: Vec<String> = if rule_based(d) {
        d.value("rules")
            .as_ref()
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .take(9)
                    .map(|x| {
                        x.get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned()
                    })
                    .collect()
            })
            .unwrap_or_default()
    } else {
        d.value("siteIds")
            .as_ref()
            .and_then(Value::as_array)
            .map(|r| r.iter().take(9).map(|x| x.to_string()).collect())
            .unwrap_or_default()
    };
    if items.is_empty() {
        Extracted::Empty
    } else {
        Extracted::Text(items.join(", ").into())
    }
}

macro_rules! col {
    ($id:literal, $h:literal, [$($p:literal),+]) => {
        Column { id: $id, header: $h, cell: |v, _| str_at(v, &[$($p),+]), search: true }
    };
    ($id:literal, $h:literal, date $p:literal) => {
        Column { id: $id, header: $h, cell: |v, _| str_at(v, &[$p]), search: false }
    };
    ($id:literal, $h:literal, len $f:literal) => {
        Column { id: $id, header: $h, cell: |v, _| len_at(v, $f), search: true }
    };
    ($id:literal, $h:literal, fn $f:expr) => {
        Column { id: $id, header: $h, cell: $f, search: true }
    };
}

pub(super) const ADVERTISER: &[Column] = &[
    col!("name", "Name", fn name_cell),
    col!("id", "Id", ["id"]),
    col!("category", "Category", ["category"]),
    col!("currency", "Currency", ["currency"]),
    col!("timezone", "Timezone", ["timezoneName"]),
    col!("external", "External id", ["externalAdvertiserId"]),
    col!("agency", "Agency id", ["agencyId"]),
];

pub(super) const CAMPAIGN: &[Column] = &[
    col!("name", "Name", fn name_cell),
    col!("id", "Id", ["id"]),
    col!("advertiser", "Advertiser", fn parent_cell),
    col!("flights", "Flights", len "flights"),
    col!("budget", "Budget", ["maxBudget"]),
    col!("daily", "Daily", ["dailyBudget"]),
    col!("start", "Start", date "startDate"),
    col!("end", "End", date "endDate"),
    col!("objective", "Objective", ["objective"]),
    col!("pacing", "Pacing", ["pacingMode"]),
    col!("domain", "Domain", ["domain"]),
    col!("io", "IO number", fn |v, _| match str_at(v, &["ioNumber"]) {
        Extracted::Empty => str_at(v, &["externalCampaignId"]),
        other => other,
    }),
];

pub(super) const AD_ORDER: &[Column] = &[
    col!("name", "Name", fn name_cell),
    col!("id", "Id", ["id"]),
    col!("campaign", "Campaign", fn parent_cell),
    col!("status", "Status", fn status_cell),
    col!("goal", "Goal", ["optimizationGoal"]),
    col!("start", "Start", date "startDate"),
    col!("end", "End", date "endDate"),
    col!("budget", "Lifetime budget", ["lifetimeBudget"]),
    col!("maxbid", "Max bid", ["max_bid"]),
    col!("pacing", "Hourly pacing", ["hourlyPacingMode"]),
    col!("audiences", "Audiences", len "audiences"),
    col!("freq", "Frequency cap", fn frequency_cap),
];

pub(super) const CREATIVE: &[Column] = &[
    col!("name", "Name", fn name_cell),
    col!("id", "Id", ["id"]),
    col!("type", "Type", ["creativeType"]),
    col!("subtype", "Subtype", ["creativeSubtype"]),
    col!("media", "Media type", ["type", "mediaType"]),
    col!("size", "Size", fn creative_size),
    col!("status", "Status", ["status"]),
    col!("landing", "Landing page", ["landingPageUrl"]),
    col!("external", "External id", ["externalCreativeid"]),
];

pub(super) const SITE_LIST: &[Column] = &[
    col!("name", "Name", fn name_cell),
    col!("id", "Id", ["id"]),
    col!("kind", "Kind", fn site_list_kind),
    col!("strategy", "Strategy", ["strategy"]),
    col!("inserted", "Inserted", ["insertedCount"]),
    col!("count", "Sites / rules", fn site_list_count),
    col!("contents", "Contents", fn site_list_contents),
];

pub(super) const AUDIENCE_SEGMENT: &[Column] = &[
    col!("name", "Name", fn name_cell),
    col!("segment", "Segment id", ["serviceSegmentId"]),
    col!("external", "External id", ["externalAudienceId"]),
    col!("dataType", "Data type", ["dataType"]),
    col!("status", "Status", ["status"]),
    col!("count", "Identifiers", ["dataCount"]),
];

/// The columns a kind's table can filter and sort by, in display order.
pub(super) fn specs(kind: Kind) -> &'static [Column] {
    match kind {
        Kind::Advertiser => ADVERTISER,
        Kind::Campaign => CAMPAIGN,
        Kind::AdOrder => AD_ORDER,
        Kind::Creative => CREATIVE,
        Kind::SiteList => SITE_LIST,
        Kind::AudienceSegment => AUDIENCE_SEGMENT,
        Kind::Flight | Kind::FlightCaps => &[],
    }
}

/// The column ids of a kind's table, for hosts that check a sort before asking.
pub fn column_ids(kind: Kind) -> Vec<&'static str> {
    specs(kind).iter().map(|c| c.id).collect()
}

/// A column of a kind's table as hosts show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ColumnInfo {
    /// What a sort names ([`SortBy::column`]).
    pub id: String,
    /// What a person reads above it ("Lifetime budget").
    pub header: String,
}

/// The columns of a kind's table, in display order: every one filters and sorts. The
/// one list of them: the app's tables sort by these ids, the UI marks these headers
/// sortable (through the `table_columns` command), and the CLI's listings print these
/// columns. Empty for kinds without a table of their own ([`Kind::has_table`]).
pub fn columns(kind: Kind) -> Vec<ColumnInfo> {
    specs(kind)
        .iter()
        .map(|c| ColumnInfo {
            id: c.id.to_owned(),
            header: c.header.to_owned(),
        })
        .collect()
}

/// The cells of one entity of `kind` (its wire JSON) under [`columns`], as a person
/// reads them: dates as dates, whole numbers without a fraction, blank when absent.
/// `parent` is what the parent column shows (its label, or whatever the host knows of
/// it). JSON that is not an object gives blank cells.
pub fn cells(kind: Kind, json: &str, parent: Option<&str>) -> Vec<String> {
    let Ok(doc) = Doc::parse(json) else {
        return vec![String::new(); specs(kind).len()];
    };
    let ctx = Context {
        parent_label: parent,
        status: None,
    };
    specs(kind)
        .iter()
        .map(|c| match (c.cell)(&doc, &ctx) {
            Extracted::Empty => String::new(),
            Extracted::Num(ms) if !c.search => flightdeck_model::validate::format_millis(ms as i64),
            Extracted::Num(n) => {
                let mut text = String::new();
                push_number(&mut text, n);
                text
            }
            Extracted::Text(t) => t.into_owned(),
        })
        .collect()
}
