//! Creative checks (warnings and infos; they never block a save or a post): a stored
//! creative's and a form's while it is edited, "Check all creatives" on a selection,
//! and "Fetch and check" of a VAST URL, only on the buyer's click. The checks are the
//! core's (`flightdeck_core::checks`).

use flightdeck_core::bulk::BulkScope;
use flightdeck_offline::change::EntityRef;
use tauri::State;

use super::on_pool;
use crate::error::{AppError, Result};
use crate::state::AppState;

pub use flightdeck_core::checks::{CreativeChecks, SelectionChecks, VastHop};
pub use flightdeck_offline::workspace::Draft;

/// A stored creative's findings and VAST summaries, for its form's "Checks" tab.
#[tauri::command]
#[specta::specta]
pub async fn creative_checks(
    state: State<'_, AppState>,
    target: EntityRef,
) -> Result<CreativeChecks> {
    let active = state.active().await?;
    on_pool(move || active.creative_checks(&target)).await
}

/// A form's findings while it is edited, as `validate` gives its errors; nothing saved.
#[tauri::command]
#[specta::specta]
pub async fn draft_checks(state: State<'_, AppState>, draft: Draft) -> Result<CreativeChecks> {
    let active = state.active().await?;
    on_pool(move || Ok(active.draft_checks(&draft))).await
}

/// "Check all creatives" on ticked rows or a table's "select all": counts, each rule's
/// count, and the first creatives with findings.
#[tauri::command]
#[specta::specta]
pub async fn check_creatives(
    state: State<'_, AppState>,
    scope: BulkScope,
) -> Result<SelectionChecks> {
    let active = state.active().await?;
    on_pool(move || active.check_creatives(&scope)).await
}

/// "Fetch and check" the VAST URL in field `path`: each document of the chain.
#[tauri::command]
#[specta::specta]
pub async fn fetch_vast(
    state: State<'_, AppState>,
    path: String,
    url: String,
) -> Result<Vec<VastHop>> {
    let active = state.active().await?;
    active.fetch_vast(&path, &url).await.map_err(AppError::from)
}
