//! Injected faults, set through `/_sandbox/faults` (see [`crate::admin`]), so clients
//! and the sync engine can be tested against a slow, failing or flaky service.
//!
//! Faults apply only to `/v1/` requests, never to `/_sandbox/` or `/openapi.json`,
//! in this order:
//!
//! 1. **Latency**: the request waits `latencyMs` before the handler runs.
//! 2. **Error rate**: a share `errorRate` of requests is answered 503 with the
//!    business envelope ([`Error::Injected`]) without running the handler.
//! 3. **Drop after commit**: the next `dropAfterCommit` requests, and a share
//!    `dropAfterCommitRate` of the others, run the handler to the end (so a write
//!    commits) and then the connection is closed without a single response byte, as
//!    when a network fails between the server's commit and the client's read. The
//!    count goes down by one per dropped request.
//! 4. **Late commit**: the next `lateCommit` requests that may write (any method but
//!    `GET` and `HEAD`), and a share `lateCommitRate` of the others, are never
//!    answered. The request waits until its client has gone (timed out, or died), and
//!    `lateCommitMs` later the handler runs and commits, as a slow service finishes
//!    work its client gave up on. Without this, a client that gives up drops the
//!    request with it (hyper drops the handler with the connection), so no test could
//!    see a create land after the next push looked for it and found nothing. A request
//!    whose client never goes never commits.
//!
//! Before all of these, a **status answer** ([`StatusAnswer`], set through
//! `/_sandbox/faults/status`) answers every `/v1/` request whose path matches its
//! pattern with its HTTP status and an empty body, without running the handler: an
//! older deployment that lacks an endpoint (404, 405) is tested this way.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use crate::AppState;
use crate::error::Error;

/// Longest latency that can be injected, in milliseconds.
pub const MAX_LATENCY_MS: u64 = 60_000;

/// The fault settings, as read and written by `/_sandbox/faults`.
///
/// Missing fields deserialize as 0 (no fault); unknown fields are rejected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct FaultSettings {
    /// Delay before every `/v1/` handler, in milliseconds (at most [`MAX_LATENCY_MS`]).
    pub latency_ms: u64,
    /// Share of `/v1/` requests answered 503 without running the handler, 0.0 to 1.0.
    pub error_rate: f64,
    /// How many of the next `/v1/` requests commit and then lose their connection.
    pub drop_after_commit: u32,
    /// Share of the other `/v1/` requests that commit and then lose their connection,
    /// 0.0 to 1.0.
    pub drop_after_commit_rate: f64,
    /// How many of the next `/v1/` requests that may write commit only after their
    /// client has gone (see the module notes).
    pub late_commit: u32,
    /// Share of the other writing `/v1/` requests that commit late, 0.0 to 1.0.
    pub late_commit_rate: f64,
    /// How long after its client has gone a late request commits, in milliseconds (at
    /// most [`MAX_LATENCY_MS`]).
    pub late_commit_ms: u64,
}

impl FaultSettings {
    /// Checks the ranges; the error names the offending field.
    pub fn validate(&self) -> Result<(), String> {
        for (name, rate) in [
            ("errorRate", self.error_rate),
            ("dropAfterCommitRate", self.drop_after_commit_rate),
            ("lateCommitRate", self.late_commit_rate),
        ] {
            if !(0.0..=1.0).contains(&rate) {
                return Err(format!("{name} must be between 0.0 and 1.0, got {rate}"));
            }
        }
        for (name, ms) in [
            ("latencyMs", self.latency_ms),
            ("lateCommitMs", self.late_commit_ms),
        ] {
            if ms > MAX_LATENCY_MS {
                return Err(format!("{name} must be at most {MAX_LATENCY_MS}, got {ms}"));
            }
        }
        Ok(())
    }
}

