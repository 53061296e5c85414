//! Forms: live validation by `flightdeck-model`'s rules, and saving edits into the
//! workspace. Every save lands at once, even offline, and an invalid draft is kept with
//! its errors (it is never posted until fixed).

use flightdeck_model::validate::{self, SiteListOp};
use flightdeck_model::{
    AdOrder, Advertiser, AudienceData, AudienceSegment, Campaign, CampaignFlight, Creative,
    CreativeSubtype, CreativeType, FieldError, FlightCap, Id, MediaType, Millis, SiteList,
    TimezoneName,
};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{PENDING_PARENT_ID, Workspace};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::State;

use crate::error::{AppError, Result};
use crate::state::AppState;

/// Which site-list call an edit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum SiteListEdit {
    /// A new list (`addNewSiteList`).
    Add,
    /// Add sites or rules (`appendToSiteList`).
    Append,
    /// Replace them (`overwriteSiteList`).
    Overwrite,
    /// Remove sites by id (`removeSites`).
    Remove,
}

impl From<SiteListEdit> for SiteListOp {
    fn from(e: SiteListEdit) -> Self {
        match e {
            SiteListEdit::Add => SiteListOp::Add,
            SiteListEdit::Append => SiteListOp::Append,
            SiteListEdit::Overwrite => SiteListOp::Overwrite,
            SiteListEdit::Remove => SiteListOp::Remove,
        }
    }
}

/// A form's current content, to validate as the buyer types.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
// Read once per call, never stored: boxing would only add noise.
#[allow(clippy::large_enum_variant)]
pub enum Draft {
    /// An advertiser.
    Advertiser {
        /// The form's value.
        value: Advertiser,
    },
    /// A campaign with its flights.
    Campaign {
        /// The form's value.
        value: Campaign,
    },
    /// An ad order.
    AdOrder {
        /// The form's value.
        value: AdOrder,
    },
    /// The flight caps of an ad order.
    FlightCaps {
        /// The caps.
        value: Vec<FlightCap>,
        /// Flights of the ad order's campaign, which caps must point at.
        #[serde(rename = "campaignFlightIds")]
        campaign_flight_ids: Vec<Id>,
    },
    /// A creative.
    Creative {
        /// The form's value.
        value: Creative,
    },
    /// A site-list call.
    SiteList {
        /// Which call.
        op: SiteListEdit,
        /// The body.
        value: SiteList,
    },
    /// A new audience segment.
    AudienceSegment {
        /// The form's value.
        value: AudienceSegment,
    },
    /// Identifiers to upload to a segment.
    AudienceData {
        /// The upload.
        value: AudienceData,
    },
}

/// A saved edit: where it went, and the rules it still breaks.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Saved {
    /// The entity (a new draft gets a local key).
    pub target: EntityRef,
    /// Broken rules; the edit is saved anyway and held back from posting.
    pub errors: Vec<FieldError>,
}

fn parent_id(ws: &Workspace, parent: Option<&EntityRef>) -> Result<Option<Id>> {
    let Some(parent) = parent else {
        return Ok(None);
    };
    Ok(Some(match ws.resolve_remote(parent)? {
        Some(flightdeck_offline::change::Key::Id(id)) => id,
        _ => PENDING_PARENT_ID,
    }))
}

