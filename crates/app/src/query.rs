//! Windowed tables: a view asks for the rows it shows (kind, parent, filter, sort,
//! offset, limit) and gets them with the total count. No host ever holds a whole table.
//!
//! Filtering and sorting run over an in-memory index of each kind, built from the
//! workspace on first use and kept in step by [`Tables::touched`] (one entity saved:
//! its row is re-read and moved into place) and [`Tables::invalidate`] (a download, a
//! post: the kind is rebuilt on next use). SQLite cannot do this fast enough: a
//! substring filter over JSON fields scans every document (over 2 s at 1,000,000 rows,
//! measured), while the index filters in one pass over short lower-case strings and
//! keeps each sort order once computed. Only the rows of the window are decoded in full.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};

use flightdeck_model::TimezoneName;
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::{Marker, Scanned, Workspace, read_only_reason};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::pending::label;
use crate::{Error, Result};

/// What a table view shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct TableQuery {
    /// Only the rows under this entity (an advertiser's campaigns, a campaign's ad
    /// orders, an advertiser's ad orders through its campaigns), or every row of the kind.
    pub parent: Option<EntityRef>,
    /// Words that must all appear in a row's cells, in any case and any column.
    pub filter: String,
    /// The column to sort by; the default order (ids ascending, then drafts in the order
    /// they were made) when absent.
    pub sort: Option<SortBy>,
    /// The first row of the window, in the filtered and sorted order.
    pub offset: u32,
    /// How many rows at most.
    pub limit: u32,
}

/// A sort order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct SortBy {
    /// A column id of the kind ([`columns`]).
    pub column: String,
    /// Largest first. Empty cells come last either way.
    pub descending: bool,
}

/// One table row: the entity as the buyer sees it (pending edits applied) and how it
/// differs from the service.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Row<T> {
    /// Which entity.
    pub target: EntityRef,
    /// Its owner (advertiser, campaign, ad order), when known.
    pub parent: Option<EntityRef>,
    /// The owner's label, for the parent column.
    pub parent_label: Option<String>,
    /// The advertiser's timezone, in which the row's dates are shown.
    pub timezone: Option<TimezoneName>,
    /// The working copy.
    pub value: T,
    /// New, changed, invalid, conflicting or failed; `None` when nothing is pending.
    pub marker: Option<Marker>,
    /// Something about it is not posted yet.
    pub pending: bool,
    /// How the row is named in lists, the palette and pending changes.
    pub label: String,
    /// Why the entity cannot be edited (a posted creative or segment: the service has no
    /// update for them), or `None` when it can.
    pub read_only: Option<String>,
}

/// The rows a view shows, and how many there are.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Window<T> {
    /// The rows from `offset`, at most `limit`.
    pub rows: Vec<T>,
    /// Where the window starts (the query's offset, clamped to the total).
    pub offset: u32,
    /// Rows that match the filter.
    pub total: u32,
    /// Rows of the kind (or of the parent) without the filter.
    pub unfiltered: u32,
}

/// A cell's value for sorting. Text is a span of the row's lower-case search text, so
/// the index keeps every string once.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cell {
    Empty,
    Num(f64),
    Text(u32, u32),
}

struct IndexRow {
    target: EntityRef,
    parent: Option<EntityRef>,
    /// The parent's parent: the advertiser of an ad order's (or a creative's) campaign,
    /// so a view of one advertiser lists those too.
    ancestor: Option<EntityRef>,
    /// Default order: ids ascending, then drafts (and other keys) in insertion order.
    order: (u8, i64),
    /// Every cell's text, lower case, separated by U+001F.
    text: Box<str>,
    cells: Box<[Cell]>,
}

impl IndexRow {
    fn text_of(&self, cell: Cell) -> &str {
        match cell {
            Cell::Text(start, len) => self
                .text
                .get(start as usize..(start + len) as usize)
                .unwrap_or(""),
            _ => "",
        }
    }
}

