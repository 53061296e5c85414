//! A form's content as one type, and its live check: what saving it would record as the
//! change's errors, found without writing. Live validation and validation at save then
//! run the same rules on the same body (see [`Workspace::validate_draft`]).

use flightdeck_client::upload;
use flightdeck_model::validate::{self, IgnoredOnUpdate, SiteListOp, codes};
use flightdeck_model::{
    AUDIENCE_UPLOAD_MAX_BYTES, AdOrder, Advertiser, AudienceData, AudienceDataRecord,
    AudienceSegment, Campaign, Creative, DataType, FieldError, FlightCap, Id, SiteList,
    ValidationErrors,
};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::edit::{fill_parents, numeric_id, read_only_reason, set_pointer};
use super::validate::{Payload, check_one, check_unsaved};
use super::{Batch, Workspace, canonical, key_text, parse_json, to_value};
use crate::change::{EntityRef, Key, Kind, Op, ParentRef};
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

/// A form's current content, to check as the buyer types
/// ([`Workspace::validate_draft`]).
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

impl Workspace {
    /// The errors saving `draft` would record on its pending change, or the errors it
    /// would be refused with (fields the service ignores on update, a posted creative or
    /// segment, an upload that breaks the rules): the body is built as the edit methods
    /// build it (ids filled in, draft parents as references, the stored server version as
    /// the base) and checked by the same function the workspace checks saved changes with.
    /// Nothing is written.
    ///
    /// `parent` is what the form hangs under, draft or not: the advertiser of a campaign,
    /// the advertiser or campaign of a creative, the campaign of an ad order, the ad order
    /// of flight caps, the segment of an upload. A new entity without one is checked with
    /// the parent its value names, if any.
    ///
    /// `existing`: the form edits an entity the workspace holds. One the service knows
    /// (the value carries its id) is checked as its update; a draft is checked as the
    /// create it still is. Site-list calls say which they are in the draft itself.
    ///
    /// Errors name the draft's own fields (an upload's `values[3]`, not `[0].values[3]`).
    pub fn validate_draft(
        &self,
        draft: &Draft,
        parent: Option<&EntityRef>,
        existing: bool,
    ) -> Result<Vec<FieldError>> {
        let at = |kind: Kind, id: Option<Id>| {
            id.filter(|_| existing)
                .map(|id| EntityRef::new(kind, Key::Id(id)))
        };
        let outcome = match draft {
            Draft::Advertiser { value } => {
                let mut a = value.clone();
                match at(Kind::Advertiser, a.id) {
                    Some(target) => {
                        let rules = validate::ADVERTISER_IGNORED_ON_UPDATE;
                        self.as_update(&target, to_value(&a)?, rules)?
                    }
                    None => {
                        a.id = None;
                        Outcome::new(Kind::Advertiser, to_value(&a)?, Linked::default())
                    }
                }
            }
            Draft::Campaign { value } => {
                let mut c = value.clone();
                match at(Kind::Campaign, c.id) {
                    Some(target) => {
                        let rules = validate::CAMPAIGN_IGNORED_ON_UPDATE;
                        self.as_update(&target, to_value(&c)?, rules)?
                    }
                    None => {
                        c.id = None;
                        let under = parent.cloned().or_else(|| {
                            c.advertiser_id
                                .map(|id| EntityRef::new(Kind::Advertiser, Key::Id(id)))
                        });
                        let mut payload = to_value(&c)?;
                        let linked = match &under {
                            Some(p) => {
                                expect_kind(p, Kind::Advertiser)?;
                                self.link(p, "/advertiserId", &mut payload)?
                            }
                            None => Linked::default(),
                        };
                        Outcome::new(Kind::Campaign, payload, linked)
                    }
                }
            }
            Draft::AdOrder { value } => {
                let mut o = value.clone();
                match at(Kind::AdOrder, o.id) {
                    Some(target) => {
                        let rules = validate::AD_ORDER_IGNORED_ON_UPDATE;
                        self.as_update(&target, to_value(&o)?, rules)?
                    }
                    None => {
                        o.id = None;
                        let under = parent.cloned().or_else(|| {
                            o.campaign_id
                                .map(|id| EntityRef::new(Kind::Campaign, Key::Id(id)))
                        });
                        let mut payload = to_value(&o)?;
                        let linked = match &under {
                            Some(p) => {
                                expect_kind(p, Kind::Campaign)?;
                                self.link(p, "/campaignId", &mut payload)?
                            }
                            None => Linked::default(),
                        };
                        Outcome::new(Kind::AdOrder, payload, linked)
                    }
                }
            }
            Draft::FlightCaps { value, flights, .. } => {
                let order = parent.ok_or_else(|| {
                    Error::Invalid("flight caps belong to an ad order: name it".into())
                })?;
                let chosen = value
                    .iter()
                    .cloned()
                    .enumerate()
                    .map(|(i, cap)| (cap, flights.get(i).cloned().flatten()))
                    .collect();
                match caps_to_save(chosen) {
                    Err(refused) => Outcome::Refused(refused.0),
                    Ok(caps) => self.as_caps(order, caps)?,
                }
            }
            Draft::Creative { value } => {
                let mut c = value.clone();
                let posted = at(Kind::Creative, c.id);
                if let Some(why) = posted.as_ref().and_then(read_only_reason) {
                    Outcome::Refused(vec![FieldError::new("id", codes::IGNORED_ON_UPDATE, why)])
                } else {
                    c.id = None;
                    let under = parent.cloned().or_else(|| {
                        c.campaign_id
                            .map(|id| EntityRef::new(Kind::Campaign, Key::Id(id)))
                            .or_else(|| {
                                c.advertiser_id
                                    .map(|id| EntityRef::new(Kind::Advertiser, Key::Id(id)))
                            })
                    });
                    let mut payload = to_value(&c)?;
                    let linked = match &under {
                        Some(p) => {
                            let pointer = match p.kind {
                                Kind::Advertiser => "/advertiserId",
                                Kind::Campaign => "/campaignId",
                                other => {
                                    return Err(Error::Invalid(format!(
                                        "a creative belongs to an advertiser or a campaign, not a {other:?}"
                                    )));
                                }
                            };
                            self.link(p, pointer, &mut payload)?
                        }
                        None => Linked::default(),
                    };
                    Outcome::new(Kind::Creative, payload, linked)
                }
            }
            Draft::SiteList { op, value, list } => match (op, list) {
                (SiteListEdit::Add, _) => {
                    let mut l = value.clone();
                    l.id = None;
                    l.inserted_count = None;
                    Outcome::new(Kind::SiteList, to_value(&l)?, Linked::default())
                }
                (op, Some(list)) => self.as_site_list_call(list, op.op(), value.clone())?,
                (_, None) => Outcome::Refused(vec![FieldError::new(
                    "id",
                    codes::REQUIRED,
                    "choose the site list to change",
                )]),
            },
            Draft::AudienceSegment { value } => {
                let mut s = value.clone();
                let posted = s
                    .service_segment_id
                    .clone()
                    .filter(|_| existing)
                    .map(|id| EntityRef::new(Kind::AudienceSegment, Key::Segment(id)));
                if let Some(why) = posted.as_ref().and_then(read_only_reason) {
                    Outcome::Refused(vec![FieldError::new(
                        "serviceSegmentId",
                        codes::IGNORED_ON_UPDATE,
                        why,
                    )])
                } else {
                    s.service_segment_id = None;
                    Outcome::new(Kind::AudienceSegment, to_value(&s)?, Linked::default())
                }
            }
            Draft::AudienceData { value } => {
                let segment = parent.ok_or_else(|| {
                    Error::Invalid("choose the segment the identifiers go to".into())
                })?;
                let errors = self.upload_errors(segment, value.records())?;
                return Ok(upload_form_paths(errors));
            }
        };
        match outcome {
            Outcome::Refused(errors) => Ok(errors),
            Outcome::Unchanged => Ok(Vec::new()),
            Outcome::New {
                kind,
                payload,
                linked,
            } => check_unsaved(
                &self.conn,
                kind,
                &payload,
                &linked.parents,
                linked.parent.as_ref(),
            ),
            Outcome::Change {
                target,
                op,
                payload,
                parents,
                base,
            } => check_one(
                &self.conn,
                target.kind,
                &target.key,
                op,
                Payload::Value(&payload),
                &parents,
                base.as_ref(),
            ),
        }
    }

