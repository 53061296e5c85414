//! Edits: one typed method per resource and operation the service can change. Each edit
//! writes the working copy and its outbox row in one transaction, validated as it is
//! made; an invalid edit is kept, marked with its errors, and never posted.

use std::collections::HashSet;

use flightdeck_client::upload;
use flightdeck_model::validate::{self, IgnoredOnUpdate, codes};
use flightdeck_model::{
    AUDIENCE_UPLOAD_MAX_BYTES, AdOrder, Advertiser, AudienceData, AudienceSegment, Campaign,
    Creative, DataType, FieldError, FlightCap, SiteList, ValidationErrors,
};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::Value;

use super::kept::{Arg, Log, Write, bound};
use super::validate::{PENDING_SEGMENT_ID, Payload, Timezones, check_one_in};
use super::{
    Workspace, canonical, key_from_text, key_text, kind_from_text, now_ms, op_text, parse_json,
    status_text, to_json, to_value,
};
use crate::change::{ChangeStatus, EntityRef, Key, Kind, Op, ParentRef};
use crate::{Error, Result};

/// Statuses an edit folds into instead of queueing a second change: the change has not
/// reached the service, or was refused and the edit is the fix. `sending`, `needs_review`
/// and `conflict` are outcomes the executor or the buyer must settle first.
pub(super) const COALESCE_INTO: [&str; 4] = ["pending", "invalid", "failed", "blocked"];

/// Bytes an upload's requests keep free per record for the `serviceSegmentId` of a draft
/// segment, filled in when it lands: ids the service issues (`fpsegm` and letters and
/// digits) are far shorter, so a request queued for a draft still fits when sent.
const SEGMENT_ID_ALLOWANCE: usize = 64;

/// Several edits in one transaction (one disk sync): bulk edits, imports, and a group the
/// buyer saves at once. Dropped without [`Batch::commit`], nothing is kept.
pub struct Batch<'w> {
    tx: Transaction<'w>,
    label: Option<String>,
    /// The working copy the last create or update wrote, so a bulk run need not read it
    /// back.
    pub(super) written: Option<Value>,
    /// Advertisers' timezones (dates are checked in them), looked up once per batch and
    /// forgotten when the batch edits an advertiser.
    timezones: Timezones,
    upkeep: Option<&'w super::upkeep::Upkeep>,
    /// The time every row the batch writes is stamped with.
    now: i64,
    /// Every write, in order, for a preview whose apply may replay them (see
    /// [`super::kept`]).
    log: Option<Log>,
    /// Writes are only noted in the log, not made: a preview whose rows read nothing
    /// another row writes (see `independent` in `bulk.rs`) computes the same rows
    /// without them, and is rolled back anyway.
    defer: bool,
    /// The working copy of the entity a bulk run is about to edit, which it has read
    /// already: `save` takes the fields the service ignores on update from it, and, when
    /// it is the base, the base, instead of reading and parsing them again.
    pub(super) current: Option<Current>,
    /// The errors the last create or update recorded on its change (none when it left
    /// nothing to post), for a bulk run's row.
    pub(super) recorded: Option<Vec<FieldError>>,
    /// The run's plan read the workspace as the batch reads it (nothing was written
    /// since) and its rows write nothing another row reads: what each row's plan read
    /// of its entity is still what the entity holds, and need not be read again.
    pub(super) plan_current: bool,
}

/// An entity's working copy as a bulk run read it.
pub(crate) struct Current {
    pub(crate) target: EntityRef,
    pub(crate) working: Value,
    /// The working copy is the base (the entity has no edit of its own).
    pub(crate) is_base: bool,
    /// The base's text and the entity's parent, as the run's plan read them, when they
    /// are still what the entity holds (see [`Batch::plan_current`]) and the working copy
    /// is the base: `save` need not read them.
    pub(crate) base: Option<(String, Hop)>,
}

macro_rules! one_edit {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        impl Workspace {
            $(
                $(#[$doc])*
                pub fn $name(&mut self, $($arg: $ty),*) -> Result<$ret> {
                    let mut batch = self.batch()?;
                    let out = batch.$name($($arg),*)?;
                    batch.commit()?;
                    Ok(out)
                }
            )*
        }
    };
}

one_edit! {
    /// A draft advertiser. See [`Batch::create_advertiser`].
    create_advertiser(a: Advertiser) -> EntityRef;
    /// Modifies an advertiser. See [`Batch::update_advertiser`].
    update_advertiser(target: &EntityRef, a: Advertiser) -> i64;
    /// A draft campaign. See [`Batch::create_campaign`].
    create_campaign(advertiser: &EntityRef, c: Campaign) -> EntityRef;
    /// Modifies a campaign and its flights. See [`Batch::update_campaign`].
    update_campaign(target: &EntityRef, c: Campaign) -> i64;
    /// A draft ad order. See [`Batch::create_ad_order`].
    create_ad_order(campaign: &EntityRef, o: AdOrder) -> EntityRef;
    /// Modifies an ad order. See [`Batch::update_ad_order`].
    update_ad_order(target: &EntityRef, o: AdOrder) -> i64;
    /// Sets an ad order's flight caps. See [`Batch::set_flight_caps`].
    set_flight_caps(order: &EntityRef, caps: Vec<FlightCap>) -> i64;
    /// Sets flight caps naming their flights, new ones included. See
    /// [`Batch::set_flight_caps_for`].
    set_flight_caps_for(order: &EntityRef, caps: Vec<(FlightCap, EntityRef)>) -> i64;
    /// A draft creative. See [`Batch::create_creative`].
    create_creative(parent: &EntityRef, c: Creative) -> EntityRef;
    /// Modifies a creative. See [`Batch::update_creative`].
    update_creative(target: &EntityRef, c: Creative) -> i64;
    /// A draft site list. See [`Batch::create_site_list`].
    create_site_list(list: SiteList) -> EntityRef;
    /// Adds sites or rules. See [`Batch::append_sites`].
    append_sites(list: &EntityRef, body: SiteList) -> i64;
    /// Replaces sites or rules. See [`Batch::overwrite_sites`].
    overwrite_sites(list: &EntityRef, body: SiteList) -> i64;
    /// Removes sites. See [`Batch::remove_sites`].
    remove_sites(list: &EntityRef, body: SiteList) -> i64;
    /// A draft audience segment. See [`Batch::create_audience_segment`].
    create_audience_segment(segment: AudienceSegment) -> EntityRef;
    /// Modifies a draft segment. See [`Batch::update_audience_segment`].
    update_audience_segment(target: &EntityRef, segment: AudienceSegment) -> i64;
    /// A new draft copied from an entity. See [`Batch::duplicate_as_new`].
    duplicate_as_new(target: &EntityRef) -> EntityRef;
    /// Queues an audience upload. See [`Batch::upload_audience_data`].
    upload_audience_data(segment: &EntityRef, data: AudienceData) -> i64;
    /// Queues an audience upload in requests of a chosen size. See
    /// [`Batch::upload_audience_data_split`].
    upload_audience_data_split(
        segment: &EntityRef,
        data: AudienceData,
        max_request_bytes: usize
    ) -> Vec<i64>;
}

