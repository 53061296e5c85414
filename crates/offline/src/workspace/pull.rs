//! Download: the account (or one advertiser) through flightdeck-client into the snapshot.
//!
//! Each listing is written in one transaction. An entity with pending changes is never
//! overwritten: a newer server version is kept beside it as "theirs" for the executor's
//! merge. What changed on the server since the last download is found by comparing the
//! base hashes.

use std::collections::{BTreeMap, HashMap, HashSet};

use flightdeck_client::Client;
use flightdeck_model::Id;
use futures_util::{StreamExt, TryStreamExt, stream};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::pull_creatives::{self, PullNotice};
use super::{Workspace, hash_text, key_text, now_ms, to_json};
use crate::change::{EntityRef, Key, Kind};
use crate::{Error, Result};

/// What to download.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PullScope {
    /// The whole account.
    All,
    /// One advertiser with its campaigns, ad orders, their caps, and the audience
    /// segments shared with it.
    Advertiser(Id),
}

/// Knobs of a download.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PullOptions {
    /// Fetch each campaign's creatives (one request per campaign, concurrently like the
    /// caps). The listing is partial (see `pull_creatives`): creatives are never counted
    /// as removed.
    pub creatives: bool,
    /// Fetch flight caps. There is no caps listing: each ad order costs one request
    /// (`byAdOrder` with an empty array), so only ad orders whose campaign has flights
    /// are asked — caps point at campaign flights, so the others cannot have any.
    /// Turn off for very large accounts; the caps of an order can be fetched later.
    pub flight_caps: bool,
    /// Caps requests, and creative listings, in flight at once.
    pub caps_concurrency: usize,
    /// Fetch audience segments. The audience endpoints take only an access token, so a
    /// client on HTTP Basic credentials must turn this off.
    pub audiences: bool,
    /// Fetch advertisers, campaigns, ad orders and their caps. Data partners may use
    /// only the audience endpoints, so their downloads turn this off.
    pub business: bool,
}

impl Default for PullOptions {
    fn default() -> Self {
        PullOptions {
            creatives: true,
            flight_caps: true,
            caps_concurrency: 8,
            audiences: true,
            business: true,
        }
    }
}

/// How far a download is, for a progress bar per kind. Kinds come in order (advertisers,
/// campaigns, ad orders, flight caps, creatives, audience segments); each starts with `done` 0 and
/// ends with `done == total`. What is counted:
///
/// * advertisers, ad orders and audience segments: entities. The total is unknown
///   (`None`) while the listing downloads, then known while it is written;
/// * campaigns: advertisers whose campaigns are listed, one request each;
/// * flight caps: ad orders whose caps are fetched and written, one request each;
/// * creatives: campaigns whose creatives are listed, one request each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Progress {
    /// The kind being downloaded.
    pub kind: Kind,
    /// Steps done for this kind (see the type's notes for what a step is).
    pub done: usize,
    /// How many steps there are, when known.
    pub total: Option<usize>,
}

/// What the server did to one entity since the last download.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum ServerChangeKind {
    /// New on the server.
    Added,
    /// Its server version changed.
    Changed,
    /// No longer on the server.
    Removed,
}

/// One entity the server changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ServerChange {
    /// Which entity.
    pub target: EntityRef,
    /// What happened.
    pub change: ServerChangeKind,
    /// It has pending changes, so the workspace kept the buyer's version and stored the
    /// server's beside it.
    pub held_back: bool,
}

/// Tallies per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct KindCounts {
    /// New on the server.
    pub added: usize,
    /// Changed on the server.
    pub changed: usize,
    /// Gone from the server.
    pub removed: usize,
    /// Same as last time.
    pub unchanged: usize,
    /// Changed or removed on the server but not overwritten: they have pending changes.
    pub skipped_pending: usize,
}

/// What a download found.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PullReport {
    /// Tallies per kind downloaded.
    pub counts: BTreeMap<Kind, KindCounts>,
    /// Every entity the server added, changed or removed, in download order.
    pub changes: Vec<ServerChange>,
    /// What the download could not do and carried on without (each said once).
    pub notices: Vec<PullNotice>,
}

impl PullReport {
    /// Tallies of one kind (zero when it was not downloaded).
    pub fn of(&self, kind: Kind) -> KindCounts {
        self.counts.get(&kind).copied().unwrap_or_default()
    }

    /// True when the server changed nothing since the last download.
    pub fn is_unchanged(&self) -> bool {
        self.changes.is_empty()
    }

