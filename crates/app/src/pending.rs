//! Pending changes as both hosts show them: what changes, how, and the marker its row
//! carries, so neither host re-derives labels or markers.

use flightdeck_model::FieldError;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Op};
use flightdeck_offline::diff::FieldDiff;
use flightdeck_offline::merge::FieldConflict;
use flightdeck_offline::workspace::{ChangeMessage, Marker, PendingRef, Pick, Workspace};
use serde::Serialize;

use crate::query::{TableQuery, Window, label_of};
use crate::{Account, Result};

/// One pending change as the review screen shows it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ChangeView {
    /// Outbox order.
    pub seq: i64,
    /// The entity it changes.
    pub target: EntityRef,
    /// The entity's name, or its kind and key when it has none.
    pub label: String,
    /// What the entity is, for people ("ad order").
    pub kind_label: String,
    /// The marker its row shows.
    pub marker: Marker,
    /// What posting does.
    pub op: Op,
    /// Where it stands.
    pub status: ChangeStatus,
    /// Field by field, against the server version it started from.
    pub diff: Vec<FieldDiff>,
    /// Broken rules (invalid changes are never posted).
    pub errors: Vec<FieldError>,
    /// The service's messages from the last attempt.
    pub messages: Vec<ChangeMessage>,
    /// Base, mine and theirs per conflicting field.
    pub conflicts: Vec<FieldConflict>,
}

/// The marker of one change: what needs the buyer first (conflict, invalid, failed),
/// then whether posting creates or changes the entity. The same precedence as the
/// per-entity markers of the tables ([`Workspace::markers`]).
pub fn marker_of(status: ChangeStatus, op: Op) -> Marker {
    Marker::of(
        status == ChangeStatus::Conflict,
        status == ChangeStatus::Invalid,
        matches!(status, ChangeStatus::Failed | ChangeStatus::NeedsReview),
        op == Op::Create,
    )
}

/// A row's label: its name, or its kind and key when it has none.
pub fn label(name: Option<&str>, target: &EntityRef) -> String {
    match name {
        Some(n) if !n.trim().is_empty() => n.to_owned(),
        _ => format!("{} {}", target.kind.label(), target.key),
    }
}

/// One change as the review shows it, read in full.
fn view(ws: &Workspace, r: &PendingRef) -> Result<Option<ChangeView>> {
    let Some(c) = ws.change(r.seq)? else {
        return Ok(None);
    };
    let diff = ws.pending_diff(c.seq)?;
    let messages = ws.change_messages(c.seq)?;
    let conflicts = if c.status == ChangeStatus::Conflict {
        ws.conflicts(c.seq)?
    } else {
        Vec::new()
    };
    Ok(Some(ChangeView {
        label: label_of(ws, &c.target)?,
        kind_label: c.target.kind.label().to_owned(),
        marker: marker_of(c.status, c.op),
        seq: c.seq,
        target: c.target,
        op: c.op,
        status: c.status,
        diff,
        errors: c.errors,
        messages,
        conflicts,
    }))
}

/// The words a pending change is found by: its number, kind, operation, status and
/// the entity's name.
fn search_text(ws: &Workspace, r: &PendingRef) -> Result<String> {
    let name = label_of(ws, &r.target)?;
    Ok(format!(
        "{} {} {:?} {:?} {name}",
        r.seq,
        r.target.kind.label(),
        r.op,
        r.status
    )
    .to_lowercase())
}

/// The pending changes a query selects, in its order, and how many there are in all.
fn selected(ws: &Workspace, query: &TableQuery) -> Result<(Vec<PendingRef>, usize)> {
    let mut refs = ws.pending_refs()?;
    let unfiltered = refs.len();
    let terms: Vec<String> = query
        .filter
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    if !terms.is_empty() {
        let mut kept = Vec::new();
        for r in refs {
            let text = search_text(ws, &r)?;
            if terms.iter().all(|t| text.contains(t.as_str())) {
                kept.push(r);
            }
        }
        refs = kept;
    }
    if query.sort.as_ref().is_some_and(|s| s.descending) {
        refs.reverse();
    }
    Ok((refs, unfiltered))
}

/// The changes of one window of the pending-changes table, in outbox order (or newest
/// first with `sort` on `seq` descending), filtered like the entity tables: every word
/// in the change's number, kind, operation, status or the entity's name. Only the rows
/// of the window are read in full.
pub fn window(ws: &Workspace, query: &TableQuery) -> Result<Window<ChangeView>> {
    let (refs, unfiltered) = selected(ws, query)?;
    let total = refs.len();
    let range = query.range(total);
    let offset = range.start;
    let mut rows = Vec::with_capacity(range.len());
    for r in &refs[range] {
        if let Some(v) = view(ws, r)? {
            rows.push(v);
        }
    }
    Ok(Window::new(rows, offset, total, unfiltered))
}

/// The numbers of the changes a query selects (offset and limit ignored): what "select
/// all" of the pending-changes table posts or discards.
pub fn seqs(ws: &Workspace, query: &TableQuery) -> Result<Vec<i64>> {
    Ok(selected(ws, query)?.0.into_iter().map(|r| r.seq).collect())
}

/// What "Check changes" found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CheckSummary {
    /// Changes checked.
    pub checked: u32,
    /// Of those, the ones that break a rule (held back from posting).
    pub invalid: u32,
}

/// The buyer's choice for one conflicting field.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ConflictPick {
    /// Wire path of the field.
    pub path: String,
    /// Which version wins.
    pub pick: Pick,
}

impl Account {
    /// One window of the pending-changes table.
    pub fn pending_window(&self, query: &TableQuery) -> Result<Window<ChangeView>> {
        let ws = self.workspace()?;
        window(&ws, query)
    }

    /// The numbers of the pending changes a query selects.
    pub fn pending_seqs(&self, query: &TableQuery) -> Result<Vec<i64>> {
        let ws = self.workspace()?;
        seqs(&ws, query)
    }

    /// Re-validates every pending change ("Check changes").
    pub fn check_changes(&self) -> Result<CheckSummary> {
        let mut ws = self.workspace()?;
        let found = ws.check()?;
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Ok(CheckSummary {
            checked: n(ws.pending_count()?),
            invalid: n(found
                .iter()
                .filter(|(_, errors)| !errors.is_empty())
                .count()),
        })
    }

    /// Discards changes (drafts that depend on them go too); returns every seq removed.
    pub fn discard(self: &std::sync::Arc<Self>, seqs: &[i64]) -> Result<Vec<i64>> {
        let removed = self.workspace()?.discard_many(seqs)?;
        // Drafts vanished and edits were rolled back: the tables are built again.
        self.tables.clear();
        self.warm_tables();
        Ok(removed)
    }

    /// Resolves a conflict: one pick per conflicting field; the change goes back to
    /// pending.
    pub fn resolve_conflict(&self, seq: i64, picks: Vec<ConflictPick>) -> Result<()> {
        let mut ws = self.workspace()?;
        let target = ws.change(seq)?.map(|c| c.target);
        let picks: Vec<(String, Pick)> = picks.into_iter().map(|p| (p.path, p.pick)).collect();
        ws.resolve_conflict(seq, &picks)?;
        if let Some(t) = target {
            self.tables.touched(&ws, &[t])?;
        }
        Ok(())
    }
}