/// One kind's index. Rows are never removed in place: a removal rebuilds the kind.
struct KindTable {
    rows: Vec<IndexRow>,
    by_target: HashMap<EntityRef, u32>,
    /// Row numbers in the default order.
    default: Vec<u32>,
    /// Row numbers per sort order, computed on first use and kept up to date.
    sorted: HashMap<(usize, bool), Vec<u32>>,
    /// The last filtered result (before offset and limit), so scrolling only slices.
    last: Option<(Signature, Arc<Vec<u32>>)>,
}

#[derive(Clone, PartialEq, Eq)]
struct Signature {
    parent: Option<EntityRef>,
    filter: String,
    sort: Option<(usize, bool)>,
}

/// A column as tables filter and sort it.
struct Column {
    id: &'static str,
    cell: for<'a> fn(&Doc<'a>, &Context<'a>) -> Extracted<'a>,
    /// The filter looks in it. Dates are not searched: their cells hold Unix
    /// milliseconds, whose digits are not what the buyer sees.
    search: bool,
}

enum Extracted<'a> {
    Empty,
    Num(f64),
    Text(std::borrow::Cow<'a, str>),
}

/// What cells may look up beyond their row: the parent's label.
struct Context<'a> {
    parent_label: Option<&'a str>,
}

/// The top-level members of a row's JSON, each left as raw text: a row is tokenised
/// once and only the members a column reads are parsed (an ad order's audiences, for one,
/// are skipped over, never built).
struct Doc<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'a> Doc<'a> {
    fn parse(json: &'a str) -> serde_json::Result<Doc<'a>> {
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

fn scalar(raw: &RawValue) -> Extracted<'_> {
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

fn value_scalar(v: &Value) -> Extracted<'static> {
    match v {
        Value::String(s) if !s.is_empty() => Extracted::Text(s.clone().into()),
        Value::Number(n) => n.as_f64().map_or(Extracted::Empty, Extracted::Num),
        Value::Bool(b) => Extracted::Text(b.to_string().into()),
        _ => Extracted::Empty,
    }
}

fn str_at<'a>(d: &Doc<'a>, path: &[&str]) -> Extracted<'a> {
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

fn len_at<'a>(d: &Doc<'a>, field: &str) -> Extracted<'a> {
    let n = d
        .raw(field)
        .and_then(|r| serde_json::from_str::<Vec<serde::de::IgnoredAny>>(r.get()).ok())
        .map_or(0, |v| v.len());
    Extracted::Num(n as f64)
}

fn name_cell<'a>(v: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
    str_at(v, &["name"])
}

fn parent_cell<'a>(_: &Doc<'a>, ctx: &Context<'a>) -> Extracted<'a> {
    ctx.parent_label
        .map_or(Extracted::Empty, |l| Extracted::Text(l.into()))
}

fn frequency_cap<'a>(d: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
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

fn creative_size<'a>(d: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
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

fn site_list_kind<'a>(d: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
    match d.value("typeId").and_then(|v| v.as_i64()) {
        None => Extracted::Empty,
        Some(flightdeck_model::SITE_LIST_TYPE_RULE_BASED) => Extracted::Text("Rule based".into()),
        Some(_) => Extracted::Text("Id based".into()),
    }
}

fn rule_based(d: &Doc) -> bool {
    d.value("typeId").and_then(|v| v.as_i64()) == Some(flightdeck_model::SITE_LIST_TYPE_RULE_BASED)
}

fn site_list_count<'a>(v: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
    len_at(v, if rule_based(v) { "rules" } else { "siteIds" })
}

fn site_list_contents<'a>(d: &Doc<'a>, _: &Context<'a>) -> Extracted<'a> {
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
    ($id:literal, [$($p:literal),+]) => {
        Column { id: $id, cell: |v, _| str_at(v, &[$($p),+]), search: true }
    };
    ($id:literal, date $p:literal) => {
        Column { id: $id, cell: |v, _| str_at(v, &[$p]), search: false }
    };
    ($id:literal, len $f:literal) => {
        Column { id: $id, cell: |v, _| len_at(v, $f), search: true }
    };
    ($id:literal, fn $f:expr) => {
        Column { id: $id, cell: $f, search: true }
    };
}

const ADVERTISER: &[Column] = &[
    col!("name", fn name_cell),
    col!("id", ["id"]),
    col!("category", ["category"]),
    col!("currency", ["currency"]),
    col!("timezone", ["timezoneName"]),
    col!("external", ["externalAdvertiserId"]),
    col!("agency", ["agencyId"]),
];

