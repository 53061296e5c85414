//! A form's content as one type ([`Draft`]), and the one per-kind dispatch that saves it
//! ([`Workspace::save_draft`]). Live validation ([`Workspace::validate_draft`]) is that
//! same save, made in a transaction that is rolled back: what a form shows as the buyer
//! types is exactly what saving would record or refuse.

use flightdeck_model::validate::{SiteListOp, codes};
use flightdeck_model::{
    AdOrder, Advertiser, AudienceData, AudienceDataRecord, AudienceSegment, Campaign, Creative,
    FieldError, FlightCap, Id, SiteList, ValidationErrors,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Batch, Workspace, to_value};
use crate::change::{EntityRef, Key, Kind, Op};
use crate::{Error, Result};

/// Which site-list call an edit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
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

impl SiteListEdit {
    /// The change the workspace queues for it.
    pub fn op(self) -> Op {
        match self {
            SiteListEdit::Add => Op::Create,
            SiteListEdit::Append => Op::SiteListAppend,
            SiteListEdit::Overwrite => Op::SiteListOverwrite,
            SiteListEdit::Remove => Op::SiteListRemoveSites,
        }
    }
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

/// One upload as the segment form makes it: one country and its identifiers. The body the
/// service takes (records naming the segment) is built from it, so a form never names a
/// segment id it may not know yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct UploadRequest {
    /// ISO 3166-1 alpha-2 country of the identifiers, such as `US`.
    pub country_code: String,
    /// The identifiers, as read from the file.
    pub values: Vec<String>,
}

impl UploadRequest {
    /// The records to queue with [`Batch::upload_audience_data`]: one, whose empty
    /// `serviceSegmentId` the workspace fills in with the segment's (now, or when a draft
    /// segment lands). The country code goes as typed; the workspace normalises it.
    pub fn records(&self) -> AudienceData {
        vec![AudienceDataRecord {
            service_segment_id: String::new(),
            country_code: self.country_code.clone(),
            values: self.values.clone(),
            ..AudienceDataRecord::default()
        }]
    }
}

/// Errors of an upload made with [`UploadRequest::records`], at the form's own paths:
/// `[0].values[3]` becomes `values[3]`.
pub fn upload_form_paths(errors: Vec<FieldError>) -> Vec<FieldError> {
    errors
        .into_iter()
        .map(|mut e| {
            if let Some(rest) = e.field.strip_prefix('[')
                && let Some((index, tail)) = rest.split_once("].")
                && index.bytes().all(|b| b.is_ascii_digit())
            {
                e.field = tail.to_owned();
            }
            e
        })
        .collect()
}

/// A form's content, tagged by `kind`: what [`Workspace::save_draft`] saves and
/// [`Workspace::validate_draft`] checks as the buyer types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
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
        /// Flights of the ad order's campaign, which caps must point at. Not read: the
        /// check takes the campaign's flights from the workspace, as at save.
        #[serde(rename = "campaignFlightIds")]
        campaign_flight_ids: Vec<Id>,
        /// The flight each cap is for, by position, as the caps form lists them: a new
        /// flight has no id for `flightId` yet, so the form names it here.
        #[serde(default)]
        flights: Vec<Option<EntityRef>>,
    },
    /// A creative.
    Creative {
        /// The form's value.
        value: Creative,
    },
    /// A site-list call: `add` makes a new list; the others change the list the save
    /// targets (its stored type decides whether sites or rules belong in the body).
    SiteList {
        /// Which call.
        op: SiteListEdit,
        /// The body. Every call carries the list's `name` (the service requires it and
        /// renames the list with it); the list's current name when the body has none.
        value: SiteList,
    },
    /// An audience segment (a draft: posted ones are read-only).
    AudienceSegment {
        /// The form's value.
        value: AudienceSegment,
    },
    /// Identifiers to upload to a segment (`parent`), posted or not.
    AudienceData {
        /// The upload.
        value: UploadRequest,
    },
}

