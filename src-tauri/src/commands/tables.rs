//! Tables: every listing reads the local workspace, so they work offline and show drafts
//! beside downloaded entities. `refresh` downloads from the service.

use std::collections::HashMap;

use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, Creative, FlightCap, SiteList,
};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{Marker, PullScope, Workspace, read_only_reason};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{AppHandle, Runtime, State};

use super::{announce, on_session_error};
use crate::error::Result;
use crate::state::AppState;

/// One table row: the entity as the buyer sees it (pending edits applied) and how it
/// differs from the service.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Row<T> {
    /// Which entity.
    pub target: EntityRef,
    /// Its owner (advertiser, campaign, ad order), when known.
    pub parent: Option<EntityRef>,
    /// The working copy.
    pub value: T,
    /// New, changed, invalid, conflicting or failed; `None` when nothing is pending.
    pub marker: Option<Marker>,
    /// Something about it is not posted yet.
    pub pending: bool,
    /// How the row is named in lists, the palette and pending changes.
    pub label: String,
    /// Why the entity cannot be edited (a posted creative or segment: the service has no
    /// update for them), or `None` when it can. The form shows it and offers a copy.
    pub read_only: Option<String>,
}

/// One page of a long listing.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    /// The rows of this page.
    pub rows: Vec<T>,
    /// Rows in all pages.
    pub total: u32,
}

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

/// Downloads the account into the workspace. Pending entities keep the buyer's version.
#[tauri::command]
#[specta::specta]
pub async fn refresh<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<PullSummary> {
    let active = state.active()?;
    let signed = active.require_signed()?;
    let mut ws = active.open_workspace()?;
    let result = if signed.partner {
        // Data partners may only use the audience endpoints.
        ws.pull_with(
            &signed.client,
            PullScope::All,
            flightdeck_offline::workspace::PullOptions {
                business: false,
                ..flightdeck_offline::workspace::PullOptions::default()
            },
            |_| {},
        )
        .await
    } else {
        ws.pull(&signed.client, PullScope::All, |_| {}).await
    };
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
    announce(&app, &state).await;
    Ok(sum)
}

fn rows<T: DeserializeOwned>(
    state: &AppState,
    kind: Kind,
    parent: Option<&EntityRef>,
    label: impl Fn(&T, &EntityRef) -> String,
) -> Result<Vec<Row<T>>> {
    let active = state.active()?;
    let ws = active.workspace()?;
    rows_of(&ws, kind, parent, label)
}

/// The rows of one kind (optionally one parent's), decoded and marked: the work behind
/// every table command, public for the benchmark.
pub fn rows_of<T: DeserializeOwned>(
    ws: &Workspace,
    kind: Kind,
    parent: Option<&EntityRef>,
    label: impl Fn(&T, &EntityRef) -> String,
) -> Result<Vec<Row<T>>> {
    let markers: HashMap<EntityRef, Marker> = ws.markers(kind)?;
    Ok(ws
        .list_as::<T>(kind, parent)?
        .into_iter()
        .map(|e| Row {
            label: label(&e.value, &e.target),
            marker: markers.get(&e.target).copied(),
            read_only: read_only_reason(&e.target).map(str::to_owned),
            target: e.target,
            parent: e.parent,
            value: e.value,
            pending: e.pending,
        })
        .collect())
}

/// One entity's row, or `None` when the workspace does not hold it.
pub fn row_of<T: DeserializeOwned>(
    ws: &Workspace,
    target: &EntityRef,
    label: impl Fn(&T, &EntityRef) -> String,
) -> Result<Option<Row<T>>> {
    let Some(e) = ws.get(target)? else {
        return Ok(None);
    };
    let value: T = serde_json::from_value(e.working)?;
    let marker = ws.markers(target.kind)?.get(target).copied();
    Ok(Some(Row {
        label: label(&value, &e.target),
        marker,
        read_only: read_only_reason(&e.target).map(str::to_owned),
        target: e.target,
        parent: e.parent,
        value,
        pending: e.pending,
    }))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Advertiser => "advertiser",
        Kind::Campaign => "campaign",
        Kind::Flight => "flight",
        Kind::AdOrder => "ad order",
        Kind::FlightCaps => "flight caps",
        Kind::Creative => "creative",
        Kind::SiteList => "site list",
        Kind::AudienceSegment => "audience segment",
    }
}

