//! Bulk work: multi-row edit, find and replace, paste and import, export and copy,
//! duplicate, undo and redo, and the money review. Every operation previews with
//! `apply: false` and applies as one undo step with `apply: true`. Operations on rows
//! take a [`BulkScope`]: a table's "select all" is its query, resolved on the Rust side,
//! never a list of ids. An answer carries the counts and the first rows; the others are
//! read a window at a time (`preview_rows`).

use flightdeck_core::files::FileUse;
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{AppHandle, Runtime, State, Window};
use tauri_plugin_dialog::{DialogExt, FileDialogBuilder, FilePath};
use tauri_specta::Event;

use super::{WorkspaceChanged, announce, on_pool};
use crate::error::{AppError, Result};
use crate::state::AppState;

pub use flightdeck_core::bulk::{BulkDone, BulkScope, Changed, TableSelection};
use flightdeck_core::query::Window as TableWindow;
pub use flightdeck_offline::bulk::money::MoneySummary;
pub use flightdeck_offline::bulk::ops::FieldEdit;
pub use flightdeck_offline::bulk::plan::DuplicateOptions;
pub use flightdeck_offline::bulk::replace::Find;
pub use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions, SheetFormat};
use flightdeck_offline::change::EntityRef;
pub use flightdeck_offline::workspace::{HistoryStep, Preview, RowPreview, StatusChoice, Undone};

/// Tells the views what an applied operation changed, and the shell its pending count;
/// answers the preview.
pub(super) async fn changed<R: Runtime>(
    app: &AppHandle<R>,
    state: &AppState,
    done: BulkDone,
) -> Preview {
    if done.preview.step.is_some() {
        let _ = WorkspaceChanged::of(&done.changed).emit(app);
        announce(app, state).await;
    }
    done.preview
}

/// Tells the views what an undo or redo changed back; the answer names those entities
/// only when they are few enough for an event ([`super::MAX_EVENT_IDS`]).
async fn stepped<R: Runtime>(
    app: &AppHandle<R>,
    state: &AppState,
    done: Option<Undone>,
) -> Option<Undone> {
    let mut done = done?;
    let changed = Changed {
        targets: std::mem::take(&mut done.targets),
        added_or_removed: done.added_or_removed,
    };
    let event = WorkspaceChanged::of(&changed);
    done.targets = event.ids.clone();
    let _ = event.emit(app);
    announce(app, state).await;
    Some(done)
}

/// "Edit N selected": previews, or applies as one undo step.
#[tauri::command]
#[specta::specta]
pub async fn bulk_edit<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    scope: BulkScope,
    edits: Vec<FieldEdit>,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let done = on_pool(move || active.bulk_edit(&scope, &edits, apply)).await?;
    Ok(changed(&app, &state, done).await)
}

/// Launch, pause, archive or make inactive the ad orders of `scope`: previews, or
/// queues one pending status change each as one undo step.
#[tauri::command]
#[specta::specta]
pub async fn set_status<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    scope: BulkScope,
    status: StatusChoice,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let done = on_pool(move || active.set_status(&scope, status.into(), apply)).await?;
    Ok(changed(&app, &state, done).await)
}

/// Find and replace in text fields.
#[tauri::command]
#[specta::specta]
pub async fn find_replace<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    scope: BulkScope,
    find: Find,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let done = on_pool(move || active.replace(&scope, &find, apply)).await?;
    Ok(changed(&app, &state, done).await)
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
    let done = on_pool(move || active.import_sheet(&text, &options, apply)).await?;
    Ok(changed(&app, &state, done).await)
}

/// The entities of `scope` as CSV or TSV text in `format` (copy, export).
#[tauri::command]
#[specta::specta]
pub async fn export_sheet(
    state: State<'_, AppState>,
    scope: BulkScope,
    delimiter: Delimiter,
    format: SheetFormat,
) -> Result<String> {
    let active = state.active().await?;
    on_pool(move || active.export_sheet(&scope, delimiter, format)).await
}

/// Copies entities as new drafts.
#[tauri::command]
#[specta::specta]
pub async fn duplicate_many<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    scope: BulkScope,
    options: DuplicateOptions,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let done = on_pool(move || active.duplicate_many(&scope, &options, apply)).await?;
    Ok(changed(&app, &state, done).await)
}

/// Undoes the latest local edit (`None`: nothing to undo); `targets` names what it
/// changed back when that is no more than [`super::MAX_EVENT_IDS`] entities.
#[tauri::command]
#[specta::specta]
pub async fn undo<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Option<Undone>> {
    let active = state.active().await?;
    let done = on_pool(move || active.undo()).await?;
    Ok(stepped(&app, &state, done).await)
}

/// Redoes the latest undone edit (`None`: nothing to redo); `targets` as for `undo`.
#[tauri::command]
#[specta::specta]
pub async fn redo<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Option<Undone>> {
    let active = state.active().await?;
    let done = on_pool(move || active.redo()).await?;
    Ok(stepped(&app, &state, done).await)
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
    let done = on_pool(move || active.revert(step, apply)).await?;
    Ok(changed(&app, &state, done).await)
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

/// A file the buyer chose in a dialog: the token import and export take, and its path to
/// show. The page never hands a path to a command.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ChosenFile {
    /// Stands for the file until the app exits.
    pub token: String,
    /// Where it is, for the buyer to read.
    pub path: String,
}

