//! Forms: live validation by `flightdeck-model`'s rules, and saving edits into the
//! workspace. Every save lands at once, even offline, and an invalid draft is kept with
//! its errors (it is never posted until fixed).

use flightdeck_model::validate::{self, SiteListOp};
use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, CampaignFlight, Creative, CreativeSubtype,
    CreativeType, FieldError, FlightCap, Id, MediaType, Millis, SiteList, TimezoneName,
};
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::{PENDING_PARENT_ID, Workspace};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::State;

use super::tables::{Row, named, row_of};
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
        /// The list an append, overwrite or remove changes: its stored type decides
        /// whether sites or rules belong in the body.
        #[serde(default)]
        list: Option<EntityRef>,
    },
    /// A new audience segment.
    AudienceSegment {
        /// The form's value.
        value: AudienceSegment,
    },
    /// Identifiers to upload to a segment (`parent`).
    AudienceData {
        /// The upload.
        value: super::audiences::UploadRequest,
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

/// The service id of `parent`, or the workspace's stand-in while it is a draft, so a
/// reference to a draft counts as filled (as the workspace checks it).
fn remote_id(ws: &Workspace, parent: Option<&EntityRef>) -> Result<Option<Id>> {
    let Some(parent) = parent else {
        return Ok(None);
    };
    Ok(Some(match ws.resolve_remote(parent)? {
        Some(Key::Id(id)) => id,
        _ => PENDING_PARENT_ID,
    }))
}

/// The timezone of the advertiser a form hangs under, so dates in messages read as the
/// form shows them.
fn timezone(ws: &Workspace, parent: Option<&EntityRef>) -> Result<Option<TimezoneName>> {
    match parent {
        Some(p) => Ok(ws.timezone_of(p)?),
        None => Ok(None),
    }
}

/// What the service last returned of an existing entity: the base the workspace builds
/// the body it sends from (`request_body`), so the form is checked as that body is.
fn server_version<T: serde::de::DeserializeOwned>(
    ws: &Workspace,
    kind: Kind,
    id: Option<Id>,
) -> Result<Option<T>> {
    let Some(id) = id else {
        return Ok(None);
    };
    let Some(json) = ws.server_version(&EntityRef::new(kind, Key::Id(id)))? else {
        return Ok(None);
    };
    Ok(serde_json::from_value(json).ok())
}

/// The `typeId` a site list has in the workspace.
fn stored_site_list_type(ws: &Workspace, list: Option<&EntityRef>) -> Result<Option<i64>> {
    let Some(list) = list else {
        return Ok(None);
    };
    Ok(ws
        .get(list)?
        .and_then(|e| e.working.get("typeId").and_then(|v| v.as_i64())))
}

/// Broken rules of a form's content. `parent` is the entity the form hangs under
/// (advertiser of a campaign, advertiser or campaign of a creative, campaign of an ad
/// order, segment of an upload), draft or not.
#[tauri::command]
#[specta::specta]
pub fn validate(
    state: State<'_, AppState>,
    draft: Draft,
    parent: Option<EntityRef>,
    existing: bool,
) -> Result<Vec<FieldError>> {
    let active = state.active()?;
    let ws = active.workspace()?;
    let parent_id = remote_id(&ws, parent.as_ref())?;
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
            let tz = timezone(&ws, parent.as_ref())?;
            let base: Option<Campaign> = server_version(&ws, Kind::Campaign, value.id)?;
            validate::campaign(&value.request_body(base.as_ref()), op, tz.as_ref())
        }
        Draft::AdOrder { mut value } => {
            if let Some(id) = parent_id {
                value.campaign_id.get_or_insert(id);
            }
            let tz = timezone(&ws, parent.as_ref())?;
            let base: Option<AdOrder> = server_version(&ws, Kind::AdOrder, value.id)?;
            validate::ad_order(&value.request_body(base.as_ref()), op, tz.as_ref())
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
            if let (Some(id), Some(p)) = (parent_id, parent.as_ref()) {
                if p.kind == Kind::Campaign {
                    value.campaign_id.get_or_insert(id);
                } else {
                    value.advertiser_id.get_or_insert(id);
                }
            }
            validate::creative(&value)
        }
        Draft::SiteList {
            op,
            mut value,
            list,
        } => {
            if op != SiteListEdit::Add
                && let Some(id) = remote_id(&ws, list.as_ref())?
            {
                // A list not posted yet gets its id when it lands, as the workspace
                // checks it.
                value.id.get_or_insert(id);
            }
            let stored = stored_site_list_type(&ws, list.as_ref())?;
            validate::site_list(&value, op.into(), stored)
        }
        Draft::AudienceSegment { value } => validate::audience_segment(&value),
        Draft::AudienceData { value } => {
            let segment = parent
                .ok_or_else(|| AppError::state("choose the segment the identifiers go to"))?;
            return super::audiences::check_upload(&ws, &segment, value);
        }
    };
    Ok(result.err().map(|e| e.0).unwrap_or_default())
}