const CAMPAIGN: &[Column] = &[
    col!("name", fn name_cell),
    col!("id", ["id"]),
    col!("advertiser", fn parent_cell),
    col!("flights", len "flights"),
    col!("budget", ["maxBudget"]),
    col!("daily", ["dailyBudget"]),
    col!("start", date "startDate"),
    col!("end", date "endDate"),
    col!("objective", ["objective"]),
    col!("pacing", ["pacingMode"]),
    col!("domain", ["domain"]),
    col!("io", fn |v, _| match str_at(v, &["ioNumber"]) {
        Extracted::Empty => str_at(v, &["externalCampaignId"]),
        other => other,
    }),
];

const AD_ORDER: &[Column] = &[
    col!("name", fn name_cell),
    col!("id", ["id"]),
    col!("campaign", fn parent_cell),
    col!("goal", ["optimizationGoal"]),
    col!("start", date "startDate"),
    col!("end", date "endDate"),
    col!("budget", ["lifetimeBudget"]),
    col!("maxbid", ["max_bid"]),
    col!("pacing", ["hourlyPacingMode"]),
    col!("audiences", len "audiences"),
    col!("freq", fn frequency_cap),
];

const CREATIVE: &[Column] = &[
    col!("name", fn name_cell),
    col!("id", ["id"]),
    col!("type", ["creativeType"]),
    col!("subtype", ["creativeSubtype"]),
    col!("media", ["type", "mediaType"]),
    col!("size", fn creative_size),
    col!("status", ["status"]),
    col!("landing", ["landingPageUrl"]),
    col!("external", ["externalCreativeid"]),
];

const SITE_LIST: &[Column] = &[
    col!("name", fn name_cell),
    col!("id", ["id"]),
    col!("kind", fn site_list_kind),
    col!("strategy", ["strategy"]),
    col!("inserted", ["insertedCount"]),
    col!("count", fn site_list_count),
    col!("contents", fn site_list_contents),
];

const AUDIENCE_SEGMENT: &[Column] = &[
    col!("name", fn name_cell),
    col!("segment", ["serviceSegmentId"]),
    col!("external", ["externalAudienceId"]),
    col!("dataType", ["dataType"]),
    col!("status", ["status"]),
    col!("count", ["dataCount"]),
];

/// The columns a kind's table can filter and sort by, in display order.
fn columns(kind: Kind) -> &'static [Column] {
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
    columns(kind).iter().map(|c| c.id).collect()
}

/// The kind whose labels a kind's parent column shows.
fn parent_kind(kind: Kind) -> Option<Kind> {
    match kind {
        Kind::Campaign => Some(Kind::Advertiser),
        Kind::AdOrder => Some(Kind::Campaign),
        _ => None,
    }
}

fn default_order(target: &EntityRef, inserted: i64) -> (u8, i64) {
    match target.key {
        Key::Id(id) => (0, id),
        _ => (1, inserted),
    }
}

