//! Posting: the executor that applies the posting plan ([`crate::plan`]) to the service.
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
//!    applied (no second create), not found means the request never committed, so it is
//!    sent again. Creatives and site lists have no listing: their lost creates become
//!    `NeedsReview` rather than risk a duplicate.
//! 3. `mark_applied` records the answer and rewrites the local id everywhere, so children
//!    read afterwards carry the parent's remote id.
//!
//! Updates and site-list operations are safe to repeat with the same body; after a lost
//! answer, new flights and flight caps (which the service adds, not replaces) first take
//! the ids the server gave them, so a resend modifies instead of adding twice.
//!
//! An audience upload adds and has no look-up, so like a lost creative it becomes
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
//!
//! Changes held behind one the buyer must settle (failed, invalid, needs review, in
//! conflict) are recorded `Blocked`, with a [`BLOCKED_CODE`] message naming it, so the
//! outbox says why without the push report. Every push plans them again: once what they
//! wait on is fixed they go, and are `Pending` once more if something else stops them.
//!
//! # Selections
//!
//! [`PushOptions::only`] posts chosen changes and what they need first (a draft ad order
//! takes its draft campaign and advertiser along); everything else stays pending.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use flightdeck_client::retry::{self, Decision, RetryPolicy};
use flightdeck_client::{Client, Error as ClientError, ServerMessage};
use flightdeck_model::{
    AdOrder, Advertiser, AudienceData, AudienceSegment, Campaign, Creative, FlightCap, SiteList,
};
use futures_util::FutureExt;
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::change::{ChangeStatus, EntityRef, Key, Kind, Op, PendingChange};
use crate::merge::{self, FieldConflict};
use crate::plan::{self, Held, Step};
use crate::workspace::{ChangeMessage, Workspace};
use crate::{Error, Result};

/// Message code of a field held as a conflict (its values: [`Workspace::conflicts`]).
pub const CONFLICT_CODE: &str = "CONFLICT";
/// Message code of a change whose outcome is unknown and cannot be looked up.
pub const NEEDS_REVIEW_CODE: &str = "OUTCOME_UNKNOWN";
/// Message code of a change found on the service by its client reference.
pub const FOUND_CODE: &str = "FOUND_BY_REFERENCE";
/// Message code of a change `Blocked` behind one that failed, is invalid, needs review or
/// is in conflict; the message names it.
pub const BLOCKED_CODE: &str = "BLOCKED";

