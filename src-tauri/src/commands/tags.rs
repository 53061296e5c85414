//! Tag-sheet import (File → Import tag sheet…): the open dialog for a tag sheet, its
//! preview a window at a time, applying it as draft creatives in one undo step, and
//! saving the mapping dialog's columns as a preset. The work is the core's
//! (`flightdeck_core::tagsheet`); the page names the file by the dialog's token only.

use flightdeck_core::files::FileUse;
use flightdeck_core::tagsheet::{self, ColumnChoice, TagApplied, TagMapping, TagPreview};
use flightdeck_offline::change::EntityRef;
use tauri::{AppHandle, Runtime, State, Window};
use tauri_plugin_dialog::DialogExt;
use tauri_specta::Event;

use super::bulk::{ChosenFile, choose};
use super::{WorkspaceChanged, announce, on_pool};
use crate::error::Result;
use crate::state::AppState;

/// Shows the open dialog for a tag sheet (XLSX, XLS, ODS, CSV, TSV); `None` when the
/// buyer closed it.
#[tauri::command]
#[specta::specta]
pub async fn pick_tag_sheet<R: Runtime>(
    window: Window<R>,
    state: State<'_, AppState>,
    title: String,
) -> Result<Option<ChosenFile>> {
    let dialog = window.dialog().file().set_title(title);
    let dialog = dialog.add_filter("Tag sheet", &["xlsx", "xls", "ods", "csv", "tsv", "txt"]);
    choose(&window, &state, dialog, FileUse::Read).await
}

/// The preview of the tag sheet `file` (a `pick_tag_sheet` token) with `mapping`:
/// counts, the header and presets for the mapping dialog, and `limit` rows from
/// `offset`. Nothing is saved.
#[tauri::command]
#[specta::specta]
pub async fn preview_tag_sheet(
    state: State<'_, AppState>,
    file: String,
    mapping: TagMapping,
    offset: u32,
    limit: u32,
) -> Result<TagPreview> {
    let path = state.files().path(&file, FileUse::Read)?;
    let dir = state.dir().to_owned();
    on_pool(move || tagsheet::preview_file(&dir, &path, &mapping, offset, limit)).await
}

/// Makes a draft creative of every row of `file` without a cell to fix, under `parent`
/// (a campaign or an advertiser), as one undo step.
#[tauri::command]
#[specta::specta]
pub async fn apply_tag_sheet<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    file: String,
    mapping: TagMapping,
    parent: EntityRef,
) -> Result<TagApplied> {
    let path = state.files().path(&file, FileUse::Read)?;
    let (dir, active) = (state.dir().to_owned(), state.active().await?);
    let done =
        on_pool(move || active.import_tags(&path, &mapping, &tagsheet::presets(&dir)?, &parent))
            .await?;
    let _ = WorkspaceChanged::of(&done.changed).emit(&app);
    announce(&app, &state).await;
    Ok(done.applied())
}

/// Saves the mapping dialog's columns as a preset named `name`; answers every
/// preset's name, saved first.
#[tauri::command]
#[specta::specta]
pub async fn save_tag_preset(
    state: State<'_, AppState>,
    name: String,
    columns: Vec<ColumnChoice>,
) -> Result<Vec<String>> {
    let dir = state.dir().to_owned();
    on_pool(move || {
        tagsheet::save_preset(&dir, &name, columns)?;
        Ok(tagsheet::preset_names(&tagsheet::presets(&dir)?))
    })
    .await
}