/// The rules the entity's latest pending change breaks, as stored by the workspace.
pub(crate) fn saved(ws: &Workspace, target: EntityRef) -> Result<Saved> {
    let errors = ws
        .pending()?
        .into_iter()
        .rev()
        .find(|c| c.target == target)
        .map(|c| c.errors)
        .unwrap_or_default();
    Ok(Saved { target, errors })
}

pub(crate) fn with_workspace<T>(
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

pub(crate) fn with_saved(state: &AppState, target: EntityRef) -> Result<Saved> {
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

/// Saves an ad order under `campaign` (downloaded or draft). Edits of fields the
/// service ignores on update (dates, lifetime budget) are refused by the workspace with
/// a field error saying why.
#[tauri::command]
#[specta::specta]
pub fn save_ad_order(
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    campaign: EntityRef,
    value: AdOrder,
) -> Result<Saved> {
    let t = with_workspace(&state, |ws| match target {
        Some(t) => ws.update_ad_order(&t, value).map(|_| t),
        None => ws.create_ad_order(&campaign, value),
    })?;
    with_saved(&state, t)
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

/// Saves a creative under `parent`: an advertiser, or a campaign (downloaded or draft)
/// when the advertiser is left to the service to resolve. Only drafts can be edited: the
/// service has no update for creatives, so the workspace refuses edits of posted ones.
#[tauri::command]
#[specta::specta]
pub fn save_creative(
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    parent: EntityRef,
    value: Creative,
) -> Result<Saved> {
    let t = with_workspace(&state, |ws| match target {
        Some(t) => ws.update_creative(&t, value).map(|_| t),
        None => ws.create_creative(&parent, value),
    })?;
    with_saved(&state, t)
}

/// A site-list call: `add` makes a new list; the others need `target`. Every call
/// carries the list's `name` (the service requires it and renames the list with it).
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
        (SiteListEdit::Remove, Some(t)) => ws.remove_sites(&t, value).map(|_| t),
        (_, None) => Err(flightdeck_offline::Error::Invalid(
            "choose the site list to change".into(),
        )),
    })?;
    with_saved(&state, t)
}

/// Saves a first-party audience segment: a new draft when `target` is `None`, else an
/// edit of a draft. The service has no update for segments, so the workspace refuses
/// edits of posted ones (they still take uploads).
#[tauri::command]
#[specta::specta]
pub fn save_audience_segment(
    state: State<'_, AppState>,
    target: Option<EntityRef>,
    value: AudienceSegment,
) -> Result<Saved> {
    let t = with_workspace(&state, |ws| match target {
        Some(t) => ws.update_audience_segment(&t, value).map(|_| t),
        None => ws.create_audience_segment(value),
    })?;
    with_saved(&state, t)
}

/// A new draft copied from an entity, as the table row the form opens with.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(tag = "kind", content = "row", rename_all = "snake_case")]
pub enum Duplicate {
    /// A creative draft.
    Creative(Box<Row<Creative>>),
    /// An audience segment draft.
    AudienceSegment(Box<Row<AudienceSegment>>),
}

/// Copies a creative or segment into a new draft (the way to change a posted one: the
/// service has no update for them). The copy keeps the parent and every field the buyer
/// set; what the service assigns (id, status, counts) is left out by the workspace.
#[tauri::command]
#[specta::specta]
pub fn duplicate_as_new(state: State<'_, AppState>, target: EntityRef) -> Result<Duplicate> {
    let active = state.active()?;
    let mut ws = active.workspace()?;
    let copy = ws.duplicate_as_new(&target)?;
    let missing = || AppError::storage("the copy was saved but cannot be read back");
    Ok(match copy.kind {
        Kind::Creative => Duplicate::Creative(Box::new(
            row_of(&ws, &copy, |c: &Creative, e| named(c.name.as_deref(), e))?
                .ok_or_else(missing)?,
        )),
        Kind::AudienceSegment => Duplicate::AudienceSegment(Box::new(
            row_of(&ws, &copy, |s: &AudienceSegment, e| {
                named(s.name.as_deref(), e)
            })?
            .ok_or_else(missing)?,
        )),
        other => {
            return Err(AppError::state(format!(
                "only creatives and audience segments are duplicated, not {other:?}"
            )));
        }
    })
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