/// Listings are read this many segments at a time when looking up audience segments.
const AUDIENCE_PAGE: u32 = 500;

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
    /// Rejected by the service.
    pub failed: Vec<ChangeOutcome>,
    /// Outcome unknown with no way to look it up; the buyer checks.
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
    drop(changes);
    if let Some(only) = &options.only {
        plan = select(plan, only);
    }
    settle_blocked(ws, &plan, &was_blocked)?;
    let mut report = PushReport {
        held: plan.held.clone(),
        ..PushReport::default()
    };
    let mut graph = Graph::new(&plan.steps);
    let ctx = Ctx {
        client,
        retry: options.retry,
        started: Instant::now(),
        caches: Caches::default(),
    };
    let total = plan.steps.len();
    let bound = options.concurrency.max(1);
    let mut done = 0;
    let mut inflight = FuturesUnordered::new();
    loop {
        // Start what is free, up to the bound.
        let mut jobs = Vec::new();
        while report.stopped.is_none() && inflight.len() + jobs.len() < bound {
            let Some(i) = graph.next_ready() else { break };
            match prepare(ws, graph.steps[i].seq)? {
                Prepared::Job(job) => jobs.push((i, job)),
                Prepared::Settled(end) => {
                    let settled = record(ws, &mut graph, &mut report, vec![(i, end)])?;
                    notify(&mut progress, &mut done, total, settled);
                }
            }
        }
        if !jobs.is_empty() {
            // Durable before the requests leave (one disk sync for all): a crash from
            // here on finds each change `Sending`, with the reference to look it up by.
            let marks: Vec<(i64, Option<&str>)> = jobs
                .iter()
                .map(|(_, job)| (job.seq, job.client_ref.as_deref()))
                .collect();
            ws.mark_sending_many(&marks)?;
            for (i, job) in jobs {
                inflight.push(execute(&ctx, i, job));
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
        let settled = record(ws, &mut graph, &mut report, arrived)?;
        notify(&mut progress, &mut done, total, settled);
    }
    if let Some(reason) = &report.stopped {
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

/// The part of `plan` that posts `only` and every change they wait on, with the held
/// changes among them (and the held ones they wait on, so the report says why).
fn select(plan: plan::Plan, only: &BTreeSet<i64>) -> plan::Plan {
    let after: HashMap<i64, &[i64]> = plan
        .steps
        .iter()
        .map(|s| (s.seq, s.after.as_slice()))
        .collect();
    let held_by: HashMap<i64, Option<i64>> =
        plan.held.iter().map(|h| (h.seq, h.blocked_by)).collect();
    let mut keep: HashSet<i64> = HashSet::new();
    let mut stack: Vec<i64> = only.iter().copied().collect();
    while let Some(seq) = stack.pop() {
        if !keep.insert(seq) {
            continue;
        }
        if let Some(after) = after.get(&seq) {
            stack.extend_from_slice(after);
        }
        if let Some(Some(by)) = held_by.get(&seq) {
            stack.push(*by);
        }
    }
    plan::Plan {
        steps: plan
            .steps
            .into_iter()
            .filter(|s| keep.contains(&s.seq))
            .collect(),
        held: plan
            .held
            .into_iter()
            .filter(|h| keep.contains(&h.seq))
            .collect(),
    }
}

/// Makes the plan's verdict on waiting changes durable, in one transaction: a change
/// held because it waits on one that failed, is invalid, needs review or is in conflict
/// is `Blocked` with the reason; a blocked change the plan now posts is `Pending` again.
fn settle_blocked(ws: &mut Workspace, plan: &plan::Plan, was_blocked: &HashSet<i64>) -> Result<()> {
    let mut rows: Vec<(i64, ChangeStatus, Vec<ChangeMessage>)> = Vec::new();
    for h in &plan.held {
        if h.blocked_by.is_some() {
            rows.push((h.seq, ChangeStatus::Blocked, vec![blocked_note(&h.reason)]));
        }
    }
    for step in &plan.steps {
        if was_blocked.contains(&step.seq) {
            rows.push((step.seq, ChangeStatus::Pending, Vec::new()));
        }
    }
    // Only `Pending` and `Blocked` changes are held this way (a held `Sending` change
    // keeps its unknown outcome for the look-up).
    ws.mark_status_many(&rows, &[ChangeStatus::Pending, ChangeStatus::Blocked])?;
    Ok(())
}

fn blocked_note(reason: &str) -> ChangeMessage {
    note("WARNING", BLOCKED_CODE, reason)
}

// ---- The dependency graph of one push ----

struct Graph<'p> {
    steps: &'p [Step],
    /// Unmet dependencies per step.
    waiting: Vec<usize>,
    dependents: Vec<Vec<usize>>,
    /// Steps free to start, by seq (the planner's order among free steps).
    ready: BTreeSet<(i64, usize)>,
    started: Vec<bool>,
    /// Steps held in this push because something they wait on did not apply.
    held: Vec<bool>,
}

impl<'p> Graph<'p> {
    fn new(steps: &'p [Step]) -> Self {
        let index: HashMap<i64, usize> =
            steps.iter().enumerate().map(|(i, s)| (s.seq, i)).collect();
        let mut waiting = vec![0; steps.len()];
        let mut dependents = vec![Vec::new(); steps.len()];
        for (i, step) in steps.iter().enumerate() {
            let mut seen = HashSet::new();
            // Waits on anything outside the plan are settled (applied) by construction.
            for j in step.after.iter().filter_map(|a| index.get(a)) {
                if seen.insert(*j) {
                    waiting[i] += 1;
                    dependents[*j].push(i);
                }
            }
        }
        let ready = (0..steps.len())
            .filter(|&i| waiting[i] == 0)
            .map(|i| (steps[i].seq, i))
            .collect();
        Graph {
            steps,
            waiting,
            dependents,
            ready,
            started: vec![false; steps.len()],
            held: vec![false; steps.len()],
        }
    }

    fn next_ready(&mut self) -> Option<usize> {
        let (_, i) = self.ready.pop_first()?;
        self.started[i] = true;
        Some(i)
    }

    fn applied(&mut self, i: usize) {
        for k in 0..self.dependents[i].len() {
            let d = self.dependents[i][k];
            self.waiting[d] -= 1;
            if self.waiting[d] == 0 && !self.held[d] {
                self.ready.insert((self.steps[d].seq, d));
            }
        }
    }

    /// Every step depending on `i`, directly or not, not held yet.
    fn hold_dependents(&mut self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![i];
        while let Some(j) = stack.pop() {
            for &d in &self.dependents[j] {
                if !self.held[d] {
                    self.held[d] = true;
                    self.ready.remove(&(self.steps[d].seq, d));
                    out.push(d);
                    stack.push(d);
                }
            }
        }
        out
    }

    fn never_started(&self) -> Vec<usize> {
        (0..self.steps.len())
            .filter(|&i| !self.started[i] && !self.held[i])
            .collect()
    }
}

// ---- Preparing a step (driver side, with the workspace) ----

/// A change ready to post: the body with remote ids and the client reference filled in.
struct Job {
    seq: i64,
    target: EntityRef,
    op: Op,
    /// The entity's remote key, when it has one.
    remote: Option<Key>,
    body: Value,
    base: Option<Value>,
    client_ref: Option<String>,
    /// The change was `Sending` when the push started: its last request may have been
    /// applied, so it is looked up (or, when it cannot be, reviewed) before anything else.
    was_sending: bool,
}

enum Prepared {
    Job(Box<Job>),
    Settled(StepEnd),
}

fn prepare(ws: &Workspace, seq: i64) -> Result<Prepared> {
    let Some(change) = ws.change(seq)? else {
        return Err(Error::NotFound(format!(
            "change {seq} is not in the workspace"
        )));
    };
    let PendingChange {
        target,
        op,
        parents,
        mut payload,
        base,
        status,
        client_ref,
        ..
    } = change;
    for parent in &parents {
        match ws.resolve_remote(&parent.target)? {
            Some(Key::Id(id)) => set_pointer(&mut payload, &parent.pointer, Value::from(id)),
            Some(Key::Segment(id)) => {
                set_pointer(&mut payload, &parent.pointer, Value::from(id));
            }
            _ => {
                return Ok(Prepared::Settled(StepEnd::Unsent {
                    status: ChangeStatus::Pending,
                    messages: vec![note(
                        "ERROR",
                        "PARENT_NOT_POSTED",
                        format!(
                            "{:?} {} has no id on the ad platform yet; post it first",
                            parent.target.kind, parent.target.key
                        ),
                    )],
                }));
            }
        }
    }
    let remote = match target.kind {
        // Caps are keyed by their ad order; the order's id is the one that matters.
        Kind::FlightCaps => {
            ws.resolve_remote(&EntityRef::new(Kind::AdOrder, target.key.clone()))?
        }
        _ => ws.resolve_remote(&target)?,
    };
    if op != Op::Create
        && !matches!(target.kind, Kind::FlightCaps | Kind::AudienceSegment)
        && let Some(Key::Id(id)) = &remote
    {
        set_pointer(&mut payload, "/id", Value::from(*id));
    }
    let client_ref = if op == Op::Create {
        apply_client_ref(target.kind, &mut payload, client_ref)
    } else {
        None
    };
    let was_sending = status == ChangeStatus::Sending;
    if was_sending && op == Op::AudienceData {
        return Ok(Prepared::Settled(StepEnd::NeedsReview(vec![
            upload_unknown_note(),
        ])));
    }
    if was_sending && op == Op::Create && !has_lookup(target.kind) {
        return Ok(Prepared::Settled(StepEnd::NeedsReview(vec![unknown_note(
            target.kind,
        )])));
    }
    Ok(Prepared::Job(Box::new(Job {
        seq,
        target,
        op,
        remote,
        body: payload,
        base,
        client_ref,
        was_sending,
    })))
}

/// Fields holding the client id of a kind; the first is where a generated one goes.
fn ref_fields(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Advertiser => &["externalAdvertiserId"],
        Kind::Campaign => &["externalCampaignId", "ioNumber"],
        Kind::AdOrder => &["externalAdOrderId", "ioNumber"],
        Kind::Creative => &["externalCreativeid"],
        Kind::AudienceSegment => &["externalAudienceId"],
        Kind::Flight | Kind::FlightCaps | Kind::SiteList => &[],
    }
}

/// The create's client reference: the client id the buyer set, else the one stored by
/// an earlier attempt, else a new one — written into the payload when it was empty.
fn apply_client_ref(kind: Kind, payload: &mut Value, stored: Option<String>) -> Option<String> {
    let fields = ref_fields(kind);
    let first = fields.first()?;
    let set = fields.iter().find_map(|f| {
        payload
            .get(*f)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    });
    if let Some(existing) = set {
        return Some(existing.to_owned());
    }
    let reference = stored
        .filter(|s| s.starts_with(REF_PREFIX))
        .unwrap_or_else(new_client_ref);
    set_pointer(
        payload,
        &format!("/{first}"),
        Value::from(reference.clone()),
    );
    Some(reference)
}

/// Prefix of the client references Flightdeck generates (see the module notes).
pub(crate) const REF_PREFIX: &str = "fd-";

/// `fd-` and 16 hex digits: 19 characters, within every external-id limit (26 for creatives).
fn new_client_ref() -> String {
    format!("{REF_PREFIX}{:016x}", rand::random::<u64>())
}

/// Whether a create of this kind can be found again by its client reference.
fn has_lookup(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Advertiser | Kind::Campaign | Kind::AdOrder | Kind::AudienceSegment
    )
}

