//! Posting: the executor that applies the posting plan ([`crate::plan`]) to the service.
//!
//! The parts, in the order a change goes through them: `graph` (which steps may start),
//! `prepare` (a stored change becomes a request, on the driving task), `execute` (the
//! request's protocol: look-up, conflict check, retries), `remote` (the calls to the
//! service and the listings a push shares), `record` (outcomes written back), with the
//! buyer's messages in `notes`.
//!
//! [`push`] reads the pending changes, plans them, and posts the steps with a bounded
//! number of requests in flight, starting each step once every change it waits for is
//! applied. The [`Workspace`] (one SQLite connection) stays on the driving task: requests
//! run concurrently, while state transitions are recorded there, batched (the steps
//! starting together are marked `Sending` in one transaction, the answers that arrived
//! together are recorded in one), so the disk syncs do not cap the throughput.
//!
//! # Exactly once
//!
//! Every transition is durable before the next step of the protocol:
//!
//! 1. `mark_sending` — with the client reference already chosen — commits *before* the
//!    request goes out. A create of an advertiser, campaign, ad order, creative or audience
//!    segment whose external-id field is empty gets a reference (`fd-` + 16 hex, 19
//!    characters, so it fits the 26 allowed for creatives) in that field; a client id the
//!    buyer set is the reference.
//! 2. When the answer is lost ([`flightdeck_client::Error::OutcomeUnknown`]), or a change is
//!    still `Sending` when a push starts (the process died mid-flight), the reference is
//!    looked up with a listing fetched *after* the outcome became unknown: found means
//!    applied (no second create). Not found is believed only from a listing fetched a
//!    grace period ([`PushOptions::lookup_grace`], twice the request timeout) after the
//!    request left: a slow service can commit a request its client gave up on, and a
//!    create sent again before that lands twice. `mark_sending` stores when each request
//!    leaves, so the grace holds across a crash; a create is sent again only after the
//!    driving task marked it anew. Where a kind is listed is
//!    [`Kind::lost_create_lookup`](crate::change::Kind::lost_create_lookup):
//!    a creative only in its campaign's creatives (`GET /v1/campaign/{id}/creatives`, one
//!    listing per campaign per push), so one whose payload names a campaign (`campaignId`,
//!    filled from its parent) is looked up like the others. A creative tied to its
//!    advertiser alone and a site list have no listing (nor has a creative whose campaign
//!    listing answers 404 or 405, as older deployments may): their lost creates become
//!    `NeedsReview` rather than risk a duplicate, and to keep those few, only one of them
//!    is in flight at a time (a crash or a lost connection catches at most one), while
//!    the other creates, creatives with a campaign included, go on in parallel.
//! 3. `mark_applied` records the answer and rewrites the local id everywhere, so children
//!    read afterwards carry the parent's remote id. An answer it refuses records nothing:
//!    an update answered with another entity's id fails ([`WRONG_ID_CODE`]), and a
//!    create whose answered or found id belongs to another entity with edits of its own
//!    needs review ([`ID_TAKEN_CODE`]), so those edits are never lost.
//!
//! Updates and site-list operations are safe to repeat with the same body; after a lost
//! answer, new flights and flight caps (which the service adds, not replaces) first take
//! the ids the server gave them, so a resend modifies instead of adding twice.
//!
//! An audience upload adds and has no look-up, so like a lost site list it becomes
//! `NeedsReview` when its answer is lost (or it is still `Sending` at the start of a
//! push), and is never re-sent blindly. Uploads are split when they are queued
//! ([`Workspace::upload_audience_data`]), one change per request, so this holds per
//! request: requests that applied stay applied, and only the one in doubt waits for the
//! buyer (with later uploads to the segment held behind it).
//!
//! # Bodies
//!
//! What is posted has the shape the service documents: a campaign or ad order goes as its
//! `request_body` against the server version the change started from ([`wire_body`]):
//! the output-only `io_number` is dropped and only the one client id the buyer set is
//! sent, never both. Creatives and segments are only ever created (the service has no
//! update for them); an audience upload is an array of `{serviceSegmentId, countryCode,
//! values}` records, and its answer (published, bad records) is kept with the change
//! ([`Workspace::audience_uploads`]), a refusal for bad records included.
//!
//! # Conflicts
//!
//! Before an update, the server's current version is read (one listing per kind per push,
//! shared by every update) and compared with the change's base. Server edits to other
//! fields merge ([`crate::merge::three_way`]) and the merged entity is posted; edits to the
//! same fields stop the change as `Conflict`, with base, mine and theirs per field
//! ([`Workspace::conflicts`]) and a readable message naming each field.
//!
//! # Failures
//!
//! Transient failures (5xx, network) are retried with capped, jittered backoff; when the
//! budget runs out the change goes back to `Pending` with the last message. A rejected
//! change is `Failed` with the service's messages (field paths kept). Either way only the
//! changes that depend on it are held; the rest of the plan goes on. Signing-in and
//! permission errors stop the push: every further request would fail the same way.
//! So does a service that cannot be reached at all (the connection refused, the name not
//! resolved, connecting timed out: nothing was sent): the push stops at the first such
//! failure, without retrying, steps waiting on a backoff or a look-up's grace end as they
//! are, and [`PushReport::unreachable`] says why. Nothing is failed for it: a change whose
//! request may have landed stays `Sending` for the next push's look-up, the rest
//! `Pending`.
//! A change Flightdeck cannot turn into a request (a stored payload that does not fit its
//! resource, an operation with no endpoint) is `Failed` without anything being sent,
//! with Flightdeck's own message ([`crate::Error::Unpostable`]), never one made to look
//! like the service's.
//!
//! Changes held behind one the buyer must settle (failed, invalid, needs review, in
//! conflict) are recorded `Blocked`, with a [`BLOCKED_CODE`] message naming it, so the
//! outbox says why without the push report. Every push plans them again: once what they
//! wait on is fixed they go, and are `Pending` once more if something else stops them.
//!
//! # Selections
//!
//! [`PushOptions::only`] posts chosen changes and what they need first (a draft ad order

