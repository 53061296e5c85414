//! The calls to the service for one push: the request that applies a change, the
//! look-up of a create by its client reference, the server version an update is checked
//! against, and the listings those share.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use flightdeck_client::{Client, Error as ClientError, ServerMessage};
use flightdeck_model::{
    AdOrder, AdOrderStatus, Advertiser, AudienceData, AudienceSegment, Campaign, Creative,
    FlightCap, ListedCreative, SiteList,
};
use futures_util::stream::StreamExt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::notes;
use super::prepare::{Job, REF_PREFIX};
use crate::change::{EntityRef, Key, Kind, Op};
use crate::{Error, Result};

/// Listings are read this many segments at a time when looking up audience segments.
const AUDIENCE_PAGE: u32 = 500;

/// The service as one push sees it: the client, and the listings its steps share.
pub(super) struct Remote<'c> {
    pub(super) client: &'c Client,
    caches: Caches,
}

impl<'c> Remote<'c> {
    pub(super) fn new(client: &'c Client) -> Self {
        Remote {
            client,
            caches: Caches::default(),
        }
    }
}

/// Server listings shared by the steps of one push.
#[derive(Default)]
struct Caches {
    advertisers: Snapshot<Vec<Advertiser>>,
    ad_orders: Snapshot<Vec<AdOrder>>,
    audiences: Snapshot<Vec<AudienceSegment>>,
    campaigns: Mutex<HashMap<i64, Arc<Snapshot<Vec<Campaign>>>>>,
    /// Per campaign: its creatives, where a lost creative create is looked for.
    creatives: Mutex<HashMap<i64, Arc<Snapshot<Vec<ListedCreative>>>>>,
}

impl Caches {
    fn campaigns_of(&self, advertiser: i64) -> Arc<Snapshot<Vec<Campaign>>> {
        slot(&self.campaigns, advertiser)
    }

    fn creatives_of(&self, campaign: i64) -> Arc<Snapshot<Vec<ListedCreative>>> {
        slot(&self.creatives, campaign)
    }
}

/// The one listing of `key` in `map`, made on first use.
fn slot<T>(map: &Mutex<HashMap<i64, Arc<Snapshot<T>>>>, key: i64) -> Arc<Snapshot<T>> {
    // The map only holds handles; a poisoned lock still holds valid ones.
    let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
    Arc::clone(map.entry(key).or_default())
}

/// A listing with the moment its fetch started. A caller that needs a view including
/// everything committed before `since` reuses it only when it was fetched after `since`;
/// concurrent callers wait for one fetch instead of each making their own.
struct Snapshot<T> {
    slot: tokio::sync::Mutex<Option<(Instant, Arc<T>)>>,
}

impl<T> Default for Snapshot<T> {
    fn default() -> Self {
        Snapshot {
            slot: tokio::sync::Mutex::new(None),
        }
    }
}

impl<T> Snapshot<T> {
    async fn get<F, Fut>(&self, since: Instant, fetch: F) -> Result<Arc<T>, ClientError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, ClientError>>,
    {
        let mut slot = self.slot.lock().await;
        if let Some((at, value)) = &*slot
            && *at >= since
        {
            return Ok(Arc::clone(value));
        }
        let at = Instant::now();
        let value = Arc::new(fetch().await?);
        *slot = Some((at, Arc::clone(&value)));
        Ok(value)
    }
}

