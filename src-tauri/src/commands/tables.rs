//! Tables: windows onto the local workspace. A view asks for the rows it shows (filter,
//! sort, offset, limit) and gets them with the counts; the index behind them lives in the
//! core (`flightdeck_core::query`). Every listing reads the workspace, so tables work
//! offline and show drafts beside downloaded entities. `refresh` downloads from the
//! service.

use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, Creative, FlightCap, SiteList,
};
use flightdeck_offline::change::{EntityRef, Kind};
use serde::de::DeserializeOwned;
use tauri::{AppHandle, Runtime, State};
use tauri_specta::Event;

pub use flightdeck_core::PullSummary;
pub use flightdeck_core::query::{ColumnInfo, Row, SortBy, TableQuery, Window};

use super::{DownloadProgress, WorkspaceChanged, announce, on_pool, on_session_error};
use crate::error::Result;
use crate::state::AppState;

/// Downloads the account into the workspace, with progress events. Pending entities keep
/// the buyer's version.
#[tauri::command]
#[specta::specta]
pub async fn refresh<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<PullSummary> {
    let active = state.active().await?;
    let progress_app = app.clone();
    let progress = move |p| drop(DownloadProgress::from(p).emit(&progress_app));
    let result = active.refresh(progress).await;
    let (sum, changed) = result.map_err(|e| on_session_error(&app, &active, e.into()))?;
    let _ = WorkspaceChanged::of(&changed).emit(&app);
    announce(&app, &state).await;
    Ok(sum)
}

async fn window<T: DeserializeOwned + Send + 'static>(
    state: &AppState,
    kind: Kind,
    query: TableQuery,
) -> Result<Window<Row<T>>> {
    let active = state.active().await?;
    on_pool(move || active.window(kind, &query)).await
}

/// Advertisers: one window of the table.
#[tauri::command]
#[specta::specta]
pub async fn query_advertisers(
    state: State<'_, AppState>,
    query: TableQuery,
) -> Result<Window<Row<Advertiser>>> {
    window(&state, Kind::Advertiser, query).await
}

/// Campaigns with their flights: one window of all, or of one advertiser's (`parent`).
#[tauri::command]
#[specta::specta]
pub async fn query_campaigns(
    state: State<'_, AppState>,
    query: TableQuery,
) -> Result<Window<Row<Campaign>>> {
    window(&state, Kind::Campaign, query).await
}

/// Ad orders: one window of all, or of one campaign's (`parent`).
#[tauri::command]
#[specta::specta]
pub async fn query_ad_orders(
    state: State<'_, AppState>,
    query: TableQuery,
) -> Result<Window<Row<AdOrder>>> {
    window(&state, Kind::AdOrder, query).await
}

/// Creatives: one window: those made here and those downloaded from campaign listings.
#[tauri::command]
#[specta::specta]
pub async fn query_creatives(
    state: State<'_, AppState>,
    query: TableQuery,
) -> Result<Window<Row<Creative>>> {
    window(&state, Kind::Creative, query).await
}

/// Site lists: one window. The workspace is their only record.
#[tauri::command]
#[specta::specta]
pub async fn query_site_lists(
    state: State<'_, AppState>,
    query: TableQuery,
) -> Result<Window<Row<SiteList>>> {
    window(&state, Kind::SiteList, query).await
}

/// Audience segments: one window.
#[tauri::command]
#[specta::specta]
pub async fn query_audience_segments(
    state: State<'_, AppState>,
    query: TableQuery,
) -> Result<Window<Row<AudienceSegment>>> {
    window(&state, Kind::AudienceSegment, query).await
}

/// The columns of a kind's table, ids and headers, from the core's one list
/// (`flightdeck_core::query::columns`, which the CLI's listings print too): a header
/// sorts only when its id is here.
#[tauri::command]
#[specta::specta]
pub async fn table_columns(kind: Kind) -> Vec<ColumnInfo> {
    flightdeck_core::query::columns(kind)
}

/// The flight caps of one ad order, or `None` when none were downloaded or drafted.
#[tauri::command]
#[specta::specta]
pub async fn list_flight_caps(
    state: State<'_, AppState>,
    ad_order: EntityRef,
) -> Result<Option<Row<Vec<FlightCap>>>> {
    let active = state.active().await?;
    let target = EntityRef::new(Kind::FlightCaps, ad_order.key);
    on_pool(move || active.row(&target)).await
}
