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

mod columns;
mod rows;
mod tables;
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

use columns::*;
use rows::*;

pub use columns::{ColumnInfo, cells, column_ids, columns};
pub use rows::{label_of, row};
pub use tables::{IndexStats, TABLE_KINDS, Tables};

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
    /// An ad order's Status column; absent for other kinds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(optional))]
    pub status: Option<StatusCell>,
}

/// An ad order's Status cell as the table shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct StatusCell {
    /// The pending status if any, else the known one, else `unknown`
    /// ([`flightdeck_offline::workspace::StatusView::word`]).
    pub text: String,
    /// The status is a change not posted yet (marked as other pending edits are).
    pub pending: bool,
    /// The known status, as the service last answered it; `None` when unknown.
    pub known: Option<String>,
    /// The cell's tooltip: why the status is unknown, or that it is not posted yet.
    pub why: Option<String>,
}

impl StatusCell {
    /// The cell of an ad order whose status the workspace knows as `view`.
    pub fn of(view: flightdeck_offline::workspace::StatusView) -> StatusCell {
        use flightdeck_offline::workspace::{STATUS_UNKNOWN_WHY, status_word};
        let known = view.known.map(status_word);
        let why = match (view.pending, &known) {
            (Some(_), Some(k)) => Some(format!("Not posted yet; the service has it {k}.")),
            (Some(_), None) => Some(format!("Not posted yet. {STATUS_UNKNOWN_WHY}")),
            (None, None) => Some(STATUS_UNKNOWN_WHY.to_owned()),
            (None, Some(_)) => None,
        };
        StatusCell {
            text: view.word(),
            pending: view.pending.is_some(),
            known,
            why,
        }
    }
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
    /// Every row of a table, in its default order: for a host that prints them all.
    pub fn all() -> TableQuery {
        TableQuery {
            parent: None,
            filter: String::new(),
            sort: None,
            offset: 0,
            limit: u32::MAX,
        }
    }

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
    /// How many warnings and infos the creative's checks give, for [`HAS_FINDINGS`]
    /// and [`HAS_WARNINGS`]: `None` until a query first asks (see [`Tables`]).
    findings: Option<(u32, u32)>,
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
    /// Some row's `findings` is not computed yet.
    findings_missing: bool,
}

#[derive(Clone, PartialEq, Eq)]
struct Signature {
    parent: Option<EntityRef>,
    /// The filter's words, less [`HAS_FINDINGS`] and [`HAS_WARNINGS`].
    filter: String,
    sort: Option<(usize, bool)>,
    /// Only rows whose checks found something: nothing asked, [`HAS_FINDINGS`] (a
    /// warning or an info) or [`HAS_WARNINGS`].
    has_findings: Option<Found>,
}

/// What a row's checks must have found to be kept.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Found {
    /// A warning or an info.
    Any,
    /// A warning.
    Warning,
}

/// The filter word that keeps only the creatives whose checks (`crate::checks`) found
/// warnings or infos. Any other kind has none, so it keeps no row of theirs.
pub const HAS_FINDINGS: &str = "has:findings";

/// The filter word that keeps only the creatives whose checks found a warning (every
/// HTML tag has an info, its weight, so this is the one that narrows a list of tags).
pub const HAS_WARNINGS: &str = "has:warnings";

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
    status: Option<&str>,
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
        status,
    };
    let mut text = String::new();
    let mut cells = Vec::with_capacity(specs(kind).len());
    for (i, column) in specs(kind).iter().enumerate() {
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
        findings: None,
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
        let statuses = if kind == Kind::AdOrder {
            ws.ad_order_statuses()?
        } else {
            HashMap::new()
        };
        let mut rows = Vec::new();
        let mut text = String::new();
        ws.scan(kind, |s| {
            let status = (kind == Kind::AdOrder).then(|| {
                statuses
                    .get(&s.target.key)
                    .copied()
                    .unwrap_or_default()
                    .word()
            });
            rows.push(index_row(
                kind,
                &s,
                &labels,
                &grandparents,
                status.as_deref(),
                &mut text,
            )?);
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
            findings_missing: true,
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
        self.findings_missing = true;
    }

    fn select(&mut self, sig: &Signature) -> Arc<Vec<u32>> {
        let narrowing = match &self.last {
            Some((last, result)) if last == sig => return result.clone(),
            // A longer filter (the next keystroke) keeps a subset of the last result,
            // in the same order: only those rows are read again when they are few.
            Some((last, result))
                if last.parent == sig.parent
                    && last.sort == sig.sort
                    && last.has_findings == sig.has_findings
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
        let has_findings = sig.has_findings;
        let found = |r: &IndexRow| match (has_findings, r.findings) {
            (None, _) => true,
            (Some(Found::Any), Some((w, i))) => w + i > 0,
            (Some(Found::Warning), Some((w, _))) => w > 0,
            (Some(_), None) => false,
        };
        let result: Vec<u32> = if terms.is_empty() && parent.is_none() && has_findings.is_none() {
            self.order(sig.sort).to_vec()
        } else {
            let (rows, text) = (&self.rows, self.text.as_str());
            let keep = |r: &IndexRow| {
                parent.as_ref().is_none_or(|p| under(r, p)) && found(r) && {
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

    /// The heap bytes this index holds (capacities, not lengths).
    fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let key = |k: &EntityRef| match &k.key {
            Key::Id(_) => 0,
            Key::Segment(s) | Key::Local(s) => s.capacity(),
        };
        let map_entry = |entry: usize, cap: usize| cap * (entry + 1);
        let rows = self.rows.capacity() * size_of::<IndexRow>()
            + self
                .rows
                .iter()
                .map(|r| {
                    r.cells.len() * size_of::<Cell>()
                        + key(&r.target)
                        + r.parent.as_ref().map_or(0, key)
                        + r.ancestor.as_ref().map_or(0, key)
                })
                .sum::<usize>();
        let by_target = map_entry(size_of::<(EntityRef, u32)>(), self.by_target.capacity())
            + self.by_target.keys().map(key).sum::<usize>();
        let perms = self.default.capacity() * 4
            + self.sorted.values().map(|p| p.capacity() * 4).sum::<usize>()
            + self.descending.as_ref().map_or(0, |(_, d)| d.capacity() * 4)
            + self.last.as_ref().map_or(0, |(_, l)| l.capacity() * 4);
        rows + self.text.capacity() + by_target + perms
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