/// The server's current version of the entity an update targets, `None` when not listed.
pub(super) async fn theirs(
    remote: &Remote<'_>,
    job: &Job,
    since: Instant,
) -> Result<Option<Value>, ClientError> {
    let Some(Key::Id(id)) = job.remote else {
        return Ok(None);
    };
    let client = remote.client;
    match job.target.kind {
        Kind::Advertiser => {
            let list = remote
                .caches
                .advertisers
                .get(since, || async {
                    Ok(client.advertisers(None).await?.entity)
                })
                .await?;
            Ok(list.iter().find(|a| a.id == Some(id)).map(to_value))
        }
        Kind::Campaign => {
            let advertiser = job
                .body
                .get("advertiserId")
                .and_then(Value::as_i64)
                .or_else(|| job.base.as_ref()?.get("advertiserId")?.as_i64());
            let Some(advertiser) = advertiser else {
                return Ok(None);
            };
            let list = remote
                .caches
                .campaigns_of(advertiser)
                .get(since, || async {
                    Ok(client.campaigns_by_advertiser(advertiser).await?.entity)
                })
                .await?;
            Ok(list.iter().find(|c| c.id == Some(id)).map(to_value))
        }
        Kind::AdOrder => {
            let list = remote
                .caches
                .ad_orders
                .get(since, || async { Ok(client.all_ad_orders().await?.entity) })
                .await?;
            Ok(list.iter().find(|o| o.id == Some(id)).map(to_value))
        }
        Kind::FlightCaps => {
            // No caps listing: `byAdOrder` with no caps changes nothing and answers them all.
            let caps = client.flight_caps_save(id, &[]).await?.entity;
            Ok(Some(to_value(&caps)))
        }
        _ => Ok(None),
    }
}

/// What a look-up of a lost create found.
pub(super) enum Found {
    /// On the service: its key, and the entity as listed.
    At(Key, Value),
    /// Not in the listing.
    Not,
    /// There is no listing to look in: the service answered the creative listing 404 or
    /// 405 (an older deployment, or a campaign gone), or the creative names no campaign.
    /// Only the buyer can tell.
    NoListing,
}

/// Finds a create by its client reference in a listing fetched after `since`.
pub(super) async fn lookup(
    remote: &Remote<'_>,
    job: &Job,
    since: Instant,
) -> Result<Found, ClientError> {
    let Some(reference) = job.client_ref.as_deref() else {
        return Ok(Found::Not);
    };
    let client = remote.client;
    let name = job.body.get("name").and_then(Value::as_str);
    // A generated reference is unique; a buyer's client id may be reused, so the name
    // must match too.
    let ours = reference.starts_with(REF_PREFIX);
    let fits = |id: Option<&str>, other: Option<&str>, n: Option<&str>| {
        (id == Some(reference) || other == Some(reference)) && (ours || n == name)
    };
    let found = match job.target.kind {
        Kind::Advertiser => client
            .advertisers(Some(reference))
            .await?
            .entity
            .into_iter()
            .find(|a| fits(a.external_advertiser_id.as_deref(), None, a.name.as_deref()))
            .and_then(|a| Some((Key::Id(a.id?), to_value(&a)))),
        Kind::Campaign => {
            let Some(advertiser) = job.body.get("advertiserId").and_then(Value::as_i64) else {
                return Ok(Found::Not);
            };
            let list = remote
                .caches
                .campaigns_of(advertiser)
                .get(since, || async {
                    Ok(client.campaigns_by_advertiser(advertiser).await?.entity)
                })
                .await?;
            list.iter()
                .find(|c| {
                    fits(
                        c.external_campaign_id.as_deref(),
                        c.io_number.as_deref(),
                        c.name.as_deref(),
                    )
                })
                .and_then(|c| Some((Key::Id(c.id?), to_value(c))))
        }
        Kind::AdOrder => {
            let campaign = job.body.get("campaignId").and_then(Value::as_i64);
            let list = remote
                .caches
                .ad_orders
                .get(since, || async { Ok(client.all_ad_orders().await?.entity) })
                .await?;
            list.iter()
                .find(|o| {
                    (campaign.is_none() || o.campaign_id == campaign)
                        && fits(
                            o.external_ad_order_id.as_deref(),
                            o.io_number_out.as_deref(),
                            o.name.as_deref(),
                        )
                })
                .and_then(|o| Some((Key::Id(o.id?), to_value(o))))
        }
        Kind::AudienceSegment => {
            let list = remote
                .caches
                .audiences
                .get(since, || async {
                    let mut out = Vec::new();
                    let mut stream = std::pin::pin!(client.audiences_stream(AUDIENCE_PAGE));
                    while let Some(segment) = stream.next().await {
                        out.push(segment?);
                    }
                    Ok(out)
                })
                .await?;
            list.iter()
                .find(|s| s.external_audience_id.as_deref() == Some(reference))
                .and_then(|s| Some((Key::Segment(s.service_segment_id.clone()?), to_value(s))))
        }
        Kind::Creative => {
            let Some(campaign) = job.target.kind.lost_create_lookup().parent_id(&job.body) else {
                return Ok(Found::NoListing);
            };
            let listed = remote
                .caches
                .creatives_of(campaign)
                .get(since, || async {
                    Ok(client.campaign_creatives(campaign).await?.entity)
                })
                .await;
            let list = match listed {
                Ok(list) => list,
                Err(ClientError::NotFound { .. } | ClientError::Rejected { status: 405, .. }) => {
                    return Ok(Found::NoListing);
                }
                Err(e) => return Err(e),
            };
            list.iter()
                .find(|c| fits(c.external_creativeid.as_deref(), None, c.name.as_deref()))
                .and_then(|c| Some((Key::Id(c.id?), found_creative(c, campaign))))
        }
        _ => None,
    };
    Ok(match found {
        Some((key, json)) => Found::At(key, json),
        None => Found::Not,
    })
}