    /// Entities the download did not overwrite because of pending changes.
    pub fn skipped_pending(&self) -> impl Iterator<Item = &EntityRef> {
        self.changes
            .iter()
            .filter(|c| c.held_back)
            .map(|c| &c.target)
    }

    fn record(&mut self, target: EntityRef, change: ServerChangeKind, held_back: bool) {
        let c = self.counts.entry(target.kind).or_default();
        match change {
            ServerChangeKind::Added => c.added += 1,
            ServerChangeKind::Changed => c.changed += 1,
            ServerChangeKind::Removed => c.removed += 1,
        }
        if held_back {
            c.skipped_pending += 1;
        }
        self.changes.push(ServerChange {
            target,
            change,
            held_back,
        });
    }
}

/// One downloaded entity, before it is compared and written.
pub(super) struct Item {
    pub(super) key: Key,
    /// The wire struct's JSON: known fields in a fixed order, unknown ones in the
    /// service's order. Its sha256 is the base version.
    pub(super) text: String,
    pub(super) parent: Option<EntityRef>,
    pub(super) scope: Option<Id>,
}

/// Which stored entities a listing covers, so the missing ones count as removed.
#[derive(Clone)]
pub(super) enum Covers {
    All,
    Scope(Id),
    /// The children of one entity (a campaign's ad orders).
    Parent(EntityRef),
    /// The listing is partial (caps, per-advertiser segments): nothing counts as removed.
    Nothing,
}

/// Caps answers written per transaction: each commit is one disk sync.
const CAPS_CHUNK: usize = 500;
/// The longest caps answers wait to be written, so progress moves on a slow service.
const CAPS_FLUSH: std::time::Duration = std::time::Duration::from_secs(1);
/// Rows of a listing between two progress reports while it is written.
const WRITE_TICK: usize = 10_000;
/// Audience segments per page, and per progress report while they download.
const SEGMENT_PAGE: u32 = 500;

/// Caps requests under way on their own task, so they keep going while the current task
/// writes to SQLite. Dropped early (an error, a cancelled download), it stops them.
struct CapsFetch {
    total: usize,
    answers: mpsc::Receiver<Result<(Id, Option<Id>, String)>>,
    task: tokio::task::JoinHandle<()>,
}

impl CapsFetch {
    /// Starts fetching the caps of `orders` (with the advertiser each belongs to),
    /// `concurrency` requests at once.
    fn start(client: &Client, orders: Vec<(Id, Option<Id>)>, concurrency: usize) -> CapsFetch {
        let total = orders.len();
        // Room for the answers that arrive while a listing is written.
        let (send, answers) = mpsc::channel(4 * CAPS_CHUNK);
        let client = client.clone();
        let task = tokio::spawn(async move {
            let client = &client;
            let mut fetched = stream::iter(orders)
                .map(|(order, advertiser)| async move {
                    let caps = client.flight_caps_save(order, &[]).await?.entity;
                    Ok((order, advertiser, to_json(&caps)?))
                })
                .buffer_unordered(concurrency.max(1));
            while let Some(answer) = fetched.next().await {
                let failed = answer.is_err();
                if send.send(answer).await.is_err() || failed {
                    break;
                }
            }
        });
        CapsFetch {
            total,
            answers,
            task,
        }
    }

    /// Waits for the task; a panic in it is raised here, not read as "no more caps".
    async fn finish(&mut self) -> Result<()> {
        match (&mut self.task).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => Err(Error::Invalid(
                "the flight caps download was cancelled".into(),
            )),
        }
    }
}

impl Drop for CapsFetch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// `(base_hash, server_hash, scope, parent)` of what the last download stored for a
/// key; the parent as `kind:key` text.
type Stored = (Option<String>, Option<String>, Option<Id>, Option<String>);

/// What a listing is compared with.
enum Known {
    /// Every stored row of the kind, and the keys with open changes: a listing that
    /// can tell what is gone needs them all.
    All {
        existing: HashMap<String, Stored>,
        dirty: HashSet<String>,
    },
    /// Looked up key by key (a partial listing).
    PerKey,
}