impl Workspace {
    /// Starts a group of edits that commit together.
    ///
    /// The batch is one step of the undo history ([`Workspace::undo`]), named after what
    /// it touched unless [`Batch::label`] names it.
    pub fn batch(&mut self) -> Result<Batch<'_>> {
        let tx = self.conn.transaction()?;
        super::history::begin(&tx)?;
        Ok(Batch {
            tx,
            label: None,
            written: None,
            timezones: Timezones::default(),
            upkeep: self.upkeep.as_ref(),
            now: now_ms(),
            log: None,
            defer: false,
            current: None,
            recorded: None,
            plan_current: false,
        })
    }

    /// A batch that is never kept (a preview, rolled back when dropped), so nothing is
    /// recorded for undo. With `log`, it notes its writes for [`Batch::take_log`]; with
    /// `defer` as well, it only notes them.
    pub(crate) fn scratch_batch(&mut self, log: bool, defer: bool) -> Result<Batch<'_>> {
        Ok(Batch {
            tx: self.conn.transaction()?,
            label: None,
            written: None,
            timezones: Timezones::default(),
            upkeep: None,
            now: now_ms(),
            log: log.then(Log::default),
            defer: log && defer,
            current: None,
            recorded: None,
            plan_current: false,
        })
    }
}

impl<'w> Batch<'w> {
    /// A batch over a read transaction of another connection to the workspace file, for
    /// part of a preview whose writes are only noted (see `independent` in `bulk.rs`):
    /// it reads what the preview's own transaction reads, and writes nothing.
    pub(crate) fn noting(tx: Transaction<'w>) -> Batch<'w> {
        Batch {
            tx,
            label: None,
            written: None,
            timezones: Timezones::default(),
            upkeep: None,
            now: now_ms(),
            log: Some(Log::default()),
            defer: true,
            current: None,
            recorded: None,
            plan_current: false,
        }
    }

    /// Adds writes another batch noted (`None`: too many to keep) after this one's.
    pub(crate) fn note_all(&mut self, writes: Option<Vec<Write>>) {
        if let Some(log) = &mut self.log {
            log.append(writes);
        }
    }
}

/// Where a new entity hangs and which of its members wait for a draft's remote id.
#[derive(Default)]
struct Links {
    parents: Vec<ParentRef>,
    parent: Option<EntityRef>,
    scope: Option<i64>,
}

impl Batch<'_> {
    /// Makes every edit of the batch durable at once.
    pub fn commit(self) -> Result<()> {
        self.commit_step().map(|_| ())
    }

    /// Commits, and says which undo step the batch became (`None`: it changed nothing).
    pub fn commit_step(self) -> Result<Option<i64>> {
        let step = super::history::finish(&self.tx, self.label.as_deref())?;
        self.tx.commit()?;
        if let Some(c) = self.upkeep {
            c.nudge();
        }
        Ok(step)
    }

    /// Names the batch's undo step ("Replace “2025” with “2026” in 40 creatives").
    pub fn label(&mut self, label: impl Into<String>) {
        self.label = Some(label.into());
    }

    /// A draft advertiser (its `id` is ignored).
    pub fn create_advertiser(&mut self, mut a: Advertiser) -> Result<EntityRef> {
        a.id = None;
        self.create(Kind::Advertiser, to_value(&a)?, Links::default())
    }

    /// Modifies an advertiser, downloaded or draft: `a` is the whole new version.
    /// Returns the change's `seq` (updates fold into the entity's open change; an edit
    /// that brings the entity back to its server version removes that change and returns
    /// its `seq`, or 0 when there was none).
    ///
    /// [`Error::Refused`], with nothing saved, when a posted advertiser's edit changes a
    /// field the service ignores on update (`agencyId`, `currency`, `timezoneName`).
    pub fn update_advertiser(&mut self, target: &EntityRef, mut a: Advertiser) -> Result<i64> {
        expect_kind(target, Kind::Advertiser)?;
        a.id = numeric_id(&target.key);
        let payload = to_value(&a)?;
        self.update_checked(target, payload, validate::ADVERTISER_IGNORED_ON_UPDATE)
    }

    /// A draft campaign under `advertiser` (downloaded or draft), with its flights (draft
    /// flights have no id).
    pub fn create_campaign(
        &mut self,
        advertiser: &EntityRef,
        mut c: Campaign,
    ) -> Result<EntityRef> {
        expect_kind(advertiser, Kind::Advertiser)?;
        c.id = None;
        let mut payload = to_value(&c)?;
        let links = self.link(advertiser, "/advertiserId", &mut payload)?;
        self.create(Kind::Campaign, payload, links)
    }

    /// Modifies a campaign; `c` is the whole new version, flights included.
    /// [`Error::Refused`], with nothing saved, when a posted campaign's edit changes a
    /// field the service ignores on update (`advertiserId`).
    pub fn update_campaign(&mut self, target: &EntityRef, mut c: Campaign) -> Result<i64> {
        expect_kind(target, Kind::Campaign)?;
        c.id = numeric_id(&target.key);
        let payload = to_value(&c)?;
        self.update_checked(target, payload, validate::CAMPAIGN_IGNORED_ON_UPDATE)
    }

    /// A draft ad order under `campaign` (downloaded or draft: a draft campaign's id is
    /// filled in when it lands).
    pub fn create_ad_order(&mut self, campaign: &EntityRef, mut o: AdOrder) -> Result<EntityRef> {
        expect_kind(campaign, Kind::Campaign)?;
        o.id = None;
        let mut payload = to_value(&o)?;
        let links = self.link(campaign, "/campaignId", &mut payload)?;
        self.create(Kind::AdOrder, payload, links)
    }