/// A row's label: its name, or its kind and key when it has none.
pub fn named(name: Option<&str>, target: &EntityRef) -> String {
    match name {
        Some(n) if !n.trim().is_empty() => n.to_owned(),
        _ => format!("{} {}", kind_name(target.kind), target.key),
    }
}

/// Advertisers.
#[tauri::command]
#[specta::specta]
pub fn list_advertisers(state: State<'_, AppState>) -> Result<Vec<Row<Advertiser>>> {
    rows(&state, Kind::Advertiser, None, |a: &Advertiser, e| {
        named(a.name.as_deref(), e)
    })
}

/// Campaigns, all or one advertiser's, with their flights.
#[tauri::command]
#[specta::specta]
pub fn list_campaigns(
    state: State<'_, AppState>,
    advertiser: Option<EntityRef>,
) -> Result<Vec<Row<Campaign>>> {
    rows(
        &state,
        Kind::Campaign,
        advertiser.as_ref(),
        |c: &Campaign, e| named(c.name.as_deref(), e),
    )
}

/// Ad orders, all or one campaign's.
#[tauri::command]
#[specta::specta]
pub fn list_ad_orders(
    state: State<'_, AppState>,
    campaign: Option<EntityRef>,
) -> Result<Vec<Row<AdOrder>>> {
    rows(
        &state,
        Kind::AdOrder,
        campaign.as_ref(),
        |o: &AdOrder, e| named(o.name.as_deref(), e),
    )
}

/// The flight caps of one ad order, or `None` when none were downloaded or drafted.
#[tauri::command]
#[specta::specta]
pub fn list_flight_caps(
    state: State<'_, AppState>,
    ad_order: EntityRef,
) -> Result<Option<Row<Vec<FlightCap>>>> {
    let target = EntityRef::new(Kind::FlightCaps, ad_order.key.clone());
    let all = rows(&state, Kind::FlightCaps, None, |_: &Vec<FlightCap>, e| {
        format!("flight caps of ad order {}", e.key)
    })?;
    Ok(all.into_iter().find(|r| r.target == target))
}

/// Creatives, all or one advertiser's. The workspace is their only record.
#[tauri::command]
#[specta::specta]
pub fn list_creatives(
    state: State<'_, AppState>,
    advertiser: Option<EntityRef>,
) -> Result<Vec<Row<Creative>>> {
    rows(
        &state,
        Kind::Creative,
        advertiser.as_ref(),
        |c: &Creative, e| named(c.name.as_deref(), e),
    )
}

/// Site lists. The workspace is their only record.
#[tauri::command]
#[specta::specta]
pub fn list_site_lists(state: State<'_, AppState>) -> Result<Vec<Row<SiteList>>> {
    rows(&state, Kind::SiteList, None, |s: &SiteList, e| {
        named(s.name.as_deref(), e)
    })
}

/// Audience segments, one page at a time.
#[tauri::command]
#[specta::specta]
pub fn list_audience_segments(
    state: State<'_, AppState>,
    offset: u32,
    limit: u32,
) -> Result<Page<Row<AudienceSegment>>> {
    let all = rows(
        &state,
        Kind::AudienceSegment,
        None,
        |s: &AudienceSegment, e| named(s.name.as_deref(), e),
    )?;
    let total = count(all.len());
    let rows = all
        .into_iter()
        .skip(offset as usize)
        .take(limit.max(1) as usize)
        .collect();
    Ok(Page { rows, total })
}
