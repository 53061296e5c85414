//! Forms: live validation by `flightdeck-model`'s rules, and saving edits into the
//! workspace. Every save lands at once, even offline, and an invalid draft is kept with
//! its errors (it is never posted until fixed).

use flightdeck_model::validate::{self, SiteListOp};
use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, CampaignFlight, Creative, CreativeSubtype,
    CreativeType, FieldError, FlightCap, Id, MediaType, Millis, SiteList, TimezoneName,
};
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::{PENDING_PARENT_ID, Workspace, flight_caps_on_new_flights};
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
    /// The flight caps of an ad order (`parent`).
    FlightCaps {
        /// The caps.
        value: Vec<FlightCap>,
        /// Flights of the ad order's campaign, which caps must point at.
        #[serde(rename = "campaignFlightIds")]
        campaign_flight_ids: Vec<Id>,
        /// The flight each cap is for, by position, as [`flight_cap_choices`] lists them:
        /// a new flight has no id for `flightId` yet, so the form names it here.
        #[serde(default)]
        flights: Vec<Option<EntityRef>>,
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
            flights,
        } => {
            if let Some(id) = parent_id {
                for cap in &mut value {
                    cap.order_id.get_or_insert(id);
                }
            }
            return check_caps(&ws, parent.as_ref(), value, campaign_flight_ids, &flights);
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

/// One cap as the flight-caps form saves it, with the flight it is for.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CapOnFlight {
    /// The cap (`flightId` is filled in from `flight`).
    pub cap: FlightCap,
    /// The flight, as [`flight_cap_choices`] lists it (a new flight has no id yet), or
    /// `None` when the buyer has not chosen one.
    pub flight: Option<EntityRef>,
}

/// A flight a cap can be for.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CapFlight {
    /// How a cap names it: `Kind::Flight` with its id, or a new flight of the campaign
    /// (posted with it in the same push, the cap after it).
    pub flight: EntityRef,
    /// The service's id; `None` for a new flight.
    pub id: Option<Id>,
    /// `startDate`.
    pub start_date: Option<Millis>,
    /// `endDate`.
    pub end_date: Option<Millis>,
    /// How the form names it, dates in the advertiser's timezone: `#12: 1 Mar 2027 – 31
    /// Mar 2027`, or `new flight starting 1 Apr 2027`.
    pub label: String,
}

/// What the flight-caps form of an ad order offers and holds.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CapChoices {
    /// The ad order's campaign, when the workspace knows it.
    pub campaign: Option<EntityRef>,
    /// Every flight of that campaign, posted or new, in the campaign's order.
    pub flights: Vec<CapFlight>,
    /// The flight each stored cap is for, by position in the caps `list_flight_caps`
    /// answers: a cap on a new flight has no `flightId` yet.
    pub caps: Vec<Option<EntityRef>>,
}

/// The campaign an ad order belongs to: its parent in the workspace (a draft campaign
/// included), else the one its `campaignId` names.
fn campaign_of(ws: &Workspace, order: &EntityRef) -> Result<Option<EntityRef>> {
    if order.kind != Kind::AdOrder {
        return Ok(None);
    }
    let Some(entity) = ws.get(order)? else {
        return Ok(None);
    };
    if let Some(parent) = entity.parent.filter(|p| p.kind == Kind::Campaign) {
        return Ok(Some(parent));
    }
    Ok(entity
        .working
        .get("campaignId")
        .and_then(|v| v.as_i64())
        .map(|id| EntityRef::new(Kind::Campaign, Key::Id(id))))
}

/// The flights of `campaign` a cap can name, labelled with dates in `tz`.
fn cap_flights(
    ws: &Workspace,
    campaign: &EntityRef,
    tz: Option<&TimezoneName>,
) -> Result<Vec<CapFlight>> {
    let date = |ms: Option<Millis>| {
        ms.map(|ms| validate::format_millis_in(ms, tz))
            .unwrap_or_else(|| "?".to_owned())
    };
    Ok(ws
        .flights_of(campaign)?
        .into_iter()
        .map(|(flight, f)| {
            let label = match f.id {
                Some(id) => format!("#{id}: {} – {}", date(f.start_date), date(f.end_date)),
                None => format!("new flight starting {}", date(f.start_date)),
            };
            CapFlight {
                flight,
                id: f.id,
                start_date: f.start_date,
                end_date: f.end_date,
                label,
            }
        })
        .collect())
}