mod execute;
mod graph;
mod notes;
mod prepare;
mod record;
mod remote;

use std::collections::{BTreeSet, HashSet};
use std::time::{Duration, Instant};

use flightdeck_client::Client;
use flightdeck_client::retry::RetryPolicy;
use futures_util::FutureExt;
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde::{Deserialize, Serialize};

use crate::Result;
use crate::change::{ChangeStatus, Op};
use crate::merge::FieldConflict;
use crate::plan::{self, Held};
use crate::workspace::{ChangeMessage, Workspace};

pub(crate) use notes::conflict_note;
pub(crate) use prepare::REF_PREFIX;
pub use remote::wire_body;

/// Message code of a field held as a conflict (its values: [`Workspace::conflicts`]).
pub const CONFLICT_CODE: &str = "CONFLICT";
/// Message code of a change whose outcome is unknown and cannot be looked up.
pub const NEEDS_REVIEW_CODE: &str = "OUTCOME_UNKNOWN";
/// Message code of a create whose answer was lost and which the service does not list
/// yet: it is looked for again once a late arrival is ruled out (the grace period).
pub const LOOKUP_WAIT_CODE: &str = "WAITING_FOR_LOOKUP";
/// Message code of a change found on the service by its client reference.
pub const FOUND_CODE: &str = "FOUND_BY_REFERENCE";
/// Message code of an update (or site-list operation) the service answered with another
/// entity's id: `Failed`, nothing recorded ([`crate::Error::WrongId`]).
pub const WRONG_ID_CODE: &str = "WRONG_ID";
/// Message code of a create whose id, answered or found by look-up, belongs to another
/// entity of the workspace with edits of its own: `NeedsReview`, nothing recorded
/// ([`crate::Error::IdTaken`]).
pub const ID_TAKEN_CODE: &str = "ID_TAKEN";
/// Message code of a change `Blocked` behind one that failed, is invalid, needs review or
/// is in conflict; the message names it.
pub const BLOCKED_CODE: &str = "BLOCKED";

/// How [`push`] posts. Not `Copy`: [`PushOptions::only`] holds a set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushOptions {
    /// Requests in flight at once (at least 1).
    pub concurrency: usize,
    /// Retries of transient failures, per change. Every attempt of the change counts,
    /// look-ups and conflict checks included.
    pub retry: RetryPolicy,
    /// Post only these changes (by `seq`) and every change they need first — the draft
    /// campaign and advertiser of a selected draft ad order, earlier changes to the same
    /// entity — so the buyer can post a selection. `None` (the default) posts everything.
    /// Seqs that are not pending are ignored.
    pub only: Option<BTreeSet<i64>>,
    /// How long after a create's request left a look-up that does not find it is
    /// believed (and the create sent again). A slow service may commit a request after
    /// its client gave up, so this must be longer than the request timeout. `None` (the
    /// default) is twice the client's request timeout.
    pub lookup_grace: Option<Duration>,
}

