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

impl TableQuery {
    /// The rows of the window among `total` selected: the offset clamped to the total,
    /// then at most `limit`.
    pub fn range(&self, total: usize) -> std::ops::Range<usize> {
        let offset = (self.offset as usize).min(total);
        offset..offset.saturating_add(self.limit as usize).min(total)
    }
}

impl<T> Window<T> {
    /// A window of `rows` from `offset`, with the counts as the wire carries them.
    pub fn new(rows: Vec<T>, offset: usize, total: usize, unfiltered: usize) -> Window<T> {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Window {
            rows,
            offset: n(offset),
            total: n(total),
            unfiltered: n(unfiltered),
        }
    }
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
    /// Where the row's search text sits in its kind's [`KindTable::text`]: every cell's
    /// text, lower case, separated by U+001F.
    text: (u32, u32),
    /// Text cells are spans of the row's search text.
    cells: Box<[Cell]>,
}

/// One kind's index. Rows are never removed in place: a removal rebuilds the kind.
struct KindTable {
    rows: Vec<IndexRow>,
    /// Every row's search text, one after another, so a filter reads memory in order
    /// (a re-read row appends its new text; the old span is left until the next build).
    text: String,
    by_target: HashMap<EntityRef, u32>,
    /// Row numbers in the default order.
    default: Vec<u32>,
    /// Row numbers per column in ascending order, computed on first use (or ahead, by
    /// [`Tables::presort`]) and kept up to date. Descending orders derive from them.
    sorted: HashMap<usize, Vec<u32>>,
    /// The last descending order asked for; dropped by any change.
    descending: Option<(usize, Vec<u32>)>,
    /// The last filtered result (before offset and limit), so scrolling only slices and
    /// a longer filter only narrows it.
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
    arena: &mut String,
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
    let span = |n: usize| {
        u32::try_from(n).map_err(|_| {
            flightdeck_offline::Error::Corrupt(format!(
                "the {} table's search text passed 4 GB",
                kind.label()
            ))
        })
    };
    let at = span(arena.len())?;
    let len = span(text.len())?;
    span(arena.len() + text.len())?;
    arena.push_str(&text);
    Ok(IndexRow {
        order: default_order(&s.target, s.order),
        target: s.target.clone(),
        ancestor: s.parent.as_ref().and_then(|p| grandparents.get(p).cloned()),
        parent: s.parent.clone(),
        text: (at, len),
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

/// Two rows' cells in `col`, ascending; empty cells last.
fn cmp_value(text: &str, a: &IndexRow, b: &IndexRow, col: usize) -> Ordering {
    let (ca, cb) = (
        a.cells.get(col).copied().unwrap_or(Cell::Empty),
        b.cells.get(col).copied().unwrap_or(Cell::Empty),
    );
    match (ca, cb) {
        (Cell::Empty, Cell::Empty) => Ordering::Equal,
        (Cell::Empty, _) => Ordering::Greater,
        (_, Cell::Empty) => Ordering::Less,
        (Cell::Num(x), Cell::Num(y)) => x.total_cmp(&y),
        (Cell::Num(_), Cell::Text(..)) => Ordering::Less,
        (Cell::Text(..), Cell::Num(_)) => Ordering::Greater,
        (Cell::Text(..), Cell::Text(..)) => cell_text(text, a, ca).cmp(cell_text(text, b, cb)),
    }
}

/// The text of a row's cell.
fn cell_text<'t>(text: &'t str, r: &IndexRow, cell: Cell) -> &'t str {
    match cell {
        Cell::Text(start, len) => {
            let at = (r.text.0 + start) as usize;
            text.get(at..at + len as usize).unwrap_or("")
        }
        _ => "",
    }
}

/// A row's search text.
fn row_text<'t>(text: &'t str, r: &IndexRow) -> &'t [u8] {
    let (at, len) = (r.text.0 as usize, r.text.1 as usize);
    text.as_bytes().get(at..at + len).unwrap_or(&[])
}