/// The flights of an ad order's campaign a cap can be for, new ones included, and the
/// flight each of the order's stored caps is for.
#[tauri::command]
#[specta::specta]
pub fn flight_cap_choices(state: State<'_, AppState>, ad_order: EntityRef) -> Result<CapChoices> {
    let active = state.active()?;
    let ws = active.workspace()?;
    let campaign = campaign_of(&ws, &ad_order)?;
    let flights = match &campaign {
        Some(c) if ws.get(c)?.is_some() => {
            let tz = ws.timezone_of(c)?;
            cap_flights(&ws, c, tz.as_ref())?
        }
        _ => Vec::new(),
    };
    let target = EntityRef::new(Kind::FlightCaps, ad_order.key.clone());
    let stored: Vec<FlightCap> = match ws.get(&target)? {
        Some(e) => serde_json::from_value(e.working)?,
        None => Vec::new(),
    };
    // A cap on a new flight names it by the reference its pending change fills in.
    let waiting = ws
        .pending()?
        .into_iter()
        .rev()
        .find(|c| c.target == target)
        .map(|c| c.parents)
        .unwrap_or_default();
    let caps = stored
        .iter()
        .enumerate()
        .map(|(i, cap)| {
            let pointer = format!("/{i}/flightId");
            waiting
                .iter()
                .find(|p| p.pointer == pointer && p.target.kind == Kind::Flight)
                .map(|p| p.target.clone())
                .or_else(|| {
                    cap.flight_id
                        .map(|id| EntityRef::new(Kind::Flight, Key::Id(id)))
                })
        })
        .collect();
    Ok(CapChoices {
        campaign,
        flights,
        caps,
    })
}

/// Broken rules of a flight-caps form, checked as the workspace checks the saved caps
/// (`flight_caps_on_new_flights`): a cap on a new flight is allowed while the campaign
/// still has that flight.
fn check_caps(
    ws: &Workspace,
    order: Option<&EntityRef>,
    mut caps: Vec<FlightCap>,
    mut allowed: Vec<Id>,
    flights: &[Option<EntityRef>],
) -> Result<Vec<FieldError>> {
    let campaign = match order {
        Some(o) => campaign_of(ws, o)?,
        None => None,
    };
    let listed = match &campaign {
        Some(c) if ws.get(c)?.is_some() => Some(ws.flights_of(c)?),
        _ => None,
    };
    if let Some(listed) = &listed {
        allowed.extend(listed.iter().filter_map(|(_, f)| f.id));
    }
    let mut on_new = Vec::new();
    for (i, cap) in caps.iter_mut().enumerate() {
        match flights.get(i).and_then(Option::as_ref) {
            Some(EntityRef {
                key: Key::Id(id), ..
            }) => cap.flight_id = Some(*id),
            Some(flight) => on_new.push((i, flight)),
            None => {}
        }
    }
    Ok(flight_caps_on_new_flights(
        caps,
        &on_new,
        allowed,
        |flight| {
            listed
                .as_ref()
                .is_none_or(|l| l.iter().any(|(f, _)| f == *flight))
        },
    ))
}

/// Sets the flight caps of an ad order, each with the flight it is for: a posted flight,
/// or a new flight of the campaign, draft or posted (the caps post in the same push,
/// after the campaign change that adds the flight). A cap with no flight chosen is kept
/// with its error, unless other caps name new flights: then the save is refused at its
/// `[i].flightId`, nothing saved.
#[tauri::command]
#[specta::specta]
pub fn save_flight_caps(
    state: State<'_, AppState>,
    ad_order: EntityRef,
    caps: Vec<CapOnFlight>,
) -> Result<Saved> {
    let unchosen: Vec<usize> = caps
        .iter()
        .enumerate()
        .filter(|(_, c)| c.flight.is_none())
        .map(|(i, _)| i)
        .collect();
    let names_new = caps
        .iter()
        .any(|c| matches!(&c.flight, Some(f) if !matches!(f.key, Key::Id(_))));
    if unchosen.is_empty() {
        let pairs = caps
            .into_iter()
            .filter_map(|c| Some((c.cap, c.flight?)))
            .collect();
        with_workspace(&state, |ws| ws.set_flight_caps_for(&ad_order, pairs))?;
    } else if !names_new {
        let list = caps
            .into_iter()
            .map(|CapOnFlight { mut cap, flight }| {
                if let Some(EntityRef {
                    key: Key::Id(id), ..
                }) = flight
                {
                    cap.flight_id = Some(id);
                }
                cap
            })
            .collect();
        with_workspace(&state, |ws| ws.set_flight_caps(&ad_order, list))?;
    } else {
        return Err(flightdeck_model::ValidationErrors(
            unchosen
                .into_iter()
                .map(|i| {
                    FieldError::new(
                        format!("[{i}].flightId"),
                        validate::codes::REQUIRED,
                        "choose the flight this cap is for",
                    )
                })
                .collect(),
        )
        .into());
    }
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