impl Default for PushOptions {
    /// 8 requests in flight; 6 attempts per change, 250 ms doubling, at most 10 s apart.
    fn default() -> Self {
        PushOptions {
            concurrency: 8,
            retry: RetryPolicy {
                max_attempts: 6,
                base_delay: Duration::from_millis(250),
                max_delay: Duration::from_secs(10),
            },
            only: None,
            lookup_grace: None,
        }
    }
}

/// Reported after each change settles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PushProgress {
    /// Changes settled so far in this push.
    pub done: usize,
    /// Changes planned for this push.
    pub total: usize,
    /// The change that settled.
    pub seq: i64,
    /// Its status now.
    pub status: ChangeStatus,
}

/// One change's outcome, with the messages that explain it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChangeOutcome {
    /// The change.
    pub seq: i64,
    /// The service's messages (`INFO`/`WARNING` for applied changes), or Flightdeck's own.
    pub messages: Vec<ChangeMessage>,
}

/// A change held because the server changed the same fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConflictOutcome {
    /// The change.
    pub seq: i64,
    /// Base, mine and theirs per field.
    pub fields: Vec<FieldConflict>,
}

/// What a push did.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PushReport {
    /// Applied, in the order the answers arrived.
    pub applied: Vec<ChangeOutcome>,
    /// Rejected by the service, found unpostable by Flightdeck before it was sent, or
    /// answered for another entity (the messages say which).
    pub failed: Vec<ChangeOutcome>,
    /// Outcome unknown with no way to look it up, or a new entity whose id (answered or
    /// found) belongs to another entity with edits of its own; the buyer checks.
    pub needs_review: Vec<ChangeOutcome>,
    /// The server changed the same fields.
    pub conflicts: Vec<ConflictOutcome>,
    /// Not posted: invalid, or waiting on a change that did not apply.
    pub held: Vec<Held>,
    /// Tried but not settled (transient failures, an outcome that could not be checked
    /// yet); still pending, posted by the next push.
    pub unsent: Vec<ChangeOutcome>,
    /// Why the push stopped early (sign-in or permission), if it did.
    pub stopped: Option<String>,
    /// Set when the service could not be reached (the connection was refused, the name
    /// did not resolve, or connecting timed out): the push stopped at the first such
    /// failure instead of retrying every change. Nothing was failed for it: the changes
    /// not applied are `Pending`, or `Sending` when a request of theirs may have landed
    /// (looked up by the next push). The text says why, for the buyer.
    #[serde(default)]
    pub unreachable: Option<String>,
}

impl PushReport {
    /// True when every planned change was applied and nothing was held.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
            && self.needs_review.is_empty()
            && self.conflicts.is_empty()
            && self.held.is_empty()
            && self.unsent.is_empty()
            && self.stopped.is_none()
            && self.unreachable.is_none()
    }

    /// The push stopped early: signing in or permission ([`PushReport::stopped`]), or
    /// the service could not be reached ([`PushReport::unreachable`]).
    pub fn halted(&self) -> Option<&str> {
        self.stopped.as_deref().or(self.unreachable.as_deref())
    }
}