/// A found creative as the workspace records it: the listing has none of the
/// type-specific payload, and its `type` and channels are spelt otherwise, so only what
/// the create's answer would add to what was sent is kept: the id, the campaign it was
/// found in (the stored draft may still name it by a reference), the review status.
fn found_creative(c: &ListedCreative, campaign: i64) -> Value {
    let mut out = serde_json::Map::new();
    out.insert("id".into(), to_value(&c.id));
    out.insert("campaignId".into(), Value::from(campaign));
    if let Some(status) = &c.status {
        out.insert("status".into(), to_value(status));
    }
    Value::Object(out)
}

pub(super) fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn typed<T: DeserializeOwned>(body: &Value) -> Result<T> {
    T::deserialize(body).map_err(notes::malformed)
}

/// The remote key and the answer of a successful post, with its messages.
pub(super) type Landed = (Key, Value, Vec<ServerMessage>);

fn landed<T: Serialize>(reply: flightdeck_client::Reply<T>, id: Option<i64>) -> Result<Landed> {
    let Some(id) = id else {
        return Err(no_id_in_answer());
    };
    Ok((Key::Id(id), to_value(&reply.entity), reply.messages))
}

/// A success the service answered without the id it assigned: a decoding failure of its
/// answer, so the change is looked up, like any answer lost on the way.
fn no_id_in_answer() -> Error {
    Error::Client(ClientError::Decode {
        status: 200,
        detail: "the answer carries no id".into(),
        raw_body: String::new(),
    })
}

/// The wire body of a change, as [`push`](crate::sync::push) posts it: for campaigns and ad orders
/// `request_body` against the server version the change started from (the output-only
/// `io_number` dropped, only the one client id the buyer set kept, never both); other
/// kinds as they are. Public so hosts and tests can show exactly what a change sends.
pub fn wire_body(kind: Kind, body: &Value, base: Option<&Value>) -> Result<Value> {
    let bad = |e: serde_json::Error| Error::Corrupt(format!("change body: {e}"));
    let out = match kind {
        Kind::Campaign => {
            let base: Option<Campaign> =
                base.map(Campaign::deserialize).transpose().map_err(bad)?;
            let c = Campaign::deserialize(body).map_err(bad)?;
            to_value(&c.request_body(base.as_ref()))
        }
        Kind::AdOrder => {
            let base: Option<AdOrder> = base.map(AdOrder::deserialize).transpose().map_err(bad)?;
            let o = AdOrder::deserialize(body).map_err(bad)?;
            to_value(&o.request_body(base.as_ref()))
        }
        _ => body.clone(),
    };
    Ok(out)
}

fn request_body(job: &Job, body: &Value) -> Result<Value> {
    wire_body(job.target.kind, body, job.base.as_ref()).map_err(notes::malformed)
}

