//! Posting and downloading as both hosts run them: one post at a time per account
//! ([`PostingGuard`]), a post that stops when the service cannot be reached and resumes
//! once it answers ([`Account::await_resume`]), and downloads on a connection of their own.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use flightdeck_offline::sync;
use flightdeck_offline::workspace::{Progress, PullReport, PullScope};

use serde::{Deserialize, Serialize};

use super::Account;
use crate::{Error, Result};

/// Held while a post runs; the account is "posting" exactly as long as it lives, however
/// the post ends (success, error, panic, a dropped task).
#[must_use = "the post counts as running only while the guard lives"]
pub struct PostingGuard(Arc<AtomicBool>);

impl Drop for PostingGuard {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// Clears its flag when dropped.
struct FlagGuard<'a>(&'a AtomicBool);

impl Drop for FlagGuard<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// The first wait of [`Account::await_resume`] between probes; it doubles up to
/// [`RESUME_MAX_WAIT`].
const RESUME_FIRST_WAIT: Duration = Duration::from_secs(1);
/// The longest wait between two probes while a post waits for the service.
const RESUME_MAX_WAIT: Duration = Duration::from_secs(15);
/// How long a probe waits for any answer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

impl Account {
    /// Marks a post as running until the guard drops; refused while one runs.
    pub fn begin_posting(&self) -> Result<PostingGuard> {
        if self.posting.swap(true, Ordering::SeqCst) {
            return Err(crate::error::State::Posting.into());
        }
        Ok(PostingGuard(self.posting.clone()))
    }

    /// A post is running.
    pub fn is_posting(&self) -> bool {
        self.posting.load(Ordering::SeqCst)
    }

    /// Why posting waits: the last post stopped because the service could not be
    /// reached (its reason), until a post reaches it. Changes wait meanwhile, none failed.
    pub fn post_waiting(&self) -> Option<String> {
        self.waiting.lock().ok().and_then(|w| w.clone())
    }

    fn set_waiting(&self, why: Option<String>) {
        if let Ok(mut w) = self.waiting.lock() {
            *w = why;
        }
    }

    /// Nothing is to be resumed any more (the profile is left, the buyer signed out).
    pub fn cancel_resume(&self) {
        self.set_waiting(None);
        self.wake.notify_one();
    }

    /// Whether the service answers now: any HTTP answer counts; a failure to connect,
    /// or no answer within 2 s, does not. Sends no credentials, and nothing at all while
    /// the embedded sandbox is stopped.
    pub async fn probe(&self) -> bool {
        if self.sandbox_is_stopped() {
            return false;
        }
        let Ok(http) = self.config.http_client() else {
            return false;
        };
        http.get(self.config.base_url.clone())
            .timeout(PROBE_TIMEOUT)
            .send()
            .await
            .is_ok()
    }

    /// After a post stopped because the service could not be reached: waits until it
    /// answers again (a probe after 1 s, then twice as long each time up to 15 s; while
    /// the embedded sandbox is stopped, no probe at all until it starts), then returns
    /// the guard to post with, so changes post again without the buyer pressing Post.
    /// `None` when there is nothing to resume (a post reached the service meanwhile,
    /// nothing is pending, nobody is signed in), when a post is running already (it
    /// settles what waits), or when another caller already waits here.
    pub async fn await_resume(&self) -> Option<PostingGuard> {
        if self.resuming.swap(true, Ordering::SeqCst) {
            return None;
        }
        let _waiting_here = FlagGuard(&self.resuming);
        let mut wait = RESUME_FIRST_WAIT;
        loop {
            self.post_waiting()?;
            if self.pending_count().map_or(true, |n| n == 0) {
                self.set_waiting(None);
                return None;
            }
            self.signed_in_as()?;
            let stopped = self.sandbox_is_stopped();
            if !stopped && self.probe().await {
                tracing::info!("the service answers again; posting resumes");
                return self.begin_posting().ok();
            }
            // A stopped sandbox comes back only when started, which wakes this.
            let sleep = if stopped {
                Duration::from_secs(3_600)
            } else {
                wait
            };
            tokio::select! {
                () = tokio::time::sleep(sleep) => {}
                () = self.wake.notified() => {}
            }
            if !stopped {
                wait = wait.saturating_mul(2).min(RESUME_MAX_WAIT);
            }
        }
    }

    /// Posts the pending changes (or `only` these and what they need first), each exactly
    /// once, on a connection of its own so editing goes on meanwhile. `guard` (from
    /// [`Account::begin_posting`]) is held until the post ends, so a host can mark the
    /// post as running before it hands the work to a task.
    ///
    /// When the service cannot be reached the push stops at once
    /// ([`sync::PushReport::unreachable`]) and the account remembers why
    /// ([`Account::post_waiting`]) for [`Account::await_resume`]. A post the embedded
    /// sandbox's stop ends is [`Error::SandboxStopped`], and waits for it the same way.
    pub async fn post(
        self: &Arc<Self>,
        guard: PostingGuard,
        only: Option<BTreeSet<i64>>,
        progress: impl FnMut(sync::PushProgress) + Send,
    ) -> Result<sync::PushReport> {
        let options = sync::PushOptions {
            only,
            ..sync::PushOptions::default()
        };
        self.post_with(guard, &options, progress).await
    }