/// One endpoint answered with a fixed status, as a deployment without it answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusAnswer {
    /// Path pattern, matched segment by segment from the start: `*` matches any one
    /// segment, and the path may go on past the pattern (`/v1/campaign/*/creatives`).
    pub path: String,
    /// The HTTP status answered, 400 to 599.
    pub status: u16,
}

impl StatusAnswer {
    /// Checks the status and the pattern; the error names the offending field.
    pub fn validate(&self) -> Result<(), String> {
        if !(400..=599).contains(&self.status) {
            return Err(format!("status must be 400 to 599, got {}", self.status));
        }
        if !self.path.starts_with("/v1/") {
            return Err(format!("path must start with /v1/, got {:?}", self.path));
        }
        Ok(())
    }

    fn matches(&self, path: &str) -> bool {
        let mut segments = path.split('/');
        self.path.split('/').all(|want| {
            segments
                .next()
                .is_some_and(|got| want == "*" || want == got)
        })
    }
}

/// The live fault settings of a sandbox.
#[derive(Debug, Default)]
pub struct Faults {
    settings: Mutex<FaultSettings>,
    statuses: Mutex<Vec<StatusAnswer>>,
}

/// What the middleware does to one request.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Plan {
    latency: Duration,
    fail: bool,
    drop_after: bool,
    /// Commit this long after the client has gone, never answering.
    late: Option<Duration>,
}

impl Faults {
    /// The current settings.
    pub fn get(&self) -> FaultSettings {
        *self.lock()
    }

    /// Replaces the settings after validating them; returns what is now in force.
    pub fn set(&self, settings: FaultSettings) -> Result<FaultSettings, String> {
        settings.validate()?;
        *self.lock() = settings;
        Ok(settings)
    }

    /// Clears every fault, status answers included.
    pub fn reset(&self) {
        *self.lock() = FaultSettings::default();
        *self.lock_statuses() = Vec::new();
    }

    /// The status answers in force.
    pub fn status_answers(&self) -> Vec<StatusAnswer> {
        self.lock_statuses().clone()
    }

    /// Replaces the status answers after validating them; returns what is now in force.
    pub fn set_status_answers(
        &self,
        answers: Vec<StatusAnswer>,
    ) -> Result<Vec<StatusAnswer>, String> {
        for a in &answers {
            a.validate()?;
        }
        *self.lock_statuses() = answers.clone();
        Ok(answers)
    }

    /// The status a `/v1/` path is answered with instead of its handler, if any.
    fn status_for(&self, path: &str) -> Option<u16> {
        self.lock_statuses()
            .iter()
            .find(|a| a.matches(path))
            .map(|a| a.status)
    }