fn unknown_note(kind: Kind) -> ChangeMessage {
    let what = match kind {
        Kind::Creative => "creative",
        Kind::SiteList => "site list",
        _ => "change",
    };
    note(
        "ERROR",
        NEEDS_REVIEW_CODE,
        format!(
            "the connection was lost after this {what} was sent, and the ad platform offers no way \
             to look it up: it may or may not have been created. Check it on the ad platform \
             before posting again, then discard or resend this change"
        ),
    )
}

/// An upload whose outcome is unknown: the service offers no way to tell whether a
/// request's records were stored (a segment's counts move only when the data is
/// processed, minutes later), so it is left to the buyer rather than sent again.
fn upload_unknown_note() -> ChangeMessage {
    note(
        "ERROR",
        NEEDS_REVIEW_CODE,
        "the connection was lost after this upload was sent, and the ad platform offers no way \
         to look it up: its identifiers may or may not have been stored. Check the segment's \
         count on the ad platform once it has processed the data (about every 10 minutes), \
         then discard or resend this upload",
    )
}

/// Sets a member by JSON pointer, adding it when its object exists but lacks it.
fn set_pointer(root: &mut Value, pointer: &str, value: Value) {
    if let Some(slot) = root.pointer_mut(pointer) {
        *slot = value;
        return;
    }
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    if let Some(Value::Object(map)) = root.pointer_mut(parent) {
        map.insert(last.replace("~1", "/").replace("~0", "~"), value);
    }
}

fn note(level: &str, code: &str, message: impl Into<String>) -> ChangeMessage {
    ChangeMessage {
        level: level.to_owned(),
        code: code.to_owned(),
        message: message.into(),
        field: None,
    }
}

// ---- Recording an outcome (driver side) ----