    /// A posted entity's update as [`Batch::update_advertiser`] and its siblings save it:
    /// refused when it changes a field the service ignores on update, nothing to post
    /// when it is back to the server version, else checked against that version.
    fn as_update(
        &self,
        target: &EntityRef,
        payload: Value,
        rules: &[IgnoredOnUpdate],
    ) -> Result<Outcome> {
        let Some(current) = self.working_text(target)? else {
            return Err(Error::NotFound(format!(
                "{} {} is not in the workspace",
                target.kind.name(),
                target.key
            )));
        };
        if !target.key.is_local() {
            let current: Value = parse_json(&current)?;
            if let Err(refused) = validate::ignored_on_update(rules, &current, &payload) {
                return Ok(Outcome::Refused(refused.0));
            }
        }
        self.as_saved_update(target, Op::Update, payload, Vec::new())
    }

    /// How `save` in the edit module records an update: references filled in, nothing
    /// queued when the body is the server version, else checked against it.
    fn as_saved_update(
        &self,
        target: &EntityRef,
        op: Op,
        mut payload: Value,
        parents: Vec<ParentRef>,
    ) -> Result<Outcome> {
        fill_parents(&mut payload, &parents);
        let base: Option<String> = self
            .conn
            .prepare_cached("SELECT remote_json FROM entities WHERE kind = ?1 AND key = ?2")?
            .query_row(params![target.kind.name(), key_text(&target.key)], |r| {
                r.get(0)
            })
            .optional()?
            .flatten();
        if let Some(base) = &base
            && canonical(&parse_json::<Value>(base)?)? == canonical(&payload)?
        {
            return Ok(Outcome::Unchanged);
        }
        Ok(Outcome::Change {
            target: target.clone(),
            op,
            payload,
            parents,
            base: base.as_deref().map(parse_json).transpose()?,
        })
    }