/// Ascending by `col` (empty cells last), then the default order: a total order, as
/// every row's default place is its own.
fn compare(text: &str, a: &IndexRow, b: &IndexRow, col: usize) -> Ordering {
    cmp_value(text, a, b, col).then_with(|| a.order.cmp(&b.order))
}

fn is_empty(r: &IndexRow, col: usize) -> bool {
    matches!(r.cells.get(col), None | Some(Cell::Empty))
}

/// Sorts `perm` by `cmp` on two threads when it is long: each half alone, then merged.
fn sort_rows(perm: &mut Vec<u32>, cmp: &(dyn Fn(u32, u32) -> Ordering + Sync)) {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if threads < 2 || perm.len() < PARALLEL_ROWS {
        perm.sort_unstable_by(|&a, &b| cmp(a, b));
        return;
    }
    let mid = perm.len() / 2;
    let (left, right) = perm.split_at_mut(mid);
    std::thread::scope(|s| {
        s.spawn(|| left.sort_unstable_by(|&a, &b| cmp(a, b)));
        right.sort_unstable_by(|&a, &b| cmp(a, b));
    });
    let mut merged = Vec::with_capacity(perm.len());
    let (mut i, mut j) = (0, mid);
    while i < mid && j < perm.len() {
        if cmp(perm[j], perm[i]) == Ordering::Less {
            merged.push(perm[j]);
            j += 1;
        } else {
            merged.push(perm[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&perm[i..mid]);
    merged.extend_from_slice(&perm[j..]);
    *perm = merged;
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
        let mut text = String::new();
        ws.scan(kind, |s| {
            rows.push(index_row(kind, &s, &labels, &grandparents, &mut text)?);
            Ok(())
        })?;
        text.shrink_to_fit();
        let mut table = KindTable {
            by_target: HashMap::with_capacity(rows.len()),
            default: Vec::new(),
            rows,
            text,
            sorted: HashMap::new(),
            descending: None,
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

    /// The ascending order of `col`, sorted now when it is not kept yet (on every core
    /// when a view waits for it).
    fn ascending(&mut self, col: usize, parallel: bool) -> &[u32] {
        let (rows, text, default) = (&self.rows, self.text.as_str(), &self.default);
        self.sorted.entry(col).or_insert_with(|| {
            let mut perm = default.clone();
            let cmp = |a: u32, b: u32| compare(text, &rows[a as usize], &rows[b as usize], col);
            if parallel {
                sort_rows(&mut perm, &cmp);
            } else {
                perm.sort_unstable_by(|&a, &b| cmp(a, b));
            }
            perm
        })
    }

    fn order(&mut self, sort: Option<(usize, bool)>) -> &[u32] {
        match sort {
            None => &self.default,
            Some((col, false)) => self.ascending(col, true),
            Some((col, true)) => {
                if self.descending.as_ref().is_none_or(|(c, _)| *c != col) {
                    self.ascending(col, true);
                    let perm = self.sorted.get(&col).map(Vec::as_slice).unwrap_or(&[]);
                    let d = descending_of(&self.text, &self.rows, perm, col);
                    self.descending = Some((col, d));
                }
                self.descending.as_ref().map_or(&[], |(_, d)| d.as_slice())
            }
        }
    }

    /// Puts row `i` at its place in every order kept. `old` is the row it replaced (its
    /// values find its old place by binary search, not by a scan).
    fn reposition(&mut self, i: u32, old: Option<&IndexRow>) {
        let (rows, text) = (&self.rows, self.text.as_str());
        let row = &rows[i as usize];
        let place = |perm: &mut Vec<u32>, before: &dyn Fn(&IndexRow, &IndexRow) -> Ordering| {
            if let Some(old) = old {
                let at = perm.partition_point(|&x| {
                    x != i && before(&rows[x as usize], old) == Ordering::Less
                });
                if perm.get(at) == Some(&i) {
                    perm.remove(at);
                } else if let Some(at) = perm.iter().position(|&x| x == i) {
                    perm.remove(at);
                }
            }
            let at = perm.partition_point(|&x| before(&rows[x as usize], row) == Ordering::Less);
            perm.insert(at, i);
        };
        place(&mut self.default, &|a, b| a.order.cmp(&b.order));
        for (col, perm) in &mut self.sorted {
            let col = *col;
            // The old row's text spans point into the arena still (it only grows).
            place(perm, &|a, b| compare(text, a, b, col));
        }
        self.descending = None;
        self.last = None;
    }

    fn select(&mut self, sig: &Signature) -> Arc<Vec<u32>> {
        let narrowing = match &self.last {
            Some((last, result)) if last == sig => return result.clone(),
            // A longer filter (the next keystroke) keeps a subset of the last result,
            // in the same order: only those rows are read again when they are few.
            Some((last, result))
                if last.parent == sig.parent
                    && last.sort == sig.sort
                    && !last.filter.is_empty()
                    && sig.filter.starts_with(&last.filter)
                    && result.len() <= self.rows.len() / 4 =>
            {
                Some(result.clone())
            }
            _ => None,
        };
        let terms: Vec<&str> = sig.filter.split_whitespace().collect();
        let finders: Vec<memchr::memmem::Finder<'_>> = terms
            .iter()
            .map(|t| memchr::memmem::Finder::new(t.as_bytes()))
            .collect();
        let parent = sig.parent.clone();
        let result: Vec<u32> = if terms.is_empty() && parent.is_none() {
            self.order(sig.sort).to_vec()
        } else {
            let (rows, text) = (&self.rows, self.text.as_str());
            let keep = |r: &IndexRow| {
                parent.as_ref().is_none_or(|p| under(r, p)) && {
                    let t = row_text(text, r);
                    finders.iter().all(|f| f.find(t).is_some())
                }
            };
            match narrowing {
                Some(prev) => prev
                    .iter()
                    .copied()
                    .filter(|&i| keep(&rows[i as usize]))
                    .collect(),
                None => {
                    // Rows are read in memory order into a bit set, on every core for a
                    // large kind; the order is then one pass over it.
                    let hits = matching(rows, &keep);
                    let rows_hit = |i: u32| hits[(i / 64) as usize] >> (i % 64) & 1 == 1;
                    self.order(sig.sort)
                        .iter()
                        .copied()
                        .filter(|&i| rows_hit(i))
                        .collect()
                }
            }
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

/// One bit per row: whether `keep` holds.
fn matching(rows: &[IndexRow], keep: &(dyn Fn(&IndexRow) -> bool + Sync)) -> Vec<u64> {
    let mut hits = vec![0u64; rows.len().div_ceil(64)];
    let fill = |words: &mut [u64], first_word: usize| {
        for (w, word) in words.iter_mut().enumerate() {
            let base = (first_word + w) * 64;
            let end = (base + 64).min(rows.len());
            for (bit, r) in rows[base..end].iter().enumerate() {
                if keep(r) {
                    *word |= 1 << bit;
                }
            }
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if threads > 1 && rows.len() >= PARALLEL_ROWS {
        let per = hits.len().div_ceil(threads);
        std::thread::scope(|s| {
            for (n, words) in hits.chunks_mut(per).enumerate() {
                let fill = &fill;
                s.spawn(move || fill(words, n * per));
            }
        });
    } else {
        fill(&mut hits, 0);
    }
    hits
}

/// The descending order of `col` from its ascending one: values high to low, rows of
/// equal value still in the default order, empty cells still last.
fn descending_of(text: &str, rows: &[IndexRow], asc: &[u32], col: usize) -> Vec<u32> {
    let filled = asc.partition_point(|&i| !is_empty(&rows[i as usize], col));
    let mut out = Vec::with_capacity(asc.len());
    let mut end = filled;
    while end > 0 {
        let last = &rows[asc[end - 1] as usize];
        let mut start = end - 1;
        while start > 0
            && cmp_value(text, &rows[asc[start - 1] as usize], last, col) == Ordering::Equal
        {
            start -= 1;
        }
        out.extend_from_slice(&asc[start..end]);
        end = start;
    }
    out.extend_from_slice(&asc[filled..]);
    out
}

/// Kinds with at least this many rows are filtered, and sorted while a view waits, on
/// several threads.
const PARALLEL_ROWS: usize = 50_000;

/// The indexes of one workspace, per kind.
#[derive(Default)]
pub struct Tables {
    kinds: Mutex<HashMap<Kind, KindTable>>,
    /// Bumped by every change of the indexes' contents, so a build that read the
    /// workspace before it is not installed.
    generation: AtomicU64,
    /// One lock per kind, held while that kind is built: a view opening meanwhile waits
    /// for that build rather than doing the same work again, and a view of another kind
    /// does not wait for it.
    building: Mutex<HashMap<Kind, Arc<Mutex<()>>>>,
    /// Set once a view has been answered (see [`Tables::wait_for_first_view`]).
    viewed: (Mutex<bool>, std::sync::Condvar),
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
            let range = query.range(total);
            let offset = range.start;
            let targets: Vec<EntityRef> = selected[range]
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
        self.mark_viewed();
        Ok(Window::new(rows, offset, total, unfiltered))
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
        for kind in kinds {
            self.presort(*kind)?;
        }
        Ok(())
    }

    /// Sorts every column of `kind` ahead of the first click on its header, a column at
    /// a time on one core, so a view asking meanwhile waits for one column's sort at most
    /// and the window keeps a core to paint with.
    pub fn presort(&self, kind: Kind) -> Result<()> {
        for col in 0..columns(kind).len() {
            let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
            let Some(table) = kinds.get_mut(&kind) else {
                return Ok(());
            };
            table.ascending(col, false);
        }
        Ok(())
    }

    /// Waits until a view has been answered, or `timeout`. Building the large indexes
    /// ahead waits for it: at start the window is loading its first screen, and on two
    /// cores a build beside it delays that screen more than it saves later.
    pub fn wait_for_first_view(&self, timeout: std::time::Duration) {
        let (lock, cvar) = &self.viewed;
        if let Ok(viewed) = lock.lock() {
            let _ = cvar.wait_timeout_while(viewed, timeout, |v| !*v);
        }
    }

    fn mark_viewed(&self) {
        let (lock, cvar) = &self.viewed;
        if let Ok(mut viewed) = lock.lock()
            && !*viewed
        {
            *viewed = true;
            cvar.notify_all();
        }
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
        let lock = self
            .building
            .lock()
            .map_err(|_| poisoned())?
            .entry(kind)
            .or_default()
            .clone();
        let _building = lock.lock().map_err(|_| poisoned())?;
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
            let arena = &mut table.text;
            ws.scan_one(target, |s| {
                fresh = Some(index_row(target.kind, &s, &labels, &grandparents, arena));
                Ok(())
            })?;
            match fresh.transpose()? {
                None => {
                    kinds.remove(&target.kind);
                }
                Some(row) => match table.by_target.get(target).copied() {
                    Some(i) => {
                        let old = std::mem::replace(&mut table.rows[i as usize], row);
                        table.reposition(i, Some(&old));
                    }
                    None => {
                        let i = u32::try_from(table.rows.len()).unwrap_or(u32::MAX);
                        table.by_target.insert(target.clone(), i);
                        table.rows.push(row);
                        table.reposition(i, None);
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
    // The working JSON decodes straight into the wire type: a window is read on every
    // keystroke, and the base and server copies `Workspace::get` also parses are not shown.
    let mut found = None;
    ws.scan_one(target, |s| {
        let value: T = serde_json::from_str(s.json).map_err(|err| {
            flightdeck_offline::Error::Corrupt(format!(
                "{} {} does not fit its resource: {err}",
                target.kind.label(),
                target.key
            ))
        })?;
        found = Some((label_in(s.json, target), s.parent, value));
        Ok(())
    })?;
    let Some((label, parent, value)) = found else {
        return Ok(None);
    };
    let (parent_label, timezone) = match &parent {
        // A row's dates are in its advertiser's timezone, which its parent's is.
        Some(p) => {
            let (l, tz) = parents.get(ws, p)?;
            (Some(l), tz)
        }
        None => (None, ws.timezone_of(target)?),
    };
    let marker = markers.get(target).copied();
    Ok(Some(Row {
        label,
        marker,
        read_only: read_only_reason(target).map(str::to_owned),
        parent_label,
        timezone,
        target: target.clone(),
        parent,
        value,
        // A marker is there exactly when a change to the entity is not applied yet.
        pending: marker.is_some(),
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A kind large enough to be filtered on several threads gives the same rows, in the
    /// same order, as one thread reading them all.
    #[test]
    fn a_large_kind_filters_to_the_same_rows_in_the_same_order() {
        let n = PARALLEL_ROWS * 2 + 7;
        let mut arena = String::new();
        let rows: Vec<IndexRow> = (0..n)
            .map(|i| {
                let text = format!("order {i}\u{1f}{}", i % 97);
                let len = u32::try_from(text.len()).unwrap_or(0);
                let at = u32::try_from(arena.len()).unwrap_or(0);
                arena.push_str(&text);
                IndexRow {
                    target: EntityRef::new(Kind::AdOrder, Key::Id(i as i64)),
                    parent: None,
                    ancestor: None,
                    order: (0, i as i64),
                    text: (at, len),
                    cells: vec![Cell::Text(0, len)].into_boxed_slice(),
                }
            })
            .collect();
        let default: Vec<u32> = (0..n as u32).rev().collect();
        let mut table = KindTable {
            by_target: HashMap::new(),
            default: default.clone(),
            rows,
            text: arena,
            sorted: HashMap::new(),
            descending: None,
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
                let t =
                    std::str::from_utf8(row_text(&table.text, &table.rows[i as usize])).unwrap();
                t.contains("order") && t.contains("12")
            })
            .collect();
        assert!(expected.len() > 1000);
        assert_eq!(*got, expected);
    }

    /// A table of rows with a name (text) and a budget (a number, or empty).
    fn table_of_rows(rows: &[(&str, Option<f64>)]) -> KindTable {
        let mut text = String::new();
        let rows: Vec<IndexRow> = rows
            .iter()
            .enumerate()
            .map(|(i, (name, budget))| index_row_of(&mut text, i as i64, name, *budget))
            .collect();
        let default: Vec<u32> = (0..rows.len() as u32).collect();
        KindTable {
            by_target: rows
                .iter()
                .enumerate()
                .map(|(i, r)| (r.target.clone(), i as u32))
                .collect(),
            default,
            rows,
            text,
            sorted: HashMap::new(),
            descending: None,
            last: None,
        }
    }

    fn index_row_of(text: &mut String, id: i64, name: &str, budget: Option<f64>) -> IndexRow {
        let at = text.len() as u32;
        let own = name.to_lowercase();
        text.push_str(&own);
        IndexRow {
            target: EntityRef::new(Kind::AdOrder, Key::Id(id)),
            parent: None,
            ancestor: None,
            order: (0, id),
            text: (at, own.len() as u32),
            cells: vec![
                Cell::Text(0, own.len() as u32),
                budget.map_or(Cell::Empty, Cell::Num),
            ]
            .into_boxed_slice(),
        }
    }

    fn sig(filter: &str, sort: Option<(usize, bool)>) -> Signature {
        Signature {
            parent: None,
            filter: filter.into(),
            sort,
        }
    }

    fn names(t: &KindTable, rows: &[u32]) -> Vec<String> {
        rows.iter()
            .map(|&i| {
                std::str::from_utf8(row_text(&t.text, &t.rows[i as usize]))
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    /// Typing one more letter narrows the last result; it must be what a fresh filter
    /// gives, in the same order.
    #[test]
    fn a_longer_filter_gives_what_a_fresh_one_gives() {
        let rows: Vec<(String, Option<f64>)> = (0..400)
            .map(|i| (format!("order {i} {}", ["cpm", "cpc", "cpa"][i % 3]), None))
            .collect();
        let rows: Vec<(&str, Option<f64>)> = rows.iter().map(|(n, b)| (n.as_str(), *b)).collect();
        let mut typed = table_of_rows(&rows);
        for prefix in [
            "o",
            "order 1",
            "order 12",
            "order 12 c",
            "order 12 cp",
            "order 12 cpc",
        ] {
            let got = typed.select(&sig(prefix, Some((0, true))));
            let fresh = table_of_rows(&rows).select(&sig(prefix, Some((0, true))));
            assert_eq!(got, fresh, "{prefix:?}");
        }
        let got = typed.select(&sig("order 12 cpc", None));
        let want: Vec<String> = (0..400)
            .filter(|i| i.to_string().contains("12") && i % 3 == 1)
            .map(|i| format!("order {i} cpc"))
            .collect();
        assert_eq!(names(&typed, &got), want);
    }

    /// Descending: high to low, equal values in the default order, empty cells last.
    #[test]
    fn descending_keeps_ties_in_default_order_and_empty_cells_last() {
        let mut t = table_of_rows(&[
            ("a", Some(5.0)),
            ("b", None),
            ("c", Some(7.0)),
            ("d", Some(5.0)),
            ("e", None),
            ("f", Some(1.0)),
        ]);
        let desc = t.select(&sig("", Some((1, true))));
        assert_eq!(names(&t, &desc), ["c", "a", "d", "f", "b", "e"]);
        let asc = t.select(&sig("", Some((1, false))));
        assert_eq!(names(&t, &asc), ["f", "a", "d", "c", "b", "e"]);
    }

    /// A re-read row moves in every kept order to where a fresh sort puts it.
    #[test]
    fn a_changed_row_lands_where_a_fresh_sort_puts_it() {
        let start: Vec<(String, Option<f64>)> = (0..200)
            .map(|i| {
                (
                    format!("n{:03}", (i * 37) % 200),
                    Some(f64::from((i * 11) % 13)),
                )
            })
            .collect();
        let mut now = start.clone();
        let borrowed: Vec<(&str, Option<f64>)> =
            now.iter().map(|(n, b)| (n.as_str(), *b)).collect();
        let mut t = table_of_rows(&borrowed);
        t.ascending(0, false);
        t.ascending(1, true);
        for (i, name, budget) in [
            (17usize, "a first", None),
            (3, "zz last", Some(99.0)),
            (150, "n100", Some(4.0)),
        ] {
            let mut arena = std::mem::take(&mut t.text);
            let row = index_row_of(&mut arena, i as i64, name, budget);
            t.text = arena;
            let old = std::mem::replace(&mut t.rows[i], row);
            t.reposition(i as u32, Some(&old));
            now[i] = (name.to_owned(), budget);
        }
        let borrowed: Vec<(&str, Option<f64>)> =
            now.iter().map(|(n, b)| (n.as_str(), *b)).collect();
        let mut fresh = table_of_rows(&borrowed);
        for sort in [
            Some((0, false)),
            Some((1, false)),
            Some((1, true)),
            Some((0, true)),
        ] {
            let got = t.select(&sig("", sort));
            let want = fresh.select(&sig("", sort));
            assert_eq!(names(&t, &got), names(&fresh, &want), "{sort:?}");
        }
    }
}