/// How a step ended.
enum StepEnd {
    Applied {
        key: Key,
        /// The entity as the service answered, or as found by look-up.
        json: Value,
        messages: Vec<ChangeMessage>,
    },
    /// Rejected, with the service's answer when it is a record of its own (an audience
    /// upload refused for bad records: its counts).
    Failed(Vec<ChangeMessage>, Option<Value>),
    NeedsReview(Vec<ChangeMessage>),
    Conflict {
        fields: Vec<FieldConflict>,
        /// The server version they were found against, kept for resolving.
        theirs: Value,
    },
    /// Not settled: `Pending` (nothing was applied) or `Sending` (it may have been).
    Unsent {
        status: ChangeStatus,
        messages: Vec<ChangeMessage>,
    },
    /// Sign-in or permission: the push stops.
    Stop {
        status: ChangeStatus,
        error: ClientError,
    },
}

/// Records how steps ended, applied ones in one transaction; returns `(seq, status)` per step.
fn record(
    ws: &mut Workspace,
    graph: &mut Graph<'_>,
    report: &mut PushReport,
    ends: Vec<(usize, StepEnd)>,
) -> Result<Vec<(i64, ChangeStatus)>> {
    let mut out = Vec::with_capacity(ends.len());
    let mut rows = Vec::new();
    let mut landed = Vec::new();
    for (i, end) in ends {
        let seq = graph.steps[i].seq;
        match end {
            StepEnd::Applied {
                key,
                json,
                messages,
            } => {
                rows.push((seq, key, json));
                landed.push((i, messages));
            }
            other => out.push((seq, record_unapplied(ws, graph, report, i, other)?)),
        }
    }
    if !rows.is_empty() {
        ws.mark_applied_many(&rows)?;
        for (i, messages) in landed {
            let seq = graph.steps[i].seq;
            report.applied.push(ChangeOutcome { seq, messages });
            graph.applied(i);
            out.push((seq, ChangeStatus::Applied));
        }
    }
    Ok(out)
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

/// Records a step that did not apply and holds what depends on it.
fn record_unapplied(
    ws: &mut Workspace,
    graph: &mut Graph<'_>,
    report: &mut PushReport,
    i: usize,
    end: StepEnd,
) -> Result<ChangeStatus> {
    let seq = graph.steps[i].seq;
    let (status, why, blocks) = match end {
        StepEnd::Applied { .. } => {
            return Err(Error::Invalid(
                "an applied step is recorded with the others".into(),
            ));
        }
        StepEnd::Failed(messages, result) => {
            match &result {
                Some(result) => ws.mark_refused(seq, &messages, result)?,
                None => ws.mark_failed(seq, &messages)?,
            }
            report.failed.push(ChangeOutcome { seq, messages });
            (ChangeStatus::Failed, "the ad platform rejected", true)
        }
        StepEnd::NeedsReview(messages) => {
            ws.mark_status(seq, ChangeStatus::NeedsReview, &messages)?;
            report.needs_review.push(ChangeOutcome { seq, messages });
            (ChangeStatus::NeedsReview, "needs review", true)
        }
        StepEnd::Conflict { fields, theirs } => {
            let messages: Vec<ChangeMessage> = fields.iter().map(conflict_note).collect();
            ws.mark_conflict_against(seq, &theirs, &fields, &messages)?;
            report.conflicts.push(ConflictOutcome { seq, fields });
            (
                ChangeStatus::Conflict,
                "has a conflict with the ad platform",
                true,
            )
        }
        StepEnd::Unsent { status, messages } => {
            ws.mark_status(seq, status, &messages)?;
            report.unsent.push(ChangeOutcome { seq, messages });
            (status, "could not be sent yet", false)
        }
        StepEnd::Stop { status, error } => {
            let messages = error_notes(&error);
            ws.mark_status(seq, status, &messages)?;
            report.unsent.push(ChangeOutcome { seq, messages });
            report.stopped.get_or_insert_with(|| error.to_string());
            (status, "could not be sent", false)
        }
    };
    // What waits on a change the buyer must settle is `Blocked` until then; what waits on
    // one that merely could not be sent stays `Pending` for the next push.
    let mut blocked = Vec::new();
    for d in graph.hold_dependents(i) {
        let held = Held {
            seq: graph.steps[d].seq,
            reason: format!("waits on change {seq}, which {why}"),
            blocked_by: Some(seq),
        };
        if blocks {
            blocked.push((
                held.seq,
                ChangeStatus::Blocked,
                vec![blocked_note(&held.reason)],
            ));
        }
        report.held.push(held);
    }
    ws.mark_status_many(&blocked, &[ChangeStatus::Pending, ChangeStatus::Blocked])?;
    Ok(status)
}

/// The buyer's message for one field in conflict; the values themselves are stored
/// apart, by [`Workspace::mark_conflict`].
pub(crate) fn conflict_note(c: &FieldConflict) -> ChangeMessage {
    ChangeMessage {
        level: "ERROR".into(),
        code: CONFLICT_CODE.into(),
        message: format!("the ad platform changed {} since you downloaded it", c.path),
        field: Some(c.path.clone()),
    }
}

fn error_notes(e: &ClientError) -> Vec<ChangeMessage> {
    let messages: Vec<ChangeMessage> = e.messages().iter().map(ChangeMessage::from).collect();
    if !messages.is_empty() {
        return messages;
    }
    let mut only = note(
        "ERROR",
        &format!("{:?}", e.kind()).to_uppercase(),
        e.to_string(),
    );
    // A value Flightdeck would not send names its field, so a host can show it there
    // (the text starts with the path, as the service's own messages do).
    if let ClientError::Invalid { field, .. } = e {
        only.field = Some(field.clone()).filter(|f| !f.is_empty());
    }
    vec![only]
}

fn info_notes(messages: &[ServerMessage]) -> Vec<ChangeMessage> {
    messages.iter().map(ChangeMessage::from).collect()
}

// ---- Executing a step (concurrent side, client only) ----

struct Ctx<'c> {
    client: &'c Client,
    retry: RetryPolicy,
    /// Listings fetched after this serve every conflict check of the push.
    started: Instant,
    caches: Caches,
}