impl Draft {
    /// The kind of entity the form edits (an upload edits its segment).
    pub fn kind(&self) -> Kind {
        match self {
            Draft::Advertiser { .. } => Kind::Advertiser,
            Draft::Campaign { .. } => Kind::Campaign,
            Draft::AdOrder { .. } => Kind::AdOrder,
            Draft::FlightCaps { .. } => Kind::FlightCaps,
            Draft::Creative { .. } => Kind::Creative,
            Draft::SiteList { .. } => Kind::SiteList,
            Draft::AudienceSegment { .. } | Draft::AudienceData { .. } => Kind::AudienceSegment,
        }
    }
}

/// Where a new entity of a kind hangs, for a form that has not chosen it yet: the error's
/// path (the form's parent picker), what to choose, and the wire fields the parent fills
/// in (their own "required" errors are the picker's).
struct ParentSlot {
    path: &'static str,
    what: &'static str,
    fields: &'static [&'static str],
}

const ADVERTISER_SLOT: ParentSlot = ParentSlot {
    path: "parent.advertiser",
    what: "advertiser",
    fields: &["advertiserId"],
};
const CAMPAIGN_SLOT: ParentSlot = ParentSlot {
    path: "parent.campaign",
    what: "campaign",
    fields: &["campaignId"],
};
const CREATIVE_SLOT: ParentSlot = ParentSlot {
    path: "parent.advertiser",
    what: "advertiser or a campaign",
    fields: &["advertiserId", "campaignId"],
};

/// What an update of `t` answers: `t` itself (the change's `seq` is not the form's).
fn updated(t: &EntityRef) -> impl FnOnce(i64) -> EntityRef + '_ {
    move |_| t.clone()
}

fn by_id(kind: Kind, id: Option<Id>) -> Option<EntityRef> {
    id.map(|id| EntityRef::new(kind, Key::Id(id)))
}

impl Workspace {
    /// Saves a form's content in one transaction and returns the entity it saved (a new
    /// draft gets a local key; flight caps answer their `FlightCaps` entity, an upload its
    /// segment) with the rules the saved change still breaks: it is kept anyway and held
    /// back from posting until fixed.
    ///
    /// `target`: the entity the form edits; `None` for a new one (and for flight caps and
    /// uploads, which name their ad order or segment as `parent`). `parent`: what a new
    /// entity hangs under, draft or not (the advertiser of a campaign, the advertiser or
    /// campaign of a creative, the campaign of an ad order); without one, the parent the
    /// value names by id, if any.
    ///
    /// [`Error::Refused`], with nothing saved, when the edit could never be posted: a
    /// field the service ignores on update, a posted creative or segment, an upload that
    /// breaks the rules, a site-list change with no list, or a new entity with no parent
    /// (at `parent.advertiser` or `parent.campaign`, with the value's other errors).
    /// Errors name the form's own fields (an upload's `values[3]`, not `[0].values[3]`).
    pub fn save_draft(
        &mut self,
        target: Option<&EntityRef>,
        parent: Option<&EntityRef>,
        draft: Draft,
    ) -> Result<(EntityRef, Vec<FieldError>)> {
        let mut batch = self.batch()?;
        let saved = batch.save_draft(target, parent, draft)?;
        let errors = batch.recorded.take().unwrap_or_default();
        batch.commit()?;
        Ok((saved, errors))
    }

    /// The errors [`Workspace::save_draft`] would record on the change, or refuse the
    /// edit with: the same save, in a transaction rolled back (nothing is kept, nor
    /// recorded for undo). Other failures (an entity the workspace does not hold) are
    /// errors, as they are when saving.
    pub fn validate_draft(
        &mut self,
        target: Option<&EntityRef>,
        parent: Option<&EntityRef>,
        draft: &Draft,
    ) -> Result<Vec<FieldError>> {
        let mut batch = self.scratch_batch(false, false)?;
        match batch.save_draft(target, parent, draft.clone()) {
            Ok(_) => Ok(batch.recorded.take().unwrap_or_default()),
            Err(Error::Refused(refused)) => Ok(refused.0),
            Err(other) => Err(other),
        }
    }

