//! Pending changes as both hosts show them: what changes, how, and the marker its row
//! carries, so neither host re-derives labels or markers.

use flightdeck_model::FieldError;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Op};
use flightdeck_offline::diff::FieldDiff;
use flightdeck_offline::merge::FieldConflict;
use flightdeck_offline::workspace::{ChangeMessage, Marker, Pick, Workspace};
use serde::Serialize;

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

fn label_of(ws: &Workspace, target: &EntityRef) -> Result<String> {
    let entity = ws.get(target)?;
    let name = entity
        .as_ref()
        .and_then(|e| e.working.get("name").and_then(|n| n.as_str()));
    Ok(label(name, target))
}

/// Every change not applied yet, with its diff, errors, messages and conflicts.
pub fn views(ws: &Workspace) -> Result<Vec<ChangeView>> {
    let mut out = Vec::new();
    for c in ws.pending()? {
        let diff = ws.pending_diff(c.seq)?;
        let messages = ws.change_messages(c.seq)?;
        let conflicts = if c.status == ChangeStatus::Conflict {
            ws.conflicts(c.seq)?
        } else {
            Vec::new()
        };
        out.push(ChangeView {
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
        });
    }
    Ok(out)
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
    /// Every change not applied yet, as the review shows it.
    pub fn pending_views(&self) -> Result<Vec<ChangeView>> {
        views(&*self.workspace()?)
    }

    /// Re-validates every pending change ("Check changes") and returns them.
    pub fn check_changes(&self) -> Result<Vec<ChangeView>> {
        let mut ws = self.workspace()?;
        ws.check()?;
        views(&ws)
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
    /// pending. Returns the changes as the review shows them.
    pub fn resolve_conflict(&self, seq: i64, picks: Vec<ConflictPick>) -> Result<Vec<ChangeView>> {
        let mut ws = self.workspace()?;
        let target = ws.change(seq)?.map(|c| c.target);
        let picks: Vec<(String, Pick)> = picks.into_iter().map(|p| (p.path, p.pick)).collect();
        ws.resolve_conflict(seq, &picks)?;
        if let Some(t) = target {
            self.tables.touched(&ws, &[t])?;
        }
        views(&ws)
    }
}