/// Server listings shared by the steps of one push.
#[derive(Default)]
struct Caches {
    advertisers: Snapshot<Vec<Advertiser>>,
    ad_orders: Snapshot<Vec<AdOrder>>,
    audiences: Snapshot<Vec<AudienceSegment>>,
    campaigns: Mutex<HashMap<i64, Arc<Snapshot<Vec<Campaign>>>>>,
}

impl Caches {
    fn campaigns_of(&self, advertiser: i64) -> Arc<Snapshot<Vec<Campaign>>> {
        // The map only holds handles; a poisoned lock still holds valid ones.
        let mut map = self.campaigns.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(map.entry(advertiser).or_default())
    }
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

/// The step's protocol: look up (when the last outcome is unknown), check for conflicts,
/// send, and retry transient failures within the budget.
async fn execute(ctx: &Ctx<'_>, i: usize, job: Box<Job>) -> (usize, StepEnd) {
    (i, run_job(ctx, &job).await)
}

async fn run_job(ctx: &Ctx<'_>, job: &Job) -> StepEnd {
    let kind = job.target.kind;
    // Set while the last request's outcome is unknown: when it became so.
    let mut unknown_since = job.was_sending.then_some(ctx.started);
    let mut resent_after_unknown = job.was_sending;
    let mut attempt = 0;
    loop {
        attempt += 1;
        if job.op == Op::Create
            && let Some(since) = unknown_since
        {
            match lookup(ctx, job, since).await {
                Ok(Some((key, json))) => {
                    return StepEnd::Applied {
                        key,
                        json,
                        messages: vec![note(
                            "INFO",
                            FOUND_CODE,
                            "the ad platform already had this change (its answer had been lost); it was not sent again",
                        )],
                    };
                }
                Ok(None) => unknown_since = None,
                Err(e) => {
                    if let Some(end) = after_error(ctx, attempt, &e, ChangeStatus::Sending).await {
                        return end;
                    }
                    continue;
                }
            }
        }
        let body = match body_to_send(ctx, job, unknown_since, resent_after_unknown).await {
            Ok(Body::Send(body)) => body,
            Ok(Body::Conflict(fields, theirs)) => return StepEnd::Conflict { fields, theirs },
            Err(e) => {
                let status = pending_or_sending(unknown_since);
                if let Some(end) = after_error(ctx, attempt, &e, status).await {
                    return end;
                }
                continue;
            }
        };
        match send(ctx.client, job, &body).await {
            Ok((key, json, messages)) => {
                return StepEnd::Applied {
                    key,
                    json,
                    messages: info_notes(&messages),
                };
            }
            Err(e) if lost_answer(job.op, &e) => {
                if job.op == Op::AudienceData {
                    let mut messages = vec![upload_unknown_note()];
                    messages.extend(error_notes(&e));
                    return StepEnd::NeedsReview(messages);
                }
                if job.op == Op::Create && !has_lookup(kind) {
                    let mut messages = vec![unknown_note(kind)];
                    messages.extend(error_notes(&e));
                    return StepEnd::NeedsReview(messages);
                }
                unknown_since = Some(Instant::now());
                resent_after_unknown = true;
                if let Some(end) = after_error(ctx, attempt, &e, ChangeStatus::Sending).await {
                    return end;
                }
            }
            Err(e) => {
                let status = pending_or_sending(unknown_since);
                if let Some(end) = after_error(ctx, attempt, &e, status).await {
                    return end;
                }
            }
        }
    }
}

/// Whether a failed send may still have been applied. Beyond a lost answer, a create or
/// an audience upload (which adds, so a resend is not harmless) answered 500, 502 or 504
/// may have committed behind a failing gateway, so it is treated like a lost answer:
/// looked up, or left for review, before anything is sent again. 503 and 429 mean "not
/// processed".
fn lost_answer(op: Op, e: &ClientError) -> bool {
    let adds = matches!(op, Op::Create | Op::AudienceData);
    match e {
        ClientError::OutcomeUnknown { .. } | ClientError::Decode { .. } => true,
        ClientError::Server { status, .. } => adds && ![503, 429].contains(status),
        ClientError::Audience { status, .. } => {
            op == Op::AudienceData && *status >= 500 && *status != 503
        }
        _ => false,
    }
}

/// `Sending` while an earlier attempt's outcome is still unknown, else `Pending`.
fn pending_or_sending(unknown_since: Option<Instant>) -> ChangeStatus {
    if unknown_since.is_some() {
        ChangeStatus::Sending
    } else {
        ChangeStatus::Pending
    }
}

/// What to do after attempt number `attempt` failed with `e`: `None` to try again (after
/// the backoff), or how the step ends. `status` is what the change is left as when it
/// cannot settle now.
async fn after_error(
    ctx: &Ctx<'_>,
    attempt: u32,
    e: &ClientError,
    status: ChangeStatus,
) -> Option<StepEnd> {
    match e {
        ClientError::Unauthenticated { .. }
        | ClientError::SignInRequired { .. }
        | ClientError::Forbidden { .. }
        | ClientError::Config(_)
        | ClientError::Keyring { .. }
        | ClientError::Token { .. } => {
            return Some(StepEnd::Stop {
                status,
                error: clone_error(e),
            });
        }
        _ => {}
    }
    let transient = e.is_retryable()
        || matches!(
            e,
            ClientError::OutcomeUnknown { .. } | ClientError::Decode { .. }
        );
    if !transient {
        // A look-up or conflict check that failed for good leaves an unknown outcome
        // unknown: the change stays `Sending` for the next push to resolve.
        if status == ChangeStatus::Sending {
            return Some(StepEnd::Unsent {
                status,
                messages: error_notes(e),
            });
        }
        return Some(StepEnd::Failed(error_notes(e), refused_answer(e)));
    }
    let outcome = match e {
        ClientError::Transport { kind, .. } => retry::Outcome::Transport(*kind),
        ClientError::Server { status, .. } | ClientError::Audience { status, .. } => {
            retry::Outcome::Status(*status)
        }
        _ => retry::Outcome::Status(503),
    };
    match retry::decide(
        &ctx.retry,
        true,
        attempt,
        outcome,
        None,
        rand::random::<f64>(),
    ) {
        Decision::RetryAfter(wait) => {
            tokio::time::sleep(wait).await;
            None
        }
        Decision::Stop => Some(StepEnd::Unsent {
            status,
            messages: error_notes(e),
        }),
    }
}

/// The service's answer to an audience upload it refused for bad records (published 0,
/// the bad-record count and details), kept with the change like an applied upload's.
fn refused_answer(e: &ClientError) -> Option<Value> {
    match e {
        ClientError::AudienceBadRecords { result, .. } => Some(to_value(result)),
        _ => None,
    }
}

/// The client's errors are not `Clone`; a stop keeps the class and the text.
fn clone_error(e: &ClientError) -> ClientError {
    match e {
        ClientError::Unauthenticated { messages } => ClientError::Unauthenticated {
            messages: messages.clone(),
        },
        ClientError::Forbidden { messages } => ClientError::Forbidden {
            messages: messages.clone(),
        },
        ClientError::SignInRequired { reason } => ClientError::SignInRequired {
            reason: reason.clone(),
        },
        other => ClientError::Config(other.to_string()),
    }
}

enum Body {
    Send(Value),
    /// The fields in conflict, and the server version they were found against.
    Conflict(Vec<FieldConflict>, Value),
}

/// The body to post: for updates of entities the service lists, merged with the server's
/// current version when it moved since the base.
async fn body_to_send(
    ctx: &Ctx<'_>,
    job: &Job,
    unknown_since: Option<Instant>,
    resent_after_unknown: bool,
) -> Result<Body, ClientError> {
    let checked = matches!(
        (job.target.kind, job.op),
        (
            Kind::Advertiser | Kind::Campaign | Kind::AdOrder | Kind::FlightCaps,
            Op::Update
        )
    );
    if !checked || (job.base.is_none() && !resent_after_unknown) {
        return Ok(Body::Send(job.body.clone()));
    }
    // After a lost answer the view must include what that request may have committed.
    let since = unknown_since.unwrap_or(ctx.started);
    let Some(theirs) = theirs(ctx, job, since).await? else {
        // Not listed: created in this push or gone from the server; the service decides.
        return Ok(Body::Send(job.body.clone()));
    };
    let mut mine = job.body.clone();
    if resent_after_unknown {
        adopt_new_item_ids(job.target.kind, &mut mine, &theirs);
    }
    let Some(base) = &job.base else {
        return Ok(Body::Send(mine));
    };
    if crate::diff::same(base, &theirs) {
        return Ok(Body::Send(mine));
    }
    let merged = merge::three_way(base, &mine, &theirs);
    if merged.conflicts.is_empty() {
        Ok(Body::Send(merged.merged))
    } else {
        Ok(Body::Conflict(merged.conflicts, theirs))
    }
}

/// The server's current version of the entity an update targets, `None` when not listed.
async fn theirs(ctx: &Ctx<'_>, job: &Job, since: Instant) -> Result<Option<Value>, ClientError> {
    let Some(Key::Id(id)) = job.remote else {
        return Ok(None);
    };
    let client = ctx.client;
    match job.target.kind {
        Kind::Advertiser => {
            let list = ctx
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
            let list = ctx
                .caches
                .campaigns_of(advertiser)
                .get(since, || async {
                    Ok(client.campaigns_by_advertiser(advertiser).await?.entity)
                })
                .await?;
            Ok(list.iter().find(|c| c.id == Some(id)).map(to_value))
        }
        Kind::AdOrder => {
            let list = ctx
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

/// After a lost answer, new flights and caps of `mine` (no `id`) that the server now has
/// take its ids, so sending again modifies them instead of adding them twice.
fn adopt_new_item_ids(kind: Kind, mine: &mut Value, theirs: &Value) {
    let (mine_items, theirs_items, same_item): (_, _, fn(&Value, &Value) -> bool) = match kind {
        Kind::Campaign => (
            mine.get_mut("flights").and_then(Value::as_array_mut),
            theirs.get("flights").and_then(Value::as_array),
            |a, b| a.get("startDate") == b.get("startDate") && a.get("endDate") == b.get("endDate"),
        ),
        Kind::FlightCaps => (mine.as_array_mut(), theirs.as_array(), |a, b| {
            a.get("flightId") == b.get("flightId")
        }),
        _ => return,
    };
    let (Some(mine_items), Some(theirs_items)) = (mine_items, theirs_items) else {
        return;
    };
    let mut taken: HashSet<i64> = mine_items
        .iter()
        .filter_map(|m| m.get("id").and_then(Value::as_i64))
        .collect();
    for item in mine_items.iter_mut() {
        if item.get("id").is_some_and(|v| !v.is_null()) {
            continue;
        }
        let found = theirs_items.iter().find_map(|t| {
            let id = t.get("id").and_then(Value::as_i64)?;
            (!taken.contains(&id) && same_item(item, t)).then_some(id)
        });
        if let Some(id) = found {
            taken.insert(id);
            set_pointer(item, "/id", Value::from(id));
        }
    }
}

/// Finds a create by its client reference in a listing fetched after `since`.
async fn lookup(
    ctx: &Ctx<'_>,
    job: &Job,
    since: Instant,
) -> Result<Option<(Key, Value)>, ClientError> {
    let Some(reference) = job.client_ref.as_deref() else {
        return Ok(None);
    };
    let client = ctx.client;
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
                return Ok(None);
            };
            let list = ctx
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
            let list = ctx
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
            let list = ctx
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
        _ => None,
    };
    Ok(found)
}

fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn typed<T: DeserializeOwned>(body: &Value) -> Result<T, ClientError> {
    T::deserialize(body).map_err(malformed)
}

/// A stored change that cannot become its request: refused here, never sent.
fn malformed(e: impl std::fmt::Display) -> ClientError {
    ClientError::Rejected {
        status: 0,
        messages: vec![ServerMessage {
            level: flightdeck_model::MessageLevel::Error,
            code: "MALFORMED".into(),
            message: format!("the change does not fit its resource and cannot be posted: {e}"),
            field: None,
        }],
    }
}

/// The remote key and the answer of a successful post, with its messages.
type Landed = (Key, Value, Vec<ServerMessage>);

fn landed<T: Serialize>(
    reply: flightdeck_client::Reply<T>,
    id: Option<i64>,
) -> Result<Landed, ClientError> {
    let Some(id) = id else {
        return Err(no_id());
    };
    Ok((Key::Id(id), to_value(&reply.entity), reply.messages))
}

fn no_id() -> ClientError {
    ClientError::Decode {
        status: 200,
        detail: "the answer carries no id".into(),
        raw_body: String::new(),
    }
}

/// The wire body of a change, as [`push`] posts it: for campaigns and ad orders
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

fn request_body(job: &Job, body: &Value) -> Result<Value, ClientError> {
    wire_body(job.target.kind, body, job.base.as_ref()).map_err(malformed)
}

/// One request for the change.
#[allow(deprecated)] // advertiser/save and adorder/save are deprecated with no replacement.
async fn send(client: &Client, job: &Job, body: &Value) -> Result<Landed, ClientError> {
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
            let order = remote_id.ok_or_else(no_id)?;
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
            let id = reply.entity.id.or(remote_id).ok_or_else(no_id)?;
            // The store rebuilds the list from its base and the change: answers are partial.
            Ok((Key::Id(id), to_value(&reply.entity), reply.messages))
        }
        // A segment is created once: a posted one is never created again.
        (Kind::AudienceSegment, Op::Create) if job.target.key.is_local() => {
            let segment = client
                .audience_create(&typed::<AudienceSegment>(body)?)
                .await?;
            let id = segment.service_segment_id.clone().ok_or_else(no_id)?;
            Ok((Key::Segment(id), to_value(&segment), Vec::new()))
        }
        (Kind::AudienceSegment, Op::AudienceData) => {
            let Some(Key::Segment(segment)) = &job.remote else {
                return Err(no_id());
            };
            let result = client
                .audience_add_data(segment, &typed::<AudienceData>(body)?)
                .await?;
            // The answer is the upload's counts, kept with the change; the segment is
            // unchanged until the service processes the data.
            Ok((Key::Segment(segment.clone()), to_value(&result), Vec::new()))
        }
        (kind, op) => Err(ClientError::Rejected {
            status: 0,
            messages: vec![ServerMessage {
                level: flightdeck_model::MessageLevel::Error,
                code: "INVALID".into(),
                message: match kind {
                    Kind::Creative | Kind::AudienceSegment => {
                        flightdeck_model::validate::NO_UPDATE_ENDPOINT.to_owned()
                    }
                    _ => format!("the ad platform has no way to apply {op:?} to {kind:?}"),
                },
                field: None,
            }],
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_gateway_error_on_a_create_counts_as_a_lost_answer() {
        let server = |status| ClientError::Server {
            status,
            messages: Vec::new(),
        };
        assert!(lost_answer(Op::Create, &server(502)));
        assert!(lost_answer(Op::Create, &server(500)));
        assert!(
            !lost_answer(Op::Create, &server(503)),
            "503 means not processed"
        );
        assert!(
            !lost_answer(Op::Update, &server(502)),
            "updates are resent as they are"
        );
        let unknown = ClientError::OutcomeUnknown {
            request: "POST /v1/advertiser/save".into(),
            detail: String::new(),
        };
        assert!(lost_answer(Op::Update, &unknown));
    }

    #[test]
    fn an_upload_that_may_have_committed_counts_as_a_lost_answer() {
        let audience = |status| ClientError::Audience {
            status,
            error: "boom".into(),
        };
        assert!(lost_answer(Op::AudienceData, &audience(500)));
        assert!(lost_answer(Op::AudienceData, &audience(502)));
        assert!(!lost_answer(Op::AudienceData, &audience(503)));
        assert!(!lost_answer(Op::AudienceData, &audience(400)));
        let server = ClientError::Server {
            status: 504,
            messages: Vec::new(),
        };
        assert!(lost_answer(Op::AudienceData, &server));
    }

    #[test]
    fn a_value_flightdeck_would_not_send_keeps_its_field() {
        let notes = error_notes(&ClientError::Invalid {
            field: "[0].values[3]".into(),
            message: "is too large".into(),
        });
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].field.as_deref(), Some("[0].values[3]"));
        assert_eq!(notes[0].code, "INVALID");
        assert_eq!(notes[0].message, "[0].values[3]: is too large");
    }

    #[test]
    fn client_refs_fit_every_external_id_field() {
        let r = new_client_ref();
        assert!(r.starts_with(REF_PREFIX));
        assert_eq!(r.len(), 19);
        assert!(r.len() <= 26);
    }

    #[test]
    fn a_buyer_client_id_is_the_reference_and_is_never_doubled() {
        let mut order = json!({"name": "o", "ioNumber": "IO-7"});
        let r = apply_client_ref(Kind::AdOrder, &mut order, None);
        assert_eq!(r.as_deref(), Some("IO-7"));
        // Sending externalAdOrderId too would be a 400 IDENTIFIER_CONFLICT.
        assert!(order.get("externalAdOrderId").is_none());

        let mut adv = json!({"name": "a", "externalAdvertiserId": null});
        let r = apply_client_ref(
            Kind::Advertiser,
            &mut adv,
            Some("fd-0123456789abcdef".into()),
        );
        assert_eq!(r.as_deref(), Some("fd-0123456789abcdef"));
        assert_eq!(adv["externalAdvertiserId"], "fd-0123456789abcdef");

        let mut creative = json!({"name": "c"});
        let r = apply_client_ref(Kind::Creative, &mut creative, None).unwrap_or_default();
        assert_eq!(creative["externalCreativeid"], r);
        let mut list = json!({"name": "l"});
        assert_eq!(apply_client_ref(Kind::SiteList, &mut list, None), None);
    }

    #[test]
    fn lost_answers_adopt_the_ids_the_server_gave_new_items() {
        let mut caps = json!([{"flightId": 4, "maxBudget": 5.0}, {"id": 9, "flightId": 5}]);
        let theirs = json!([{"id": 9, "flightId": 5}, {"id": 12, "flightId": 4, "maxBudget": 5.0}]);
        adopt_new_item_ids(Kind::FlightCaps, &mut caps, &theirs);
        assert_eq!(caps[0]["id"], 12);

        let mut campaign = json!({"flights": [{"startDate": 1, "endDate": 2}]});
        let theirs = json!({"flights": [{"id": 3, "startDate": 0, "endDate": 1}, {"id": 4, "startDate": 1, "endDate": 2}]});
        adopt_new_item_ids(Kind::Campaign, &mut campaign, &theirs);
        assert_eq!(campaign["flights"][0]["id"], 4);
    }

    #[test]
    fn a_conflict_message_names_the_field_in_plain_words() {
        let c = FieldConflict {
            path: "name".into(),
            base: Some(json!("a")),
            mine: Some(json!("b")),
            theirs: Some(json!("c")),
        };
        let m = conflict_note(&c);
        assert_eq!(m.field.as_deref(), Some("name"));
        assert_eq!(m.code, CONFLICT_CODE);
        assert_eq!(
            m.message,
            "the ad platform changed name since you downloaded it"
        );
    }

    #[test]
    fn pointers_fill_present_and_absent_members() {
        let mut v = json!({"campaignId": null, "caps": [{"orderId": null}]});
        set_pointer(&mut v, "/campaignId", json!(5));
        set_pointer(&mut v, "/caps/0/orderId", json!(6));
        set_pointer(&mut v, "/id", json!(7));
        assert_eq!(
            v,
            json!({"campaignId": 5, "caps": [{"orderId": 6}], "id": 7})
        );
    }

    #[test]
    fn a_failed_step_holds_only_its_descendants() {
        let steps = vec![
            Step {
                seq: 1,
                after: vec![],
            },
            Step {
                seq: 2,
                after: vec![1],
            },
            Step {
                seq: 3,
                after: vec![2],
            },
            Step {
                seq: 4,
                after: vec![],
            },
        ];
        let mut g = Graph::new(&steps);
        assert_eq!(g.next_ready(), Some(0));
        assert_eq!(g.next_ready(), Some(3));
        assert_eq!(g.next_ready(), None);
        let mut held = g.hold_dependents(0);
        held.sort_unstable();
        assert_eq!(held, vec![1, 2]);
        g.applied(3);
        assert_eq!(g.next_ready(), None);
        assert!(g.never_started().is_empty());
    }
}