    /// [`Account::post`] with every push option (the CLI's `--concurrency`).
    pub async fn post_with(
        self: &Arc<Self>,
        guard: PostingGuard,
        options: &sync::PushOptions,
        progress: impl FnMut(sync::PushProgress) + Send,
    ) -> Result<sync::PushReport> {
        // Watched from before the session is read, so a stop in between ends the post.
        let mut halt = self.halt.subscribe();
        let signed = self.require_signed()?;
        let mut ws = self.open_workspace()?;
        let report = tokio::select! {
            r = sync::push(&mut ws, &signed.client, options, progress) => r.map_err(Error::from),
            // Dropping the push loses nothing: what was in flight stays `Sending`.
            _ = halt.changed() => Err(Error::SandboxStopped),
        };
        drop(signed);
        match &report {
            Ok(r) => self.set_waiting(r.unreachable.clone()),
            Err(Error::SandboxStopped) => self.set_waiting(Some(Error::SandboxStopped.to_string())),
            Err(_) => {}
        }
        // Applied changes rewrote rows and swapped draft keys for ids.
        self.tables.clear();
        self.warm_tables();
        drop(guard);
        report
    }

    /// Downloads the account into the workspace, on a connection of its own; what it may
    /// fetch depends on the kind of account ([`crate::scope`]). Pending entities keep the
    /// buyer's version.
    pub async fn download(
        self: &Arc<Self>,
        scope: PullScope,
        progress: impl FnMut(Progress) + Send,
    ) -> Result<PullReport> {
        let mut halt = self.halt.subscribe();
        let signed = self.require_signed()?;
        let mut ws = self.open_workspace()?;
        let report = tokio::select! {
            r = ws.pull_with(&signed.client, scope, signed.pull_options(), progress) => {
                r.map_err(Error::from)
            }
            _ = halt.changed() => Err(Error::SandboxStopped),
        };
        drop(signed);
        self.tables.clear();
        self.warm_tables();
        report
    }

    /// Posts now and waits for the end: a host that stays until the post is done (the
    /// CLI's `push`). Refused without a session, or while this account posts already.
    pub async fn push(
        self: &Arc<Self>,
        options: &sync::PushOptions,
        progress: impl FnMut(sync::PushProgress) + Send,
    ) -> Result<sync::PushReport> {
        let guard = self.begin_post()?;
        self.post_with(guard, options, progress).await
    }

    /// Marks a post as running for a host that runs it in the background (the app's
    /// Post): refused without a session, so the buyer hears it at once rather than from
    /// the task.
    pub fn begin_post(&self) -> Result<PostingGuard> {
        self.require_signed()?;
        self.begin_posting()
    }

    /// A background post from start to end: one post (of `only`, or everything), then,
    /// while it waits for the service ([`Account::await_resume`]), one more each time the
    /// service answers again. `finished` hears how each post ended, to tell the buyer.
    pub async fn post_until_settled<F, Fut>(
        self: &Arc<Self>,
        guard: PostingGuard,
        only: Option<BTreeSet<i64>>,
        progress: impl FnMut(sync::PushProgress) + Send + Clone,
        mut finished: F,
    ) where
        F: FnMut(Result<sync::PushReport>) -> Fut + Send,
        Fut: std::future::Future<Output = ()> + Send,
    {
        let mut next = Some(guard);
        while let Some(guard) = next {
            let report = self.post(guard, only.clone(), progress.clone()).await;
            finished(report).await;
            next = self.await_resume().await;
        }
    }

    /// Downloads the whole account ([`Account::download`]): what it found summed over the
    /// kinds, as the app's Refresh reports it, and the entities it added, changed or
    /// removed, for the views showing them.
    pub async fn refresh(
        self: &Arc<Self>,
        progress: impl FnMut(Progress) + Send,
    ) -> Result<(PullSummary, crate::bulk::Changed)> {
        let report = self.download(PullScope::All, progress).await?;
        Ok((
            PullSummary::of(&report),
            crate::bulk::Changed::pulled(&report),
        ))
    }
}

/// What a download found, summed over kinds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct PullSummary {
    /// New on the service.
    pub added: u32,
    /// Changed on the service.
    pub changed: u32,
    /// Gone from the service.
    pub removed: u32,
    /// Changed on the service but kept as the buyer's version: they have pending changes.
    pub kept_pending: u32,
    /// What the download could not do and carried on without, in the buyer's words
    /// (such as creatives the service could not list), each once.
    pub notices: Vec<String>,
}

impl PullSummary {
    /// The counts of `report`, summed over its kinds.
    pub fn of(report: &PullReport) -> PullSummary {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        let notices = report.notices.iter().map(|n| n.text()).collect();
        report.counts.values().fold(
            PullSummary {
                notices,
                ..PullSummary::default()
            },
            |sum, c| PullSummary {
                added: sum.added.saturating_add(n(c.added)),
                changed: sum.changed.saturating_add(n(c.changed)),
                removed: sum.removed.saturating_add(n(c.removed)),
                kept_pending: sum.kept_pending.saturating_add(n(c.skipped_pending)),
                notices: sum.notices,
            },
        )
    }
}