    /// Flight caps as [`Batch::set_flight_caps_for`] saves them: each cap on its flight
    /// (a new flight's id filled in when its campaign lands), every `orderId` on the order.
    fn as_caps(
        &self,
        order: &EntityRef,
        caps: Vec<(FlightCap, Option<EntityRef>)>,
    ) -> Result<Outcome> {
        expect_kind(order, Kind::AdOrder)?;
        let mut waiting = Vec::new();
        let mut list = Vec::with_capacity(caps.len());
        for (i, (mut cap, flight)) in caps.into_iter().enumerate() {
            if let Some(flight) = flight {
                if flight.kind != Kind::Flight {
                    return Err(Error::Invalid(format!(
                        "a flight cap caps a flight, not a {}",
                        flight.kind.name()
                    )));
                }
                let landed = match &flight.key {
                    Key::Local(_) => self.resolve_remote(&flight)?,
                    other => Some(other.clone()),
                };
                cap.flight_id = numeric_id(landed.as_ref().unwrap_or(&flight.key));
                if cap.flight_id.is_none() {
                    waiting.push(ParentRef {
                        pointer: format!("/{i}/flightId"),
                        target: flight,
                    });
                }
            }
            list.push(cap);
        }
        let mut payload = to_value(&list)?;
        let mut parents = Vec::new();
        for i in 0..list.len() {
            parents.append(
                &mut self
                    .link(order, &format!("/{i}/orderId"), &mut payload)?
                    .parents,
            );
        }
        parents.extend(waiting);
        let target = EntityRef::new(Kind::FlightCaps, order.key.clone());
        self.as_saved_update(&target, Op::Update, payload, parents)
    }

    /// A site-list call as [`Batch::append_sites`] and its siblings queue it.
    fn as_site_list_call(&self, list: &EntityRef, op: Op, body: SiteList) -> Result<Outcome> {
        expect_kind(list, Kind::SiteList)?;
        let working: SiteList = parse_json(&self.require(list)?)?;
        let mut body = if op == Op::SiteListRemoveSites {
            SiteList {
                name: body.name,
                site_ids: body.site_ids,
                ..SiteList::default()
            }
        } else {
            body
        };
        body.id = numeric_id(&list.key);
        body.inserted_count = None;
        if body.name.is_none() {
            body.name = working.name;
        }
        Ok(Outcome::Change {
            target: list.clone(),
            op,
            payload: to_value(&body)?,
            parents: Vec::new(),
            base: None,
        })
    }