impl Known {
    fn all(tx: &rusqlite::Transaction<'_>, kt: &str) -> Result<Known> {
        let mut existing = HashMap::new();
        let mut stmt = tx.prepare(
            "SELECT key, base_hash, server_hash, scope, parent_kind || ':' || parent_key \
             FROM entities WHERE kind = ?1 AND remote_json IS NOT NULL",
        )?;
        let mut rows = stmt.query([kt])?;
        while let Some(r) = rows.next()? {
            existing.insert(r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?));
        }
        let mut dirty = HashSet::new();
        let mut stmt =
            tx.prepare("SELECT DISTINCT key FROM outbox WHERE kind = ?1 AND status <> 'applied'")?;
        let mut rows = stmt.query([kt])?;
        while let Some(r) = rows.next()? {
            dirty.insert(r.get(0)?);
        }
        Ok(Known::All { existing, dirty })
    }

    /// What the last download stored for `key`; `None` when it stored nothing.
    fn stored(
        &mut self,
        tx: &rusqlite::Transaction<'_>,
        kt: &str,
        key: &str,
    ) -> Result<Option<Stored>> {
        match self {
            Known::All { existing, .. } => Ok(existing.get(key).cloned()),
            Known::PerKey => Ok(tx
                .prepare_cached(
                    "SELECT base_hash, server_hash, scope, parent_kind || ':' || parent_key \
                     FROM entities WHERE kind = ?1 AND key = ?2 AND remote_json IS NOT NULL",
                )?
                .query_row(params![kt, key], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .optional()?),
        }
    }

    /// Whether `key` has changes not applied yet.
    fn dirty(&self, tx: &rusqlite::Transaction<'_>, kt: &str, key: &str) -> Result<bool> {
        match self {
            Known::All { dirty, .. } => Ok(dirty.contains(key)),
            Known::PerKey => Ok(tx
                .prepare_cached(
                    "SELECT EXISTS(SELECT 1 FROM outbox WHERE kind = ?1 AND key = ?2 \
                     AND status <> 'applied')",
                )?
                .query_row(params![kt, key], |r| r.get(0))?),
        }
    }
}

impl Workspace {
    /// Downloads with [`PullOptions::default`].
    pub async fn pull(
        &mut self,
        client: &Client,
        scope: PullScope,
        progress: impl FnMut(Progress) + Send,
    ) -> Result<PullReport> {
        self.pull_with(client, scope, PullOptions::default(), progress)
            .await
    }

