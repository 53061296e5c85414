//! Forms: live validation by `flightdeck-model`'s rules, and saving edits into the
//! workspace. Every save lands at once, even offline, and an invalid draft is kept with
//! its errors (it is never posted until fixed).

use flightdeck_model::validate;
use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, CampaignFlight, Creative, CreativeSubtype,
    CreativeType, FieldError, MediaType, Millis, SiteList, TimezoneName,
};
use flightdeck_offline::change::EntityRef;
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{AppHandle, Runtime, State};
use tauri_specta::Event;

use super::{WorkspaceChanged, on_pool};
use crate::error::{AppError, Result};
use crate::state::AppState;

pub use flightdeck_offline::workspace::SiteListEdit;

pub use flightdeck_core::edits::{CapOnFlight, Duplicate, Saved};
pub use flightdeck_core::forms::{CapChoices, CapFlight};
pub use flightdeck_offline::workspace::Draft;

/// Something saved: its view refreshes (and only it).
pub trait SavedTarget {
    /// The entity saved.
    fn saved_target(&self) -> &EntityRef;
}

impl SavedTarget for Saved {
    fn saved_target(&self) -> &EntityRef {
        &self.target
    }
}

impl SavedTarget for Duplicate {
    fn saved_target(&self) -> &EntityRef {
        self.target()
    }
}

/// Tells the views showing the saved entity's kind to refresh; passes the result on.
pub fn announce_saved<R: Runtime, T: SavedTarget>(
    app: &AppHandle<R>,
    result: Result<T>,
) -> Result<T> {
    if let Ok(saved) = &result {
        let _ = WorkspaceChanged::saved(saved.saved_target()).emit(app);
    }
    result
}

/// Broken rules of a form's content, exactly as saving it would record them. `parent` is
/// the entity the form hangs under (advertiser of a campaign, campaign of an ad order,
/// segment of an upload), draft or not.
#[tauri::command]
#[specta::specta]
pub async fn validate(
    state: State<'_, AppState>,
    draft: Draft,
    parent: Option<EntityRef>,
    existing: bool,
) -> Result<Vec<FieldError>> {
    let active = state.active().await?;
    on_pool(move || active.validate(&draft, parent.as_ref(), existing)).await
}

/// Saves an advertiser: a new draft when `target` is `None`.
#[tauri::command]
#[specta::specta]
pub async fn save_advertiser<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    value: Advertiser,
) -> Result<Saved> {
    let active = state.active().await?;
    announce_saved(
        &app,
        on_pool(move || {
            active.save(|ws| match target {
                Some(t) => ws.update_advertiser(&t, value).map(|_| t),
                None => ws.create_advertiser(value),
            })
        })
        .await,
    )
}

/// Saves a campaign with its flights, under `advertiser` (downloaded or draft).
#[tauri::command]
#[specta::specta]
pub async fn save_campaign<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    advertiser: EntityRef,
    value: Campaign,
) -> Result<Saved> {
    let active = state.active().await?;
    announce_saved(
        &app,
        on_pool(move || {
            active.save(|ws| match target {
                Some(t) => ws.update_campaign(&t, value).map(|_| t),
                None => ws.create_campaign(&advertiser, value),
            })
        })
        .await,
    )
}

/// Saves an ad order under `campaign` (downloaded or draft). Edits of fields the
/// service ignores on update (dates, lifetime budget) are refused by the workspace with
/// a field error saying why.
#[tauri::command]
#[specta::specta]
pub async fn save_ad_order<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    campaign: EntityRef,
    value: AdOrder,
) -> Result<Saved> {
    let active = state.active().await?;
    announce_saved(
        &app,
        on_pool(move || {
            active.save(|ws| match target {
                Some(t) => ws.update_ad_order(&t, value).map(|_| t),
                None => ws.create_ad_order(&campaign, value),
            })
        })
        .await,
    )
}

/// The flights of an ad order's campaign a cap can be for, new ones included, and the
/// flight each of the order's stored caps is for.
#[tauri::command]
#[specta::specta]
pub async fn flight_cap_choices(
    state: State<'_, AppState>,
    ad_order: EntityRef,
) -> Result<CapChoices> {
    let active = state.active().await?;
    on_pool(move || active.flight_cap_choices(&ad_order)).await
}

/// Sets the flight caps of an ad order, each with the flight it is for: a posted flight,
/// or a new flight of the campaign, draft or posted (the caps post in the same push,
/// after the campaign change that adds the flight). A cap with no flight chosen is kept
/// with its error, unless other caps name new flights: then the save is refused at its
/// `[i].flightId`, nothing saved.
#[tauri::command]
#[specta::specta]
pub async fn save_flight_caps<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    ad_order: EntityRef,
    caps: Vec<CapOnFlight>,
) -> Result<Saved> {
    let active = state.active().await?;
    announce_saved(
        &app,
        on_pool(move || active.save_flight_caps(&ad_order, caps)).await,
    )
}

/// Saves a creative under `parent`: an advertiser, or a campaign (downloaded or draft)
/// when the advertiser is left to the service to resolve. Only drafts can be edited: the
/// service has no update for creatives, so the workspace refuses edits of posted ones.
#[tauri::command]
#[specta::specta]
pub async fn save_creative<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    parent: EntityRef,
    value: Creative,
) -> Result<Saved> {
    let active = state.active().await?;
    announce_saved(
        &app,
        on_pool(move || {
            active.save(|ws| match target {
                Some(t) => ws.update_creative(&t, value).map(|_| t),
                None => ws.create_creative(&parent, value),
            })
        })
        .await,
    )
}

