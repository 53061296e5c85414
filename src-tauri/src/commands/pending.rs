//! Pending changes: review with diffs, check, post in the background, discard, and
//! resolve conflicts field by field.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use flightdeck_model::FieldError;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Op};
use flightdeck_offline::diff::FieldDiff;
use flightdeck_offline::merge::FieldConflict;
use flightdeck_offline::sync::{self, PushOptions};
use flightdeck_offline::workspace::{ChangeMessage, Pick, Workspace};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{AppHandle, Manager, Runtime, State};
use tauri_specta::Event;

use super::{SyncFinished, SyncProgress, announce, on_session_error};
use crate::error::{AppError, Result};
use crate::state::AppState;

/// One pending change as the review screen shows it.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ChangeView {
    /// Outbox order.
    pub seq: i64,
    /// The entity it changes.
    pub target: EntityRef,
    /// The entity's name.
    pub label: String,
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

/// The buyer's choice for one conflicting field.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ConflictPick {
    /// Wire path of the field.
    pub path: String,
    /// Which version wins.
    pub pick: Pick,
}

fn label_of(ws: &Workspace, target: &EntityRef) -> String {
    let name = ws
        .get(target)
        .ok()
        .flatten()
        .and_then(|e| {
            e.working
                .get("name")
                .and_then(|n| n.as_str())
                .map(str::to_owned)
        })
        .filter(|n| !n.trim().is_empty());
    name.unwrap_or_else(|| format!("{:?} {}", target.kind, target.key))
}

fn views(ws: &Workspace) -> Result<Vec<ChangeView>> {
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
            label: label_of(ws, &c.target),
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

/// Every change not applied yet, with its diff, errors, messages and conflicts.
#[tauri::command]
#[specta::specta]
pub fn pending_changes(state: State<'_, AppState>) -> Result<Vec<ChangeView>> {
    let active = state.active()?;
    let ws = active.workspace()?;
    views(&ws)
}

/// Re-validates every pending change ("Check changes") and returns them.
#[tauri::command]
#[specta::specta]
pub fn check_changes(state: State<'_, AppState>) -> Result<Vec<ChangeView>> {
    let active = state.active()?;
    let mut ws = active.workspace()?;
    ws.check()?;
    views(&ws)
}

/// Discards changes (drafts that depend on them go too); returns every seq removed.
#[tauri::command]
#[specta::specta]
pub async fn discard_changes<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    seqs: Vec<i64>,
) -> Result<Vec<i64>> {
    let removed = {
        let active = state.active()?;
        let mut ws = active.workspace()?;
        ws.discard_many(&seqs)?
    };
    announce(&app, &state).await;
    Ok(removed)
}

/// Resolves a conflict: one pick per conflicting field. The change goes back to pending.
#[tauri::command]
#[specta::specta]
pub fn resolve_conflict(
    state: State<'_, AppState>,
    seq: i64,
    picks: Vec<ConflictPick>,
) -> Result<Vec<ChangeView>> {
    let active = state.active()?;
    let mut ws = active.workspace()?;
    let picks: Vec<(String, Pick)> = picks.into_iter().map(|p| (p.path, p.pick)).collect();
    ws.resolve_conflict(seq, &picks)?;
    views(&ws)
}

/// Starts posting in the background: all pending changes, or `seqs` and what they
/// depend on. Progress arrives as `SyncProgress` events, the end as `SyncFinished`.
/// Editing stays possible meanwhile (posting has its own workspace connection).
#[tauri::command]
#[specta::specta]
pub async fn post_changes<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    seqs: Option<Vec<i64>>,
) -> Result<()> {
    let active = state.active()?;
    let signed = active.require_signed()?;
    if active.posting.swap(true, Ordering::SeqCst) {
        return Err(AppError::state("changes are already being posted"));
    }
    let mut ws = match active.open_workspace() {
        Ok(ws) => ws,
        Err(e) => {
            active.posting.store(false, Ordering::SeqCst);
            return Err(e);
        }
    };
    announce(&app, &state).await;
    let options = PushOptions {
        only: seqs.map(|s| s.into_iter().collect::<BTreeSet<i64>>()),
        ..PushOptions::default()
    };
    let task_app = app.clone();
    tauri::async_runtime::spawn(async move {
        let progress_app = task_app.clone();
        let result = sync::push(&mut ws, &signed.client, &options, move |p| {
            let _ = SyncProgress {
                done: u32::try_from(p.done).unwrap_or(u32::MAX),
                total: u32::try_from(p.total).unwrap_or(u32::MAX),
                seq: p.seq,
                status: p.status,
            }
            .emit(&progress_app);
        })
        .await;
        active.posting.store(false, Ordering::SeqCst);
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        let finished = match result {
            Ok(report) => SyncFinished {
                applied: n(report.applied.len()),
                failed: n(report.failed.len()),
                needs_review: n(report.needs_review.len()),
                conflicts: n(report.conflicts.len()),
                held: n(report.held.len()),
                unsent: n(report.unsent.len()),
                stopped: report.stopped,
            },
            Err(e) => {
                let e = on_session_error(&task_app, &active, e.into());
                SyncFinished {
                    applied: 0,
                    failed: 0,
                    needs_review: 0,
                    conflicts: 0,
                    held: 0,
                    unsent: 0,
                    stopped: Some(e.message),
                }
            }
        };
        let _ = finished.emit(&task_app);
        if let Some(state) = task_app.try_state::<AppState>() {
            announce(&task_app, &state).await;
        }
    });
    Ok(())
}
