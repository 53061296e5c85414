//! Tauri commands: each parses its arguments, calls a crate, and maps the error. The
//! TypeScript side is generated from these signatures (`ui/src/bindings.ts`).

pub mod app;
pub mod audiences;
pub mod bulk;
pub mod cells;
pub mod checks;
pub mod forms;
pub mod pending;
pub mod preview;
pub mod session;
pub mod tables;
pub mod tags;
pub mod trafficking;

use std::sync::Arc;

use flightdeck_offline::change::{ChangeStatus, EntityRef, Kind};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{AppHandle, Runtime};
use tauri_specta::Event;

use crate::error::{AppError, ErrorCode, Result};
use crate::state::{AppState, SandboxState};
use flightdeck_core::Account;

/// Who is signed in on the active profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    /// Username or partner client id.
    pub account: String,
    /// `user` or `partner`.
    pub kind: AccountType,
}

/// What an account signs in as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum AccountType {
    /// Advertiser or agency user.
    User,
    /// Data partner.
    Partner,
}

/// A saved profile as the profile switcher shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ProfileInfo {
    /// Stable id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Service root.
    pub base_url: String,
    /// True for the built-in local sandbox.
    pub embedded: bool,
}

/// The demo sign-ins, shown on the sign-in screen of the embedded sandbox so a new
/// buyer is working within seconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct DemoCredentials {
    /// Agency user.
    pub username: String,
    /// Its password.
    pub password: String,
    /// Data-partner client id.
    pub partner_client_id: String,
    /// Its secret.
    pub partner_client_secret: String,
    /// Login on the partner's sign-in page.
    pub partner_login: String,
    /// Its password.
    pub partner_password: String,
}

/// Everything the shell of the UI shows: profiles, session, connectivity, pending count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AppSnapshot {
    /// Saved profiles.
    pub profiles: Vec<ProfileInfo>,
    /// The active one.
    pub active_id: String,
    /// Who is signed in there, if anyone.
    pub session: Option<SessionInfo>,
    /// Demo sign-ins (embedded sandbox only).
    pub demo: Option<DemoCredentials>,
    /// The service answered the last probe.
    pub online: bool,
    /// The embedded sandbox's state; `None` on other profiles.
    pub sandbox: Option<SandboxState>,
    /// Changes not applied yet.
    pub pending_count: u32,
    /// A post is running.
    pub posting: bool,
    /// Why posting waits: the last post could not reach the service. The changes wait
    /// (none failed), and posting resumes by itself once the service answers.
    pub post_waiting: Option<String>,
    /// Why the last account is not signed in after a start (the OS keyring was locked
    /// or missing), for the sign-in screen.
    pub notice: Option<String>,
}

/// A post's progress, after each change settles.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct SyncProgress {
    /// Changes settled.
    pub done: u32,
    /// Changes in this post.
    pub total: u32,
    /// The change that settled.
    pub seq: i64,
    /// Its status.
    pub status: ChangeStatus,
}

/// A post finished: how many changes ended where.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct SyncFinished {
    /// Applied by the service.
    pub applied: u32,
    /// Rejected, with messages.
    pub failed: u32,
    /// Outcome unknown; the buyer checks.
    pub needs_review: u32,
    /// Held for per-field resolution.
    pub conflicts: u32,
    /// Invalid or waiting on a change that did not apply.
    pub held: u32,
    /// Not settled (offline, transient failures); posted next time.
    pub unsent: u32,
    /// Why the post stopped early (sign-in, permission), if it did.
    pub stopped: Option<String>,
    /// Set when the service could not be reached: the post stopped at once, nothing
    /// failed for it, the changes wait, and posting resumes by itself once the service
    /// answers (see `AppSnapshot.postWaiting`).
    pub unreachable: Option<String>,
}

/// A download's progress, after each listing and each batch of flight caps.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct DownloadProgress {
    /// What is being downloaded.
    pub kind: Kind,
    /// Done so far (entities, or listings where the total is unknown).
    pub done: u32,
    /// How many there are, when known.
    pub total: Option<u32>,
}

impl From<flightdeck_offline::workspace::Progress> for DownloadProgress {
    fn from(p: flightdeck_offline::workspace::Progress) -> Self {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        DownloadProgress {
            kind: p.kind,
            done: n(p.done),
            total: p.total.map(n),
        }
    }
}

/// Most ids a [`WorkspaceChanged`] carries: an edit of more entities names their kinds
/// only, so an event never ships 100,000 ids (views of those kinds refresh whole).
pub const MAX_EVENT_IDS: usize = 1_000;

/// Entities changed in the workspace. A view showing one of `kinds` asks again for what
/// it shows only when it shows one of `ids`, or when rows may have moved in it (rows
/// added or removed, or its filter or sort may place an edited row elsewhere);
/// nothing else re-renders.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceChanged {
    /// Kinds with changed rows.
    pub kinds: Vec<Kind>,
    /// The entities changed, when known and no more than [`MAX_EVENT_IDS`]; empty when
    /// any row of `kinds` may have changed.
    pub ids: Vec<EntityRef>,
    /// Rows of `kinds` were added, removed or keyed anew (a new draft, an undone
    /// create, a post): every view of them counts and places its rows again.
    pub added_or_removed: bool,
}

