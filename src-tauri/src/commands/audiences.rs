//! Audience data: identifiers read from the buyer's file, and each upload's outcome
//! (published and bad-record counts).
//!
//! An upload is saved as a form (`save` with an `audience_data` draft): the form sends one
//! country and the identifiers, and the workspace builds the body the service documents
//! (an array of `{serviceSegmentId, countryCode, values}` records), so the UI never names
//! a segment id it may not know yet.

use flightdeck_offline::change::EntityRef;
use tauri::State;

use super::on_pool;
use crate::error::Result;
use crate::state::AppState;

pub use flightdeck_core::forms::{IdentifierFile, UploadView};
pub use flightdeck_offline::workspace::UploadRequest;

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
