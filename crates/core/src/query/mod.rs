//! Windowed tables: a view asks for the rows it shows (kind, parent, filter, sort,
//! offset, limit) and gets them with the total count. No host ever holds a whole table.
//!
//! Filtering and sorting run over an in-memory index of each kind, built from the
//! workspace on first use (or ahead, in the background: [`Tables::prebuild`]) and kept
//! in step by [`Tables::touched`] (one entity saved: its row is re-read and moved into
//! place) and [`Tables::invalidate`] (a download, a post: the kind is rebuilt on next
//! use). SQLite cannot do this fast enough: a substring filter over JSON fields scans
//! every document (over 2 s at 1,000,000 rows, measured), while the index filters in one
//! pass over short lower-case strings and keeps each sort order of a column with many
//! values once computed. Only the rows of the window are decoded in full.
//!
//! The index is columnar and holds no second copy of the rows (`index.rs`): per row an
//! `i64` key, a `u32` lineage (parent and ancestor, interned), its search text in one
//! arena (every cell, lower case, separated by U+001F: what the filter reads, and where
//! a sort reads a text or number cell back), two bits of type per cell, and the dates
//! the filter does not read. [`Tables::stats`] says what each kind's index holds.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
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
mod index;
mod rows;
mod tables;
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

use columns::*;
use index::*;
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
    /// Answer a window from the top as soon as its rows are found, before the rows that
    /// match are counted: on a large kind a filter then takes the time its first rows
    /// take, not a read of every row. The answer says [`Window::partial`] when its total
    /// is not counted yet; the same query without `quick` counts it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "specta", specta(optional))]
    pub quick: bool,
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
    /// The rows that match are not counted yet (a [`TableQuery::quick`] answer): more
    /// follow the window, and `total` only counts one of them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "specta", specta(optional))]
    pub partial: bool,
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
            quick: false,
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
            partial: false,
        }
    }
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
