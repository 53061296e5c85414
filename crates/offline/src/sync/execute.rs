//! One step's protocol, run concurrently with the others and with the client only: look
//! up a create whose answer was lost, check an update against the server's version, send,
//! and retry transient failures within the budget.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use flightdeck_client::retry::{self, Decision, RetryPolicy};
use flightdeck_client::{Error as ClientError, TransportKind};
use serde_json::Value;

use super::notes;
use super::prepare::{Job, set_pointer};
use super::record::StepEnd;
use super::remote::{self, Found, Remote, to_value};
use crate::Error;
use crate::change::{ChangeStatus, Kind, Op};
use crate::merge::{self, FieldConflict};

/// What every step of one push shares.
pub(super) struct Ctx<'c> {
    pub(super) remote: Remote<'c>,
    pub(super) retry: RetryPolicy,
    /// Listings fetched after this serve every conflict check of the push.
    pub(super) started: Instant,
    /// How long after a create's request left a look-up that finds nothing is believed
    /// (see [`super::PushOptions::lookup_grace`]).
    pub(super) grace: Duration,
    /// Set once the service was found unreachable: a step waiting ends as it is.
    pub(super) halt: tokio::sync::watch::Sender<bool>,
}

impl Ctx<'_> {
    /// Sleeps until `until`; false when the push halted first (the service is gone).
    async fn sleep_until(&self, until: Instant) -> bool {
        let mut halt = self.halt.subscribe();
        tokio::select! {
            () = tokio::time::sleep_until(until.into()) => true,
            _ = halt.wait_for(|halted| *halted) => false,
        }
    }

    fn halted(&self) -> bool {
        *self.halt.borrow()
    }
}

/// How a step's run ends: settled, or a create to send again once the driving task has
/// durably marked it (so the time its new request leaves is on disk before it does).
pub(super) enum Outcome {
    End(StepEnd),
    Again(Box<Job>),
}

/// The step's protocol: look up (when the last outcome is unknown), check for conflicts,
/// send, and retry transient failures within the budget.
pub(super) async fn execute(ctx: &Ctx<'_>, i: usize, mut job: Box<Job>) -> (usize, Outcome) {
    use tracing::Instrument;
    // What a support engineer needs to follow one change through a push; the body (the
    // buyer's data, audience identifiers included) is never logged.
    let span = tracing::info_span!(
        "sync_step",
        seq = job.seq,
        kind = %job.target.kind.label(),
        op = ?job.op,
        client_ref = %job.client_ref.as_deref().unwrap_or("-"),
        attempt = tracing::field::Empty,
    );
    let run = run_job(ctx, &job).instrument(span.clone()).await;
    match run {
        Run::End(end) => {
            span.in_scope(|| tracing::info!(outcome = end.name(), "step settled"));
            (i, Outcome::End(end))
        }
        Run::Again(attempts) => {
            span.in_scope(|| tracing::debug!("sending the create again, after marking it"));
            job.attempts = attempts;
            job.was_sending = false;
            job.sent_at = None;
            (i, Outcome::Again(job))
        }
    }
}

enum Run {
    End(StepEnd),
    /// Send the create again, with this many attempts spent.
    Again(u32),
}

