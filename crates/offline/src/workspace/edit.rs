//! Edits: one typed method per resource and operation the service can change. Each edit
//! writes the working copy and its outbox row in one transaction, validated as it is
//! made; an invalid edit is kept, marked with its errors, and never posted.

use std::collections::HashSet;

use flightdeck_model::{
    AdOrder, Advertiser, AudienceData, AudienceSegment, Campaign, Creative, FieldError, FlightCap,
    SiteList,
};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::Value;

use super::validate::{Checker, Payload};
use super::{
    Workspace, canonical, key_from_text, key_text, kind_text, now_ms, op_text, parse_json,
    status_text, to_json, to_value,
};
use crate::change::{ChangeStatus, EntityRef, Key, Kind, Op, ParentRef};
use crate::{Error, Result};

/// Statuses an edit folds into instead of queueing a second change: the change has not
/// reached the service, or was refused and the edit is the fix. `sending`, `needs_review`
/// and `conflict` are outcomes the executor or the buyer must settle first.
pub(super) const COALESCE_INTO: &str = "('pending', 'invalid', 'failed', 'blocked')";

/// Several edits in one transaction (one disk sync): bulk edits, imports, and a group the
/// buyer saves at once. Dropped without [`Batch::commit`], nothing is kept.
pub struct Batch<'w> {
    tx: Transaction<'w>,
}