fn index_row(
    kind: Kind,
    s: &Scanned<'_>,
    labels: &HashMap<EntityRef, String>,
    grandparents: &HashMap<EntityRef, EntityRef>,
) -> flightdeck_offline::Result<IndexRow> {
    let value = Doc::parse(s.json).map_err(|e| {
        flightdeck_offline::Error::Corrupt(format!(
            "{} {} does not fit its resource: {e}",
            kind.label(),
            s.target.key
        ))
    })?;
    let ctx = Context {
        parent_label: s
            .parent
            .as_ref()
            .and_then(|p| labels.get(p))
            .map(String::as_str),
    };
    let mut text = String::new();
    let mut cells = Vec::with_capacity(columns(kind).len());
    for (i, column) in columns(kind).iter().enumerate() {
        if i > 0 {
            text.push('\u{1f}');
        }
        let cell = match (column.cell)(&value, &ctx) {
            Extracted::Empty => Cell::Empty,
            Extracted::Num(n) => {
                if column.search {
                    push_number(&mut text, n);
                }
                Cell::Num(n)
            }
            Extracted::Text(t) => {
                let start = text.len();
                if t.is_ascii() {
                    text.push_str(&t);
                    text[start..].make_ascii_lowercase();
                } else {
                    text.extend(t.chars().flat_map(char::to_lowercase));
                }
                let len = text.len() - start;
                Cell::Text(
                    u32::try_from(start).unwrap_or(u32::MAX),
                    u32::try_from(len).unwrap_or(0),
                )
            }
        };
        cells.push(cell);
    }
    if let Some(Cell::Empty) = cells.first() {
        // A row without a name is labelled by kind and key; the filter finds it so.
        let start = 0;
        let fallback = label(None, &s.target).to_lowercase();
        text.insert_str(0, &fallback);
        let shift = u32::try_from(fallback.len()).unwrap_or(0);
        for c in cells.iter_mut().skip(1) {
            if let Cell::Text(st, _) = c {
                *st += shift;
            }
        }
        cells[0] = Cell::Text(start, shift);
    }
    Ok(IndexRow {
        order: default_order(&s.target, s.order),
        target: s.target.clone(),
        ancestor: s.parent.as_ref().and_then(|p| grandparents.get(p).cloned()),
        parent: s.parent.clone(),
        text: text.into_boxed_str(),
        cells: cells.into_boxed_slice(),
    })
}

/// A number as the filter finds it: whole numbers without a fraction ("500", not
/// "500.0"), as the tables show them.
fn push_number(text: &mut String, n: f64) {
    use std::fmt::Write;
    let _ = if n.fract() == 0.0 && n.abs() < 1e15 {
        write!(text, "{}", n as i64)
    } else {
        write!(text, "{n}")
    };
}

/// The label of a row from its JSON: its name, or its kind and key. Only `name` is
/// parsed; the rest is skipped over.
fn label_in(json: &str, target: &EntityRef) -> String {
    #[derive(Deserialize)]
    struct Named<'a> {
        #[serde(borrow)]
        name: Option<std::borrow::Cow<'a, str>>,
    }
    let named = serde_json::from_str::<Named<'_>>(json).ok();
    label(named.as_ref().and_then(|n| n.name.as_deref()), target)
}

/// The label of one entity of the workspace, as tables and pending changes show it.
pub fn label_of(ws: &Workspace, target: &EntityRef) -> Result<String> {
    let mut out = None;
    ws.scan_one(target, |s| {
        out = Some(label_in(s.json, target));
        Ok(())
    })?;
    Ok(out.unwrap_or_else(|| label(None, target)))
}

fn labels_of(ws: &Workspace, kind: Kind) -> Result<HashMap<EntityRef, String>> {
    let mut out = HashMap::new();
    ws.scan(kind, |s| {
        let l = label_in(s.json, &s.target);
        out.insert(s.target, l);
        Ok(())
    })?;
    Ok(out)
}

/// Kinds whose rows hang under campaigns: a view of an advertiser lists them too.
fn has_ancestor(kind: Kind) -> bool {
    matches!(kind, Kind::AdOrder | Kind::Creative)
}

/// The advertiser of every campaign.
fn campaign_advertisers(ws: &Workspace) -> Result<HashMap<EntityRef, EntityRef>> {
    let mut out = HashMap::new();
    ws.scan(Kind::Campaign, |s| {
        if let Some(p) = s.parent {
            out.insert(s.target, p);
        }
        Ok(())
    })?;
    Ok(out)
}

fn under(r: &IndexRow, p: &EntityRef) -> bool {
    r.parent.as_ref() == Some(p) || r.ancestor.as_ref() == Some(p)
}

fn compare(a: &IndexRow, b: &IndexRow, col: usize, descending: bool) -> Ordering {
    let (ca, cb) = (
        a.cells.get(col).copied().unwrap_or(Cell::Empty),
        b.cells.get(col).copied().unwrap_or(Cell::Empty),
    );
    let by_value = match (ca, cb) {
        (Cell::Empty, Cell::Empty) => Ordering::Equal,
        // Empty cells last in either direction.
        (Cell::Empty, _) => return Ordering::Greater,
        (_, Cell::Empty) => return Ordering::Less,
        (Cell::Num(x), Cell::Num(y)) => x.total_cmp(&y),
        (Cell::Num(_), Cell::Text(..)) => Ordering::Less,
        (Cell::Text(..), Cell::Num(_)) => Ordering::Greater,
        (Cell::Text(..), Cell::Text(..)) => a.text_of(ca).cmp(b.text_of(cb)),
    };
    let by_value = if descending {
        by_value.reverse()
    } else {
        by_value
    };
    by_value.then_with(|| a.order.cmp(&b.order))
}

