//! flightdeck-model's rules applied to stored changes, at edit time and by "Check changes".

use std::collections::HashMap;

use flightdeck_model::validate::{self, SiteListOp, codes};
use flightdeck_model::{
    AdOrder, Advertiser, AudienceData, AudienceSegment, Campaign, Creative, FieldError, FlightCap,
    Id, SiteList,
};
use rusqlite::{Connection, OptionalExtension, params};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{key_text, kind_text};
use crate::change::{Key, Kind, Op, ParentRef};
use crate::{Error, Result};

/// Stands in for a draft parent's remote id while validating, so a reference to a
/// pending draft counts as filled ("campaignId is required" must not fire for an ad
/// order under a campaign that is not posted yet).
/// Public so the app's live validation fills draft parents the same way.
pub const PENDING_PARENT_ID: Id = i64::MAX;

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

/// Validates changes, caching the lookups some rules need (a site list's stored type,
/// the flights of an ad order's campaign) across one pass.
pub(crate) struct Checker<'c> {
    /// `None` for checkers on worker threads, which only take changes that need no
    /// lookup (see [`needs_workspace`]).
    conn: Option<&'c Connection>,
    site_types: HashMap<String, Option<i64>>,
    order_flights: HashMap<String, Option<Vec<Id>>>,
}

impl<'c> Checker<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Self {
        Checker {
            conn: Some(conn),
            site_types: HashMap::new(),
            order_flights: HashMap::new(),
        }
    }

    /// A checker for changes that need no lookup, usable on any thread.
    pub(crate) fn detached() -> Checker<'static> {
        Checker {
            conn: None,
            site_types: HashMap::new(),
            order_flights: HashMap::new(),
        }
    }

    /// Every broken rule of one change.
    pub(crate) fn check(
        &mut self,
        kind: Kind,
        key: &Key,
        op: Op,
        payload: Payload<'_>,
        parents: &[ParentRef],
    ) -> Result<Vec<FieldError>> {
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
                if pending("/advertiserId") {
                    c.advertiser_id.get_or_insert(PENDING_PARENT_ID);
                }
                validate::campaign(&c, model_op)
            }
            (Kind::AdOrder, Op::Create | Op::Update) => {
                let mut o: AdOrder = payload.parse()?;
                if pending("/campaignId") {
                    o.campaign_id.get_or_insert(PENDING_PARENT_ID);
                }
                validate::ad_order(&o, model_op)
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
                let flights = match self.flights_of_order(key)? {
                    Some(ids) => ids,
                    None => caps.iter().filter_map(|c| c.flight_id).collect(),
                };
                validate::flight_caps(&caps, &flights)
            }
            (Kind::Creative, Op::Create | Op::Update) => {
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
                    Op::Update | Op::AudienceData => return Ok(not_supported(kind, op)),
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
                validate::audience_data(&payload.parse::<AudienceData>()?)
            }
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
            .query_row(params![kind_text(Kind::SiteList), k], |r| r.get(0))
            .optional()?;
        let t = t.flatten();
        self.site_types.insert(k, t);
        Ok(t)
    }

    /// Ids of the flights of the ad order's campaign, when the workspace holds it.
    fn flights_of_order(&mut self, order: &Key) -> Result<Option<Vec<Id>>> {
        let k = key_text(order);
        if let Some(f) = self.order_flights.get(&k) {
            return Ok(f.clone());
        }
        let campaign: Option<String> = self
            .conn()?
            .prepare_cached(
                "SELECT COALESCE(c.working_json, c.remote_json) FROM entities o JOIN entities c \
                 ON c.kind = o.parent_kind AND c.key = o.parent_key \
                 WHERE o.kind = 'ad_order' AND o.key = ?1",
            )?
            .query_row(params![k], |r| r.get(0))
            .optional()?;
        let flights = match campaign {
            Some(text) => {
                let c: Campaign = Payload::Text(&text).parse()?;
                Some(
                    c.flights
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|f| f.id)
                        .collect(),
                )
            }
            None => None,
        };
        self.order_flights.insert(k, flights.clone());
        Ok(flights)
    }
}

/// Whether checking a change looks at other entities (a site list's stored type, the
/// flights an ad order's caps may point at).
pub(crate) fn needs_workspace(kind: Kind, op: Op) -> bool {
    matches!(kind, Kind::FlightCaps) || (kind == Kind::SiteList && op != Op::Create)
}

fn not_supported(kind: Kind, op: Op) -> Vec<FieldError> {
    vec![FieldError::new(
        "",
        codes::INVALID,
        format!("the service has no way to apply {op:?} to {kind:?}"),
    )]
}
