//! flightdeck-model's rules applied to stored changes, at edit time and by "Check changes".

use std::collections::HashMap;

use flightdeck_model::validate::{self, SiteListOp, codes};
use flightdeck_model::{
    AdOrder, Advertiser, AudienceData, AudienceSegment, Campaign, Creative, DataType, FieldError,
    FlightCap, Id, SiteList, TimezoneName,
};
use rusqlite::{Connection, OptionalExtension, params};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::edit::Hop;
use super::{key_from_text, key_text};
use crate::change::{EntityRef, Key, Kind, Op, ParentRef};
use crate::{Error, Result};

/// Stands in for a draft parent's remote id while validating, so a reference to a
/// pending draft counts as filled ("campaignId is required" must not fire for an ad
/// order under a campaign that is not posted yet).
/// Public so the app's live validation fills draft parents the same way.
pub const PENDING_PARENT_ID: Id = i64::MAX;

/// Stands in for a draft segment's `serviceSegmentId` in the records of an upload queued
/// before the segment is posted (filled in when it lands).
pub const PENDING_SEGMENT_ID: &str = "(assigned when the segment is posted)";

/// The flight-caps rule for caps of which some are on a new flight of the campaign
/// (`on_new`: cap index and the new flight). Each new flight gets a stand-in id below any
/// real one, allowed while `still_new` says the campaign still has that flight, and
/// messages say "this new flight" instead of the stand-in. Public so the app's live
/// check of the caps form is this same check.
pub fn flight_caps_on_new_flights<K: PartialEq>(
    mut caps: Vec<FlightCap>,
    on_new: &[(usize, K)],
    mut allowed: Vec<Id>,
    still_new: impl Fn(&K) -> bool,
) -> Vec<FieldError> {
    let mut flights: Vec<&K> = Vec::new();
    let mut named = Vec::new();
    for (i, flight) in on_new {
        let n = flights
            .iter()
            .position(|f| *f == flight)
            .unwrap_or_else(|| {
                flights.push(flight);
                flights.len() - 1
            });
        let stand_in = -1 - Id::try_from(n).unwrap_or(0);
        if let Some(cap) = caps.get_mut(*i) {
            cap.flight_id = Some(stand_in);
            named.push((*i, stand_in));
        }
        if still_new(flight) && !allowed.contains(&stand_in) {
            allowed.push(stand_in);
        }
    }
    let mut errors = validate::flight_caps(&caps, &allowed)
        .err()
        .map(|e| e.0)
        .unwrap_or_default();
    for e in &mut errors {
        for (i, stand_in) in &named {
            if e.field == format!("[{i}].flightId") {
                e.message = e
                    .message
                    .replace(&format!("flight {stand_in} "), "this new flight ");
            }
        }
    }
    errors
}

/// What checking a change needs beyond the change itself.
#[derive(Default)]
pub(crate) struct With<'a> {
    /// The timezone of the entity's advertiser (see [`Checker::timezone_of`]), for the
    /// dates in campaign and ad-order messages.
    pub(crate) tz: Option<&'a TimezoneName>,
    /// The server version the change started from: campaigns and ad orders are checked
    /// as their request body against it (see `AdOrder::request_body`).
    pub(crate) base: Option<Payload<'a>>,
}

/// A stored or new payload.
pub(crate) enum Payload<'a> {
    Text(&'a str),
    Value(&'a Value),
}

impl Payload<'_> {
    fn parse<T: DeserializeOwned>(&self) -> Result<T> {
        match self {
            Payload::Text(t) => serde_json::from_str(t),
            Payload::Value(v) => T::deserialize(*v),
        }
        .map_err(|e| Error::Corrupt(format!("change payload does not fit its resource: {e}")))
    }
}

/// The flights of an ad order's campaign: ids, and the keys of new flights.
type OrderFlights = (Vec<Id>, Vec<Key>);

/// Validates changes, caching the lookups some rules need (a site list's stored type,
/// the flights of an ad order's campaign) across one pass.
pub(crate) struct Checker<'c> {
    /// `None` for checkers on worker threads, which only take changes that need no
    /// lookup (see [`needs_workspace`]).
    conn: Option<&'c Connection>,
    site_types: HashMap<String, Option<i64>>,
    order_flights: HashMap<String, Option<OrderFlights>>,
    segment_types: HashMap<String, Option<DataType>>,
}

