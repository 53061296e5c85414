//! Edits: one typed method per resource and operation the service can change. Each edit
//! writes the working copy and its outbox row in one transaction, validated as it is
//! made; an invalid edit is kept, marked with its errors, and never posted.

mod duplicate;
mod json;
mod rows;
mod save;
mod uploads;

pub(in crate::workspace) use json::{apply_site_op, fill_parents, numeric_id, set_pointer};
pub(crate) use save::Hop;

use std::collections::HashSet;

use flightdeck_model::validate::{self, IgnoredOnUpdate, codes};
use flightdeck_model::{
    AdOrder, Advertiser, AudienceData, AudienceSegment, Campaign, Creative, FieldError, FlightCap,
    SiteList, ValidationErrors,
};
use rusqlite::Transaction;
use serde_json::Value;

use super::kept::{Arg, Log, Write};
use super::validate::{Payload, Timezones, check_one_in};
use super::{Workspace, canonical, key_text, now_ms, parse_json, to_value};
use crate::change::{ChangeStatus, EntityRef, Key, Kind, Op, ParentRef};
use crate::{Error, Result};

/// Statuses an edit folds into instead of queueing a second change: the change has not
/// reached the service, or was refused and the edit is the fix. `sending`, `needs_review`
/// and `conflict` are outcomes the executor or the buyer must settle first.
pub(super) const COALESCE_INTO: [&str; 4] = ["pending", "invalid", "failed", "blocked"];

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

/// Why an entity cannot be edited once posted: creatives and audience segments have no
/// update on the service (`creative/save` and `POST /v1/audiences` only create). `None`
/// for drafts and for every other kind. Hosts grey out the form with this text.
pub fn read_only_reason(target: &EntityRef) -> Option<&'static str> {
    (!target.kind.has_update() && !target.key.is_local()).then_some(validate::NO_UPDATE_ENDPOINT)
}

/// [`Error::Refused`] for an edit of a read-only entity (see [`read_only_reason`]).
fn refuse_read_only(target: &EntityRef) -> Result<()> {
    match read_only_reason(target) {
        Some(_) => Err(no_update(target.kind)),
        None => Ok(()),
    }
}

/// The refusal of an update of a kind the service cannot update, at the field that names
/// the posted entity (`serviceSegmentId` for segments, else `id`).
pub(super) fn no_update(kind: Kind) -> Error {
    let field = match kind {
        Kind::AudienceSegment => "serviceSegmentId",
        _ => "id",
    };
    Error::Refused(ValidationErrors(vec![FieldError::new(
        field,
        codes::IGNORED_ON_UPDATE,
        validate::NO_UPDATE_ENDPOINT,
    )]))
}