    fn lock_statuses(&self) -> MutexGuard<'_, Vec<StatusAnswer>> {
        // Plain values, as the settings: a poisoned lock still holds valid ones.
        self.statuses.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Decides the faults for one request (`writes`: it may change something),
    /// consuming one drop or late commit when one applies. A request failed by the
    /// error rate consumes neither; a dropped one no late commit.
    fn plan(&self, writes: bool) -> Plan {
        let mut s = self.lock();
        let chance = |rate: f64| rate > 0.0 && rand::random::<f64>() < rate;
        let fail = chance(s.error_rate);
        let drop_after = !fail && (s.drop_after_commit > 0 || chance(s.drop_after_commit_rate));
        if drop_after && s.drop_after_commit > 0 {
            s.drop_after_commit -= 1;
        }
        let late =
            writes && !fail && !drop_after && (s.late_commit > 0 || chance(s.late_commit_rate));
        if late && s.late_commit > 0 {
            s.late_commit -= 1;
        }
        Plan {
            latency: Duration::from_millis(s.latency_ms),
            fail,
            drop_after,
            late: late.then(|| Duration::from_millis(s.late_commit_ms)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, FaultSettings> {
        // The settings are plain values: a poisoned lock still holds valid ones.
        self.settings.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Closes the connection a request arrived on, without a response.
///
/// The accept loop ([`crate::server`]) makes one per connection and puts it in every
/// request's extensions; the connection task waits on [`ConnectionKiller::killed`]
/// and, when it fires, drops the connection (and with it the socket).
#[derive(Debug, Clone, Default)]
pub struct ConnectionKiller {
    notify: Arc<Notify>,
}

impl ConnectionKiller {
    /// A killer for a new connection.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the connection task to drop the connection. Works whether or not the task
    /// is waiting yet.
    pub fn kill(&self) {
        self.notify.notify_one();
    }

    /// Completes once [`ConnectionKiller::kill`] was called.
    pub async fn killed(&self) {
        self.notify.notified().await;
    }
}

/// Applies the current faults to `/v1/` requests; other paths pass untouched.
///
/// A dropped request needs the [`ConnectionKiller`] of [`crate::server::serve`]; when
/// the router is served some other way (no killer in the extensions), the handler
/// still runs and commits, and the client gets a 503 instead of a dropped connection.
pub async fn middleware(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if !req.uri().path().starts_with("/v1/") {
        return next.run(req).await;
    }
    if let Some(status) = state.faults.status_for(req.uri().path()) {
        return axum::http::StatusCode::from_u16(status)
            .unwrap_or(axum::http::StatusCode::NOT_FOUND)
            .into_response();
    }
    let writes = !matches!(*req.method(), Method::GET | Method::HEAD);
    let plan = state.faults.plan(writes);
    if !plan.latency.is_zero() {
        tokio::time::sleep(plan.latency).await;
    }
    if plan.fail {
        return Error::Injected.into_response();
    }
    if let Some(after) = plan.late {
        return commit_late(req, next, after).await;
    }
    if !plan.drop_after {
        return next.run(req).await;
    }
    let killer = req.extensions().get::<ConnectionKiller>().cloned();
    let response = next.run(req).await;
    match killer {
        Some(killer) => {
            drop(response);
            killer.kill();
            // The connection task drops this future together with the connection.
            std::future::pending::<Response>().await
        }
        None => Error::Injected.into_response(),
    }
}

/// Never answers `req`; once its client has gone, waits `after` and runs the handler to
/// the end, its answer thrown away.
///
/// The client is gone when hyper drops this future: it does so when the connection
/// closes (a client timing out or dying closes it), and at shutdown.
async fn commit_late(req: Request, next: Next, after: Duration) -> Response {
    let (gone, client_gone) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        // The sender is never used: its drop, with this request's future, is the signal.
        let _ = client_gone.await;
        tokio::time::sleep(after).await;
        drop(next.run(req).await);
    });
    let _gone = gone;
    std::future::pending::<Response>().await
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn settings_use_camel_case_and_default_to_zero() {
        let s: FaultSettings = serde_json::from_str(r#"{"errorRate":0.5}"#).unwrap();
        assert_eq!(
            s,
            FaultSettings {
                error_rate: 0.5,
                ..FaultSettings::default()
            }
        );
        let v = serde_json::to_value(s).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "latencyMs": 0, "errorRate": 0.5, "dropAfterCommit": 0,
                "dropAfterCommitRate": 0.0, "lateCommit": 0, "lateCommitRate": 0.0,
                "lateCommitMs": 0
            })
        );
        assert!(serde_json::from_str::<FaultSettings>(r#"{"latency":1}"#).is_err());
    }

    #[test]
    fn validation_rejects_out_of_range() {
        let ok = FaultSettings {
            latency_ms: MAX_LATENCY_MS,
            error_rate: 1.0,
            drop_after_commit: 3,
            drop_after_commit_rate: 1.0,
            late_commit: 2,
            late_commit_rate: 1.0,
            late_commit_ms: MAX_LATENCY_MS,
        };
        assert!(ok.validate().is_ok());
        for bad in [
            FaultSettings {
                error_rate: 1.01,
                ..ok
            },
            FaultSettings {
                error_rate: -0.1,
                ..ok
            },
            FaultSettings {
                error_rate: f64::NAN,
                ..ok
            },
            FaultSettings {
                latency_ms: MAX_LATENCY_MS + 1,
                ..ok
            },
            FaultSettings {
                drop_after_commit_rate: 1.5,
                ..ok
            },
            FaultSettings {
                late_commit_rate: -1.0,
                ..ok
            },
            FaultSettings {
                late_commit_ms: MAX_LATENCY_MS + 1,
                ..ok
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn drops_count_down_and_skip_failed_requests() {
        let faults = Faults::default();
        faults
            .set(FaultSettings {
                drop_after_commit: 2,
                ..Default::default()
            })
            .unwrap();
        assert!(faults.plan(true).drop_after);
        assert_eq!(faults.get().drop_after_commit, 1);
        assert!(faults.plan(true).drop_after);
        assert!(!faults.plan(true).drop_after);
        assert_eq!(faults.get().drop_after_commit, 0);

        faults
            .set(FaultSettings {
                error_rate: 1.0,
                drop_after_commit: 1,
                ..Default::default()
            })
            .unwrap();
        let plan = faults.plan(true);
        assert!(plan.fail && !plan.drop_after);
        assert_eq!(faults.get().drop_after_commit, 1);

        faults.reset();
        assert_eq!(faults.plan(true), Plan::default());
    }

    #[test]
    fn late_commits_count_down_on_writes_only() {
        let faults = Faults::default();
        faults
            .set(FaultSettings {
                late_commit: 1,
                late_commit_ms: 250,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(
            faults.plan(false).late,
            None,
            "a read has nothing to commit"
        );
        assert_eq!(faults.get().late_commit, 1);
        assert_eq!(faults.plan(true).late, Some(Duration::from_millis(250)));
        assert_eq!(faults.get().late_commit, 0);
        assert_eq!(faults.plan(true).late, None);

        faults
            .set(FaultSettings {
                late_commit_rate: 1.0,
                drop_after_commit: 1,
                ..Default::default()
            })
            .unwrap();
        let dropped = faults.plan(true);
        assert!(dropped.drop_after && dropped.late.is_none());
        assert_eq!(faults.plan(true).late, Some(Duration::ZERO));
    }

    #[test]
    fn drop_rate_one_drops_every_request_without_a_count() {
        let faults = Faults::default();
        faults
            .set(FaultSettings {
                drop_after_commit_rate: 1.0,
                ..Default::default()
            })
            .unwrap();
        assert!(faults.plan(false).drop_after);
        assert!(faults.plan(true).drop_after);
        assert_eq!(faults.get().drop_after_commit, 0);
    }

    #[test]
    fn status_answers_match_by_segment_and_clear_with_reset() {
        let faults = Faults::default();
        let answer = |path: &str, status| StatusAnswer {
            path: path.into(),
            status,
        };
        assert!(
            faults
                .set_status_answers(vec![answer("/v2/x", 404)])
                .is_err()
        );
        assert!(
            faults
                .set_status_answers(vec![answer("/v1/x", 200)])
                .is_err()
        );
        faults
            .set_status_answers(vec![answer("/v1/campaign/*/creatives", 405)])
            .unwrap();
        assert_eq!(faults.status_for("/v1/campaign/12/creatives"), Some(405));
        assert_eq!(faults.status_for("/v1/campaign/save"), None);
        assert_eq!(
            faults.status_for("/v1/campaign/getCampaignsByAdvertiser"),
            None
        );
        assert_eq!(faults.status_for("/v1/campaign"), None);
        faults.reset();
        assert_eq!(faults.status_for("/v1/campaign/12/creatives"), None);
    }

    #[test]
    fn invalid_settings_leave_the_old_ones() {
        let faults = Faults::default();
        let bad = FaultSettings {
            error_rate: 2.0,
            ..Default::default()
        };
        assert!(faults.set(bad).is_err());
        assert_eq!(faults.get(), FaultSettings::default());
    }
}