    /// Modifies an ad order; `o` is the whole new version.
    /// [`Error::Refused`], with nothing saved, when a posted order's edit changes a field
    /// the service ignores on update (`campaignId`, `lifetimeBudget`, `startDate`,
    /// `endDate`: after creation they move through the flight caps).
    pub fn update_ad_order(&mut self, target: &EntityRef, mut o: AdOrder) -> Result<i64> {
        expect_kind(target, Kind::AdOrder)?;
        o.id = numeric_id(&target.key);
        let payload = to_value(&o)?;
        self.update_checked(target, payload, validate::AD_ORDER_IGNORED_ON_UPDATE)
    }

    /// Sets the flight caps of an ad order (downloaded or draft): the caps to send to
    /// `byAdOrder`. Caps without an id are added; the service keeps caps not sent.
    /// Each cap's `flightId` names a flight that has an id; for new flights see
    /// [`Batch::set_flight_caps_for`].
    pub fn set_flight_caps(&mut self, order: &EntityRef, caps: Vec<FlightCap>) -> Result<i64> {
        let caps = caps.into_iter().map(|c| (c, None)).collect();
        self.caps(order, caps)
    }

    /// [`Batch::set_flight_caps`], each cap with the flight it caps: a flight with an id
    /// (`Kind::Flight`, `Key::Id`), or a new one, [`EntityRef::draft_flight`] (as
    /// [`Workspace::flights_of`] lists them). A new flight's id is filled in when the
    /// campaign change that adds it lands, in the same push: the caps wait for it.
    pub fn set_flight_caps_for(
        &mut self,
        order: &EntityRef,
        caps: Vec<(FlightCap, EntityRef)>,
    ) -> Result<i64> {
        let caps = caps.into_iter().map(|(c, f)| (c, Some(f))).collect();
        self.caps(order, caps)
    }