impl KindTable {
    fn build(ws: &Workspace, kind: Kind) -> Result<KindTable> {
        let labels = match parent_kind(kind) {
            Some(p) => labels_of(ws, p)?,
            None => HashMap::new(),
        };
        let grandparents = if has_ancestor(kind) {
            campaign_advertisers(ws)?
        } else {
            HashMap::new()
        };
        let mut rows = Vec::new();
        ws.scan(kind, |s| {
            rows.push(index_row(kind, &s, &labels, &grandparents)?);
            Ok(())
        })?;
        let mut table = KindTable {
            by_target: HashMap::with_capacity(rows.len()),
            default: Vec::new(),
            rows,
            sorted: HashMap::new(),
            last: None,
        };
        for (i, r) in table.rows.iter().enumerate() {
            table
                .by_target
                .insert(r.target.clone(), u32::try_from(i).unwrap_or(u32::MAX));
        }
        let mut default: Vec<u32> = (0..table.rows.len())
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        default.sort_unstable_by_key(|&i| table.rows[i as usize].order);
        table.default = default;
        Ok(table)
    }

    fn order(&mut self, sort: Option<(usize, bool)>) -> &[u32] {
        let Some((col, desc)) = sort else {
            return &self.default;
        };
        let rows = &self.rows;
        let default = &self.default;
        self.sorted.entry((col, desc)).or_insert_with(|| {
            let mut perm = default.clone();
            perm.sort_by(|&a, &b| compare(&rows[a as usize], &rows[b as usize], col, desc));
            perm
        })
    }

    /// Puts row `i` (already replaced or appended) at its place in every order.
    fn reposition(&mut self, i: u32, new: bool) {
        let rows = &self.rows;
        let place = |perm: &mut Vec<u32>, cmp: &dyn Fn(u32, u32) -> Ordering| {
            if !new && let Some(at) = perm.iter().position(|&x| x == i) {
                perm.remove(at);
            }
            let at = perm.partition_point(|&x| cmp(x, i) == Ordering::Less);
            perm.insert(at, i);
        };
        place(&mut self.default, &|a, b| {
            rows[a as usize].order.cmp(&rows[b as usize].order)
        });
        for ((col, desc), perm) in &mut self.sorted {
            let (col, desc) = (*col, *desc);
            place(perm, &|a, b| {
                compare(&rows[a as usize], &rows[b as usize], col, desc)
            });
        }
        self.last = None;
    }

    fn select(&mut self, sig: &Signature) -> Arc<Vec<u32>> {
        if let Some((last, result)) = &self.last
            && last == sig
        {
            return result.clone();
        }
        let terms: Vec<String> = sig
            .filter
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let parent = sig.parent.clone();
        let order = self.order(sig.sort).to_vec();
        let rows = &self.rows;
        let keep = |i: &u32| {
            let r = &rows[*i as usize];
            parent.as_ref().is_none_or(|p| under(r, p))
                && terms.iter().all(|t| r.text.contains(t.as_str()))
        };
        // A large kind is filtered on every core, each over a slice of the order, so
        // a keystroke on a million rows does not wait for one core to read them all.
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let result: Vec<u32> = if terms.is_empty() && parent.is_none() {
            order
        } else if threads > 1 && order.len() >= PARALLEL_FILTER_ROWS {
            let chunk = order.len().div_ceil(threads);
            std::thread::scope(|s| {
                let parts: Vec<_> = order
                    .chunks(chunk)
                    .map(|part| {
                        s.spawn(move || part.iter().copied().filter(keep).collect::<Vec<_>>())
                    })
                    .collect();
                parts
                    .into_iter()
                    .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                    .collect()
            })
        } else {
            order.into_iter().filter(keep).collect()
        };
        let result = Arc::new(result);
        self.last = Some((sig.clone(), result.clone()));
        result
    }