/// A site-list call: `add` makes a new list; the others need `target`. Every call
/// carries the list's `name` (the service requires it and renames the list with it).
#[tauri::command]
#[specta::specta]
pub async fn save_site_list<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    op: SiteListEdit,
    value: SiteList,
) -> Result<Saved> {
    let active = state.active().await?;
    announce_saved(
        &app,
        on_pool(move || active.save_site_list(target, op, value)).await,
    )
}

/// Saves a first-party audience segment: a new draft when `target` is `None`, else an
/// edit of a draft. The service has no update for segments, so the workspace refuses
/// edits of posted ones (they still take uploads).
#[tauri::command]
#[specta::specta]
pub async fn save_audience_segment<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    value: AudienceSegment,
) -> Result<Saved> {
    let active = state.active().await?;
    announce_saved(
        &app,
        on_pool(move || {
            active.save(|ws| match target {
                Some(t) => ws.update_audience_segment(&t, value).map(|_| t),
                None => ws.create_audience_segment(value),
            })
        })
        .await,
    )
}

/// Copies a creative or segment into a new draft (the way to change a posted one: the
/// service has no update for them). The copy keeps the parent and every field the buyer
/// set; what the service assigns (id, status, counts) is left out by the workspace.
#[tauri::command]
#[specta::specta]
pub async fn duplicate_as_new<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    target: EntityRef,
) -> Result<Duplicate> {
    let active = state.active().await?;
    let copy = announce_saved(&app, on_pool(move || active.duplicate(&target)).await)?;
    Ok(copy)
}

/// One cell of the creative type/subtype matrix: the form shows only its fields.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MatrixCell {
    /// `creativeType`.
    pub creative_type: CreativeType,
    /// `creativeSubtype`.
    pub creative_subtype: CreativeSubtype,
    /// Wire paths of the cell's required fields.
    pub required: Vec<String>,
    /// Wire paths of its optional type-specific fields.
    pub optional: Vec<String>,
    /// The `type.mediaType` values that fit it.
    pub media_types: Vec<MediaType>,
}

/// The 14 cells of the creative matrix, from `flightdeck-model`.
#[tauri::command]
#[specta::specta]
pub fn creative_matrix() -> Vec<MatrixCell> {
    validate::creative_matrix()
        .iter()
        .map(|c| MatrixCell {
            creative_type: c.creative_type.clone(),
            creative_subtype: c.creative_subtype.clone(),
            required: c.required.iter().map(|s| (*s).to_owned()).collect(),
            optional: c.optional.iter().map(|s| (*s).to_owned()).collect(),
            media_types: c.media_types.to_vec(),
        })
        .collect()
}

/// An advertiser timezone with the IANA zone dates are shown in.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TimezoneInfo {
    /// The wire value.
    pub name: TimezoneName,
    /// The IANA zone (for `Intl`).
    pub iana: String,
    /// What the buyer reads.
    pub label: String,
}

/// Advertiser timezones, with the zone each one's dates are shown in.
#[tauri::command]
#[specta::specta]
pub fn timezones() -> Vec<TimezoneInfo> {
    TimezoneName::KNOWN
        .iter()
        .filter_map(|name| {
            Some(TimezoneInfo {
                iana: name.iana()?.to_owned(),
                label: name.label().to_owned(),
                name: name.clone(),
            })
        })
        .collect()
}

/// One flight on the timeline.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TimelineBar {
    /// Index in `flights`.
    pub index: u32,
    /// Start (Unix ms), if set.
    pub start: Option<Millis>,
    /// End (Unix ms), if set.
    pub end: Option<Millis>,
    /// The flight's name or position.
    pub label: String,
}

/// Two flights that overlap.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
pub struct TimelineOverlap {
    /// One flight's index.
    pub a: u32,
    /// The other's.
    pub b: u32,
}

/// A stretch no flight covers.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TimelineGap {
    /// The flight before the gap.
    pub after_index: u32,
    /// Gap start (Unix ms).
    pub from: Millis,
    /// Gap end (Unix ms).
    pub to: Millis,
}

/// What the flights editor draws.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    /// One bar per flight.
    pub bars: Vec<TimelineBar>,
    /// Overlapping pairs (by the same rule that rejects them).
    pub overlaps: Vec<TimelineOverlap>,
    /// Gaps between flights.
    pub gaps: Vec<TimelineGap>,
    /// The flights' broken rules (paths `flights[i]...`).
    pub errors: Vec<FieldError>,
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Lays out a campaign's flights for the timeline, with overlaps, gaps and errors; dates
/// in the errors read in `timezone`, the advertiser's (UTC when `None`).
#[tauri::command]
#[specta::specta]
pub fn flight_timeline(flights: Vec<CampaignFlight>, timezone: Option<TimezoneName>) -> Timeline {
    let layout = validate::flight_layout(&flights);
    let errors = validate::flights(&flights, &[], None, timezone.as_ref())
        .err()
        .map(|e| e.0)
        .unwrap_or_default();
    Timeline {
        bars: flights
            .iter()
            .enumerate()
            .map(|(i, f)| TimelineBar {
                index: index(i),
                start: f.start_date,
                end: f.end_date,
                label: match f.id {
                    Some(id) => format!("Flight {} (id {id})", i + 1),
                    None => format!("Flight {}", i + 1),
                },
            })
            .collect(),
        overlaps: layout
            .overlaps
            .into_iter()
            .map(|(a, b)| TimelineOverlap {
                a: index(a),
                b: index(b),
            })
            .collect(),
        gaps: layout
            .gaps
            .into_iter()
            .map(|g| TimelineGap {
                after_index: index(g.after_index),
                from: g.from,
                to: g.to,
            })
            .collect(),
        errors,
    }
}

impl From<AppError> for Vec<FieldError> {
    fn from(e: AppError) -> Self {
        e.field_errors
    }
}