/// Posts every pending change of `ws`, or the selection of [`PushOptions::only`] with
/// what it depends on. See the module notes.
///
/// Returns `Err` only when the workspace cannot be read or written; what the service
/// answered is in the report and in each change's status and messages. Dropping the
/// returned future at any point loses nothing: changes in flight stay `Sending` and are
/// resolved by the next push.
pub async fn push(
    ws: &mut Workspace,
    client: &Client,
    options: &PushOptions,
    mut progress: impl FnMut(PushProgress),
) -> Result<PushReport> {
    let mut changes = ws.pending()?;
    // Blocked changes are planned again: what they waited on may have been fixed since.
    let mut was_blocked = HashSet::new();
    for c in &mut changes {
        if c.status == ChangeStatus::Blocked {
            c.status = ChangeStatus::Pending;
            was_blocked.insert(c.seq);
        }
    }
    let mut plan = plan::plan_with(&changes, |t| ws.resolve_remote(t).ok().flatten().is_some());
    // Creates the service cannot look up: one in flight at a time (see the module notes).
    let unverifiable: HashSet<i64> = changes
        .iter()
        .filter(|c| c.op == Op::Create && !c.lost_create_lookup())
        .map(|c| c.seq)
        .collect();
    drop(changes);
    if let Some(only) = &options.only {
        plan = graph::select(plan, only);
    }
    record::settle_blocked(ws, &plan, &was_blocked)?;
    let mut report = PushReport {
        held: plan.held.clone(),
        ..PushReport::default()
    };
    let mut graph = graph::Graph::new(&plan.steps);
    let ctx = execute::Ctx {
        remote: remote::Remote::new(client),
        retry: options.retry,
        started: Instant::now(),
        grace: options
            .lookup_grace
            .unwrap_or_else(|| client.config().request_timeout.saturating_mul(2)),
        halt: tokio::sync::watch::Sender::new(false),
    };
    let total = plan.steps.len();
    let bound = options.concurrency.max(1);
    let mut done = 0;
    let mut inflight = FuturesUnordered::new();
    // Creates to send again, already started: they go out first, after a new mark.
    let mut again: Vec<(usize, Box<prepare::Job>)> = Vec::new();
    let mut unverifiable_inflight = 0usize;
    loop {
        // Start what is free, up to the bound.
        let mut jobs = std::mem::take(&mut again);
        if report.halted().is_some() && !jobs.is_empty() {
            // Nothing of these is on the service (a look-up believed, or a refusal
            // before the handler): pending for the next push.
            let ends = jobs
                .drain(..)
                .map(|(i, _)| {
                    (
                        i,
                        record::StepEnd::Unsent {
                            status: ChangeStatus::Pending,
                            messages: Vec::new(),
                        },
                    )
                })
                .collect();
            let settled = record::record(ws, &mut graph, &mut report, ends)?;
            unverifiable_inflight = unverifiable_inflight.saturating_sub(
                settled
                    .iter()
                    .filter(|(seq, _)| unverifiable.contains(seq))
                    .count(),
            );
            notify(&mut progress, &mut done, total, settled);
        }
        let mut deferred = Vec::new();
        while report.halted().is_none() && inflight.len() + jobs.len() < bound {
            let Some(i) = graph.next_ready() else { break };
            let seq = graph.steps[i].seq;
            let one_at_a_time = unverifiable.contains(&seq);
            if one_at_a_time && unverifiable_inflight > 0 {
                deferred.push(i);
                continue;
            }
            match prepare::prepare(ws, seq)? {
                prepare::Prepared::Job(job) => {
                    if one_at_a_time {
                        unverifiable_inflight += 1;
                    }
                    jobs.push((i, job));
                }
                prepare::Prepared::Settled(end) => {
                    let settled = record::record(ws, &mut graph, &mut report, vec![(i, end)])?;
                    notify(&mut progress, &mut done, total, settled);
                }
            }
        }
        for i in deferred {
            graph.defer(i);
        }
        if !jobs.is_empty() {
            // Durable before the requests leave (one disk sync for all): a crash from
            // here on finds each change `Sending`, with the reference to look it up by
            // and the time its request left. A change still `Sending` from an earlier
            // push keeps its time: it is looked up before anything is sent again.
            let marks: Vec<(i64, Option<&str>)> = jobs
                .iter()
                .filter(|(_, job)| !job.was_sending)
                .map(|(_, job)| (job.seq, job.client_ref.as_deref()))
                .collect();
            ws.mark_sending_many(&marks)?;
            for (i, job) in jobs {
                inflight.push(execute::execute(&ctx, i, job));
            }
        }
        let Some(first) = inflight.next().await else {
            break;
        };
        // Answers that arrived meanwhile are recorded together (one disk sync).
        let mut arrived = vec![first];
        while let Some(Some(more)) = inflight.next().now_or_never() {
            arrived.push(more);
        }
        let mut ends = Vec::with_capacity(arrived.len());
        for (i, outcome) in arrived {
            match outcome {
                execute::Outcome::End(end) => ends.push((i, end)),
                execute::Outcome::Again(job) => again.push((i, job)),
            }
        }
        let settled = record::record(ws, &mut graph, &mut report, ends)?;
        if report.unreachable.is_some() {
            // Steps waiting (a retry's backoff, a look-up's grace) end now, as they are:
            // every further request would find the service gone too.
            ctx.halt.send_replace(true);
        }
        unverifiable_inflight = unverifiable_inflight.saturating_sub(
            settled
                .iter()
                .filter(|(seq, _)| unverifiable.contains(seq))
                .count(),
        );
        notify(&mut progress, &mut done, total, settled);
    }
    if let Some(reason) = report.halted().map(str::to_owned) {
        for i in graph.never_started() {
            report.held.push(Held {
                seq: graph.steps[i].seq,
                reason: format!("not sent: {reason}"),
                blocked_by: None,
            });
        }
    }
    report.held.sort_by_key(|h| h.seq);
    Ok(report)
}