    /// Sets an ad order's flight caps as the caps form chooses them: each cap with the
    /// flight it is for, or `None` where the buyer has not chosen one. See
    /// [`Batch::set_flight_caps_chosen`].
    pub fn set_flight_caps_chosen(
        &mut self,
        order: &EntityRef,
        caps: Vec<(FlightCap, Option<EntityRef>)>,
    ) -> Result<i64> {
        let mut batch = self.batch()?;
        let seq = batch.set_flight_caps_chosen(order, caps)?;
        batch.commit()?;
        Ok(seq)
    }
}

impl Batch<'_> {
    /// The one per-kind dispatch of a form's content, for [`Workspace::save_draft`] and
    /// [`Workspace::validate_draft`] alike. On [`Error::Refused`] the batch may hold part
    /// of the edit: drop it.
    pub(crate) fn save_draft(
        &mut self,
        target: Option<&EntityRef>,
        parent: Option<&EntityRef>,
        draft: Draft,
    ) -> Result<EntityRef> {
        match draft {
            Draft::Advertiser { value } => match target {
                Some(t) => self.update_advertiser(t, value).map(updated(t)),
                None => self.create_advertiser(value),
            },
            Draft::Campaign { value } => match target {
                Some(t) => self.update_campaign(t, value).map(updated(t)),
                None => match parent
                    .cloned()
                    .or(by_id(Kind::Advertiser, value.advertiser_id))
                {
                    Some(p) => self.create_campaign(&p, value),
                    None => self.unparented(Kind::Campaign, to_value(&value)?, &ADVERTISER_SLOT),
                },
            },
            Draft::AdOrder { value } => match target {
                Some(t) => self.update_ad_order(t, value).map(updated(t)),
                None => match parent.cloned().or(by_id(Kind::Campaign, value.campaign_id)) {
                    Some(p) => self.create_ad_order(&p, value),
                    None => self.unparented(Kind::AdOrder, to_value(&value)?, &CAMPAIGN_SLOT),
                },
            },
            Draft::FlightCaps { value, flights, .. } => {
                let order = parent.ok_or_else(|| {
                    Error::Invalid("flight caps belong to an ad order: name it".into())
                })?;
                let mut flights = flights.into_iter();
                let chosen = value
                    .into_iter()
                    .map(|cap| (cap, flights.next().flatten()))
                    .collect();
                self.set_flight_caps_chosen(order, chosen)?;
                Ok(EntityRef::new(Kind::FlightCaps, order.key.clone()))
            }
            Draft::Creative { value } => match target {
                Some(t) => self.update_creative(t, value).map(updated(t)),
                None => {
                    let under = parent.cloned().or_else(|| {
                        by_id(Kind::Campaign, value.campaign_id)
                            .or(by_id(Kind::Advertiser, value.advertiser_id))
                    });
                    match under {
                        Some(p) => self.create_creative(&p, value),
                        None => self.unparented(Kind::Creative, to_value(&value)?, &CREATIVE_SLOT),
                    }
                }
            },
            Draft::SiteList { op, value } => match (op, target) {
                (SiteListEdit::Add, _) => self.create_site_list(value),
                (SiteListEdit::Append, Some(t)) => self.append_sites(t, value).map(updated(t)),
                (SiteListEdit::Overwrite, Some(t)) => {
                    self.overwrite_sites(t, value).map(updated(t))
                }
                (SiteListEdit::Remove, Some(t)) => self.remove_sites(t, value).map(updated(t)),
                (_, None) => Err(Error::Refused(ValidationErrors(vec![FieldError::new(
                    "id",
                    codes::REQUIRED,
                    "choose the site list to change",
                )]))),
            },
            Draft::AudienceSegment { value } => match target {
                Some(t) => self.update_audience_segment(t, value).map(updated(t)),
                None => self.create_audience_segment(value),
            },
            Draft::AudienceData { value } => {
                let segment = parent.ok_or_else(|| {
                    Error::Invalid("choose the segment the identifiers go to".into())
                })?;
                // The rules name the record's fields; the form shows them at its own.
                match self.upload_audience_data(segment, value.records()) {
                    Err(Error::Refused(e)) => {
                        Err(Error::Refused(ValidationErrors(upload_form_paths(e.0))))
                    }
                    Err(other) => Err(other),
                    Ok(_) => {
                        self.recorded = self.recorded.take().map(upload_form_paths);
                        Ok(segment.clone())
                    }
                }
            }
        }
    }

    /// A new entity whose form chose no parent: refused at the form's parent picker, with
    /// the value's other errors (checked as the unlinked draft it would be).
    fn unparented(&mut self, kind: Kind, payload: Value, slot: &ParentSlot) -> Result<EntityRef> {
        self.create_unlinked(kind, payload)?;
        let mut errors = vec![FieldError::new(
            slot.path,
            codes::REQUIRED,
            format!("Choose the {} first.", slot.what),
        )];
        errors.extend(
            self.recorded
                .take()
                .unwrap_or_default()
                .into_iter()
                .filter(|e| !slot.fields.contains(&e.field.as_str())),
        );
        Err(Error::Refused(ValidationErrors(errors)))
    }

    /// Sets an ad order's flight caps as the caps form chooses them: each cap with the
    /// flight it is for (a posted flight, or a new one as [`Workspace::flights_of`] lists
    /// it), or `None` where the buyer has not chosen one. A cap with no flight is kept
    /// with its `flightId` as it is (and its error, if it has none), unless other caps
    /// name new flights: then the edit is refused at each unchosen `[i].flightId`,
    /// nothing saved, since caps waiting on a new flight cannot be saved beside one that
    /// names none.
    pub fn set_flight_caps_chosen(
        &mut self,
        order: &EntityRef,
        caps: Vec<(FlightCap, Option<EntityRef>)>,
    ) -> Result<i64> {
        let caps = caps_to_save(caps).map_err(Error::Refused)?;
        if caps.iter().all(|(_, f)| f.is_some()) {
            let pairs = caps
                .into_iter()
                .filter_map(|(c, f)| Some((c, f?)))
                .collect();
            self.set_flight_caps_for(order, pairs)
        } else {
            self.set_flight_caps(order, caps.into_iter().map(|(c, _)| c).collect())
        }
    }
}

