//! Pending changes: review with diffs, check, post in the background, discard, and
//! resolve conflicts field by field.

use std::collections::BTreeSet;
use std::sync::Arc;

use flightdeck_core::Account;
use flightdeck_offline::sync::{PushProgress, PushReport};
use tauri::{AppHandle, Manager, Runtime, State};
use tauri_specta::Event;

use super::{SyncFinished, SyncProgress, WorkspaceChanged, announce, on_pool, on_session_error};
use crate::error::{ErrorCode, Result};
use crate::state::AppState;

pub use flightdeck_core::pending::{ChangeView, CheckSummary, ConflictPick, ReviewView};
use flightdeck_core::query::{TableQuery, Window};
pub use flightdeck_offline::workspace::Review;

/// One window of the pending changes, each with its diff, errors, messages and
/// conflicts (`parent` is ignored; `sort` on `seq` descending shows the newest first).
#[tauri::command]
#[specta::specta]
pub async fn query_pending_changes(
    state: State<'_, AppState>,
    query: TableQuery,
) -> Result<Window<ChangeView>> {
    let active = state.active().await?;
    on_pool(move || active.pending_window(&query)).await
}

/// The numbers of the pending changes a query selects: what "select all" of a filtered
/// review posts or discards (numbers only, never the changes).
#[tauri::command]
#[specta::specta]
pub async fn pending_seqs(state: State<'_, AppState>, query: TableQuery) -> Result<Vec<i64>> {
    let active = state.active().await?;
    on_pool(move || active.pending_seqs(&query)).await
}

/// Re-validates every pending change ("Check changes"); the views showing them refresh.
#[tauri::command]
#[specta::specta]
pub async fn check_changes<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<CheckSummary> {
    let active = state.active().await?;
    let summary = on_pool(move || active.check_changes()).await?;
    let _ = WorkspaceChanged::everything().emit(&app);
    Ok(summary)
}

/// Discards changes (drafts that depend on them go too); returns every seq removed.
#[tauri::command]
#[specta::specta]
pub async fn discard_changes<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    seqs: Vec<i64>,
) -> Result<Vec<i64>> {
    let active = state.active().await?;
    let removed = on_pool(move || active.discard(&seqs)).await?;
    let _ = WorkspaceChanged::everything().emit(&app);
    announce(&app, &state).await;
    Ok(removed)
}

/// Resolves a conflict: one pick per conflicting field. The change goes back to pending.
#[tauri::command]
#[specta::specta]
pub async fn resolve_conflict<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    seq: i64,
    picks: Vec<ConflictPick>,
) -> Result<()> {
    let active = state.active().await?;
    on_pool(move || active.resolve_conflict(seq, picks)).await?;
    let _ = WorkspaceChanged::everything().emit(&app);
    Ok(())
}

/// What is known about a change that needs review: what was sent, its reference, when
/// it left, and what to look for on the ad platform.
#[tauri::command]
#[specta::specta]
pub async fn review_change(state: State<'_, AppState>, seq: i64) -> Result<ReviewView> {
    let active = state.active().await?;
    on_pool(move || active.review(seq)).await
}

/// Settles a change that needs review: post it again, or mark it created with the ad
/// platform's id. The views showing it refresh.
#[tauri::command]
#[specta::specta]
pub async fn settle_review<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    seq: i64,
    review: Review,
) -> Result<()> {
    let active = state.active().await?;
    on_pool(move || active.settle_review(seq, review)).await?;
    let _ = WorkspaceChanged::everything().emit(&app);
    announce(&app, &state).await;
    Ok(())
}

/// Starts posting in the background: all pending changes, or `seqs` and what they
/// depend on. Progress arrives as `SyncProgress` events, the end as `SyncFinished`.
/// Editing stays possible meanwhile (posting has its own workspace connection). When the
/// service cannot be reached, the post stops at once (`SyncFinished.unreachable`), the
/// changes wait, and posting resumes by itself once the service answers again.
#[tauri::command]
#[specta::specta]
pub async fn post_changes<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    seqs: Option<Vec<i64>>,
) -> Result<()> {
    let active = state.active().await?;
    let guard = active.begin_post()?;
    announce(&app, &state).await;
    let only = seqs.map(|s| s.into_iter().collect::<BTreeSet<i64>>());
    tauri::async_runtime::spawn(async move {
        let progress = progress_events(app.clone());
        let done = |result| finished(app.clone(), active.clone(), result);
        active.post_until_settled(guard, only, progress, done).await;
    });
    Ok(())
}

/// Each settled change as a `SyncProgress` event.
fn progress_events<R: Runtime>(app: AppHandle<R>) -> impl FnMut(PushProgress) + Send + Clone {
    move |p| {
        let _ = SyncProgress {
            done: u32::try_from(p.done).unwrap_or(u32::MAX),
            total: u32::try_from(p.total).unwrap_or(u32::MAX),
            seq: p.seq,
            status: p.status,
        }
        .emit(&app);
    }
}

/// The end of one post: `SyncFinished`, then the views and the shell refresh.
async fn finished<R: Runtime>(
    app: AppHandle<R>,
    active: Arc<Account>,
    result: flightdeck_core::Result<PushReport>,
) {
    let changed = WorkspaceChanged::posted(&active, result.as_ref().ok());
    let _ = sync_finished(&app, &active, result).emit(&app);
    let _ = changed.emit(&app);
    if let Some(state) = app.try_state::<AppState>() {
        announce(&app, &state).await;
    }
}

/// How a post ended, as the UI hears it.
fn sync_finished<R: Runtime>(
    app: &AppHandle<R>,
    active: &Arc<Account>,
    result: flightdeck_core::Result<PushReport>,
) -> SyncFinished {
    let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    match result {
        Ok(report) => SyncFinished {
            applied: n(report.applied.len()),
            failed: n(report.failed.len()),
            needs_review: n(report.needs_review.len()),
            conflicts: n(report.conflicts.len()),
            held: n(report.held.len()),
            unsent: n(report.unsent.len()),
            stopped: report.stopped,
            unreachable: report.unreachable,
        },
        Err(e) => {
            let e = on_session_error(app, active, e.into());
            // Offline (the local sandbox stopped mid-post): the changes wait, as when
            // the service cannot be reached.
            let offline = e.code == ErrorCode::Offline;
            SyncFinished {
                applied: 0,
                failed: 0,
                needs_review: 0,
                conflicts: 0,
                held: 0,
                unsent: 0,
                stopped: (!offline).then(|| e.message.clone()),
                unreachable: offline.then_some(e.message),
            }
        }
    }
}