impl<'c> Checker<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Self {
        Checker {
            conn: Some(conn),
            site_types: HashMap::new(),
            order_flights: HashMap::new(),
            segment_types: HashMap::new(),
        }
    }

    /// A checker for changes that need no lookup, usable on any thread.
    pub(crate) fn detached() -> Checker<'static> {
        Checker {
            conn: None,
            site_types: HashMap::new(),
            order_flights: HashMap::new(),
            segment_types: HashMap::new(),
        }
    }

    /// Every broken rule of one change, as it will be sent.
    pub(crate) fn check(
        &mut self,
        kind: Kind,
        key: &Key,
        op: Op,
        payload: Payload<'_>,
        parents: &[ParentRef],
        with: With<'_>,
    ) -> Result<Vec<FieldError>> {
        let tz = with.tz;
        let pending = |pointer: &str| parents.iter().any(|p| p.pointer == pointer);
        let model_op = if op == Op::Create {
            validate::Op::Create
        } else {
            validate::Op::Update
        };
        let result = match (kind, op) {
            (Kind::Advertiser, Op::Create | Op::Update) => {
                validate::advertiser(&payload.parse::<Advertiser>()?, model_op)
            }
            (Kind::Campaign, Op::Create | Op::Update) => {
                let mut c: Campaign = payload.parse()?;
                // What is sent: one client id of the two a listed campaign carries.
                let base: Option<Campaign> = with.base.as_ref().map(Payload::parse).transpose()?;
                c = c.request_body(base.as_ref());
                if pending("/advertiserId") {
                    c.advertiser_id.get_or_insert(PENDING_PARENT_ID);
                }
                validate::campaign(&c, model_op, tz)
            }
            (Kind::AdOrder, Op::Create | Op::Update) => {
                let mut o: AdOrder = payload.parse()?;
                let base: Option<AdOrder> = with.base.as_ref().map(Payload::parse).transpose()?;
                o = o.request_body(base.as_ref());
                if pending("/campaignId") {
                    o.campaign_id.get_or_insert(PENDING_PARENT_ID);
                }
                validate::ad_order(&o, model_op, tz)
            }
            (Kind::FlightCaps, Op::Update) => {
                let mut caps: Vec<FlightCap> = payload.parse()?;
                for (i, cap) in caps.iter_mut().enumerate() {
                    if pending(&format!("/{i}/orderId")) {
                        cap.order_id.get_or_insert(PENDING_PARENT_ID);
                    }
                }
                // Without the campaign in the workspace the references cannot be checked
                // here; the service checks them.
                let (flights, new_flights) = match self.flights_of_order(key)? {
                    Some(known) => known,
                    None => (
                        caps.iter().filter_map(|c| c.flight_id).collect(),
                        Vec::new(),
                    ),
                };
                // Caps on a new flight; once the campaign has landed, the flight's parent
                // reference names its id and `flightId` carries it: that cap is checked
                // as it will be sent.
                let on_new: Vec<(usize, &Key)> = parents
                    .iter()
                    .filter(|p| p.target.kind == Kind::Flight && p.target.key.is_local())
                    .filter_map(|p| {
                        let i = p
                            .pointer
                            .strip_prefix('/')?
                            .strip_suffix("/flightId")?
                            .parse::<usize>()
                            .ok()?;
                        Some((i, &p.target.key))
                    })
                    .collect();
                return Ok(flight_caps_on_new_flights(caps, &on_new, flights, |k| {
                    new_flights.contains(k)
                }));
            }
            // No update endpoint: an update (only an older workspace can hold one) is
            // never posted.
            (Kind::Creative, Op::Update) => {
                return Ok(vec![FieldError::new(
                    "id",
                    codes::IGNORED_ON_UPDATE,
                    validate::NO_UPDATE_ENDPOINT,
                )]);
            }
            (Kind::Creative, Op::Create) => {
                let mut c: Creative = payload.parse()?;
                if pending("/advertiserId") {
                    c.advertiser_id.get_or_insert(PENDING_PARENT_ID);
                }
                if pending("/campaignId") {
                    c.campaign_id.get_or_insert(PENDING_PARENT_ID);
                }
                validate::creative(&c)
            }
            (Kind::SiteList, _) => {
                let mut s: SiteList = payload.parse()?;
                let list_op = match op {
                    Op::Create => SiteListOp::Add,
                    Op::SiteListAppend => SiteListOp::Append,
                    Op::SiteListOverwrite => SiteListOp::Overwrite,
                    Op::SiteListRemoveSites => SiteListOp::Remove,
                    Op::Update | Op::AudienceData | Op::SetStatus => {
                        return Ok(not_supported(kind, op));
                    }
                };
                let stored = if list_op == SiteListOp::Add {
                    None
                } else {
                    // A list not posted yet gets its id when it lands.
                    if key.is_local() {
                        s.id.get_or_insert(PENDING_PARENT_ID);
                    }
                    self.site_list_type(key)?
                };
                validate::site_list(&s, list_op, stored)
            }
            (Kind::AudienceSegment, Op::Create) => {
                validate::audience_segment(&payload.parse::<AudienceSegment>()?)
            }
            (Kind::AudienceSegment, Op::AudienceData) => {
                let mut records: AudienceData = payload.parse()?;
                for (i, r) in records.iter_mut().enumerate() {
                    if pending(&format!("/{i}/serviceSegmentId")) {
                        r.service_segment_id = PENDING_SEGMENT_ID.to_owned();
                    }
                }
                let segment_id = match key {
                    Key::Segment(id) => id.as_str(),
                    _ => PENDING_SEGMENT_ID,
                };
                let data_type = self.segment_type(key)?;
                validate::audience_data(segment_id, data_type.as_ref(), &records)
            }
            // The move is checked when it is queued (`workspace/status.rs`), against the
            // status known then; the service has the last word.
            (Kind::AdOrder, Op::SetStatus) => return Ok(Vec::new()),
            _ => return Ok(not_supported(kind, op)),
        };
        Ok(result.err().map(|e| e.0).unwrap_or_default())
    }

    fn conn(&self) -> Result<&'c Connection> {
        self.conn
            .ok_or_else(|| Error::Invalid("this change needs the workspace to be checked".into()))
    }

    fn site_list_type(&mut self, key: &Key) -> Result<Option<i64>> {
        let k = key_text(key);
        if let Some(t) = self.site_types.get(&k) {
            return Ok(*t);
        }
        let t: Option<Option<i64>> = self
            .conn()?
            .prepare_cached(
                "SELECT json_extract(COALESCE(working_json, remote_json), '$.typeId') FROM entities WHERE kind = ?1 AND key = ?2",
            )?
            .query_row(params![Kind::SiteList.name(), k], |r| r.get(0))
            .optional()?;
        let t = t.flatten();
        self.site_types.insert(k, t);
        Ok(t)
    }

    /// The data type of a segment, from its working copy.
    fn segment_type(&mut self, key: &Key) -> Result<Option<DataType>> {
        let k = key_text(key);
        if let Some(t) = self.segment_types.get(&k) {
            return Ok(t.clone());
        }
        let t: Option<Option<String>> = self
            .conn()?
            .prepare_cached(
                "SELECT json_extract(COALESCE(working_json, remote_json), '$.dataType') FROM entities WHERE kind = ?1 AND key = ?2",
            )?
            .query_row(params![Kind::AudienceSegment.name(), k], |r| r.get(0))
            .optional()?;
        let t = t.flatten().map(|s| DataType::from_wire(&s));
        self.segment_types.insert(k, t.clone());
        Ok(t)
    }

    /// Ids of the flights of the ad order's campaign, and the keys of its new flights
    /// ([`EntityRef::draft_flight`]), when the workspace holds it.
    fn flights_of_order(&mut self, order: &Key) -> Result<Option<OrderFlights>> {
        let k = key_text(order);
        if let Some(f) = self.order_flights.get(&k) {
            return Ok(f.clone());
        }
        let campaign: Option<(String, String)> = self
            .conn()?
            .prepare_cached(
                "SELECT c.key, COALESCE(c.working_json, c.remote_json) FROM entities o \
                 JOIN entities c ON c.kind = o.parent_kind AND c.key = o.parent_key \
                 WHERE o.kind = 'ad_order' AND o.key = ?1",
            )?
            .query_row(params![k], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let flights = match campaign {
            Some((campaign_key, text)) => {
                let c: Campaign = Payload::Text(&text).parse()?;
                let campaign = EntityRef::new(Kind::Campaign, key_from_text(&campaign_key)?);
                let flights = c.flights.unwrap_or_default();
                Some((
                    flights.iter().filter_map(|f| f.id).collect(),
                    flights
                        .iter()
                        .filter(|f| f.id.is_none())
                        .filter_map(|f| Some(EntityRef::draft_flight(&campaign, f.start_date?).key))
                        .collect(),
                ))
            }
            None => None,
        };
        self.order_flights.insert(k, flights.clone());
        Ok(flights)
    }
}