/// Broken rules of a form's content. `parent` is the entity the form hangs under
/// (advertiser of a campaign or creative, campaign of an ad order), draft or not.
#[tauri::command]
#[specta::specta]
pub fn validate(
    state: State<'_, AppState>,
    draft: Draft,
    parent: Option<EntityRef>,
    existing: bool,
) -> Result<Vec<FieldError>> {
    let active = state.active()?;
    let parent_id = {
        let ws = active.workspace()?;
        parent_id(&ws, parent.as_ref())?
    };
    let op = if existing {
        validate::Op::Update
    } else {
        validate::Op::Create
    };
    let result = match draft {
        Draft::Advertiser { value } => validate::advertiser(&value, op),
        Draft::Campaign { mut value } => {
            if let Some(id) = parent_id {
                value.advertiser_id.get_or_insert(id);
            }
            validate::campaign(&value, op)
        }
        Draft::AdOrder { mut value } => {
            if let Some(id) = parent_id {
                value.campaign_id.get_or_insert(id);
            }
            validate::ad_order(&value, op)
        }
        Draft::FlightCaps {
            mut value,
            campaign_flight_ids,
        } => {
            if let Some(id) = parent_id {
                for cap in &mut value {
                    cap.order_id.get_or_insert(id);
                }
            }
            validate::flight_caps(&value, &campaign_flight_ids)
        }
        Draft::Creative { mut value } => {
            if let Some(id) = parent_id {
                value.advertiser_id.get_or_insert(id);
            }
            validate::creative(&value)
        }
        Draft::SiteList { op, value } => validate::site_list(&value, op.into(), None),
        Draft::AudienceSegment { value } => validate::audience_segment(&value),
        Draft::AudienceData { value } => validate::audience_data(&value),
    };
    Ok(result.err().map(|e| e.0).unwrap_or_default())
}

/// The rules the entity's latest pending change breaks, as stored by the workspace.
fn saved(ws: &Workspace, target: EntityRef) -> Result<Saved> {
    let errors = ws
        .pending()?
        .into_iter()
        .rev()
        .find(|c| c.target == target)
        .map(|c| c.errors)
        .unwrap_or_default();
    Ok(Saved { target, errors })
}

fn with_workspace<T>(
    state: &AppState,
    f: impl FnOnce(&mut Workspace) -> flightdeck_offline::Result<T>,
) -> Result<T> {
    let active = state.active()?;
    let mut ws = active.workspace()?;
    Ok(f(&mut ws)?)
}

/// Saves an advertiser: a new draft when `target` is `None`.
#[tauri::command]
#[specta::specta]
pub fn save_advertiser(
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    value: Advertiser,
) -> Result<Saved> {
    let t = with_workspace(&state, |ws| match target {
        Some(t) => ws.update_advertiser(&t, value).map(|_| t),
        None => ws.create_advertiser(value),
    })?;
    with_saved(&state, t)
}

fn with_saved(state: &AppState, target: EntityRef) -> Result<Saved> {
    let active = state.active()?;
    let ws = active.workspace()?;
    saved(&ws, target)
}

/// Saves a campaign with its flights, under `advertiser` (downloaded or draft).
#[tauri::command]
#[specta::specta]
pub fn save_campaign(
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    advertiser: EntityRef,
    value: Campaign,
) -> Result<Saved> {
    let t = with_workspace(&state, |ws| match target {
        Some(t) => ws.update_campaign(&t, value).map(|_| t),
        None => ws.create_campaign(&advertiser, value),
    })?;
    with_saved(&state, t)
}

/// Saves an ad order under `campaign` (downloaded or draft).
///
/// The service ignores `lifetimeBudget`, `startDate` and `endDate` on an ad order
/// update, so changing them on an existing order is refused here with a field error
/// rather than posted and silently lost.
#[tauri::command]
#[specta::specta]
pub fn save_ad_order(
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    campaign: EntityRef,
    value: AdOrder,
) -> Result<Saved> {
    if let Some(t) = &target {
        refuse_ignored_ad_order_fields(&state, t, &value)?;
    }
    let t = with_workspace(&state, |ws| match target {
        Some(t) => ws.update_ad_order(&t, value).map(|_| t),
        None => ws.create_ad_order(&campaign, value),
    })?;
    with_saved(&state, t)
}

fn refuse_ignored_ad_order_fields(
    state: &AppState,
    target: &EntityRef,
    value: &AdOrder,
) -> Result<()> {
    if target.key.is_local() {
        return Ok(());
    }
    let active = state.active()?;
    let ws = active.workspace()?;
    let Some(current) = ws.get(target)? else {
        return Ok(());
    };
    let current: AdOrder = serde_json::from_value(current.working)?;
    let mut errors = Vec::new();
    if current.lifetime_budget != value.lifetime_budget {
        errors.push(ignored("lifetimeBudget"));
    }
    if current.start_date != value.start_date {
        errors.push(ignored("startDate"));
    }
    if current.end_date != value.end_date {
        errors.push(ignored("endDate"));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(flightdeck_model::ValidationErrors(errors).into())
    }
}