/// One request for the change. [`Error::Client`] when the service (or the way to it)
/// failed; [`Error::Unpostable`] when no request could be made, so nothing was sent.
#[allow(deprecated)] // advertiser/save and adorder/save are deprecated with no replacement.
pub(super) async fn send(client: &Client, job: &Job, body: &Value) -> Result<Landed> {
    let remote_id = match &job.remote {
        Some(Key::Id(id)) => Some(*id),
        _ => None,
    };
    match (job.target.kind, job.op) {
        (Kind::Advertiser, Op::Create | Op::Update) => {
            let reply = client.advertiser_save(&typed::<Advertiser>(body)?).await?;
            let id = reply.entity.id;
            landed(reply, id)
        }
        (Kind::Campaign, Op::Create | Op::Update) => {
            let reply = client
                .campaign_save(&typed::<Campaign>(&request_body(job, body)?)?)
                .await?;
            let id = reply.entity.id;
            landed(reply, id)
        }
        (Kind::AdOrder, Op::Create | Op::Update) => {
            let reply = client
                .ad_order_save(&typed::<AdOrder>(&request_body(job, body)?)?)
                .await?;
            let id = reply.entity.id;
            landed(reply, id)
        }
        (Kind::FlightCaps, Op::Update) => {
            let order = remote_id.ok_or_else(|| {
                notes::not_posted(&EntityRef::new(Kind::AdOrder, job.target.key.clone()))
            })?;
            let reply = client
                .flight_caps_save(order, &typed::<Vec<FlightCap>>(body)?)
                .await?;
            Ok((
                job.target.key.clone(),
                to_value(&reply.entity),
                reply.messages,
            ))
        }
        // `creative/save` only creates: a posted creative is never sent again (the
        // workspace refuses edits of it; an older outbox's update is refused here).
        (Kind::Creative, Op::Create) if job.target.key.is_local() => {
            let mut creative = typed::<Creative>(body)?;
            creative.id = None;
            let reply = client.creative_save(&creative).await?;
            let id = reply.entity.id;
            landed(reply, id)
        }
        (Kind::SiteList, Op::Create) => {
            let reply = client.site_list_add(&typed::<SiteList>(body)?).await?;
            let id = reply.entity.id;
            landed(reply, id)
        }
        (
            Kind::SiteList,
            op @ (Op::SiteListAppend | Op::SiteListOverwrite | Op::SiteListRemoveSites),
        ) => {
            let list = typed::<SiteList>(body)?;
            let reply = match op {
                Op::SiteListAppend => client.site_list_append(&list).await?,
                Op::SiteListOverwrite => client.site_list_overwrite(&list).await?,
                _ => client.site_list_remove_sites(&list).await?,
            };
            let id = reply.entity.id.or(remote_id).ok_or_else(no_id_in_answer)?;
            // The store rebuilds the list from its base and the change: answers are partial.
            Ok((Key::Id(id), to_value(&reply.entity), reply.messages))
        }
        // A segment is created once: a posted one is never created again.
        (Kind::AudienceSegment, Op::Create) if job.target.key.is_local() => {
            let segment = client
                .audience_create(&typed::<AudienceSegment>(body)?)
                .await?;
            let id = segment
                .service_segment_id
                .clone()
                .ok_or_else(no_id_in_answer)?;
            Ok((Key::Segment(id), to_value(&segment), Vec::new()))
        }
        (Kind::AudienceSegment, Op::AudienceData) => {
            let Some(Key::Segment(segment)) = &job.remote else {
                return Err(notes::not_posted(&job.target));
            };
            let result = client
                .audience_add_data(segment, &typed::<AudienceData>(body)?)
                .await?;
            // The answer is the upload's counts, kept with the change; the segment is
            // unchanged until the service processes the data.
            Ok((Key::Segment(segment.clone()), to_value(&result), Vec::new()))
        }
        // Idempotent: a lost answer is simply sent again (see the module notes of sync).
        (Kind::AdOrder, Op::SetStatus) => {
            let id = remote_id.ok_or_else(|| notes::not_posted(&job.target))?;
            let status = body
                .get("status")
                .and_then(Value::as_i64)
                .map(AdOrderStatus::from_code)
                .ok_or_else(|| notes::malformed("a status change without a status"))?;
            let reply = client.ad_order_update_status(id, status).await?;
            let answered = reply.entity.id.unwrap_or(id);
            Ok((Key::Id(answered), to_value(&reply.entity), reply.messages))
        }
        (kind, op) => Err(notes::no_endpoint(kind, op)),
    }
}
