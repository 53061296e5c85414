//! Tables: windows onto the local workspace. A view asks for the rows it shows (filter,
//! sort, offset, limit) and gets them with the counts; the index behind them lives in the
//! core (`flightdeck_core::query`). Every listing reads the workspace, so tables work
//! offline and show drafts beside downloaded entities. `refresh` downloads from the
//! service.

use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, Creative, FlightCap, SiteList,
};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::PullScope;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{AppHandle, Runtime, State};
use tauri_specta::Event;

pub use flightdeck_core::query::{Row, SortBy, TableQuery, Window};

use super::{DownloadProgress, WorkspaceChanged, announce, on_pool, on_session_error};
use crate::error::Result;
use crate::state::AppState;

/// What a download found, summed over kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PullSummary {
    /// New on the service.
    pub added: u32,
    /// Changed on the service.
    pub changed: u32,
    /// Gone from the service.
    pub removed: u32,
    /// Changed on the service but kept as the buyer's version: they have pending changes.
    pub kept_pending: u32,
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

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
    let result = active
        .download(PullScope::All, move |p| {
            let _ = DownloadProgress::from(p).emit(&progress_app);
        })
        .await;
    let report = result.map_err(|e| on_session_error(&app, &active, e.into()))?;
    let mut sum = PullSummary {
        added: 0,
        changed: 0,
        removed: 0,
        kept_pending: 0,
    };
    for c in report.counts.values() {
        sum.added += count(c.added);
        sum.changed += count(c.changed);
        sum.removed += count(c.removed);
        sum.kept_pending += count(c.skipped_pending);
    }
    let _ = WorkspaceChanged::pulled(&report).emit(&app);
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

/// Creatives: one window. The workspace is their only record.
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
