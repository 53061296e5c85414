//! Bulk work: multi-row edit, find and replace, paste and import, export and copy,
//! duplicate, undo and redo, and the money review. Every operation previews with
//! `apply: false` and applies as one undo step with `apply: true`.

use tauri::{AppHandle, Runtime, State};
use tauri_specta::Event;

use super::{WorkspaceChanged, announce, on_pool};
use crate::error::Result;
use crate::state::AppState;

pub use flightdeck_offline::bulk::money::MoneySummary;
pub use flightdeck_offline::bulk::ops::FieldEdit;
pub use flightdeck_offline::bulk::plan::{DuplicateOptions, Scope};
pub use flightdeck_offline::bulk::replace::Find;
pub use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions};
use flightdeck_offline::change::EntityRef;
pub use flightdeck_offline::workspace::{HistoryStep, Preview, Undone};

/// Tells the views what an applied preview changed, and the shell its pending count.
async fn changed<R: Runtime>(app: &AppHandle<R>, state: &AppState, preview: &Preview) {
    if preview.step.is_some() {
        let _ = WorkspaceChanged::everything().emit(app);
        announce(app, state).await;
    }
}

/// "Edit N selected": previews, or applies as one undo step.
#[tauri::command]
#[specta::specta]
pub async fn bulk_edit<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    targets: Vec<EntityRef>,
    edits: Vec<FieldEdit>,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let preview = on_pool(move || active.bulk_edit(&targets, &edits, apply)).await?;
    changed(&app, &state, &preview).await;
    Ok(preview)
}

/// Find and replace in text fields.
#[tauri::command]
#[specta::specta]
pub async fn find_replace<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    scope: Scope,
    find: Find,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let preview = on_pool(move || active.replace(&scope, &find, apply)).await?;
    changed(&app, &state, &preview).await;
    Ok(preview)
}

/// Paste rows from a spreadsheet, or import a CSV or TSV file's text.
#[tauri::command]
#[specta::specta]
pub async fn import_sheet<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    text: String,
    options: ImportOptions,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let preview = on_pool(move || active.import_sheet(&text, &options, apply)).await?;
    changed(&app, &state, &preview).await;
    Ok(preview)
}

/// The entities of `scope` as CSV or TSV text (copy, export).
#[tauri::command]
#[specta::specta]
pub async fn export_sheet(
    state: State<'_, AppState>,
    scope: Scope,
    delimiter: Delimiter,
) -> Result<String> {
    let active = state.active().await?;
    on_pool(move || active.export_sheet(&scope, delimiter)).await
}

/// Copies entities as new drafts.
#[tauri::command]
#[specta::specta]
pub async fn duplicate_many<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    sources: Vec<EntityRef>,
    options: DuplicateOptions,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let preview = on_pool(move || active.duplicate_many(&sources, &options, apply)).await?;
    changed(&app, &state, &preview).await;
    Ok(preview)
}

/// Undoes the latest local edit (`None`: nothing to undo).
#[tauri::command]
#[specta::specta]
pub async fn undo<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Option<Undone>> {
    let active = state.active().await?;
    let done = on_pool(move || active.undo()).await?;
    if done.is_some() {
        let _ = WorkspaceChanged::everything().emit(&app);
        announce(&app, &state).await;
    }
    Ok(done)
}

/// Redoes the latest undone edit (`None`: nothing to redo).
#[tauri::command]
#[specta::specta]
pub async fn redo<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Option<Undone>> {
    let active = state.active().await?;
    let done = on_pool(move || active.redo()).await?;
    if done.is_some() {
        let _ = WorkspaceChanged::everything().emit(&app);
        announce(&app, &state).await;
    }
    Ok(done)
}

/// A posted step put back by a new edit.
#[tauri::command]
#[specta::specta]
pub async fn revert_step<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    step: i64,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let preview = on_pool(move || active.revert(step, apply)).await?;
    changed(&app, &state, &preview).await;
    Ok(preview)
}

/// The latest local edits, newest first.
#[tauri::command]
#[specta::specta]
pub async fn edit_history(state: State<'_, AppState>) -> Result<Vec<HistoryStep>> {
    let active = state.active().await?;
    on_pool(move || active.history(50)).await
}

/// What the pending changes do to budgets and bids, with roll-up warnings.
#[tauri::command]
#[specta::specta]
pub async fn money_summary(state: State<'_, AppState>) -> Result<MoneySummary> {
    let active = state.active().await?;
    on_pool(move || active.money_summary()).await
}

/// Imports a file the buyer picked (through the dialog plugin): a preview, or applied as
/// one undo step.
#[tauri::command]
#[specta::specta]
pub async fn import_file<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
    kind: Option<flightdeck_offline::change::Kind>,
    parent: Option<EntityRef>,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let preview =
        on_pool(move || active.import_file(std::path::Path::new(&path), kind, parent, apply))
            .await?;
    changed(&app, &state, &preview).await;
    Ok(preview)
}

/// Writes the entities of `scope` to the file the buyer picked; returns the rows written.
#[tauri::command]
#[specta::specta]
pub async fn export_file(state: State<'_, AppState>, path: String, scope: Scope) -> Result<u32> {
    let active = state.active().await?;
    let n = on_pool(move || active.export_file(std::path::Path::new(&path), &scope)).await?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// What a "select all" of a filtered table covers, less the rows unticked since.
#[tauri::command]
#[specta::specta]
pub async fn selected_targets(
    state: State<'_, AppState>,
    kind: flightdeck_offline::change::Kind,
    query: flightdeck_core::query::TableQuery,
    except: Vec<EntityRef>,
) -> Result<Vec<EntityRef>> {
    let active = state.active().await?;
    on_pool(move || active.selected_targets(kind, &query, &except)).await
}

/// Where a copy of an entity of `kind` can go: the kinds it can hang under (none: beside
/// the original only).
#[tauri::command]
#[specta::specta]
pub fn parent_kinds(
    kind: flightdeck_offline::change::Kind,
) -> Vec<flightdeck_core::bulk::KindChoice> {
    flightdeck_core::bulk::parent_kinds(kind)
}