/// Every broken rule of one change, with the lookups it needs (its advertiser's
/// timezone included) made on `conn`. `base`: the server version it started from.
pub(crate) fn check_one(
    conn: &Connection,
    kind: Kind,
    key: &Key,
    op: Op,
    payload: Payload<'_>,
    parents: &[ParentRef],
    base: Option<&Value>,
) -> Result<Vec<FieldError>> {
    check_one_in(
        conn,
        &mut Timezones::default(),
        kind,
        key,
        op,
        payload,
        parents,
        base,
    )
}

/// [`check_one`] with advertisers' timezones looked up through `timezones`, which a batch
/// of edits keeps for all of them (until it edits an advertiser).
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_one_in(
    conn: &Connection,
    timezones: &mut Timezones,
    kind: Kind,
    key: &Key,
    op: Op,
    payload: Payload<'_>,
    parents: &[ParentRef],
    base: Option<&Value>,
) -> Result<Vec<FieldError>> {
    let mut checker = Checker::new(conn);
    let tz = if needs_timezone(kind) {
        timezones.of(conn, kind, key)?
    } else {
        None
    };
    let with = With {
        tz: tz.as_ref(),
        base: base.map(Payload::Value),
    };
    checker.check(kind, key, op, payload, parents, with)
}

/// Whether checking a change looks at other entities (a site list's stored type, the
/// flights an ad order's caps may point at).
pub(crate) fn needs_workspace(kind: Kind, op: Op) -> bool {
    matches!(kind, Kind::FlightCaps)
        || (kind == Kind::SiteList && op != Op::Create)
        || op == Op::AudienceData
}