fn ignored(field: &str) -> FieldError {
    FieldError::new(
        field,
        validate::codes::NOT_APPLICABLE,
        "cannot be changed on an existing ad order; change the campaign's flights instead",
    )
}

/// Sets the flight caps of an ad order.
#[tauri::command]
#[specta::specta]
pub fn save_flight_caps(
    state: State<'_, AppState>,
    ad_order: EntityRef,
    caps: Vec<FlightCap>,
) -> Result<Saved> {
    with_workspace(&state, |ws| ws.set_flight_caps(&ad_order, caps))?;
    with_saved(&state, EntityRef::new(Kind::FlightCaps, ad_order.key))
}

/// Saves a creative under `advertiser` (downloaded or draft).
#[tauri::command]
#[specta::specta]
pub fn save_creative(
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    advertiser: EntityRef,
    value: Creative,
) -> Result<Saved> {
    let t = with_workspace(&state, |ws| match target {
        Some(t) => ws.update_creative(&t, value).map(|_| t),
        None => ws.create_creative(&advertiser, value),
    })?;
    with_saved(&state, t)
}

/// A site-list call: `add` makes a new list; the others need `target`.
#[tauri::command]
#[specta::specta]
pub fn save_site_list(
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    op: SiteListEdit,
    value: SiteList,
) -> Result<Saved> {
    let t = with_workspace(&state, |ws| match (op, target) {
        (SiteListEdit::Add, _) => ws.create_site_list(value),
        (SiteListEdit::Append, Some(t)) => ws.append_sites(&t, value).map(|_| t),
        (SiteListEdit::Overwrite, Some(t)) => ws.overwrite_sites(&t, value).map(|_| t),
        (SiteListEdit::Remove, Some(t)) => ws
            .remove_sites(&t, value.site_ids.unwrap_or_default())
            .map(|_| t),
        (_, None) => Err(flightdeck_offline::Error::Invalid(
            "choose the site list to change".into(),
        )),
    })?;
    with_saved(&state, t)
}

/// Saves a new first-party audience segment.
#[tauri::command]
#[specta::specta]
pub fn save_audience_segment(state: State<'_, AppState>, value: AudienceSegment) -> Result<Saved> {
    let t = with_workspace(&state, |ws| ws.create_audience_segment(value))?;
    with_saved(&state, t)
}

/// Queues identifiers to upload to a segment.
#[tauri::command]
#[specta::specta]
pub fn upload_audience_data(
    state: State<'_, AppState>,
    segment: EntityRef,
    data: AudienceData,
) -> Result<Saved> {
    with_workspace(&state, |ws| ws.upload_audience_data(&segment, data))?;
    with_saved(&state, segment)
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
            creative_type: c.creative_type,
            creative_subtype: c.creative_subtype,
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
    TimezoneName::ALL
        .iter()
        .map(|&name| {
            let (iana, label) = match name {
                TimezoneName::AKT => ("America/Anchorage", "Alaska"),
                TimezoneName::CT => ("America/Chicago", "Central"),
                TimezoneName::ET => ("America/New_York", "Eastern"),
                TimezoneName::GMT => ("Etc/GMT", "Greenwich"),
                TimezoneName::HST => ("Pacific/Honolulu", "Hawaii"),
                TimezoneName::MT => ("America/Denver", "Mountain"),
                TimezoneName::N => ("America/St_Johns", "Newfoundland"),
                TimezoneName::PT => ("America/Los_Angeles", "Pacific"),
            };
            TimezoneInfo {
                name,
                iana: iana.to_owned(),
                label: label.to_owned(),
            }
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

/// Lays out a campaign's flights for the timeline, with overlaps, gaps and errors.
#[tauri::command]
#[specta::specta]
pub fn flight_timeline(flights: Vec<CampaignFlight>) -> Timeline {
    let layout = validate::flight_layout(&flights);
    let errors = validate::flights(&flights, &[], None)
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