fn notify(
    progress: &mut impl FnMut(PushProgress),
    done: &mut usize,
    total: usize,
    settled: Vec<(i64, ChangeStatus)>,
) {
    for (seq, status) in settled {
        *done += 1;
        progress(PushProgress {
            done: *done,
            total,
            seq,
            status,
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use flightdeck_client::{ClientConfig, Credentials};
    use serde_json::json;

    use super::*;
    use crate::change::EntityRef;

    fn seq_of(ws: &Workspace, target: &EntityRef) -> i64 {
        let pending = ws.pending().unwrap();
        pending.iter().find(|c| &c.target == target).unwrap().seq
    }

    /// A stored change that no longer fits its resource is refused by Flightdeck under
    /// its own code, and what waits on it says so: nothing is sent, and nothing reads as
    /// the service's answer. The client points at a closed port, so a request would end
    /// as a transport failure (unsent), not as failed.
    #[tokio::test]
    async fn a_change_that_cannot_become_a_request_fails_locally() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("workspace.sqlite");
        let mut ws = Workspace::open(&path).unwrap();
        let adv = ws
            .create_advertiser(
                serde_json::from_value(json!({
                    "name": "Acme", "agencyId": 1, "currency": "USD", "category": "IAB3"
                }))
                .unwrap(),
            )
            .unwrap();
        let camp = ws
            .create_campaign(
                &adv,
                serde_json::from_value(json!({
                    "name": "Spring", "domain": "acme.example", "maxBudget": 1000.0,
                    "startDate": 4_000_000_000_000_i64, "endDate": 4_000_086_400_000_i64,
                    "iabCategory": ["IAB3"]
                }))
                .unwrap(),
            )
            .unwrap();
        let (adv_seq, camp_seq) = (seq_of(&ws, &adv), seq_of(&ws, &camp));
        // Damaged outside this version of Flightdeck: the name is no longer text.
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute(
                "UPDATE outbox SET payload = json_set(payload, '$.name', 5) WHERE seq = ?1",
                [adv_seq],
            )
            .unwrap();
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", closed.local_addr().unwrap());
        drop(closed);
        let client = Client::new(ClientConfig::new(&url).unwrap(), Credentials::None).unwrap();
        let options = PushOptions {
            concurrency: 1,
            retry: RetryPolicy {
                max_attempts: 1,
                base_delay: Duration::ZERO,
                max_delay: Duration::ZERO,
            },
            only: None,
            lookup_grace: None,
        };

        let report = push(&mut ws, &client, &options, |_| {}).await.unwrap();

        assert!(report.unsent.is_empty(), "{report:#?}");
        assert_eq!(report.stopped, None);
        assert_eq!(report.failed.len(), 1, "{report:#?}");
        assert_eq!(report.failed[0].seq, adv_seq);
        let message = &report.failed[0].messages[0];
        assert_eq!(message.code, notes::MALFORMED_CODE);
        assert!(
            message
                .message
                .starts_with("the change does not fit its resource"),
            "{}",
            message.message
        );
        let stored = ws.change(adv_seq).unwrap().unwrap();
        assert_eq!(stored.status, ChangeStatus::Failed);
        let held = report.held.iter().find(|h| h.seq == camp_seq).unwrap();
        assert_eq!(held.blocked_by, Some(adv_seq), "{held:?}");
        assert!(
            !held.reason.contains("ad platform"),
            "a local refusal reads as the service's: {}",
            held.reason
        );
    }
}