    /// The errors [`Batch::upload_audience_data`] would refuse `data` with, else those it
    /// would record on the changes it queues.
    fn upload_errors(
        &self,
        segment: &EntityRef,
        mut data: AudienceData,
    ) -> Result<Vec<FieldError>> {
        expect_kind(segment, Kind::AudienceSegment)?;
        let working: Value = parse_json(&self.require(segment)?)?;
        let remote = match &segment.key {
            Key::Local(_) => self.resolve_remote(segment)?,
            other => Some(other.clone()),
        };
        let segment_id = match &remote {
            Some(Key::Segment(id)) => Some(id.clone()),
            _ => None,
        };
        for record in &mut data {
            record.country_code = record.country_code.trim().to_uppercase();
            if record.service_segment_id.is_empty()
                && let Some(id) = &segment_id
            {
                record.service_segment_id.clone_from(id);
            }
        }
        let stand_in = |id: &str| {
            let mut copy = data.clone();
            for r in copy.iter_mut().filter(|r| r.service_segment_id.is_empty()) {
                r.service_segment_id = id.to_owned();
            }
            copy
        };
        let data_type = working
            .get("dataType")
            .and_then(Value::as_str)
            .map(DataType::from_wire);
        let checked_id = segment_id
            .as_deref()
            .unwrap_or(super::validate::PENDING_SEGMENT_ID);
        if let Err(refused) =
            validate::audience_data(checked_id, data_type.as_ref(), &stand_in(checked_id))
        {
            return Ok(refused.0);
        }
        let sized = stand_in(&"x".repeat(SEGMENT_ID_ALLOWANCE));
        let plan = match upload::plan(&sized, AUDIENCE_UPLOAD_MAX_BYTES) {
            Ok(plan) => plan,
            Err(flightdeck_client::Error::Invalid { field, message }) => {
                return Ok(vec![FieldError::new(field, codes::INVALID, message)]);
            }
            Err(other) => return Err(Error::Client(other)),
        };
        let mut errors = Vec::new();
        for pieces in &plan {
            let body = upload::body(&data, pieces);
            let parents: Vec<ParentRef> = body
                .iter()
                .enumerate()
                .filter(|(_, r)| r.service_segment_id.is_empty())
                .map(|(k, _)| ParentRef {
                    pointer: format!("/{k}/serviceSegmentId"),
                    target: segment.clone(),
                })
                .collect();
            errors.extend(check_one(
                &self.conn,
                Kind::AudienceSegment,
                &segment.key,
                Op::AudienceData,
                Payload::Value(&to_value(&body)?),
                &parents,
                None,
            )?);
        }
        Ok(errors)
    }

    /// Points `pointer` at `parent` as the edit module's `link` does: its remote id when
    /// it has one, else null and a reference filled in when the draft lands.
    fn link(&self, parent: &EntityRef, pointer: &str, payload: &mut Value) -> Result<Linked> {
        let resolved = match &parent.key {
            Key::Local(_) => {
                if self.working_text(parent)?.is_none() {
                    return Err(Error::NotFound(format!(
                        "the draft {} {} is not in the workspace (discarded?)",
                        parent.kind.name(),
                        parent.key
                    )));
                }
                self.resolve_remote(parent)?
            }
            other => Some(other.clone()),
        };
        let mut parents = Vec::new();
        match resolved {
            Some(Key::Id(id)) => set_pointer(payload, pointer, Value::from(id)),
            _ => {
                set_pointer(payload, pointer, Value::Null);
                parents.push(ParentRef {
                    pointer: pointer.to_owned(),
                    target: parent.clone(),
                });
            }
        }
        Ok(Linked {
            parent: Some(parent.clone()),
            parents,
        })
    }

    /// The working copy's text; `None` when the workspace does not hold the entity.
    fn working_text(&self, target: &EntityRef) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT COALESCE(working_json, remote_json) FROM entities WHERE kind = ?1 AND key = ?2",
            )?
            .query_row(
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()?
            .flatten())
    }

    fn require(&self, target: &EntityRef) -> Result<String> {
        self.working_text(target)?.ok_or_else(|| {
            Error::NotFound(format!(
                "{} {} is not in the workspace",
                target.kind.name(),
                target.key
            ))
        })
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

/// Bytes an upload's requests keep free per record for a draft segment's id: the
/// allowance `Batch::upload_audience_data_split` sizes requests with (private there).
const SEGMENT_ID_ALLOWANCE: usize = 64;

/// Where a new entity hangs and which of its members wait for a draft's remote id.
#[derive(Default)]
struct Linked {
    parent: Option<EntityRef>,
    parents: Vec<ParentRef>,
}

/// What saving a draft would do.
enum Outcome {
    /// Refuse it, with these errors; nothing saved.
    Refused(Vec<FieldError>),
    /// Nothing to post: the update brings the entity back to its server version.
    Unchanged,
    /// Save a new draft.
    New {
        kind: Kind,
        payload: Value,
        linked: Linked,
    },
    /// Queue or fold a change into an entity the workspace holds.
    Change {
        target: EntityRef,
        op: Op,
        payload: Value,
        parents: Vec<ParentRef>,
        base: Option<Value>,
    },
}

impl Outcome {
    fn new(kind: Kind, payload: Value, linked: Linked) -> Outcome {
        Outcome::New {
            kind,
            payload,
            linked,
        }
    }
}

fn expect_kind(target: &EntityRef, kind: Kind) -> Result<()> {
    if target.kind == kind {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "expected a {} but got a {}",
            kind.name(),
            target.kind.name()
        )))
    }
}