async fn run_job(ctx: &Ctx<'_>, job: &Job) -> Run {
    let kind = job.target.kind;
    let creates = job.op == Op::Create;
    // When the request whose outcome is unknown left; `None` while no outcome is unknown.
    let mut unknown: Option<Instant> = job
        .was_sending
        .then(|| sent_instant(job.sent_at, ctx.started, ctx.grace));
    let mut resent_after_unknown = job.was_sending;
    // A create's request leaves only right after the driving task marked it `Sending`
    // (which stamps `sent_at`): one not marked in this push, or already sent once in this
    // run, goes back there before it is sent again. Otherwise a push that dies would
    // leave a `sent_at` older than its last request, and the grace would be cut short.
    let mut must_mark = job.was_sending;
    let mut attempt = job.attempts;
    loop {
        if ctx.halted() {
            // The service was found unreachable meanwhile: nothing more is sent.
            return Run::End(StepEnd::Unsent {
                status: pending_or_sending(unknown),
                messages: Vec::new(),
            });
        }
        attempt += 1;
        tracing::Span::current().record("attempt", attempt);
        if creates && let Some(sent) = unknown {
            // Found is believed at once. Not found is believed only from a listing fetched
            // a grace period after the request left: a slow service may still commit it.
            let believed = sent + ctx.grace;
            let settled = Instant::now() >= believed;
            let since = if settled { believed } else { sent };
            tracing::debug!("looking up a create whose answer was lost");
            match remote::lookup(&ctx.remote, job, since).await {
                Ok(Found::At(key, json)) => {
                    tracing::info!("the lost create was found on the service");
                    return Run::End(StepEnd::Applied {
                        key,
                        json,
                        messages: vec![notes::found_note()],
                    });
                }
                Ok(Found::NoListing) => {
                    tracing::warn!("the lost create cannot be looked up: no listing holds it");
                    return Run::End(StepEnd::NeedsReview(vec![notes::unknown_note(kind)]));
                }
                Ok(Found::Not) if settled => {
                    tracing::debug!("the lost create is not on the service");
                    unknown = None;
                }
                Ok(Found::Not) => {
                    let wait = believed.saturating_duration_since(Instant::now());
                    tracing::info!(
                        wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                        "the lost create is not on the service yet; waiting out the grace \
                         period, in case it still commits"
                    );
                    if !ctx.sleep_until(believed).await {
                        return Run::End(StepEnd::Unsent {
                            status: ChangeStatus::Sending,
                            messages: vec![notes::grace_note()],
                        });
                    }
                    continue;
                }
                Err(e) => {
                    if let Some(end) = after_error(ctx, attempt, &e, ChangeStatus::Sending).await {
                        return Run::End(end);
                    }
                    continue;
                }
            }
        }
        if creates && must_mark {
            return Run::Again(attempt - 1);
        }
        let body = match body_to_send(ctx, job, unknown, resent_after_unknown).await {
            Ok(Body::Send(body)) => body,
            Ok(Body::Conflict(fields, theirs)) => {
                return Run::End(StepEnd::Conflict { fields, theirs });
            }
            Err(e) => {
                let status = pending_or_sending(unknown);
                if let Some(end) = after_error(ctx, attempt, &e, status).await {
                    return Run::End(end);
                }
                continue;
            }
        };
        tracing::debug!("sending");
        let left = Instant::now();
        must_mark = true;
        match remote::send(ctx.remote.client, job, &body).await {
            Ok((key, json, messages)) => {
                return Run::End(StepEnd::Applied {
                    key,
                    json,
                    messages: notes::info_notes(&messages),
                });
            }
            Err(Error::Client(e)) if lost_answer(job.op, &e) => {
                tracing::warn!(error = ?e.kind(), "the answer was lost; the outcome is unknown");
                if job.op == Op::AudienceData {
                    let mut messages = vec![notes::upload_unknown_note()];
                    messages.extend(notes::error_notes(&e));
                    return Run::End(StepEnd::NeedsReview(messages));
                }
                if creates && !kind.lost_create_lookup().finds(&job.body, &[]) {
                    let mut messages = vec![notes::unknown_note(kind)];
                    messages.extend(notes::error_notes(&e));
                    return Run::End(StepEnd::NeedsReview(messages));
                }
                unknown = Some(left);
                resent_after_unknown = true;
                if let Some(end) = after_error(ctx, attempt, &e, ChangeStatus::Sending).await {
                    return Run::End(end);
                }
            }
            Err(Error::Client(e)) => {
                let status = pending_or_sending(unknown);
                if let Some(end) = after_error(ctx, attempt, &e, status).await {
                    return Run::End(end);
                }
            }
            // Nothing was sent: Flightdeck's own refusal, never retried. An earlier
            // attempt whose outcome is still unknown keeps the change `Sending`.
            Err(local) => {
                let messages = notes::local_notes(&local);
                return Run::End(match unknown {
                    Some(_) => StepEnd::Unsent {
                        status: ChangeStatus::Sending,
                        messages,
                    },
                    None => StepEnd::Unpostable(messages),
                });
            }
        }
    }
}

/// When the last request of a change found `Sending` at the start of a push left, as an
/// [`Instant`]: from the stored time when there is one, else the push's start (the
/// process that sent it ended before this push began). A time in the future (the clock
/// moved back) counts from now; one too old for an `Instant` is already past the grace.
fn sent_instant(sent_at: Option<i64>, started: Instant, grace: Duration) -> Instant {
    let Some(at) = sent_at else {
        return started;
    };
    let now = Instant::now();
    let Ok(ago) = u64::try_from(crate::workspace::now_ms().saturating_sub(at)) else {
        return now;
    };
    now.checked_sub(Duration::from_millis(ago))
        .or_else(|| now.checked_sub(grace))
        .map_or(started, |t| t.min(started))
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

/// Whether `e` says the service cannot be reached at all: the connection was refused,
/// the name did not resolve, or connecting timed out (the client's `Connect` kind, for a
/// change too: nothing was sent). A timeout or a connection lost after connecting is
/// not this: the request may have reached the service.
fn unreachable(e: &ClientError) -> bool {
    matches!(
        e,
        ClientError::Transport {
            kind: TransportKind::Connect,
            ..
        }
    )
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
                messages: notes::error_notes(e),
                reason: e.to_string(),
            });
        }
        _ if unreachable(e) => {
            tracing::warn!(error = ?e.kind(), "the service cannot be reached; the push stops");
            return Some(StepEnd::Unreachable {
                status,
                messages: notes::error_notes(e),
                reason: e.to_string(),
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
                messages: notes::error_notes(e),
            });
        }
        return Some(StepEnd::Failed(notes::error_notes(e), refused_answer(e)));
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
            tracing::warn!(
                error = ?e.kind(),
                wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                "the step failed; trying again"
            );
            if ctx.sleep_until(Instant::now() + wait).await {
                None
            } else {
                Some(StepEnd::Unsent {
                    status,
                    messages: notes::error_notes(e),
                })
            }
        }
        Decision::Stop => Some(StepEnd::Unsent {
            status,
            messages: notes::error_notes(e),
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
    let Some(theirs) = remote::theirs(&ctx.remote, job, since).await? else {
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
}