/// The caps form's choice as the caps to save: every cap on its chosen flight, or, when
/// some have none chosen, the caps on posted flights with their ids set and the others
/// as they are. Refused when a cap has no flight while another names a new one.
fn caps_to_save(
    caps: Vec<(FlightCap, Option<EntityRef>)>,
) -> std::result::Result<Vec<(FlightCap, Option<EntityRef>)>, ValidationErrors> {
    let unchosen: Vec<usize> = caps
        .iter()
        .enumerate()
        .filter(|(_, (_, f))| f.is_none())
        .map(|(i, _)| i)
        .collect();
    if unchosen.is_empty() {
        return Ok(caps);
    }
    let names_new = caps
        .iter()
        .any(|(_, f)| matches!(f, Some(f) if !matches!(f.key, Key::Id(_))));
    if names_new {
        return Err(ValidationErrors(
            unchosen
                .into_iter()
                .map(|i| {
                    FieldError::new(
                        format!("[{i}].flightId"),
                        codes::REQUIRED,
                        "choose the flight this cap is for",
                    )
                })
                .collect(),
        ));
    }
    Ok(caps
        .into_iter()
        .map(|(mut cap, flight)| {
            if let Some(EntityRef {
                key: Key::Id(id), ..
            }) = flight
            {
                cap.flight_id = Some(id);
            }
            (cap, None)
        })
        .collect())
}