    fn count_of(&self, parent: Option<&EntityRef>) -> usize {
        match parent {
            None => self.rows.len(),
            Some(p) => self.rows.iter().filter(|r| under(r, p)).count(),
        }
    }
}

/// Kinds with at least this many rows are filtered on several threads.
const PARALLEL_FILTER_ROWS: usize = 50_000;

/// The indexes of one workspace, per kind.
#[derive(Default)]
pub struct Tables {
    kinds: Mutex<HashMap<Kind, KindTable>>,
    /// Bumped by every change of the indexes' contents, so a build that read the
    /// workspace before it is not installed.
    generation: AtomicU64,
    /// Held while a kind is built, so a view opening meanwhile waits for that build
    /// rather than doing the same work again.
    building: Mutex<()>,
}

/// The kinds with tables, largest first: built ahead of the first view.
pub const TABLE_KINDS: [Kind; 6] = [
    Kind::AdOrder,
    Kind::Campaign,
    Kind::Creative,
    Kind::AudienceSegment,
    Kind::SiteList,
    Kind::Advertiser,
];

fn table_of<'a>(
    kinds: &'a mut HashMap<Kind, KindTable>,
    ws: &Workspace,
    kind: Kind,
) -> Result<&'a mut KindTable> {
    Ok(match kinds.entry(kind) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(v) => v.insert(KindTable::build(ws, kind)?),
    })
}

fn signature(kind: Kind, query: &TableQuery) -> Result<Signature> {
    let sort = match &query.sort {
        None => None,
        Some(s) => {
            let col = columns(kind)
                .iter()
                .position(|c| c.id == s.column)
                .ok_or_else(|| {
                    Error::invalid(
                        "sort.column",
                        "UNKNOWN",
                        &format!("{} tables have no column {}", kind.label(), s.column),
                    )
                })?;
            Some((col, s.descending))
        }
    };
    Ok(Signature {
        parent: query.parent.clone(),
        filter: query.filter.trim().to_lowercase(),
        sort,
    })
}

fn poisoned() -> Error {
    Error::State("the table index is unavailable after an earlier failure".into())
}

impl Tables {
    /// The rows of `kind` that `query` selects, decoded as `T`, with the counts.
    pub fn window<T: DeserializeOwned>(
        &self,
        ws: &Workspace,
        kind: Kind,
        query: &TableQuery,
    ) -> Result<Window<Row<T>>> {
        let sig = signature(kind, query)?;
        self.ensure(ws, kind)?;
        let (targets, offset, total, unfiltered) = {
            let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
            let table = table_of(&mut kinds, ws, kind)?;
            let selected = table.select(&sig);
            let total = selected.len();
            let offset = (query.offset as usize).min(total);
            let end = offset.saturating_add(query.limit as usize).min(total);
            let targets: Vec<EntityRef> = selected[offset..end]
                .iter()
                .map(|&i| table.rows[i as usize].target.clone())
                .collect();
            let unfiltered = if sig.filter.is_empty() {
                total
            } else {
                table.count_of(query.parent.as_ref())
            };
            (targets, offset, total, unfiltered)
        };
        let markers = ws.markers_of(&targets)?;
        let mut parents = ParentCache::default();
        let mut rows = Vec::with_capacity(targets.len());
        for target in targets {
            if let Some(row) = row_with(ws, &target, &markers, &mut parents)? {
                rows.push(row);
            }
        }
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Ok(Window {
            rows,
            offset: n(offset),
            total: n(total),
            unfiltered: n(unfiltered),
        })
    }

    /// Every entity `query` selects, in order (offset and limit ignored): what "select
    /// all filtered" stands for, resolved where the rows are.
    pub fn targets(
        &self,
        ws: &Workspace,
        kind: Kind,
        query: &TableQuery,
    ) -> Result<Vec<EntityRef>> {
        let sig = signature(kind, query)?;
        let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
        let table = table_of(&mut kinds, ws, kind)?;
        let selected = table.select(&sig);
        Ok(selected
            .iter()
            .map(|&i| table.rows[i as usize].target.clone())
            .collect())
    }