    fn caps(
        &mut self,
        order: &EntityRef,
        caps: Vec<(FlightCap, Option<EntityRef>)>,
    ) -> Result<i64> {
        expect_kind(order, Kind::AdOrder)?;
        let order_scope = self.scope_of(order)?;
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
                    Key::Local(_) => self.landed(&flight)?,
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
            let mut links = self.link(order, &format!("/{i}/orderId"), &mut payload)?;
            parents.append(&mut links.parents);
        }
        parents.extend(waiting);
        let target = EntityRef::new(Kind::FlightCaps, order.key.clone());
        if !self.exists(&target)? {
            // Caps never downloaded (or a draft order's): start from no base.
            self.insert_entity(
                &target,
                &Value::Array(Vec::new()),
                Some(order),
                order_scope.flatten(),
            )?;
        }
        self.save(&target, Op::Update, payload, Some(parents), &[])
    }

    /// A draft creative under an advertiser or a campaign (downloaded or draft).
    pub fn create_creative(&mut self, parent: &EntityRef, mut c: Creative) -> Result<EntityRef> {
        c.id = None;
        let mut payload = to_value(&c)?;
        let pointer = match parent.kind {
            Kind::Advertiser => "/advertiserId",
            Kind::Campaign => "/campaignId",
            other => {
                return Err(Error::Invalid(format!(
                    "a creative belongs to an advertiser or a campaign, not a {other:?}"
                )));
            }
        };
        let links = self.link(parent, pointer, &mut payload)?;
        self.create(Kind::Creative, payload, links)
    }

    /// Modifies a draft creative. A posted one is read-only ([`Error::Refused`], nothing
    /// saved): `creative/save` only creates, so an edit would post a second creative.
    /// [`Batch::duplicate_as_new`] makes an editable copy instead.
    pub fn update_creative(&mut self, target: &EntityRef, mut c: Creative) -> Result<i64> {
        expect_kind(target, Kind::Creative)?;
        refuse_read_only(target)?;
        c.id = None;
        if c.advertiser_id.is_none() && c.campaign_id.is_none() {
            // An edit that names no parent keeps the draft's.
            let working: Creative = parse_json(&self.require(target)?)?;
            c.advertiser_id = working.advertiser_id;
            c.campaign_id = working.campaign_id;
        }
        self.update(target, to_value(&c)?)
    }

    /// A draft site list (`addNewSiteList`). The workspace is a list's only record.
    pub fn create_site_list(&mut self, mut list: SiteList) -> Result<EntityRef> {
        list.id = None;
        list.inserted_count = None;
        self.create(Kind::SiteList, to_value(&list)?, Links::default())
    }

    /// Adds sites (id based) or rules (rule based) to a list. `name` defaults to the
    /// list's current name (the service requires it and renames the list with it).
    pub fn append_sites(&mut self, list: &EntityRef, body: SiteList) -> Result<i64> {
        self.site_list_op(list, Op::SiteListAppend, body)
    }

    /// Replaces a list's sites or rules.
    pub fn overwrite_sites(&mut self, list: &EntityRef, body: SiteList) -> Result<i64> {
        self.site_list_op(list, Op::SiteListOverwrite, body)
    }

    /// Removes sites from an id-based list.
    pub fn remove_sites(&mut self, list: &EntityRef, body: SiteList) -> Result<i64> {
        // removeSites takes only the list, its name and the ids; nothing else is sent.
        let body = SiteList {
            name: body.name,
            site_ids: body.site_ids,
            ..SiteList::default()
        };
        self.site_list_op(list, Op::SiteListRemoveSites, body)
    }

    /// A draft first-party audience segment.
    pub fn create_audience_segment(&mut self, mut segment: AudienceSegment) -> Result<EntityRef> {
        segment.service_segment_id = None;
        self.create(Kind::AudienceSegment, to_value(&segment)?, Links::default())
    }

    /// Modifies a draft segment (its create is posted with the edit). A posted segment is
    /// read-only ([`Error::Refused`], nothing saved): the service has no update for
    /// segments, so saving it again would create a second one. It still takes uploads.
    pub fn update_audience_segment(
        &mut self,
        target: &EntityRef,
        mut segment: AudienceSegment,
    ) -> Result<i64> {
        expect_kind(target, Kind::AudienceSegment)?;
        refuse_read_only(target)?;
        segment.service_segment_id = None;
        self.update(target, to_value(&segment)?)
    }

    /// Queues records of identifiers to add to a segment, downloaded or draft, posted or
    /// not, as requests of at most [`AUDIENCE_UPLOAD_MAX_BYTES`]. See
    /// [`Batch::upload_audience_data_split`], which this is with that limit; returns the
    /// `seq` of the **last** change it queued (posting it with
    /// [`crate::sync::PushOptions::only`] posts the earlier ones too: changes to one
    /// segment go in outbox order).
    pub fn upload_audience_data(&mut self, segment: &EntityRef, data: AudienceData) -> Result<i64> {
        let seqs = self.upload_audience_data_split(segment, data, AUDIENCE_UPLOAD_MAX_BYTES)?;
        seqs.last()
            .copied()
            .ok_or_else(|| Error::Invalid("the upload was queued as no change at all".to_owned()))
    }

    /// Queues records of identifiers to add to a segment as one change per request of at
    /// most `max_request_bytes` of JSON (capped at [`AUDIENCE_UPLOAD_MAX_BYTES`]), split
    /// now rather than when posted: each request is then its own change with its own
    /// exactly-once bookkeeping, so a request whose answer is lost waits for the buyer
    /// while those that applied stay applied, and none is ever sent twice. Returns the
    /// `seq` of every change, in order (one row each in
    /// [`Workspace::audience_uploads`]).
    ///
    /// Country codes are trimmed and upper-cased here, for every host. A record whose
    /// `serviceSegmentId` is empty gets the segment's: now when it has one, else when the
    /// draft lands (the changes wait for it).
    ///
    /// [`Error::Refused`], with nothing queued, when the upload breaks the service's
    /// rules (`flightdeck_model::validate::audience_data`, checked as if the records of
    /// a draft segment carried the id it will get) or a value cannot fit in any request.
    /// Fields index the records as passed: `values` (no records), `[i].serviceSegmentId`,
    /// `[i].countryCode`, `[i].values`, `[i].values[j]`, `[i]`.
    pub fn upload_audience_data_split(
        &mut self,
        segment: &EntityRef,
        mut data: AudienceData,
        max_request_bytes: usize,
    ) -> Result<Vec<i64>> {
        expect_kind(segment, Kind::AudienceSegment)?;
        let working: Value = parse_json(&self.require(segment)?)?;
        let remote = match &segment.key {
            Key::Local(_) => self.landed(segment)?,
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
        // Checked as sent: a draft's records carry the id it will get (a stand-in here),
        // and for sizing an id as long as any the service issues.
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
        let checked_id = segment_id.as_deref().unwrap_or(PENDING_SEGMENT_ID);
        validate::audience_data(checked_id, data_type.as_ref(), &stand_in(checked_id))
            .map_err(Error::Refused)?;
        let sized = stand_in(&"x".repeat(SEGMENT_ID_ALLOWANCE));
        let plan = upload::plan(&sized, max_request_bytes.min(AUDIENCE_UPLOAD_MAX_BYTES)).map_err(
            |e| match e {
                flightdeck_client::Error::Invalid { field, message } => Error::Refused(
                    ValidationErrors(vec![FieldError::new(field, codes::INVALID, message)]),
                ),
                other => Error::Client(other),
            },
        )?;
        let mut seqs = Vec::with_capacity(plan.len());
        let mut recorded = Vec::new();
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
            seqs.push(self.append_row(segment, Op::AudienceData, &to_value(&body)?, &parents)?);
            recorded.extend(self.recorded.take().unwrap_or_default());
        }
        // Every request's errors, for the form (`Workspace::save_draft`).
        self.recorded = Some(recorded);
        Ok(seqs)
    }

    /// A new draft copied from `target`'s working copy, under the same parent (a draft
    /// parent stays linked), for kinds the service cannot update once posted and for
    /// "save as new" elsewhere. What the service assigned is left out (id, status,
    /// counts; a segment's `serviceSegmentId`), as are references Flightdeck generated
    /// for exactly-once posting; the name gets " (copy)", and a segment's
    /// `externalAudienceId` a suffix that no other segment in the workspace has.
    pub fn duplicate_as_new(&mut self, target: &EntityRef) -> Result<EntityRef> {
        let working: Value = parse_json(&self.require(target)?)?;
        let mut payload = self.as_new(target.kind, working)?;
        let parent: Option<(String, String)> = self
            .row(
                "SELECT parent_kind, parent_key FROM entities WHERE kind = ?1 AND key = ?2",
                params![target.kind.name(), key_text(&target.key)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .and_then(|(k, key): (Option<String>, Option<String>)| Some((k?, key?)));
        let parent = parent
            .map(|(k, key)| -> Result<EntityRef> {
                Ok(EntityRef::new(kind_from_text(&k)?, key_from_text(&key)?))
            })
            .transpose()?;
        let pointer = match (target.kind, parent.as_ref().map(|p| p.kind)) {
            (Kind::Campaign, Some(Kind::Advertiser)) => Some("/advertiserId"),
            (Kind::AdOrder, Some(Kind::Campaign)) => Some("/campaignId"),
            (Kind::Creative, Some(Kind::Advertiser)) => Some("/advertiserId"),
            (Kind::Creative, Some(Kind::Campaign)) => Some("/campaignId"),
            _ => None,
        };
        let links = match (parent, pointer) {
            (Some(parent), Some(pointer)) if self.exists(&parent)? => {
                self.link(&parent, pointer, &mut payload)?
            }
            _ => Links::default(),
        };
        self.create(target.kind, payload, links)
    }

    // ---- internals ----

    /// Every write of a batch goes through here, so a preview's log holds all of them.
    /// Statements are cached: a batch of 100,000 edits re-runs the same few.
    fn write(&mut self, sql: &'static str, args: Vec<Arg>) -> Result<usize> {
        if self.defer {
            if let Some(log) = &mut self.log {
                log.push(Write {
                    sql,
                    args,
                    changed: None,
                    inserted: None,
                });
            }
            return Ok(1);
        }
        let changed = self
            .tx
            .prepare_cached(sql)?
            .execute(rusqlite::params_from_iter(bound(&args, self.now)))?;
        if let Some(log) = &mut self.log {
            let inserted = sql
                .starts_with("INSERT")
                .then(|| self.tx.last_insert_rowid());
            log.push(Write {
                sql,
                args,
                changed: Some(changed),
                inserted,
            });
        }
        Ok(changed)
    }

    /// Runs the writes of a preview's log again, in order; false as soon as one does not
    /// change the rows it changed then (the workspace is not as the preview left it).
    /// Their few statements are each looked up once, not once per write.
    pub(super) fn rewrite(&self, writes: &[Write]) -> Result<bool> {
        let mut statements: Vec<(&str, rusqlite::CachedStatement<'_>)> = Vec::new();
        for write in writes {
            let at = match statements.iter().position(|(sql, _)| *sql == write.sql) {
                Some(at) => at,
                None => {
                    statements.push((write.sql, self.tx.prepare_cached(write.sql)?));
                    statements.len() - 1
                }
            };
            let changed = statements[at]
                .1
                .execute(rusqlite::params_from_iter(bound(&write.args, self.now)))?;
            let inserted = write
                .inserted
                .is_none_or(|id| id == self.tx.last_insert_rowid());
            if !(write.changed.is_none_or(|c| c == changed) && inserted) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The writes of a batch begun with a log, unless they were too many to keep.
    pub(crate) fn take_log(&mut self) -> Option<Vec<Write>> {
        self.log.take().and_then(Log::into_writes)
    }

    /// [`Batch::take_log`], the batch logging on with an empty log: the writes of a part
    /// of a run, for [`Batch::note_all`] to put back in plan order.
    pub(crate) fn take_noted(&mut self) -> Option<Vec<Write>> {
        self.log
            .as_mut()
            .and_then(|log| std::mem::take(log).into_writes())
    }

    pub(super) fn row<T>(
        &self,
        sql: &str,
        p: impl rusqlite::Params,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.tx.prepare_cached(sql)?.query_row(p, f)
    }

    fn create(&mut self, kind: Kind, payload: Value, links: Links) -> Result<EntityRef> {
        let target = EntityRef::new(kind, Key::new_local());
        self.insert_entity(&target, &payload, links.parent.as_ref(), links.scope)?;
        let errors = self.validate(&target, Op::Create, &payload, &links.parents, None)?;
        self.insert_row(
            &target,
            Op::Create,
            canonical(&payload)?,
            &links.parents,
            None,
            &errors,
        )?;
        self.recorded = Some(errors);
        self.written = Some(payload);
        Ok(target)
    }

    /// A new draft of `kind` linked to no parent: what a form that chose none would save,
    /// for the errors it would carry (see `Batch::save_draft`, which then refuses it).
    pub(super) fn create_unlinked(&mut self, kind: Kind, payload: Value) -> Result<EntityRef> {
        self.create(kind, payload, Links::default())
    }

    fn update(&mut self, target: &EntityRef, payload: Value) -> Result<i64> {
        self.update_checked(target, payload, &[])
    }

    /// An update, [`Error::Refused`] with nothing saved when it changes a field in
    /// `ignored` (see [`refuse_ignored`]). `save` answers NotFound for an entity the
    /// workspace does not hold.
    fn update_checked(
        &mut self,
        target: &EntityRef,
        payload: Value,
        ignored: &[IgnoredOnUpdate],
    ) -> Result<i64> {
        self.save(target, Op::Update, payload, None, ignored)
    }

    /// `value` as the body of a new draft of `kind`: see [`Batch::duplicate_as_new`].
    pub(super) fn as_new(&self, kind: Kind, value: Value) -> Result<Value> {
        let mut value = match kind {
            // One identifier of the two the service returns, without the output spelling.
            Kind::Campaign => {
                let c: Campaign = serde_json::from_value(value)
                    .map_err(|e| Error::Corrupt(format!("stored campaign: {e}")))?;
                to_value(&c.request_body(Some(&c)))?
            }
            Kind::AdOrder => {
                let o: AdOrder = serde_json::from_value(value)
                    .map_err(|e| Error::Corrupt(format!("stored ad order: {e}")))?;
                to_value(&o.request_body(Some(&o)))?
            }
            Kind::Flight | Kind::FlightCaps => {
                return Err(Error::Invalid(format!(
                    "a {} cannot be duplicated on its own; duplicate its {} instead",
                    kind.name(),
                    if kind == Kind::Flight {
                        "campaign"
                    } else {
                        "ad order"
                    }
                )));
            }
            _ => value,
        };
        let Value::Object(map) = &mut value else {
            return Err(Error::Corrupt(format!(
                "the stored {} is not an object",
                kind.name()
            )));
        };
        map.remove("id");
        let assigned: &[&str] = match kind {
            Kind::Campaign => &["hasFlights"],
            Kind::Creative => &["status"],
            Kind::SiteList => &["insertedCount"],
            Kind::AudienceSegment => &["serviceSegmentId", "status", "dataCount", "message"],
            _ => &[],
        };
        for field in assigned {
            map.remove(*field);
        }
        if let Some(Value::Array(flights)) = map.get_mut("flights") {
            for f in flights.iter_mut().filter_map(Value::as_object_mut) {
                for field in ["id", "status", "remainingBudget"] {
                    f.remove(field);
                }
            }
        }
        // A reference Flightdeck generated would make the copy's exactly-once look-up
        // find the original; a new one is generated when the copy is posted.
        for field in [
            "externalAdvertiserId",
            "externalCampaignId",
            "externalAdOrderId",
            "ioNumber",
            "externalCreativeid",
            "externalAudienceId",
        ] {
            if map
                .get(field)
                .and_then(Value::as_str)
                .is_some_and(|s| s.starts_with(crate::sync::REF_PREFIX))
            {
                map.remove(field);
            }
        }
        if let Some(Value::String(name)) = map.get_mut("name") {
            name.push_str(" (copy)");
        }
        if kind == Kind::AudienceSegment
            && let Some(ext) = map.get("externalAudienceId").and_then(Value::as_str)
        {
            let unique = self.unused_audience_id(ext)?;
            map.insert("externalAudienceId".into(), Value::from(unique));
        }
        Ok(value)
    }

    /// `{base}-copy`, or `{base}-copy-N`, whichever no segment in the workspace uses.
    fn unused_audience_id(&self, base: &str) -> Result<String> {
        let mut n = 1;
        loop {
            let candidate = if n == 1 {
                format!("{base}-copy")
            } else {
                format!("{base}-copy-{n}")
            };
            let taken: bool = self.row(
                "SELECT EXISTS(SELECT 1 FROM entities WHERE kind = 'audience_segment' \
                 AND json_extract(COALESCE(working_json, remote_json), '$.externalAudienceId') = ?1)",
                params![candidate],
                |r| r.get(0),
            )?;
            if !taken {
                return Ok(candidate);
            }
            n += 1;
        }
    }

    /// Folds a create or update into the entity's open change, or queues a new one.
    /// `parents`: `None` keeps those of the entity's create (a draft's draft parent).
    fn save(
        &mut self,
        target: &EntityRef,
        op: Op,
        payload: Value,
        parents: Option<Vec<ParentRef>>,
        ignored: &[IgnoredOnUpdate],
    ) -> Result<i64> {
        // Held aside while saving (and given back for the run's diff).
        let current = self.current.take();
        let known = current.as_ref().filter(|c| c.target == *target);
        let out = self.save_with(target, op, payload, parents, ignored, known);
        self.current = current;
        out
    }

    fn save_with(
        &mut self,
        target: &EntityRef,
        op: Op,
        mut payload: Value,
        parents: Option<Vec<ParentRef>>,
        ignored: &[IgnoredOnUpdate],
        known: Option<&Current>,
    ) -> Result<i64> {
        let (kind, key) = (target.kind.name(), key_text(&target.key));
        // The base, read once (for the check against it, the change's base, and telling
        // whether the edit went back to it), with the fields the service ignores on update
        // (from the working copy a bulk run holds, else out of the stored one), and the
        // entity's parent, where its timezone is looked up from.
        let (base_text, fields, hop): (Option<String>, Option<String>, Hop) =
            match known.and_then(|k| k.base.as_ref()) {
                Some((text, hop)) => (Some(text.clone()), None, hop.clone()),
                None => {
                    let sql = if known.is_some() {
                        rule_fields_sql(&[])
                    } else {
                        rule_fields_sql(ignored)
                    };
                    self.row(&sql, params![kind, key], |r| {
                        Ok((r.get(0)?, r.get(1)?, (r.get(2)?, r.get(3)?, r.get(4)?)))
                    })
                    .optional()?
                    .ok_or_else(|| {
                        Error::NotFound(format!("{kind} {} is not in the workspace", target.key))
                    })?
                }
            };
        let current = match known {
            Some(k) => Some(rule_fields_of(ignored, &k.working)),
            None => rule_fields_from(ignored, fields.as_deref())?,
        };
        refuse_ignored(target, ignored, current, &payload)?;
        let parents = match parents {
            Some(p) => p,
            None => self.create_parents(target)?,
        };
        fill_parents(&mut payload, &parents);
        let open = self.open_change(kind, &key)?;
        let text = canonical(&payload)?;
        let row_op = match &open {
            Some((_, o)) if o == "create" => Op::Create,
            _ => op,
        };
        if row_op == Op::Update && matches!(target.kind, Kind::Creative | Kind::AudienceSegment) {
            // A draft whose create is being sent (or awaits review) cannot take an edit:
            // it would be an update, which these kinds do not have.
            return Err(Error::Refused(ValidationErrors(vec![FieldError::new(
                if target.kind == Kind::Creative {
                    "id"
                } else {
                    "serviceSegmentId"
                },
                codes::IGNORED_ON_UPDATE,
                validate::NO_UPDATE_ENDPOINT,
            )])));
        }
        if target.kind == Kind::Advertiser {
            // Dates of its campaigns and orders are checked in its timezone.
            self.timezones = Timezones::default();
        }
        self.write(
            "UPDATE entities SET working_json = ?3, updated_at = ?4 WHERE kind = ?1 AND key = ?2",
            vec![
                kind.to_owned().into(),
                key.clone().into(),
                text.clone().into(),
                Arg::Now,
            ],
        )?;
        let parsed;
        let base = match (&base_text, row_op, known) {
            // The working copy the run holds is the base itself: the same text.
            (Some(_), Op::Update, Some(k)) if k.is_base => Some(&k.working),
            // An update is checked as it will be sent: against the server version.
            (Some(t), Op::Update, _) => {
                parsed = parse_json::<Value>(t)?;
                Some(&parsed)
            }
            _ => None,
        };
        // Back to the base exactly: nothing left to post. (Maps compare regardless of
        // member order, as their canonical texts would.)
        if base.is_some_and(|b| *b == payload) {
            self.written = Some(payload);
            self.recorded = Some(Vec::new());
            if let Some((seq, _)) = open {
                self.write("DELETE FROM outbox WHERE seq = ?1", vec![seq.into()])?;
                return Ok(seq);
            }
            return Ok(0);
        }
        self.timezones.first_hop(target.kind, &key, hop);
        let errors = self.validate(target, row_op, &payload, &parents, base)?;
        self.written = Some(payload);
        let seq = match open {
            Some((seq, _)) => {
                self.write(
                    "UPDATE outbox SET payload = ?2, parents = ?3, errors = ?4, status = ?5, \
                     messages = '[]', conflicts = NULL, updated_at = ?6 WHERE seq = ?1",
                    vec![
                        seq.into(),
                        text.into(),
                        to_json(&parents)?.into(),
                        to_json(&errors)?.into(),
                        status_text(status_for(&errors)).to_owned().into(),
                        Arg::Now,
                    ],
                )?;
                seq
            }
            None => self.insert_row(target, op, text, &parents, base_text, &errors)?,
        };
        self.recorded = Some(errors);
        Ok(seq)
    }

    /// The entity's latest change that an edit folds into (see [`COALESCE_INTO`]): its
    /// `seq` and op. Its rows are filtered here rather than in SQL, where the two lists
    /// cost a temporary table each and the order a sort, for every edit of a bulk run.
    fn open_change(&self, kind: &str, key: &str) -> Result<Option<(i64, String)>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT seq, op, status FROM outbox WHERE kind = ?1 AND key = ?2")?;
        let mut rows = stmt.query(params![kind, key])?;
        let mut open: Option<(i64, String)> = None;
        while let Some(r) = rows.next()? {
            let seq: i64 = r.get(0)?;
            let op: String = r.get(1)?;
            let status: String = r.get(2)?;
            if (op == "create" || op == "update")
                && COALESCE_INTO.contains(&status.as_str())
                && open.as_ref().is_none_or(|(s, _)| seq > *s)
            {
                open = Some((seq, op));
            }
        }
        Ok(open)
    }

    fn site_list_op(&mut self, list: &EntityRef, op: Op, mut body: SiteList) -> Result<i64> {
        expect_kind(list, Kind::SiteList)?;
        let working_text = self.require(list)?;
        let mut working: SiteList = parse_json(&working_text)?;
        body.id = numeric_id(&list.key);
        body.inserted_count = None;
        if body.name.is_none() {
            body.name.clone_from(&working.name);
        }
        apply_site_op(&mut working, op, &body);
        self.write(
            "UPDATE entities SET working_json = ?3, updated_at = ?4 WHERE kind = ?1 AND key = ?2",
            vec![
                list.kind.name().to_owned().into(),
                key_text(&list.key).into(),
                canonical(&to_value(&working)?)?.into(),
                Arg::Now,
            ],
        )?;
        self.append_row(list, op, &to_value(&body)?, &[])
    }

    /// A separate, ordered change (site-list operations, audience uploads): its payload is
    /// its whole effect, so it has no base.
    fn append_row(
        &mut self,
        target: &EntityRef,
        op: Op,
        payload: &Value,
        parents: &[ParentRef],
    ) -> Result<i64> {
        // Its payload is its whole effect: there is no base to check against.
        let errors = self.validate(target, op, payload, parents, None)?;
        let seq = self.insert_row(target, op, canonical(payload)?, parents, None, &errors)?;
        self.recorded = Some(errors);
        Ok(seq)
    }

    /// The rules `payload` breaks as it will be sent; an update is checked against its
    /// `base` (the server version), which `save` has read.
    fn validate(
        &mut self,
        target: &EntityRef,
        op: Op,
        payload: &Value,
        parents: &[ParentRef],
        base: Option<&Value>,
    ) -> Result<Vec<FieldError>> {
        check_one_in(
            &self.tx,
            &mut self.timezones,
            target.kind,
            &target.key,
            op,
            Payload::Value(payload),
            parents,
            base,
        )
    }

    /// Points `pointer` at `parent`: its remote id when it has one, else a [`ParentRef`]
    /// filled in when the draft lands.
    fn link(&mut self, parent: &EntityRef, pointer: &str, payload: &mut Value) -> Result<Links> {
        let scope = self.scope_of(parent)?;
        let mut links = Links {
            parent: Some(parent.clone()),
            scope: scope.flatten(),
            parents: Vec::new(),
        };
        let resolved = match &parent.key {
            Key::Local(_) => {
                if scope.is_none() {
                    return Err(Error::NotFound(format!(
                        "the draft {} {} is not in the workspace (discarded?)",
                        parent.kind.name(),
                        parent.key
                    )));
                }
                self.landed(parent)?
            }
            other => Some(other.clone()),
        };
        match resolved {
            Some(Key::Id(id)) => set_pointer(payload, pointer, Value::from(id)),
            _ => {
                set_pointer(payload, pointer, Value::Null);
                links.parents.push(ParentRef {
                    pointer: pointer.to_owned(),
                    target: parent.clone(),
                });
            }
        }
        if scope.is_none() && parent.kind == Kind::Advertiser {
            links.scope = numeric_id(&parent.key);
        }
        Ok(links)
    }

    fn landed(&self, target: &EntityRef) -> Result<Option<Key>> {
        let remote: Option<String> = self
            .row(
                "SELECT remote FROM id_map WHERE kind = ?1 AND local = ?2",
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get(0),
            )
            .optional()?;
        remote.as_deref().map(key_from_text).transpose()
    }

    /// `None`: not in the workspace; `Some(scope)` otherwise.
    fn scope_of(&self, target: &EntityRef) -> Result<Option<Option<i64>>> {
        let scope = self
            .row(
                "SELECT scope FROM entities WHERE kind = ?1 AND key = ?2",
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get::<_, Option<i64>>(0),
            )
            .optional()?;
        let own = match (target.kind, &target.key) {
            (Kind::Advertiser, Key::Id(id)) => Some(*id),
            _ => None,
        };
        Ok(scope.map(|s| s.or(own)))
    }

    pub(super) fn exists(&self, target: &EntityRef) -> Result<bool> {
        Ok(self.scope_of(target)?.is_some())
    }

    /// The working copy, or `NotFound`.
    pub(super) fn require(&self, target: &EntityRef) -> Result<String> {
        Ok(self.working_text(target)?.0)
    }

    /// The text of an entity's working copy, and whether it is the base (no edit of its
    /// own); `NotFound` when the workspace does not hold it.
    pub(super) fn working_text(&self, target: &EntityRef) -> Result<(String, bool)> {
        self.row(
            "SELECT COALESCE(working_json, remote_json), working_json IS NULL \
             FROM entities WHERE kind = ?1 AND key = ?2",
            params![target.kind.name(), key_text(&target.key)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?
        .ok_or_else(|| {
            Error::NotFound(format!(
                "{} {} is not in the workspace",
                target.kind.name(),
                target.key
            ))
        })
    }

    /// Parent references of the entity's create, if it was a draft.
    fn create_parents(&self, target: &EntityRef) -> Result<Vec<ParentRef>> {
        if !target.key.is_local() {
            return Ok(Vec::new());
        }
        let text: Option<String> = self
            .row(
                "SELECT parents FROM outbox WHERE kind = ?1 AND key = ?2 AND op = 'create' \
                 ORDER BY seq DESC LIMIT 1",
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get(0),
            )
            .optional()?;
        text.as_deref()
            .map(parse_json)
            .transpose()
            .map(Option::unwrap_or_default)
    }

    fn insert_entity(
        &mut self,
        target: &EntityRef,
        working: &Value,
        parent: Option<&EntityRef>,
        scope: Option<i64>,
    ) -> Result<()> {
        self.write(
            "INSERT INTO entities (kind, key, working_json, parent_kind, parent_key, scope, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            vec![
                target.kind.name().to_owned().into(),
                key_text(&target.key).into(),
                canonical(working)?.into(),
                parent.map(|p| p.kind.name().to_owned()).into(),
                parent.map(|p| key_text(&p.key)).into(),
                scope.into(),
                Arg::Now,
            ],
        )?;
        Ok(())
    }

    fn insert_row(
        &mut self,
        target: &EntityRef,
        op: Op,
        payload: String,
        parents: &[ParentRef],
        base: Option<String>,
        errors: &[FieldError],
    ) -> Result<i64> {
        self.write(
            "INSERT INTO outbox (kind, key, op, payload, parents, base, errors, status, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
            vec![
                target.kind.name().to_owned().into(),
                key_text(&target.key).into(),
                op_text(op).to_owned().into(),
                payload.into(),
                to_json(parents)?.into(),
                base.into(),
                to_json(errors)?.into(),
                status_text(status_for(errors)).to_owned().into(),
                Arg::Now,
            ],
        )?;
        // A deferred insert has no row yet: its `seq` is not known (nor needed).
        Ok(if self.defer {
            0
        } else {
            self.tx.last_insert_rowid()
        })
    }
}

/// The parent of the entity `save` reads (`parent_kind`, `parent_key`, `scope`): the
/// first hop of its timezone's look-up.
pub(crate) type Hop = (Option<String>, Option<String>, Option<i64>);

/// [`Error::Refused`] when the edit changes a field in `rules` from the entity's current
/// working copy (its server version when it has no pending edit): `current` holds those
/// fields' values (see [`rule_fields_of`]). Drafts have none and may set anything.
/// Compared with the working copy, not with a newer server version a pull holds back
/// while edits are pending: a value someone else changed elsewhere (an ad order's budget
/// through its flight) is not this edit's doing and must not refuse it.
fn refuse_ignored(
    target: &EntityRef,
    rules: &[IgnoredOnUpdate],
    current: Option<Value>,
    edited: &Value,
) -> Result<()> {
    if target.key.is_local() || rules.is_empty() {
        return Ok(());
    }
    let Some(current) = current else {
        return Ok(());
    };
    validate::ignored_on_update(rules, &current, edited).map_err(Error::Refused)
}

/// The fields of `rules` in a working copy, as an object.
fn rule_fields_of(rules: &[IgnoredOnUpdate], working: &Value) -> Value {
    Value::Object(
        rules
            .iter()
            .map(|r| {
                let v = working.get(r.field).cloned().unwrap_or(Value::Null);
                (r.field.to_owned(), v)
            })
            .collect(),
    )
}

/// The fields of `rules` as SQLite took them out of the stored working copy: a JSON array
/// in `rules`' order (see [`rule_fields_sql`]).
fn rule_fields_from(rules: &[IgnoredOnUpdate], fields: Option<&str>) -> Result<Option<Value>> {
    let Some(fields) = fields.filter(|_| !rules.is_empty()) else {
        return Ok(None);
    };
    let values: Vec<Value> = parse_json(fields)?;
    Ok(Some(Value::Object(
        rules
            .iter()
            .zip(values)
            .map(|(r, v)| (r.field.to_owned(), v))
            .collect(),
    )))
}

/// The SQL of what `save` reads of an entity: its base, the fields of `rules` in its
/// working copy as one JSON array (SQLite takes them out: parsing the whole working copy
/// again is a large share of an edit in a bulk run), and its parent ([`Hop`]).
fn rule_fields_sql(rules: &[IgnoredOnUpdate]) -> String {
    let mut paths: Vec<String> = rules.iter().map(|r| format!("'$.{}'", r.field)).collect();
    let fields = match paths.len() {
        0 => "NULL".to_owned(),
        n => {
            if n == 1 {
                // With one path SQLite gives the bare value (of any SQL type); with two,
                // always a JSON array. The second path matches nothing.
                paths.push("'$.\"\"'".to_owned());
            }
            format!(
                "json_extract(COALESCE(working_json, remote_json), {})",
                paths.join(", ")
            )
        }
    };
    format!(
        "SELECT remote_json, {fields}, parent_kind, parent_key, scope \
         FROM entities WHERE kind = ?1 AND key = ?2"
    )
}

pub(super) fn status_for(errors: &[FieldError]) -> ChangeStatus {
    if errors.is_empty() {
        ChangeStatus::Pending
    } else {
        ChangeStatus::Invalid
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

pub(super) fn numeric_id(key: &Key) -> Option<i64> {
    match key {
        Key::Id(id) => Some(*id),
        _ => None,
    }
}

/// Each reference whose target has a remote key gets it; others stay empty until it lands.
pub(super) fn fill_parents(payload: &mut Value, parents: &[ParentRef]) {
    for p in parents {
        set_pointer(payload, &p.pointer, remote_value(&p.target));
    }
}

/// What a reference to `target` holds: its numeric id, its segment id, or (a draft) null,
/// or the empty text a record's `serviceSegmentId` must be until its segment lands.
pub(super) fn remote_value(target: &EntityRef) -> Value {
    match &target.key {
        Key::Id(id) => Value::from(*id),
        Key::Segment(s) => Value::from(s.clone()),
        Key::Local(_) if target.kind == Kind::AudienceSegment => Value::from(""),
        Key::Local(_) => Value::Null,
    }
}

/// Why an entity cannot be edited once posted: creatives and audience segments have no
/// update on the service (`creative/save` and `POST /v1/audiences` only create). `None`
/// for drafts and for every other kind. Hosts grey out the form with this text.
pub fn read_only_reason(target: &EntityRef) -> Option<&'static str> {
    (!target.kind.has_update() && !target.key.is_local()).then_some(validate::NO_UPDATE_ENDPOINT)
}

/// [`Error::Refused`] for an edit of a read-only entity (see [`read_only_reason`]).
fn refuse_read_only(target: &EntityRef) -> Result<()> {
    let Some(why) = read_only_reason(target) else {
        return Ok(());
    };
    let field = match target.kind {
        Kind::AudienceSegment => "serviceSegmentId",
        _ => "id",
    };
    Err(Error::Refused(ValidationErrors(vec![FieldError::new(
        field,
        codes::IGNORED_ON_UPDATE,
        why,
    )])))
}

/// Sets a member by JSON pointer, creating the last object member if absent.
pub(super) fn set_pointer(root: &mut Value, pointer: &str, value: Value) {
    let Some(rest) = pointer.strip_prefix('/') else {
        return;
    };
    let tokens: Vec<String> = rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, path)) = tokens.split_last() else {
        return;
    };
    let mut node = root;
    for t in path {
        let next = match node {
            Value::Object(m) => m.get_mut(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => return,
        }
    }
    match node {
        Value::Object(m) => {
            m.insert(last.clone(), value);
        }
        Value::Array(a) => {
            if let Some(slot) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                *slot = value;
            }
        }
        _ => {}
    }
}

/// The list as it will be once `body` is applied, so the workspace (the list's only
/// record) shows its sites.
pub(super) fn apply_site_op(working: &mut SiteList, op: Op, body: &SiteList) {
    if let Some(name) = &body.name {
        working.name = Some(name.clone());
    }
    match op {
        Op::SiteListAppend => {
            if let Some(ids) = &body.site_ids {
                let list = working.site_ids.get_or_insert_with(Vec::new);
                let mut seen: HashSet<i64> = list.iter().copied().collect();
                list.extend(ids.iter().copied().filter(|id| seen.insert(*id)));
            }
            if let Some(rules) = &body.rules {
                let list = working.rules.get_or_insert_with(Vec::new);
                for r in rules {
                    if !list.contains(r) {
                        list.push(r.clone());
                    }
                }
            }
        }
        Op::SiteListOverwrite => {
            if body.site_ids.is_some() {
                working.site_ids.clone_from(&body.site_ids);
            }
            if body.rules.is_some() {
                working.rules.clone_from(&body.rules);
            }
        }
        Op::SiteListRemoveSites => {
            if let (Some(list), Some(ids)) = (working.site_ids.as_mut(), &body.site_ids) {
                let gone: HashSet<i64> = ids.iter().copied().collect();
                list.retain(|id| !gone.contains(id));
            }
        }
        _ => {}
    }
}