/// Shows the open dialog for an import; `None` when the buyer closed it.
#[tauri::command]
#[specta::specta]
pub async fn pick_import_file<R: Runtime>(
    window: Window<R>,
    state: State<'_, AppState>,
    title: String,
) -> Result<Option<ChosenFile>> {
    let dialog = window.dialog().file().set_title(title);
    let dialog = dialog.add_filter("CSV or TSV", &["csv", "tsv", "txt"]);
    choose(&window, &state, dialog, FileUse::Read).await
}

/// Shows the save dialog for an export; `None` when the buyer closed it.
#[tauri::command]
#[specta::specta]
pub async fn pick_export_file<R: Runtime>(
    window: Window<R>,
    state: State<'_, AppState>,
    title: String,
) -> Result<Option<ChosenFile>> {
    let dialog = window.dialog().file().set_title(title);
    let dialog = dialog
        .add_filter("CSV", &["csv"])
        .add_filter("TSV", &["tsv"]);
    choose(&window, &state, dialog, FileUse::Write).await
}

/// Waits for the dialog (shown by the plugin on the main thread) without blocking a
/// thread, and gives the chosen file a token.
pub(super) async fn choose<R: Runtime>(
    window: &Window<R>,
    state: &AppState,
    dialog: FileDialogBuilder<R>,
    use_: FileUse,
) -> Result<Option<ChosenFile>> {
    // As the plugin's own commands do: GTK has no use for the parent.
    #[cfg(any(windows, target_os = "macos"))]
    let dialog = dialog.set_parent(window);
    #[cfg(not(any(windows, target_os = "macos")))]
    let _ = window;
    let (tx, rx) = tokio::sync::oneshot::channel();
    let done = move |picked: Option<FilePath>| {
        let _ = tx.send(picked);
    };
    match use_ {
        FileUse::Read => dialog.pick_file(done),
        FileUse::Write => dialog.save_file(done),
    }
    let Some(picked) = rx.await.ok().flatten() else {
        return Ok(None);
    };
    let path = picked
        .into_path()
        .map_err(|e| AppError::state(format!("the file chosen cannot be opened: {e}")))?;
    Ok(Some(ChosenFile {
        path: path.display().to_string(),
        token: state.files().choose(path, use_),
    }))
}

/// Imports the file chosen with `pick_import_file` (`file` is its token): a preview, or
/// applied as one undo step.
#[tauri::command]
#[specta::specta]
pub async fn import_file<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    file: String,
    kind: Option<flightdeck_offline::change::Kind>,
    parent: Option<EntityRef>,
    apply: bool,
) -> Result<Preview> {
    let path = state.files().path(&file, FileUse::Read)?;
    let active = state.active().await?;
    let done = on_pool(move || active.import_file(&path, kind, parent, apply)).await?;
    Ok(changed(&app, &state, done).await)
}

/// Writes the entities of `scope` in `format` to the file chosen with `pick_export_file`
/// (`file` is its token), whole or not at all; returns the rows written.
#[tauri::command]
#[specta::specta]
pub async fn export_file(
    state: State<'_, AppState>,
    file: String,
    scope: BulkScope,
    format: SheetFormat,
) -> Result<u32> {
    let path = state.files().path(&file, FileUse::Write)?;
    let active = state.active().await?;
    let n = on_pool(move || active.export_file(&path, &scope, format)).await?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// A window of the rows of the preview (or applied result) the buyer is looking at:
/// `rowsId` from its answer, up to `limit` rows from `offset`.
#[tauri::command]
#[specta::specta]
pub async fn preview_rows(
    state: State<'_, AppState>,
    rows_id: u32,
    offset: u32,
    limit: u32,
) -> Result<TableWindow<RowPreview>> {
    let active = state.active().await?;
    on_pool(move || active.preview_rows(rows_id, offset, limit)).await
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

/// A kind's fields by the labels the grid and forms show, with their wire paths: what
/// bulk edit and find and replace offer (`flightdeck_core::fields`), whatever rows are
/// selected.
#[tauri::command]
#[specta::specta]
pub async fn edit_fields(
    kind: flightdeck_offline::change::Kind,
) -> Vec<flightdeck_core::fields::FieldInfo> {
    flightdeck_core::fields::fields(kind)
}

/// Which of `paths` the form's `draft` needs, by the model's rules: its "required"
/// marks (`flightdeck_core::fields::required`); `create` for an entity not yet posted.
#[tauri::command]
#[specta::specta]
pub async fn required_fields(
    draft: flightdeck_offline::workspace::Draft,
    create: bool,
    paths: Vec<String>,
) -> Vec<String> {
    flightdeck_core::fields::required_in(&draft, create, &paths)
}