    /// Builds the indexes of `kinds` not built yet, from `ws` (a connection of its own:
    /// this runs on a background thread after the workspace opens or changes wholesale,
    /// so the first view finds its index ready). A build that raced a change is dropped.
    pub fn prebuild(&self, ws: &Workspace, kinds: &[Kind]) -> Result<()> {
        for kind in kinds {
            self.ensure(ws, *kind)?;
        }
        Ok(())
    }

    /// Builds `kind`'s index unless it is there (or another thread is building it: then
    /// waits for that build).
    fn ensure(&self, ws: &Workspace, kind: Kind) -> Result<()> {
        if self
            .kinds
            .lock()
            .map_err(|_| poisoned())?
            .contains_key(&kind)
        {
            return Ok(());
        }
        let _building = self.building.lock().map_err(|_| poisoned())?;
        loop {
            let generation = self.generation.load(AtomicOrdering::SeqCst);
            if self
                .kinds
                .lock()
                .map_err(|_| poisoned())?
                .contains_key(&kind)
            {
                return Ok(());
            }
            let table = KindTable::build(ws, kind)?;
            let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
            if self.generation.load(AtomicOrdering::SeqCst) == generation {
                kinds.insert(kind, table);
                return Ok(());
            }
            // Something changed while this read the workspace: read it again.
        }
    }

    /// Re-reads the rows of entities saved since: each moves into place in every order
    /// already computed. A row that is gone rebuilds its kind on next use, and a renamed
    /// parent rebuilds the kind that shows its label.
    pub fn touched(&self, ws: &Workspace, targets: &[EntityRef]) -> Result<()> {
        let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
        self.generation.fetch_add(1, AtomicOrdering::SeqCst);
        for target in targets {
            if let Some(child) = [Kind::Campaign, Kind::AdOrder]
                .into_iter()
                .find(|k| parent_kind(*k) == Some(target.kind))
            {
                kinds.remove(&child);
            }
            let Some(table) = kinds.get_mut(&target.kind) else {
                continue;
            };
            let labels = match parent_kind(target.kind) {
                Some(p) => labels_of_one(ws, p, target)?,
                None => HashMap::new(),
            };
            let mut grandparents = HashMap::new();
            if has_ancestor(target.kind) {
                let mut parent = None;
                ws.scan_one(target, |s| {
                    parent = s.parent.filter(|p| p.kind == Kind::Campaign);
                    Ok(())
                })?;
                if let Some(campaign) = parent {
                    ws.scan_one(&campaign, |s| {
                        if let Some(advertiser) = s.parent {
                            grandparents.insert(s.target, advertiser);
                        }
                        Ok(())
                    })?;
                }
            }
            let mut fresh = None;
            ws.scan_one(target, |s| {
                fresh = Some(index_row(target.kind, &s, &labels, &grandparents));
                Ok(())
            })?;
            match fresh.transpose()? {
                None => {
                    kinds.remove(&target.kind);
                }
                Some(row) => match table.by_target.get(target).copied() {
                    Some(i) => {
                        table.rows[i as usize] = row;
                        table.reposition(i, false);
                    }
                    None => {
                        let i = u32::try_from(table.rows.len()).unwrap_or(u32::MAX);
                        table.by_target.insert(target.clone(), i);
                        table.rows.push(row);
                        table.reposition(i, true);
                    }
                },
            }
        }
        Ok(())
    }

    /// Forgets kinds whose rows changed wholesale (a download, a post, a discard, another
    /// workspace); they are rebuilt on next use.
    pub fn invalidate(&self, kinds: &[Kind]) {
        if let Ok(mut k) = self.kinds.lock() {
            self.generation.fetch_add(1, AtomicOrdering::SeqCst);
            for kind in kinds {
                k.remove(kind);
            }
        }
    }

    /// Forgets every kind.
    pub fn clear(&self) {
        if let Ok(mut k) = self.kinds.lock() {
            self.generation.fetch_add(1, AtomicOrdering::SeqCst);
            k.clear();
        }
    }
}