    /// Downloads advertisers, campaigns with flights, ad orders, flight caps, the
    /// campaigns' creatives and audience segments (all, or one advertiser's), reporting progress as it goes (see
    /// [`Progress`]). On error, the listings written so far stay written (each is
    /// consistent on its own).
    ///
    /// Flight caps cost one request per ad order: they are fetched
    /// [`PullOptions::caps_concurrency`] at once from the moment the ad orders are listed,
    /// while the ad orders and then earlier caps are written. An ad order's first caps
    /// list is stored even when empty (later caps edits merge against it), but only caps
    /// count as added: an empty list is no server change. The caps requests run on a
    /// task of their own, so this needs a Tokio runtime.
    pub async fn pull_with(
        &mut self,
        client: &Client,
        scope: PullScope,
        options: PullOptions,
        mut progress: impl FnMut(Progress) + Send,
    ) -> Result<PullReport> {
        let mut report = PullReport::default();
        let covers = match scope {
            PullScope::All => Covers::All,
            PullScope::Advertiser(id) => Covers::Scope(id),
        };
        let in_scope = |id: Id| match scope {
            PullScope::All => true,
            PullScope::Advertiser(want) => id == want,
        };
        let mut step = |kind: Kind, done: usize, total: Option<usize>| {
            progress(Progress { kind, done, total });
        };

        if options.business {
            step(Kind::Advertiser, 0, None);
            let advertisers = client.advertisers(None).await?.entity;
            let mut advertiser_ids = Vec::new();
            let mut items = Vec::new();
            for a in &advertisers {
                if let Some(id) = a.id.filter(|id| in_scope(*id)) {
                    advertiser_ids.push(id);
                    items.push(Item {
                        key: Key::Id(id),
                        text: to_json(a)?,
                        parent: None,
                        scope: Some(id),
                    });
                }
            }
            let n = items.len();
            self.apply_listing(
                Kind::Advertiser,
                items,
                covers.clone(),
                &mut report,
                &mut |_| {},
            )?;
            step(Kind::Advertiser, n, Some(n));

            let mut campaign_advertiser: HashMap<Id, Id> = HashMap::new();
            // In listing order: a creative two campaigns list goes under the first.
            let mut campaign_order: Vec<Id> = Vec::new();
            let mut with_flights: HashSet<Id> = HashSet::new();
            let mut items = Vec::new();
            step(Kind::Campaign, 0, Some(advertiser_ids.len()));
            for (i, advertiser) in advertiser_ids.iter().enumerate() {
                for c in client.campaigns_by_advertiser(*advertiser).await?.entity {
                    let Some(id) = c.id else { continue };
                    campaign_advertiser.insert(id, *advertiser);
                    campaign_order.push(id);
                    if c.flights.as_ref().is_some_and(|f| !f.is_empty()) {
                        with_flights.insert(id);
                    }
                    items.push(Item {
                        key: Key::Id(id),
                        text: to_json(&c)?,
                        parent: Some(EntityRef::new(Kind::Advertiser, Key::Id(*advertiser))),
                        scope: Some(*advertiser),
                    });
                }
                step(Kind::Campaign, i + 1, Some(advertiser_ids.len()));
            }
            self.apply_listing(
                Kind::Campaign,
                items,
                covers.clone(),
                &mut report,
                &mut |_| {},
            )?;

            step(Kind::AdOrder, 0, None);
            let orders = client.all_ad_orders().await?.entity;
            let mut capped_orders: Vec<(Id, Option<Id>)> = Vec::new();
            let mut items = Vec::with_capacity(orders.len());
            for o in &orders {
                let Some(id) = o.id else { continue };
                let advertiser = o
                    .campaign_id
                    .and_then(|c| campaign_advertiser.get(&c).copied());
                if matches!(scope, PullScope::Advertiser(_)) && advertiser.is_none() {
                    continue;
                }
                if o.campaign_id.is_some_and(|c| with_flights.contains(&c)) {
                    capped_orders.push((id, advertiser));
                }
                items.push(Item {
                    key: Key::Id(id),
                    text: to_json(o)?,
                    parent: o
                        .campaign_id
                        .map(|c| EntityRef::new(Kind::Campaign, Key::Id(c))),
                    scope: advertiser,
                });
            }
            drop(orders);
            // The caps requests start now and run while the ad orders are written.
            let caps = options
                .flight_caps
                .then(|| CapsFetch::start(client, capped_orders, options.caps_concurrency));
            let n = items.len();
            step(Kind::AdOrder, 0, Some(n));
            let removed = self.apply_listing(
                Kind::AdOrder,
                items,
                covers.clone(),
                &mut report,
                &mut |done| step(Kind::AdOrder, done, Some(n)),
            )?;
            self.drop_orphan_caps(&removed)?;
            step(Kind::AdOrder, n, Some(n));

            if let Some(caps) = caps {
                self.write_caps(caps, &mut report, &mut |done, total| {
                    step(Kind::FlightCaps, done, Some(total));
                })
                .await?;
            }

            if options.creatives {
                let (listed, notice) = pull_creatives::fetch(
                    client,
                    &campaign_order,
                    options.caps_concurrency,
                    &mut |done, total| step(Kind::Creative, done, Some(total)),
                )
                .await?;
                let listed = listed
                    .into_iter()
                    .map(|(c, l)| (c, campaign_advertiser.get(&c).copied(), l))
                    .collect();
                self.write_creatives(listed, &mut report)?;
                report.notices.extend(notice);
            }
        }

        if options.audiences {
            step(Kind::AudienceSegment, 0, None);
            let mut segments = Vec::new();
            let mut stream = std::pin::pin!(client.audiences_stream(SEGMENT_PAGE));
            while let Some(s) = stream.try_next().await? {
                segments.push(s);
                if segments.len() % SEGMENT_PAGE as usize == 0 {
                    step(Kind::AudienceSegment, segments.len(), None);
                }
            }
            let mut items = Vec::new();
            for s in &segments {
                let Some(id) = s.service_segment_id.clone() else {
                    continue;
                };
                let shared = s.advertiser_ids.as_deref().unwrap_or_default();
                if let PullScope::Advertiser(a) = scope
                    && !shared.contains(&a)
                {
                    continue;
                }
                items.push(Item {
                    key: Key::Segment(id),
                    text: to_json(s)?,
                    parent: None,
                    scope: None,
                });
            }
            // Segments are shared between advertisers: only a full download can tell
            // that one is gone.
            let covers = match scope {
                PullScope::All => Covers::All,
                PullScope::Advertiser(_) => Covers::Nothing,
            };
            let n = items.len();
            self.apply_listing(
                Kind::AudienceSegment,
                items,
                covers,
                &mut report,
                &mut |_| {},
            )?;
            step(Kind::AudienceSegment, n, Some(n));
        }

        self.conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_pull_at', ?1)",
            [now_ms().to_string()],
        )?;
        Ok(report)
    }

    /// Writes caps as their requests answer, in transactions of up to [`CAPS_CHUNK`]
    /// ad orders (or what arrived within [`CAPS_FLUSH`]), reporting `(done, total)`
    /// after each.
    async fn write_caps(
        &mut self,
        mut caps: CapsFetch,
        report: &mut PullReport,
        progress: &mut (dyn FnMut(usize, usize) + Send),
    ) -> Result<()> {
        let total = caps.total;
        progress(0, total);
        let mut done = 0;
        let mut chunk: Vec<Result<(Id, Option<Id>, String)>> = Vec::with_capacity(CAPS_CHUNK);
        let mut open = true;
        while open {
            let flush_at = tokio::time::Instant::now() + CAPS_FLUSH;
            while chunk.len() < CAPS_CHUNK {
                let want = CAPS_CHUNK - chunk.len();
                match tokio::time::timeout_at(flush_at, caps.answers.recv_many(&mut chunk, want))
                    .await
                {
                    Ok(0) => {
                        open = false;
                        break;
                    }
                    Ok(_) => {}
                    Err(_elapsed) => break,
                }
            }
            if chunk.is_empty() {
                continue;
            }
            let mut items = Vec::with_capacity(chunk.len());
            for answer in chunk.drain(..) {
                let (order, advertiser, text) = answer?;
                items.push(Item {
                    key: Key::Id(order),
                    text,
                    parent: Some(EntityRef::new(Kind::AdOrder, Key::Id(order))),
                    scope: advertiser,
                });
            }
            done += items.len();
            self.apply_listing(
                Kind::FlightCaps,
                items,
                Covers::Nothing,
                report,
                &mut |_| {},
            )?;
            progress(done, total);
        }
        caps.finish().await?;
        if done != total {
            return Err(Error::Invalid(format!(
                "the flight caps download stopped after {done} of {total} ad orders"
            )));
        }
        Ok(())
    }

    /// Compares one listing with the snapshot and writes it, in one transaction,
    /// reporting the rows written every [`WRITE_TICK`]. Returns the keys removed from the
    /// snapshot.
    ///
    /// A listing that can tell what is gone ([`Covers::All`], [`Covers::Scope`]) is
    /// compared with every stored row of its kind, read once; a partial one (a chunk of
    /// caps) looks up only its own keys, so a download in many chunks stays linear.
    pub(super) fn apply_listing(
        &mut self,
        kind: Kind,
        items: Vec<Item>,
        covers: Covers,
        report: &mut PullReport,
        written: &mut dyn FnMut(usize),
    ) -> Result<Vec<String>> {
        let prepared = prepare(items);
        let kt = kind.name();
        let tx = self.conn.transaction()?;
        let mut known = match covers {
            Covers::Nothing => Known::PerKey,
            Covers::All | Covers::Scope(_) | Covers::Parent(_) => Known::all(&tx, kt)?,
        };
        let now = now_ms();
        let mut seen: HashSet<String> = HashSet::with_capacity(prepared.len());
        let mut removed = Vec::new();
        {
            let mut upsert = tx.prepare(
                "INSERT INTO entities (kind, key, remote_json, base_hash, working_json, \
                 parent_kind, parent_key, scope, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6, ?7, ?8) \
                 ON CONFLICT (kind, key) DO UPDATE SET remote_json = excluded.remote_json, \
                 base_hash = excluded.base_hash, working_json = NULL, \
                 server_json = NULL, server_hash = NULL, server_removed = 0, \
                 parent_kind = excluded.parent_kind, parent_key = excluded.parent_key, \
                 scope = excluded.scope, updated_at = excluded.updated_at",
            )?;
            let mut theirs = tx.prepare(
                "UPDATE entities SET server_json = ?3, server_hash = ?4, server_removed = 0, \
                 updated_at = ?5 WHERE kind = ?1 AND key = ?2",
            )?;
            for (i, p) in prepared.into_iter().enumerate() {
                if i > 0 && i % WRITE_TICK == 0 {
                    written(i);
                }
                let last = known.stored(&tx, kt, &p.key_text)?;
                if matches!(known, Known::All { .. }) {
                    seen.insert(p.key_text.clone());
                }
                let change = match &last {
                    None => Some(ServerChangeKind::Added),
                    Some((base, server, _, _)) => {
                        let last_seen = server.as_ref().or(base.as_ref());
                        (last_seen != Some(&p.hash)).then_some(ServerChangeKind::Changed)
                    }
                };
                let Some(change) = change else {
                    report.counts.entry(kind).or_default().unchanged += 1;
                    continue;
                };
                let held_back = last.is_some() && known.dirty(&tx, kt, &p.key_text)?;
                if held_back {
                    let back_to_base = last.as_ref().and_then(|l| l.0.as_ref()) == Some(&p.hash);
                    let (json, hash) = if back_to_base {
                        (None, None)
                    } else {
                        (Some(p.text.as_str()), Some(p.hash.as_str()))
                    };
                    theirs.execute(params![kt, p.key_text, json, hash, now])?;
                } else {
                    upsert.execute(params![
                        kt,
                        p.key_text,
                        p.text,
                        p.hash,
                        p.parent.as_ref().map(|e| e.kind.name()),
                        p.parent.as_ref().map(|e| key_text(&e.key)),
                        p.scope,
                        now
                    ])?;
                }
                // An ad order's first caps list, empty: stored as the base, but nothing
                // was added on the server.
                let no_caps = kind == Kind::FlightCaps && last.is_none() && p.text == "[]";
                if !no_caps {
                    report.record(EntityRef::new(kind, p.key), change, held_back);
                }
            }
            if let Known::All { existing, dirty } = &known {
                let parent_text = match &covers {
                    Covers::Parent(p) => Some(format!("{}:{}", p.kind.name(), key_text(&p.key))),
                    _ => None,
                };
                for (key, (_, _, scope, parent)) in existing {
                    let covered = match &covers {
                        Covers::All => true,
                        Covers::Scope(s) => *scope == Some(*s),
                        Covers::Parent(_) => parent.is_some() && *parent == parent_text,
                        Covers::Nothing => false,
                    };
                    if !covered || seen.contains(key) {
                        continue;
                    }
                    let held_back = dirty.contains(key);
                    if held_back {
                        tx.execute(
                            "UPDATE entities SET server_removed = 1, updated_at = ?3 \
                             WHERE kind = ?1 AND key = ?2",
                            params![kt, key, now],
                        )?;
                    } else {
                        tx.execute(
                            "DELETE FROM entities WHERE kind = ?1 AND key = ?2",
                            params![kt, key],
                        )?;
                        removed.push(key.clone());
                    }
                    let target = EntityRef::new(kind, super::key_from_text(key)?);
                    report.record(target, ServerChangeKind::Removed, held_back);
                }
            }
        }
        tx.commit()?;
        Ok(removed)
    }

    /// Caps of ad orders gone from the server go too, unless they have pending changes.
    pub(super) fn drop_orphan_caps(&mut self, orders: &[String]) -> Result<()> {
        if orders.is_empty() {
            return Ok(());
        }
        let tx = self.conn.transaction()?;
        for key in orders {
            tx.execute(
                "DELETE FROM entities WHERE kind = 'flight_caps' AND key = ?1 AND NOT EXISTS \
                 (SELECT 1 FROM outbox WHERE kind = 'flight_caps' AND key = ?1 AND status <> 'applied')",
                [key],
            )?;
        }
        tx.commit()?;
        Ok(())
    }
}

struct Prepared {
    key: Key,
    key_text: String,
    text: String,
    hash: String,
    parent: Option<EntityRef>,
    scope: Option<Id>,
}

/// Hashes a listing on every core: a 100,000-order account is 60 MB of JSON.
fn prepare(items: Vec<Item>) -> Vec<Prepared> {
    let one = |item: Item| Prepared {
        key_text: key_text(&item.key),
        key: item.key,
        hash: hash_text(&item.text),
        text: item.text,
        parent: item.parent,
        scope: item.scope,
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || items.len() < 2_000 {
        return items.into_iter().map(one).collect();
    }
    let per = items.len().div_ceil(threads);
    let mut chunks: Vec<Vec<Item>> = Vec::with_capacity(threads);
    let mut items = items.into_iter();
    loop {
        let chunk: Vec<Item> = items.by_ref().take(per).collect();
        if chunk.is_empty() {
            break;
        }
        chunks.push(chunk);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| s.spawn(move || chunk.into_iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            // A lost chunk would read as "removed on the server": re-raise instead.
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}
