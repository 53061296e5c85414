//! Download of creatives through the service's per-campaign listing
//! (`GET /v1/campaign/{id}/creatives`), and the refresh of one campaign (its ad orders
//! and creatives through the campaign-scoped listings).
//!
//! The listing is partial in two ways, so a download never counts a creative as
//! removed: no listing covers creatives tied only to an advertiser, and the service has
//! no creative delete. It also carries none of the type-specific payloads
//! (`htmlAsset`, `video` …): a creative this workspace created keeps those, with the
//! listing's members laid over them.
//!
//! Older deployments answer 404 or 405 on the listing. That does not fail a download:
//! no further campaign is asked, what was listed is kept, and the report carries one
//! [`PullNotice::CreativesNotListed`].

use std::collections::HashSet;

use flightdeck_client::Client;
use flightdeck_model::trafficking::ListedCreative;
use flightdeck_model::{Creative, Id};
use futures_util::{StreamExt, stream};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::pull::{Covers, Item, PullReport};
use super::{Workspace, key_text, to_json};
use crate::change::{EntityRef, Key, Kind};
use crate::{Error, Result};

/// Something a download could not do but carried on without, said once to the buyer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum PullNotice {
    /// The service answered the creative listing with this HTTP status (404 or 405, as
    /// older deployments do): creatives were not downloaded past that point.
    CreativesNotListed {
        /// The HTTP status of the answer.
        status: u16,
    },
}

impl PullNotice {
    /// What to tell the buyer, once per download.
    pub fn text(&self) -> String {
        match self {
            PullNotice::CreativesNotListed { status } => format!(
                "Creatives could not be listed: the ad platform does not offer the creative \
                 listing (HTTP {status}). Creatives made in Flightdeck are still shown; \
                 everything else was downloaded."
            ),
        }
    }
}

/// Whether a stored creative came from a listing rather than from this workspace's
/// create: a posted creative (with an id) whose stored version has no `creativeType`.
/// The listing never carries the type or its payload, so such a creative's form cannot
/// show them.
pub fn creative_from_listing(remote: &Value) -> bool {
    remote.get("id").is_some_and(|id| !id.is_null())
        && remote.get("creativeType").is_none_or(Value::is_null)
}

/// The listing status of an older deployment, which has no creative listing.
fn not_listed(e: &flightdeck_client::Error) -> Option<u16> {
    match e {
        flightdeck_client::Error::NotFound { .. } => Some(404),
        flightdeck_client::Error::Rejected { status: 405, .. } => Some(405),
        _ => None,
    }
}

/// The creatives of `campaigns`, fetched `concurrency` at once, with `done(n, total)`
/// after each campaign (and `done(total, total)` when the listing is not offered, so a
/// progress bar ends full). Answers in campaign order whatever order they arrived in,
/// so which campaign a shared creative is stored under does not depend on timing; and
/// the notice when the listing is not offered (the campaigns answered before it are
/// kept).
pub(super) async fn fetch(
    client: &Client,
    campaigns: &[Id],
    concurrency: usize,
    done: &mut (dyn FnMut(usize, usize) + Send),
) -> Result<(Vec<(Id, Vec<ListedCreative>)>, Option<PullNotice>)> {
    let total = campaigns.len();
    done(0, total);
    let mut answers: Vec<(usize, Vec<ListedCreative>)> = Vec::with_capacity(total);
    let mut notice = None;
    {
        // Owned values and a client per request: a future that borrows from the
        // caller is not `Send` for every lifetime, which a Tauri command needs.
        let asks: Vec<(usize, Id)> = campaigns.iter().copied().enumerate().collect();
        let mut fetched = stream::iter(asks)
            .map(|(i, campaign)| {
                let client = client.clone();
                async move {
                    let answer = client.campaign_creatives(campaign).await;
                    (i, answer.map(|r| r.entity))
                }
            })
            .buffer_unordered(concurrency.max(1));
        while let Some((i, answer)) = fetched.next().await {
            match answer {
                Ok(listed) => answers.push((i, listed)),
                Err(e) => match not_listed(&e) {
                    // Dropping the stream stops the requests still under way.
                    Some(status) => {
                        notice = Some(PullNotice::CreativesNotListed { status });
                        break;
                    }
                    None => return Err(Error::from(e)),
                },
            }
            done(answers.len(), total);
        }
    }
    if notice.is_some() {
        done(total, total);
    }
    answers.sort_by_key(|(i, _)| *i);
    let listed = answers
        .into_iter()
        .map(|(i, listed)| (campaigns[i], listed))
        .collect();
    Ok((listed, notice))
}