/// Whether a change's dates are shown in its advertiser's timezone.
pub(crate) fn needs_timezone(kind: Kind) -> bool {
    matches!(kind, Kind::Campaign | Kind::AdOrder)
}

/// Advertisers' timezones, looked up through an entity's parents, cached per advertiser.
#[derive(Default)]
pub(crate) struct Timezones {
    by_advertiser: HashMap<String, Option<TimezoneName>>,
    /// The advertiser key (or scope) each parent reached so far leads to: the campaign
    /// of 10,000 ad orders is looked up once.
    by_parent: HashMap<(String, String), Option<String>>,
    /// The parent of the entity looked up next, which an edit read with its base: the
    /// first hop is then no query.
    first: Option<((String, String), Hop)>,
}

impl Timezones {
    /// Notes the parent an edit read of entity `(kind, key)` for its timezone's look-up.
    pub(crate) fn first_hop(&mut self, kind: Kind, key: &str, hop: Hop) {
        self.first = needs_timezone(kind).then(|| ((kind.name().to_owned(), key.to_owned()), hop));
    }

    /// The timezone of the advertiser `(kind, key)` belongs to: the entity's parent
    /// chain up to its advertiser (drafts included), else the advertiser of its scope.
    pub(crate) fn of(
        &mut self,
        conn: &Connection,
        kind: Kind,
        key: &Key,
    ) -> Result<Option<TimezoneName>> {
        let mut at = (kind.name().to_owned(), key_text(key));
        let mut passed: Vec<(String, String)> = Vec::new();
        // advertiser <- campaign <- ad order <- caps: never more than a few hops.
        let mut advertiser = None;
        let mut first = self.first.take();
        for _ in 0..4 {
            if at.0 == Kind::Advertiser.name() {
                advertiser = Some(at.1);
                break;
            }
            if let Some(known) = self.by_parent.get(&at) {
                advertiser.clone_from(known);
                break;
            }
            let row: Option<Hop> = match first.take() {
                Some((of, hop)) if of == at => Some(hop),
                _ => conn
                    .prepare_cached(
                        "SELECT parent_kind, parent_key, scope FROM entities WHERE kind = ?1 AND key = ?2",
                    )?
                    .query_row(params![at.0, at.1], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()?,
            };
            match row {
                Some((Some(pk), Some(pkey), _)) => {
                    passed.push(std::mem::replace(&mut at, (pk, pkey)));
                }
                Some((_, _, Some(scope))) => {
                    advertiser = Some(key_text(&Key::Id(scope)));
                    break;
                }
                _ => break,
            }
        }
        // The entity itself is not kept: a bulk edit reaches each one once.
        for hop in passed.into_iter().skip(1) {
            self.by_parent.insert(hop, advertiser.clone());
        }
        match advertiser {
            Some(key) => self.of_advertiser(conn, &key),
            None => Ok(None),
        }
    }

    /// The timezone of the advertiser with key text `key`.
    pub(crate) fn of_advertiser(
        &mut self,
        conn: &Connection,
        key: &str,
    ) -> Result<Option<TimezoneName>> {
        if let Some(tz) = self.by_advertiser.get(key) {
            return Ok(tz.clone());
        }
        let tz: Option<Option<String>> = conn
            .prepare_cached(
                "SELECT json_extract(COALESCE(working_json, remote_json), '$.timezoneName') \
                 FROM entities WHERE kind = 'advertiser' AND key = ?1",
            )?
            .query_row(params![key], |r| r.get(0))
            .optional()?;
        let tz = tz.flatten().map(|s| TimezoneName::from_wire(&s));
        self.by_advertiser.insert(key.to_owned(), tz.clone());
        Ok(tz)
    }
}

fn not_supported(kind: Kind, op: Op) -> Vec<FieldError> {
    vec![FieldError::new(
        "",
        codes::INVALID,
        format!("the service has no way to apply {op:?} to {kind:?}"),
    )]
}