macro_rules! one_edit {
    ($(#[$doc:meta] $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        impl Workspace {
            $(
                #[$doc]
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
    remove_sites(list: &EntityRef, site_ids: Vec<i64>) -> i64;
    /// A draft audience segment. See [`Batch::create_audience_segment`].
    create_audience_segment(segment: AudienceSegment) -> EntityRef;
    /// Queues an audience upload. See [`Batch::upload_audience_data`].
    upload_audience_data(segment: &EntityRef, data: AudienceData) -> i64;
}

impl Workspace {
    /// Starts a group of edits that commit together.
    pub fn batch(&mut self) -> Result<Batch<'_>> {
        Ok(Batch {
            tx: self.conn.transaction()?,
        })
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
        self.tx.commit()?;
        Ok(())
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
    pub fn update_advertiser(&mut self, target: &EntityRef, mut a: Advertiser) -> Result<i64> {
        expect_kind(target, Kind::Advertiser)?;
        a.id = numeric_id(&target.key);
        self.update(target, to_value(&a)?)
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
    pub fn update_campaign(&mut self, target: &EntityRef, mut c: Campaign) -> Result<i64> {
        expect_kind(target, Kind::Campaign)?;
        c.id = numeric_id(&target.key);
        self.update(target, to_value(&c)?)
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
    pub fn update_ad_order(&mut self, target: &EntityRef, mut o: AdOrder) -> Result<i64> {
        expect_kind(target, Kind::AdOrder)?;
        o.id = numeric_id(&target.key);
        self.update(target, to_value(&o)?)
    }

    /// Sets the flight caps of an ad order (downloaded or draft): the caps to send to
    /// `byAdOrder`. Caps without an id are added; the service keeps caps not sent.
    pub fn set_flight_caps(&mut self, order: &EntityRef, caps: Vec<FlightCap>) -> Result<i64> {
        expect_kind(order, Kind::AdOrder)?;
        let order_scope = self.scope_of(order)?;
        let mut payload = to_value(&caps)?;
        let mut parents = Vec::new();
        for i in 0..caps.len() {
            let mut links = self.link(order, &format!("/{i}/orderId"), &mut payload)?;
            parents.append(&mut links.parents);
        }
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
        self.save(&target, Op::Update, payload, Some(parents))
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

    /// Modifies a creative (the service sends it back to review).
    pub fn update_creative(&mut self, target: &EntityRef, mut c: Creative) -> Result<i64> {
        expect_kind(target, Kind::Creative)?;
        c.id = numeric_id(&target.key);
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
    pub fn remove_sites(&mut self, list: &EntityRef, site_ids: Vec<i64>) -> Result<i64> {
        let body = SiteList {
            site_ids: Some(site_ids),
            ..SiteList::default()
        };
        self.site_list_op(list, Op::SiteListRemoveSites, body)
    }

    /// A draft first-party audience segment.
    pub fn create_audience_segment(&mut self, mut segment: AudienceSegment) -> Result<EntityRef> {
        segment.service_segment_id = None;
        self.create(Kind::AudienceSegment, to_value(&segment)?, Links::default())
    }

    /// Queues identifiers to add to a segment (downloaded or draft); each upload is its
    /// own ordered change.
    pub fn upload_audience_data(&mut self, segment: &EntityRef, data: AudienceData) -> Result<i64> {
        expect_kind(segment, Kind::AudienceSegment)?;
        self.require(segment)?;
        self.append_row(segment, Op::AudienceData, &to_value(&data)?)
    }

    // ---- internals ----

    /// Statements are cached: a batch of 100,000 edits re-runs the same few.
    fn exec(&self, sql: &str, p: impl rusqlite::Params) -> Result<usize> {
        Ok(self.tx.prepare_cached(sql)?.execute(p)?)
    }

    fn row<T>(
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
        let errors = self.validate(&target, Op::Create, &payload, &links.parents)?;
        insert_row(
            &self.tx,
            &target,
            Op::Create,
            &canonical(&payload),
            &links.parents,
            None,
            &errors,
        )?;
        Ok(target)
    }

    fn update(&mut self, target: &EntityRef, payload: Value) -> Result<i64> {
        self.require(target)?;
        self.save(target, Op::Update, payload, None)
    }

    /// Folds a create or update into the entity's open change, or queues a new one.
    /// `parents`: `None` keeps those of the entity's create (a draft's draft parent).
    fn save(
        &mut self,
        target: &EntityRef,
        op: Op,
        mut payload: Value,
        parents: Option<Vec<ParentRef>>,
    ) -> Result<i64> {
        let (kind, key) = (kind_text(target.kind), key_text(&target.key));
        let parents = match parents {
            Some(p) => p,
            None => self.create_parents(target)?,
        };
        fill_parents(&mut payload, &parents);
        let open: Option<(i64, String)> = self
            .row(
                &format!(
                    "SELECT seq, op FROM outbox WHERE kind = ?1 AND key = ?2 \
                     AND op IN ('create', 'update') AND status IN {COALESCE_INTO} \
                     ORDER BY seq DESC LIMIT 1"
                ),
                params![kind, key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let base: Option<String> = self.row(
            "SELECT remote_json FROM entities WHERE kind = ?1 AND key = ?2",
            params![kind, key],
            |r| r.get(0),
        )?;
        let text = canonical(&payload);
        let row_op = match &open {
            Some((_, o)) if o == "create" => Op::Create,
            _ => op,
        };
        self.exec(
            "UPDATE entities SET working_json = ?3, updated_at = ?4 WHERE kind = ?1 AND key = ?2",
            params![kind, key, text, now_ms()],
        )?;
        // Back to the base exactly: nothing left to post.
        if row_op == Op::Update
            && base.as_deref().map(parse_canonical).transpose()? == Some(text.clone())
        {
            if let Some((seq, _)) = open {
                self.exec("DELETE FROM outbox WHERE seq = ?1", [seq])?;
                return Ok(seq);
            }
            return Ok(0);
        }
        let errors = self.validate(target, row_op, &payload, &parents)?;
        match open {
            Some((seq, _)) => {
                self.exec(
                    "UPDATE outbox SET payload = ?2, parents = ?3, errors = ?4, status = ?5, \
                     messages = '[]', conflicts = NULL, updated_at = ?6 WHERE seq = ?1",
                    params![
                        seq,
                        text,
                        to_json(&parents)?,
                        to_json(&errors)?,
                        status_text(status_for(&errors)),
                        now_ms()
                    ],
                )?;
                Ok(seq)
            }
            None => insert_row(
                &self.tx,
                target,
                op,
                &text,
                &parents,
                base.as_deref(),
                &errors,
            ),
        }
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
        self.exec(
            "UPDATE entities SET working_json = ?3, updated_at = ?4 WHERE kind = ?1 AND key = ?2",
            params![
                kind_text(list.kind),
                key_text(&list.key),
                canonical(&to_value(&working)?),
                now_ms()
            ],
        )?;
        self.append_row(list, op, &to_value(&body)?)
    }

    /// A separate, ordered change (site-list operations, audience uploads): its payload is
    /// its whole effect, so it has no base.
    fn append_row(&mut self, target: &EntityRef, op: Op, payload: &Value) -> Result<i64> {
        let errors = self.validate(target, op, payload, &[])?;
        insert_row(
            &self.tx,
            target,
            op,
            &canonical(payload),
            &[],
            None,
            &errors,
        )
    }

    fn validate(
        &self,
        target: &EntityRef,
        op: Op,
        payload: &Value,
        parents: &[ParentRef],
    ) -> Result<Vec<FieldError>> {
        Checker::new(&self.tx).check(
            target.kind,
            &target.key,
            op,
            Payload::Value(payload),
            parents,
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
                        kind_text(parent.kind),
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
                params![kind_text(target.kind), key_text(&target.key)],
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
                params![kind_text(target.kind), key_text(&target.key)],
                |r| r.get::<_, Option<i64>>(0),
            )
            .optional()?;
        let own = match (target.kind, &target.key) {
            (Kind::Advertiser, Key::Id(id)) => Some(*id),
            _ => None,
        };
        Ok(scope.map(|s| s.or(own)))
    }

    fn exists(&self, target: &EntityRef) -> Result<bool> {
        Ok(self.scope_of(target)?.is_some())
    }

    /// The working copy, or `NotFound`.
    fn require(&self, target: &EntityRef) -> Result<String> {
        self.row(
            "SELECT COALESCE(working_json, remote_json) FROM entities WHERE kind = ?1 AND key = ?2",
            params![kind_text(target.kind), key_text(&target.key)],
            |r| r.get(0),
        )
        .optional()?
        .ok_or_else(|| {
            Error::NotFound(format!(
                "{} {} is not in the workspace",
                kind_text(target.kind),
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
                params![kind_text(target.kind), key_text(&target.key)],
                |r| r.get(0),
            )
            .optional()?;
        text.as_deref()
            .map(parse_json)
            .transpose()
            .map(Option::unwrap_or_default)
    }

    fn insert_entity(
        &self,
        target: &EntityRef,
        working: &Value,
        parent: Option<&EntityRef>,
        scope: Option<i64>,
    ) -> Result<()> {
        self.exec(
            "INSERT INTO entities (kind, key, working_json, parent_kind, parent_key, scope, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                kind_text(target.kind),
                key_text(&target.key),
                canonical(working),
                parent.map(|p| kind_text(p.kind)),
                parent.map(|p| key_text(&p.key)),
                scope,
                now_ms()
            ],
        )?;
        Ok(())
    }
}

fn parse_canonical(text: &str) -> Result<String> {
    Ok(canonical(&parse_json::<Value>(text)?))
}

pub(super) fn status_for(errors: &[FieldError]) -> ChangeStatus {
    if errors.is_empty() {
        ChangeStatus::Pending
    } else {
        ChangeStatus::Invalid
    }
}

pub(super) fn insert_row(
    tx: &Transaction<'_>,
    target: &EntityRef,
    op: Op,
    payload: &str,
    parents: &[ParentRef],
    base: Option<&str>,
    errors: &[FieldError],
) -> Result<i64> {
    let now = now_ms();
    tx.prepare_cached(
        "INSERT INTO outbox (kind, key, op, payload, parents, base, errors, status, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
    )?
    .execute(params![
        kind_text(target.kind),
        key_text(&target.key),
        op_text(op),
        payload,
        to_json(parents)?,
        base,
        to_json(errors)?,
        status_text(status_for(errors)),
        now
    ])?;
    Ok(tx.last_insert_rowid())
}

fn expect_kind(target: &EntityRef, kind: Kind) -> Result<()> {
    if target.kind == kind {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "expected a {} but got a {}",
            kind_text(kind),
            kind_text(target.kind)
        )))
    }
}

pub(super) fn numeric_id(key: &Key) -> Option<i64> {
    match key {
        Key::Id(id) => Some(*id),
        _ => None,
    }
}

/// Each reference whose target has a numeric remote key gets it; others stay null.
pub(super) fn fill_parents(payload: &mut Value, parents: &[ParentRef]) {
    for p in parents {
        let v = numeric_id(&p.target.key).map_or(Value::Null, Value::from);
        set_pointer(payload, &p.pointer, v);
    }
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
