//! Audience data: identifiers read from the buyer's file, uploads queued in the
//! workspace, and each upload's outcome (published and bad-record counts).
//!
//! The form sends one country and the identifiers; the upload body the service documents
//! (an array of `{serviceSegmentId, countryCode, values}` records) is built in the core
//! (`flightdeck_core::upload`, shared with the CLI), so the UI never names a segment id
//! it may not know yet.

use flightdeck_offline::change::EntityRef;
use tauri::{AppHandle, Runtime, State};

use super::forms::{Saved, announce_saved};
use super::on_pool;
use crate::error::Result;
use crate::state::AppState;

pub use flightdeck_core::forms::{IdentifierFile, UploadView};
pub use flightdeck_offline::workspace::UploadRequest;

/// Queues an upload of identifiers to a segment (downloaded or draft; a posted segment
/// takes uploads though its own fields are read-only). An upload that breaks the rules
/// is refused by the workspace with its field errors (at the form's paths), nothing
/// queued: it could never be posted.
#[tauri::command]
#[specta::specta]
pub async fn upload_audience_data<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    segment: EntityRef,
    upload: UploadRequest,
) -> Result<Saved> {
    let active = state.active().await?;
    let saved = on_pool(move || active.upload_audience_data(segment, &upload)).await;
    announce_saved(&app, saved)
}

/// Reads identifiers from a file's text: one per line, or one column of a CSV
/// (`column` names it; without it the header decides).
#[tauri::command]
#[specta::specta]
pub async fn read_identifiers(text: String, column: Option<String>) -> Result<IdentifierFile> {
    on_pool(move || flightdeck_core::forms::read_identifiers(text, column)).await
}

/// The uploads of a segment, oldest first, with their counts.
#[tauri::command]
#[specta::specta]
pub async fn audience_uploads(
    state: State<'_, AppState>,
    segment: EntityRef,
) -> Result<Vec<UploadView>> {
    let active = state.active().await?;
    on_pool(move || active.audience_uploads(&segment)).await
}