/// The label of the parent of `target`, as the parent column shows it.
fn labels_of_one(
    ws: &Workspace,
    parent_kind: Kind,
    target: &EntityRef,
) -> Result<HashMap<EntityRef, String>> {
    let mut parent = None;
    ws.scan_one(target, |s| {
        parent = s.parent.filter(|p| p.kind == parent_kind);
        Ok(())
    })?;
    let Some(parent) = parent else {
        return Ok(HashMap::new());
    };
    let l = label_of(ws, &parent)?;
    Ok(HashMap::from([(parent, l)]))
}

/// One entity's row, or `None` when the workspace does not hold it.
pub fn row<T: DeserializeOwned>(ws: &Workspace, target: &EntityRef) -> Result<Option<Row<T>>> {
    let markers = ws.markers_of(std::slice::from_ref(target))?;
    row_with(ws, target, &markers, &mut ParentCache::default())
}

/// The label and timezone of each parent a window's rows share (a window of ad orders
/// often has one campaign), read once per window.
#[derive(Default)]
struct ParentCache(HashMap<EntityRef, (String, Option<TimezoneName>)>);

impl ParentCache {
    fn get(
        &mut self,
        ws: &Workspace,
        parent: &EntityRef,
    ) -> Result<(String, Option<TimezoneName>)> {
        if let Some(hit) = self.0.get(parent) {
            return Ok(hit.clone());
        }
        let facts = (label_of(ws, parent)?, ws.timezone_of(parent)?);
        self.0.insert(parent.clone(), facts.clone());
        Ok(facts)
    }
}

fn row_with<T: DeserializeOwned>(
    ws: &Workspace,
    target: &EntityRef,
    markers: &HashMap<EntityRef, Marker>,
    parents: &mut ParentCache,
) -> Result<Option<Row<T>>> {
    let Some(e) = ws.get(target)? else {
        return Ok(None);
    };
    let name = e
        .working
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let (parent_label, timezone) = match &e.parent {
        // A row's dates are in its advertiser's timezone, which its parent's is.
        Some(p) => {
            let (l, tz) = parents.get(ws, p)?;
            (Some(l), tz)
        }
        None => (None, ws.timezone_of(target)?),
    };
    let value: T = serde_json::from_value(e.working).map_err(|err| {
        Error::Offline(flightdeck_offline::Error::Corrupt(format!(
            "{} {} does not fit its resource: {err}",
            target.kind.label(),
            target.key
        )))
    })?;
    Ok(Some(Row {
        label: label(name.as_deref(), &e.target),
        marker: markers.get(&e.target).copied(),
        read_only: read_only_reason(&e.target).map(str::to_owned),
        parent_label,
        timezone,
        target: e.target,
        parent: e.parent,
        value,
        pending: e.pending,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kind large enough to be filtered on several threads gives the same rows, in the
    /// same order, as one thread reading them all.
    #[test]
    fn a_large_kind_filters_to_the_same_rows_in_the_same_order() {
        let n = PARALLEL_FILTER_ROWS * 2 + 7;
        let rows: Vec<IndexRow> = (0..n)
            .map(|i| {
                let text = format!("order {i}\u{1f}{}", i % 97);
                let len = u32::try_from(text.len()).unwrap_or(0);
                IndexRow {
                    target: EntityRef::new(Kind::AdOrder, Key::Id(i as i64)),
                    parent: None,
                    ancestor: None,
                    order: (0, i as i64),
                    text: text.into_boxed_str(),
                    cells: vec![Cell::Text(0, len)].into_boxed_slice(),
                }
            })
            .collect();
        let default: Vec<u32> = (0..n as u32).rev().collect();
        let mut table = KindTable {
            by_target: HashMap::new(),
            default: default.clone(),
            rows,
            sorted: HashMap::new(),
            last: None,
        };
        let sig = Signature {
            parent: None,
            filter: "order 12".into(),
            sort: None,
        };
        let got = table.select(&sig);
        let expected: Vec<u32> = default
            .into_iter()
            .filter(|&i| {
                let t = &table.rows[i as usize].text;
                t.contains("order") && t.contains("12")
            })
            .collect();
        assert!(expected.len() > 1000);
        assert_eq!(*got, expected);
    }
}
