//! The campaign- and ad-order-scoped listings: refreshing one campaign, an ad order's
//! associated creatives, and the note a downloaded creative's form shows. Each is an
//! adapter over the core's `Account` (`flightdeck_core::session::trafficking`).

use flightdeck_offline::change::EntityRef;
use tauri::{AppHandle, Runtime, State};
use tauri_specta::Event;

pub use flightdeck_core::{AdOrderCreatives, AssociatedCreative, PullSummary};

use super::{WorkspaceChanged, announce, on_pool, on_session_error};
use crate::error::Result;
use crate::state::AppState;

/// Downloads one campaign's ad orders and creatives; the views showing them refresh.
#[tauri::command]
#[specta::specta]
pub async fn refresh_campaign<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    campaign_id: i64,
) -> Result<PullSummary> {
    let active = state.active().await?;
    let result = active.refresh_campaign(campaign_id).await;
    let (sum, changed) = result.map_err(|e| on_session_error(&app, &active, e.into()))?;
    let _ = WorkspaceChanged::of(&changed).emit(&app);
    announce(&app, &state).await;
    Ok(sum)
}

/// An ad order's associated creatives: fetched now when the service answers, else as
/// last fetched.
#[tauri::command]
#[specta::specta]
pub async fn ad_order_creatives(
    state: State<'_, AppState>,
    ad_order_id: i64,
) -> Result<AdOrderCreatives> {
    let active = state.active().await?;
    Ok(active.ad_order_creatives(ad_order_id).await?)
}

/// What a creative's form says the service does not give, if anything.
#[tauri::command]
#[specta::specta]
pub async fn creative_note(
    state: State<'_, AppState>,
    target: EntityRef,
) -> Result<Option<String>> {
    let active = state.active().await?;
    on_pool(move || Ok(active.creative_note(&target)?.map(str::to_owned))).await
}
