//! Forms: live validation by `flightdeck-model`'s rules, and saving edits into the
//! workspace. Every save lands at once, even offline, and an invalid draft is kept with
//! its errors (it is never posted until fixed).

use flightdeck_model::validate;
use flightdeck_model::{
    CampaignFlight, CreativeSubtype, CreativeType, FieldError, MediaType, TimezoneName,
};
use flightdeck_offline::change::EntityRef;
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{AppHandle, Runtime, State};
use tauri_specta::Event;

use super::{WorkspaceChanged, on_pool};
use crate::error::{AppError, Result};
use crate::state::AppState;

pub use flightdeck_core::edits::{Duplicate, Saved};
pub use flightdeck_core::forms::{CapChoices, CapFlight, Timeline};
pub use flightdeck_offline::workspace::{Draft, SiteListEdit};

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

/// Broken rules of a form's content, exactly as [`save`] would record or refuse them with
/// the same arguments; nothing is saved.
#[tauri::command]
#[specta::specta]
pub async fn validate(
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    parent: Option<EntityRef>,
    draft: Draft,
) -> Result<Vec<FieldError>> {
    let active = state.active().await?;
    on_pool(move || active.validate(target.as_ref(), parent.as_ref(), &draft)).await
}

/// Saves a form's content (every kind): `target` is the entity edited (`None` for a new
/// one), `parent` what a new one hangs under, the ad order of flight caps, or the segment
/// of an upload. Refusals come back as field errors, nothing saved.
#[tauri::command]
#[specta::specta]
pub async fn save<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    parent: Option<EntityRef>,
    draft: Draft,
) -> Result<Saved> {
    let active = state.active().await?;
    let saved = on_pool(move || active.save(target.as_ref(), parent.as_ref(), draft)).await;
    announce_saved(&app, saved)
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

/// Lays out a campaign's flights for the timeline, with overlaps, gaps and errors; dates
/// in the errors read in `timezone`, the advertiser's (UTC when `None`).
#[tauri::command]
#[specta::specta]
pub fn flight_timeline(flights: Vec<CampaignFlight>, timezone: Option<TimezoneName>) -> Timeline {
    flightdeck_core::forms::flight_timeline(&flights, timezone.as_ref())
}

impl From<AppError> for Vec<FieldError> {
    fn from(e: AppError) -> Self {
        e.field_errors
    }
}