/// A creative as the last download or post stored it.
struct StoredCreative {
    remote: Value,
    parent: Option<EntityRef>,
    scope: Option<Id>,
}

impl Workspace {
    /// Writes listed creatives (per campaign, with the campaign's advertiser) as one
    /// partial listing: nothing counts as removed.
    ///
    /// A creative listed by several campaigns (its own, and those it is associated with
    /// through an ad order) is stored once, under the first campaign that lists it. One
    /// already stored with its type (created here) keeps its stored parent and its
    /// payloads, with the listing's members laid over them.
    pub(super) fn write_creatives(
        &mut self,
        listed: Vec<(Id, Option<Id>, Vec<ListedCreative>)>,
        report: &mut PullReport,
    ) -> Result<()> {
        let mut seen: HashSet<Id> = HashSet::new();
        let mut items = Vec::new();
        for (campaign, advertiser, creatives) in listed {
            for c in creatives {
                let Some(id) = c.id else { continue };
                if !seen.insert(id) {
                    continue;
                }
                let key = Key::Id(id);
                let listing = listing_object(&c)?;
                let stored = self.stored_creative(&key)?;
                let item = match stored {
                    Some(s) if !creative_from_listing(&s.remote) => Item {
                        text: canonical_creative(overlay(s.remote, listing))?,
                        key,
                        parent: s.parent,
                        scope: s.scope,
                    },
                    _ => Item {
                        text: canonical_creative(Value::Object(listing))?,
                        key,
                        parent: Some(EntityRef::new(Kind::Campaign, Key::Id(campaign))),
                        scope: advertiser,
                    },
                };
                items.push(item);
            }
        }
        self.apply_listing(Kind::Creative, items, Covers::Nothing, report, &mut |_| {})?;
        Ok(())
    }

    /// The stored remote version of a creative with its parent and scope.
    fn stored_creative(&self, key: &Key) -> Result<Option<StoredCreative>> {
        let row = self
            .conn
            .prepare_cached(
                "SELECT remote_json, parent_kind, parent_key, scope FROM entities \
                 WHERE kind = 'creative' AND key = ?1 AND remote_json IS NOT NULL",
            )?
            .query_row([key_text(key)], |r| {
                let remote: String = r.get(0)?;
                let parent_kind: Option<String> = r.get(1)?;
                let parent_key: Option<String> = r.get(2)?;
                let scope: Option<Id> = r.get(3)?;
                Ok((remote, parent_kind.zip(parent_key), scope))
            })
            .optional()?;
        let Some((remote, parent, scope)) = row else {
            return Ok(None);
        };
        let parent = match parent {
            Some((k, key)) => Some(EntityRef::new(
                super::kind_from_text(&k)?,
                super::key_from_text(&key)?,
            )),
            None => None,
        };
        Ok(Some(StoredCreative {
            remote: super::parse_json(&remote)?,
            parent,
            scope,
        }))
    }