impl WorkspaceChanged {
    /// Every kind changed, any row, for when truly everything may have: a discard
    /// (drafts that depended on it go too), a check of every pending change, a resolved
    /// conflict or a settled review (the core rebuilds its indexes after those), a post
    /// that failed as a whole.
    pub fn everything() -> Self {
        WorkspaceChanged {
            // Flights change only inside their campaign, which is named.
            kinds: Kind::ALL.into_iter().filter(|k| k.editable()).collect(),
            ids: Vec::new(),
            added_or_removed: true,
        }
    }

    /// One entity saved; a draft's save may be its creation.
    pub fn saved(target: &EntityRef) -> Self {
        WorkspaceChanged {
            kinds: vec![target.kind],
            ids: vec![target.clone()],
            added_or_removed: target.key.is_local(),
        }
    }

    /// What an edit changed (a bulk operation, an undo or redo): its kinds, and its
    /// entities unless they are more than [`MAX_EVENT_IDS`].
    pub fn of(changed: &flightdeck_core::bulk::Changed) -> Self {
        WorkspaceChanged {
            kinds: changed.kinds(),
            ids: if changed.targets.len() <= MAX_EVENT_IDS {
                changed.targets.clone()
            } else {
                Vec::new()
            },
            added_or_removed: changed.added_or_removed,
        }
    }

    /// What a post changed ([`Account::posted`]); everything when that is not known.
    pub fn posted(active: &Account, report: Option<&flightdeck_offline::sync::PushReport>) -> Self {
        match report.map(|r| active.posted(r)) {
            Some(Ok(Some(changed))) => WorkspaceChanged::of(&changed),
            _ => WorkspaceChanged::everything(),
        }
    }
}

/// Runs workspace work on the blocking pool, off the thread that paints the window.
pub async fn on_pool<T: Send + 'static>(
    f: impl FnOnce() -> flightdeck_core::Result<T> + Send + 'static,
) -> Result<T> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| AppError::state(format!("the work stopped: {e}")))?
        .map_err(AppError::from)
}

/// The shell changed (sign-in through a deep link, expiry, connectivity).
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
pub struct SessionChanged(pub AppSnapshot);

/// The session ended and could not be renewed: sign in again. Pending changes stay.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct SignInRequired {
    /// Why, for the buyer.
    pub message: String,
}

/// A data partner's sign-in that came back from the browser failed (the service refused
/// the code, or the login was cancelled). The session is untouched: this is not
/// [`SignInRequired`].
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct PartnerSignInFailed {
    /// Why, for the buyer.
    pub message: String,
}

/// The shell's state now.
pub async fn snapshot(state: &AppState) -> Result<AppSnapshot> {
    let active = state.active().await?;
    // The page is up: the table indexes may load now without slowing the window's start.
    active.host_started();
    let flightdeck_core::profiles::Profiles {
        profiles,
        active: active_id,
    } = state.core().await?.profiles()?;
    let embedded = active.profile.embedded;
    let session = active.signed_in_as().map(|s| SessionInfo {
        account: s.account,
        kind: if s.partner {
            AccountType::Partner
        } else {
            AccountType::User
        },
    });
    let pending_count = active.pending_count()?;
    Ok(AppSnapshot {
        profiles: profiles
            .into_iter()
            .map(|p| ProfileInfo {
                id: p.id,
                name: p.name,
                base_url: p.base_url,
                embedded: p.embedded,
            })
            .collect(),
        active_id,
        session,
        demo: embedded.then(demo_credentials),
        online: active.is_online(),
        sandbox: if embedded {
            Some(state.sandbox_state().await?)
        } else {
            None
        },
        pending_count: u32::try_from(pending_count).unwrap_or(u32::MAX),
        posting: active.is_posting(),
        post_waiting: active.post_waiting(),
        notice: active.restore_problem(),
    })
}

fn demo_credentials() -> DemoCredentials {
    use flightdeck_sandbox::seed::demo;
    DemoCredentials {
        username: demo::USERNAME.into(),
        password: demo::PASSWORD.into(),
        partner_client_id: demo::PARTNER_CLIENT_ID.into(),
        partner_client_secret: demo::PARTNER_CLIENT_SECRET.into(),
        partner_login: demo::PARTNER_LOGIN.into(),
        partner_password: demo::PARTNER_PASSWORD.into(),
    }
}

/// Tells the UI the shell changed. A UI that is not listening loses nothing: it asks
/// for a snapshot whenever it needs one.
pub async fn announce<R: Runtime>(app: &AppHandle<R>, state: &AppState) {
    if let Ok(s) = snapshot(state).await {
        let _ = SessionChanged(s).emit(app);
    }
}

/// When the service refused to renew the session: forget it (the keyring entries are
/// already gone), tell the UI, and pass the error on. Everything pending stays.
pub fn on_session_error<R: Runtime>(
    app: &AppHandle<R>,
    active: &Arc<Account>,
    e: AppError,
) -> AppError {
    if e.code == ErrorCode::SignInRequired {
        active.session_ended();
        let _ = SignInRequired {
            message: e.message.clone(),
        }
        .emit(app);
    }
    e
}