    /// Downloads one campaign's ad orders (`getAdOrdersByCampaign`) and creatives (its
    /// creative listing), as a full download would for them: ad orders of the campaign
    /// missing from the listing count as removed (their caps go with them), creatives
    /// never. The campaign must have been downloaded (its advertiser scopes what comes
    /// in). Caps are not fetched: an ad order's caps are edited against an empty base
    /// until the next full download.
    pub async fn pull_campaign(&mut self, client: &Client, campaign: Id) -> Result<PullReport> {
        let campaign_ref = EntityRef::new(Kind::Campaign, Key::Id(campaign));
        let advertiser: Option<Id> = self
            .conn
            .query_row(
                "SELECT scope FROM entities WHERE kind = 'campaign' AND key = ?1 \
                 AND remote_json IS NOT NULL",
                params![key_text(&campaign_ref.key)],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "campaign {campaign} is not downloaded yet: download the account first"
                ))
            })?;
        let mut report = PullReport::default();

        let orders = client.ad_orders_by_campaign(campaign).await?.entity;
        let mut items = Vec::with_capacity(orders.len());
        for o in &orders {
            let Some(id) = o.id else { continue };
            items.push(Item {
                key: Key::Id(id),
                text: to_json(o)?,
                parent: Some(campaign_ref.clone()),
                scope: advertiser,
            });
        }
        let removed = self.apply_listing(
            Kind::AdOrder,
            items,
            Covers::Parent(campaign_ref.clone()),
            &mut report,
            &mut |_| {},
        )?;
        self.drop_orphan_caps(&removed)?;

        let (listed, notice) = fetch(client, &[campaign], 1, &mut |_, _| {}).await?;
        let listed = listed
            .into_iter()
            .map(|(c, l)| (c, advertiser, l))
            .collect();
        self.write_creatives(listed, &mut report)?;
        report.notices.extend(notice);
        Ok(report)
    }
}

impl Workspace {
    /// Keeps an ad order's associated creatives as the service just listed them, with
    /// the time of the listing, replacing what was kept before.
    pub fn keep_ad_order_creatives(
        &mut self,
        ad_order: Id,
        creatives: &[ListedCreative],
        fetched_at: i64,
    ) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO ad_order_creatives (ad_order_id, creatives_json, fetched_at) \
             VALUES (?1, ?2, ?3)",
            params![ad_order, to_json(creatives)?, fetched_at],
        )?;
        Ok(())
    }

    /// An ad order's associated creatives as last listed, with when; `None` when they
    /// were never fetched.
    pub fn kept_ad_order_creatives(
        &self,
        ad_order: Id,
    ) -> Result<Option<(Vec<ListedCreative>, i64)>> {
        let row: Option<(String, i64)> = self
            .conn
            .query_row(
                "SELECT creatives_json, fetched_at FROM ad_order_creatives WHERE ad_order_id = ?1",
                [ad_order],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        row.map(|(json, at)| Ok((super::parse_json(&json)?, at)))
            .transpose()
    }
}

/// The listing's members as a creative object: the members it has no value for (null)
/// are left out, so they neither hide a stored payload nor fill the stored JSON with
/// nulls.
fn listing_object(c: &ListedCreative) -> Result<Map<String, Value>> {
    let Value::Object(mut map) = super::to_value(c)? else {
        return Err(Error::Invalid("a listed creative is not an object".into()));
    };
    strip_nulls(&mut map);
    Ok(map)
}

fn strip_nulls(map: &mut Map<String, Value>) {
    map.retain(|_, v| !v.is_null());
    for v in map.values_mut() {
        if let Value::Object(inner) = v {
            strip_nulls(inner);
        }
    }
}

/// `listing` laid over `stored`: each member replaces the stored one, except objects
/// (`type`, `size`), whose members are laid over the stored object's. Deterministic, so
/// the same listing over the same stored creative gives the same text.
fn overlay(mut stored: Value, listing: Map<String, Value>) -> Value {
    let Value::Object(target) = &mut stored else {
        return Value::Object(listing);
    };
    for (k, v) in listing {
        match (target.get_mut(&k), v) {
            (Some(Value::Object(old)), Value::Object(new)) => {
                for (ik, iv) in new {
                    old.insert(ik, iv);
                }
            }
            (_, v) => {
                target.insert(k, v);
            }
        }
    }
    stored
}

/// A creative's JSON in the wire struct's order (as every stored version is), so its
/// hash is stable.
fn canonical_creative(value: Value) -> Result<String> {
    let creative: Creative = serde_json::from_value(value)
        .map_err(|e| Error::Invalid(format!("a listed creative does not read as one: {e}")))?;
    to_json(&creative)
}
