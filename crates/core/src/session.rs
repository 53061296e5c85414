//! The active profile of a host: its session, its workspace and its posting state.
//!
//! Locks are short: the workspace mutex is held only for one local read or write, never
//! across a network call. Downloads and posting open their own connection to the same
//! workspace file (SQLite WAL), so editing stays possible while they run.
//!
//! A post that finds the service unreachable stops at once and leaves its changes
//! waiting; [`Account::await_resume`] watches for the service to come back (a cheap
//! probe with backoff) and hands a host the guard to post again with.
//!
//! While the app's embedded sandbox is stopped, its profile sends nothing to its
//! address (another program may listen there): the session is dropped from memory, a
//! running post or download ends, and [`Account::require_signed`] refuses with
//! [`Error::SandboxStopped`] until [`Core::embedded_started`] restores the session from
//! the keyring.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use flightdeck_client::auth::{PartnerAuth, PendingAuthorization, PkceMethod};
use flightdeck_client::session::Session;
use flightdeck_client::token_store::{Profile, TokenStore};
use flightdeck_client::{Client, ClientConfig, Credentials, SecretString};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::sync;
use flightdeck_offline::workspace::{Progress, PullOptions, PullReport, PullScope, Workspace};

use crate::paths::{self, anonymous_workspace_file, workspace_file, workspaces_dir};
use crate::profiles::{LastAccount, Profiles, StoredProfile};
use crate::query::{Row, TableQuery, Tables, Window};
use crate::{Error, Result};

/// The signed-in session of the active profile with its client.
#[derive(Clone)]
pub struct Signed {
    /// The session (renews itself; shared with the client).
    pub session: Arc<Session>,
    /// A client over that session.
    pub client: Client,
    /// True for a data partner.
    pub partner: bool,
}

impl Signed {
    /// What a download of this account may fetch.
    pub fn pull_options(&self) -> PullOptions {
        crate::scope::pull_options(self.partner)
    }
}

/// What a sign-in redirect did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartnerCallback {
    /// The data partner is signed in.
    SignedIn,
    /// No data-partner sign-in was waiting: the link was ignored.
    NoneWaiting,
    /// The link's `state` is not the waiting sign-in's (forged, or from an older
    /// attempt): it was ignored, and the waiting sign-in still waits.
    OtherState,
}

impl PartnerCallback {
    /// Why a link was ignored, for the log; `None` when it signed the partner in.
    pub fn ignored_because(self) -> Option<&'static str> {
        match self {
            PartnerCallback::SignedIn => None,
            PartnerCallback::NoneWaiting => Some("no data-partner sign-in is waiting"),
            PartnerCallback::OtherState => {
                Some("its state is not the waiting sign-in's (forged, or an older attempt)")
            }
        }
    }
}

/// A partner sign-in waiting for its redirect.
pub struct PendingPartner {
    /// The OAuth2 client of the sign-in.
    pub auth: PartnerAuth,
    /// `state` and PKCE verifier of this attempt.
    pub pending: PendingAuthorization,
}

/// Which profile a host works on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// The active one of `profiles.json` (the app's choice, the CLI's default).
    Active,
    /// A saved profile by id.
    Profile(String),
    /// The profile of this service, added when there is none. Does not change which
    /// profile the app opens with.
    Url(String),
}

/// The active profile.
pub struct Account {
    /// Its saved settings.
    pub profile: StoredProfile,
    /// Client settings for its service.
    pub config: ClientConfig,
    workspaces: PathBuf,
    workspace_path: RwLock<PathBuf>,
    workspace: Mutex<Workspace>,
    signed: RwLock<Option<Signed>>,
    partner: Mutex<Option<PendingPartner>>,
    /// Why the last account's sign-in could not be restored at start (a locked or
    /// missing keyring), until someone signs in.
    restore_problem: Mutex<Option<String>>,
    posting: Arc<AtomicBool>,
    /// Why posting waits: the last post stopped because the service could not be
    /// reached. Cleared once a post reaches it.
    waiting: Mutex<Option<String>>,
    /// Someone waits in [`Account::await_resume`].
    resuming: AtomicBool,
    /// Wakes [`Account::await_resume`] early (the embedded sandbox started).
    wake: tokio::sync::Notify,
    /// Bumped to end a running post or download at once (the embedded sandbox stops).
    halt: tokio::sync::watch::Sender<u64>,
    /// Shared with the [`Core`] on the embedded profile: set while its sandbox is stopped.
    sandbox_stopped: Option<Arc<AtomicBool>>,
    /// The account whose session was dropped when the embedded sandbox stopped; its
    /// sign-in is restored from the keyring when the sandbox starts again.
    parked: Mutex<Option<LastAccount>>,
    /// The service answered the last probe.
    pub online: AtomicBool,
    /// The table indexes of the workspace in use.
    pub tables: Tables,
    /// Rebuild them in the background after wholesale changes ([`OpenOptions`]).
    warm: bool,
}

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

/// The embedded sandbox moved from `before` to `now` (its port was taken): its current
/// account's keyring entries (filed per address) move with it, so the sign-in is
/// restored as before. Best effort: without them the buyer signs in again, and pending
/// changes are kept either way.
fn move_embedded_sign_in(file: &Profiles, before: &str, now: &str) {
    let Some(last) = file
        .profiles
        .iter()
        .find(|p| p.embedded)
        .and_then(|p| p.last_account.clone())
    else {
        return;
    };
    let (Ok(from), Ok(to)) = (ClientConfig::new(before), ClientConfig::new(now)) else {
        return;
    };
    // A placeholder address (port 0: the sandbox never listened) holds no entries.
    if from.base_url.port() == Some(0) {
        return;
    }
    let store = |config: &ClientConfig| {
        TokenStore::new(if last.partner {
            Profile::partner(config, &last.account)
        } else {
            Profile::user(config, &last.account)
        })
    };
    if let Err(e) = store(&from).move_to(&store(&to)) {
        tracing::warn!(error = %e, "the embedded sandbox's sign-in could not follow it to its new port");
    }
}

fn unavailable() -> Error {
    Error::State("the workspace is unavailable after an earlier failure".into())
}

impl Account {
    fn open(
        dir: &Path,
        profile: StoredProfile,
        warm: bool,
        sandbox_stopped: Option<Arc<AtomicBool>>,
    ) -> Result<Account> {
        let config = profile.client_config()?;
        let workspaces = workspaces_dir(dir);
        paths::create_private_dir(&workspaces)?;
        // Before anyone signs in: an empty workspace of the profile's own.
        let workspace_path = workspaces.join(anonymous_workspace_file(&profile.id));
        let workspace = Workspace::open(&workspace_path)?;
        Ok(Account {
            profile,
            config,
            workspaces,
            workspace_path: RwLock::new(workspace_path),
            workspace: Mutex::new(workspace),
            signed: RwLock::new(None),
            partner: Mutex::new(None),
            restore_problem: Mutex::new(None),
            posting: Arc::new(AtomicBool::new(false)),
            waiting: Mutex::new(None),
            resuming: AtomicBool::new(false),
            wake: tokio::sync::Notify::new(),
            halt: tokio::sync::watch::Sender::new(0),
            sandbox_stopped,
            parked: Mutex::new(None),
            online: AtomicBool::new(false),
            tables: Tables::default(),
            warm,
        })
    }

    /// The workspace, for one short local read or write.
    pub fn workspace(&self) -> Result<MutexGuard<'_, Workspace>> {
        self.workspace.lock().map_err(|_| unavailable())
    }

    /// A second connection to the same workspace file, for long-running work.
    pub fn open_workspace(&self) -> Result<Workspace> {
        Ok(Workspace::open(self.workspace_path()?)?)
    }

    /// Path of the workspace file in use.
    pub fn workspace_path(&self) -> Result<PathBuf> {
        self.workspace_path
            .read()
            .map(|p| p.clone())
            .map_err(|_| unavailable())
    }

    /// The workspace file of `account` on this profile.
    pub fn workspace_path_of(&self, account: &str, partner: bool) -> PathBuf {
        self.workspaces
            .join(workspace_file(&self.profile.id, account, partner))
    }

    /// Switches to the workspace of `account` (opening or creating its file).
    fn use_account(&self, account: &str, partner: bool) -> Result<()> {
        let path = self.workspace_path_of(account, partner);
        if self.workspace_path()? == path {
            return Ok(());
        }
        let ws = Workspace::open(&path)?;
        *self.workspace()? = ws;
        self.tables.clear();
        if let Ok(mut p) = self.workspace_path.write() {
            *p = path;
        }
        Ok(())
    }

    /// The signed-in session, if any.
    pub fn signed(&self) -> Option<Signed> {
        self.signed.read().ok().and_then(|s| s.clone())
    }

    /// The session, or the error that sends the buyer to sign in; while the embedded
    /// sandbox is stopped, [`Error::SandboxStopped`]: nothing goes to its address.
    pub fn require_signed(&self) -> Result<Signed> {
        if self.sandbox_is_stopped() {
            return Err(Error::SandboxStopped);
        }
        self.signed().ok_or_else(|| {
            Error::SignInRequired(format!(
                "sign in to {} to talk to the ad platform; your pending changes are kept",
                self.config.base_url
            ))
        })
    }

    /// Who is signed in, as the shell shows it: the account and whether it is a data
    /// partner. Also while the embedded sandbox is stopped, when the session itself is
    /// not held (it is restored from the keyring when the sandbox starts).
    pub fn signed_in_as(&self) -> Option<LastAccount> {
        if let Some(s) = self.signed() {
            return Some(LastAccount {
                account: s.session.account().to_owned(),
                partner: s.partner,
            });
        }
        self.parked.lock().ok().and_then(|p| p.clone())
    }

    /// This is the embedded profile and its sandbox is stopped.
    pub fn sandbox_is_stopped(&self) -> bool {
        self.sandbox_stopped
            .as_ref()
            .is_some_and(|s| s.load(Ordering::SeqCst))
    }

    fn set_signed(&self, signed: Option<Signed>) {
        // Once someone signs in, why the start could not restore the sign-in is old news,
        // also after they sign out again.
        if signed.is_some()
            && let Ok(mut p) = self.restore_problem.lock()
        {
            *p = None;
        }
        // A sign-in or sign-out settles who the account is; nothing parked remains.
        if let Ok(mut p) = self.parked.lock() {
            *p = None;
        }
        if let Ok(mut s) = self.signed.write() {
            *s = signed;
        }
    }

    /// Forgets the session after the service refused to renew it. The keyring entries
    /// were already cleared by the session; the workspace is untouched.
    pub fn session_ended(&self) {
        self.set_signed(None);
    }

    /// The keyring entries of `account` on this profile's service: namespaced by base
    /// URL, account kind and account, so profiles and accounts never share tokens.
    pub fn token_store(&self, account: &str, partner: bool) -> TokenStore {
        let profile = if partner {
            Profile::partner(&self.config, account)
        } else {
            Profile::user(&self.config, account)
        };
        TokenStore::new(profile)
    }

    async fn restore(&self) -> Result<()> {
        let Some(last) = &self.profile.last_account else {
            return Ok(());
        };
        self.use_account(&last.account, last.partner)?;
        if self.sandbox_is_stopped() {
            // No session for a stopped sandbox's address: restored when it starts.
            if let Ok(mut p) = self.parked.lock() {
                *p = Some(last.clone());
            }
            return Ok(());
        }
        let store = self.token_store(&last.account, last.partner);
        match Session::restore(&self.config, store).await {
            Ok(Some(session)) => {
                self.set_signed(Some(signed(&self.config, session, last.partner)?));
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(error = %e, "the sign-in could not be restored");
                if e.kind() == flightdeck_client::ErrorKind::Keyring
                    && let Ok(mut p) = self.restore_problem.lock()
                {
                    *p = Some(format!(
                        "The sign-in of {} could not be read back from the OS keyring ({e}). \
                         Sign in again once the keyring works; pending changes are kept.",
                        last.account
                    ));
                }
                return Err(e.into());
            }
        }
        Ok(())
    }

    /// Why the current account's sign-in could not be restored at start (the OS
    /// keyring was locked or missing), for the sign-in screen; `None` once someone has
    /// signed in.
    pub fn restore_problem(&self) -> Option<String> {
        self.restore_problem.lock().ok().and_then(|p| p.clone())
    }

    /// Marks a post as running until the guard drops; refused while one runs.
    pub fn begin_posting(&self) -> Result<PostingGuard> {
        if self.posting.swap(true, Ordering::SeqCst) {
            return Err(Error::State("changes are already being posted".into()));
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

    /// The embedded sandbox stops: a running post or download ends at once (what was in
    /// flight stays `Sending`, looked up by the next post), and the session is dropped
    /// from memory, so no token (nor the password a renewal sends) can reach whatever
    /// listens on its port next. The keyring keeps the sign-in for
    /// [`Account::sandbox_started`].
    fn sandbox_stopping(&self) {
        self.halt.send_modify(|n| *n = n.wrapping_add(1));
        let taken = self.signed.write().ok().and_then(|mut s| s.take());
        if let Some(s) = taken
            && let Ok(mut p) = self.parked.lock()
        {
            *p = Some(LastAccount {
                account: s.session.account().to_owned(),
                partner: s.partner,
            });
        }
    }

    /// The embedded sandbox started again: the parked sign-in comes back from the
    /// keyring, and a post waiting for the sandbox goes on.
    async fn sandbox_started(&self) {
        let parked = self.parked.lock().ok().and_then(|p| p.clone());
        if let Some(last) = parked {
            let store = self.token_store(&last.account, last.partner);
            match Session::restore(&self.config, store).await {
                Ok(Some(session)) => match signed(&self.config, session, last.partner) {
                    Ok(s) => self.set_signed(Some(s)),
                    Err(e) => tracing::warn!(error = %e, "the sign-in could not be restored"),
                },
                // Signed out meanwhile (the other host): the buyer signs in again.
                Ok(None) => self.set_signed(None),
                Err(e) => {
                    tracing::warn!(error = %e, "the sign-in could not be restored");
                    if let Ok(mut p) = self.restore_problem.lock() {
                        *p = Some(format!(
                            "The sign-in of {} could not be read back from the OS keyring ({e}). \
                             Sign in again once the keyring works; pending changes are kept.",
                            last.account
                        ));
                    }
                    self.set_signed(None);
                }
            }
        }
        self.wake.notify_one();
    }

    /// Records the probe's result; true when it changed.
    pub fn set_online(&self, online: bool) -> bool {
        self.online.swap(online, Ordering::SeqCst) != online
    }

    /// The service answered the last probe.
    pub fn is_online(&self) -> bool {
        self.online.load(Ordering::SeqCst)
    }

    /// Builds the table indexes on a background thread with a connection of its own, so
    /// the first view of a large account finds them ready. Saves go on meanwhile; a build
    /// that raced one is redone.
    pub fn warm_tables(self: &Arc<Self>) {
        if !self.warm {
            return;
        }
        let account = Arc::clone(self);
        let _ = std::thread::Builder::new()
            .name("table-index".into())
            .spawn(move || {
                // At start, after the window's first view (or a moment): see
                // `Tables::wait_for_first_view`. Later calls find a view answered.
                account.tables.wait_for_first_view(WARM_AFTER);
                if let Ok(ws) = account.open_workspace() {
                    // A failure shows when a view asks: it builds the index itself.
                    let _ = account.tables.prebuild(&ws, &crate::query::TABLE_KINDS);
                }
            });
    }

    /// The rows of `kind` a table view shows.
    pub fn window<T: serde::de::DeserializeOwned>(
        &self,
        kind: Kind,
        query: &TableQuery,
    ) -> Result<Window<Row<T>>> {
        let ws = self.workspace()?;
        self.tables.window(&ws, kind, query)
    }

    /// One entity's row, or `None` when the workspace does not hold it.
    pub fn row<T: serde::de::DeserializeOwned>(
        &self,
        target: &EntityRef,
    ) -> Result<Option<Row<T>>> {
        let ws = self.workspace()?;
        crate::query::row(&ws, target)
    }

    /// Runs one edit of the workspace and brings the table indexes up to date with the
    /// entities it reports as changed.
    pub fn edit<T>(
        &self,
        f: impl FnOnce(&mut Workspace) -> Result<(T, Vec<EntityRef>)>,
    ) -> Result<(T, Vec<EntityRef>)> {
        let mut ws = self.workspace()?;
        let (out, changed) = f(&mut ws)?;
        self.tables.touched(&ws, &changed)?;
        Ok((out, changed))
    }

    /// The number of changes not applied yet.
    pub fn pending_count(&self) -> Result<usize> {
        Ok(self.workspace()?.pending_count()?)
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
        // Watched from before the session is read, so a stop in between ends the post.
        let mut halt = self.halt.subscribe();
        let signed = self.require_signed()?;
        let mut ws = self.open_workspace()?;
        let options = sync::PushOptions {
            only,
            ..sync::PushOptions::default()
        };
        let report = tokio::select! {
            r = sync::push(&mut ws, &signed.client, &options, progress) => r.map_err(Error::from),
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
}

/// How long building the indexes ahead waits for the window's first view at start.
const WARM_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

fn signed(config: &ClientConfig, session: Session, partner: bool) -> Result<Signed> {
    let session = Arc::new(session);
    let client = Client::new(config.clone(), Credentials::Session(session.clone()))?;
    Ok(Signed {
        session,
        client,
        partner,
    })
}

/// How a host opens the core.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// Where the app's embedded sandbox listens now (the CLI has none).
    pub embedded_url: Option<String>,
    /// Build table indexes in the background whenever a workspace opens or changes
    /// wholesale: right for the app, which shows tables; wasted work for a CLI command.
    pub warm_tables: bool,
}

/// A host's view of Flightdeck's files: the profiles and the active one.
pub struct Core {
    dir: PathBuf,
    warm: bool,
    profiles: Mutex<Profiles>,
    active: RwLock<Arc<Account>>,
    /// Set while the app's embedded sandbox is stopped; shared with the embedded
    /// profile's account.
    sandbox_stopped: Arc<AtomicBool>,
}

impl Core {
    /// Opens the data in `dir` on the profile `selection` names, restoring its session
    /// from the keyring.
    pub async fn open(dir: &Path, selection: Selection, options: OpenOptions) -> Result<Core> {
        paths::create_private_dir(dir)?;
        let mut file = Profiles::read(dir)?;
        let moved = options
            .embedded_url
            .as_ref()
            .and_then(|url| Some((file.set_embedded_url(url)?, url)));
        let id = match selection {
            Selection::Active => file.active.clone(),
            Selection::Profile(id) => {
                if file.get(&id).is_none() {
                    return Err(Error::NotFound(format!("there is no profile {id}")));
                }
                id
            }
            Selection::Url(url) => match file.by_url(&url) {
                Some(p) => p.id.clone(),
                None => {
                    let name = url::Url::parse(url.trim())
                        .ok()
                        .and_then(|u| u.host_str().map(str::to_owned))
                        .unwrap_or_else(|| url.clone());
                    file.add(&name, &url)?
                }
            },
        };
        file.write(dir)?;
        // Only once the profiles name the new address: moved earlier, a failed write
        // would leave the sign-in where no profile looks for it.
        if let Some((before, url)) = moved {
            move_embedded_sign_in(&file, &before, url);
        }
        let sandbox_stopped = Arc::new(AtomicBool::new(false));
        let active = activate(dir, &file, &id, options.warm_tables, &sandbox_stopped).await?;
        Ok(Core {
            dir: dir.to_owned(),
            warm: options.warm_tables,
            profiles: Mutex::new(file),
            active: RwLock::new(active),
            sandbox_stopped,
        })
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The active profile.
    pub fn active(&self) -> Result<Arc<Account>> {
        self.active
            .read()
            .map(|a| a.clone())
            .map_err(|_| Error::State("no active profile".into()))
    }

    fn lock_profiles(&self) -> Result<MutexGuard<'_, Profiles>> {
        self.profiles
            .lock()
            .map_err(|_| Error::State("the profile list is unavailable".into()))
    }

    /// Every saved profile and which is active.
    pub fn profiles(&self) -> Result<Profiles> {
        Ok(self.lock_profiles()?.clone())
    }

    /// Adds a profile for another service and makes it active.
    pub async fn add_profile(&self, name: &str, base_url: &str) -> Result<()> {
        let id = {
            let mut file = self.lock_profiles()?;
            let id = file.add(name, base_url)?;
            file.write(&self.dir)?;
            id
        };
        self.switch(&id).await
    }

    /// Makes profile `id` active (for the next start too), restoring its session.
    pub async fn switch(&self, id: &str) -> Result<()> {
        let file = {
            let mut file = self.lock_profiles()?;
            if file.get(id).is_none() {
                return Err(Error::NotFound(format!("there is no profile {id}")));
            }
            file.active = id.to_owned();
            file.write(&self.dir)?;
            file.clone()
        };
        let active = activate(&self.dir, &file, id, self.warm, &self.sandbox_stopped).await?;
        if let Ok(mut a) = self.active.write() {
            // The profile left posts nothing more by itself.
            a.cancel_resume();
            *a = active;
        }
        Ok(())
    }

    /// Signs a user in on the active profile; the password and tokens go to the keyring,
    /// and the account becomes the profile's current one for both hosts.
    pub async fn sign_in_user(&self, username: &str, password: SecretString) -> Result<()> {
        use secrecy::ExposeSecret;
        let username = username.trim();
        if username.is_empty() {
            return Err(Error::invalid("username", "REQUIRED", "is required"));
        }
        if password.expose_secret().is_empty() {
            return Err(Error::invalid("password", "REQUIRED", "is required"));
        }
        let active = self.active()?;
        // The password would go to whatever listens on a stopped sandbox's port.
        if active.sandbox_is_stopped() {
            return Err(Error::SandboxStopped);
        }
        let store = active.token_store(username, false);
        let session = Session::user(&active.config, username, password, Some(store)).await?;
        active.use_account(username, false)?;
        active.warm_tables();
        active.set_signed(Some(signed(&active.config, session, false)?));
        self.remember_account(&active.profile.id, username, false)
    }

    /// Starts a data partner's sign-in with `redirect` as the OAuth2 redirect URI (the
    /// app's deep link, or the CLI's loopback listener); returns the login page URL.
    pub fn begin_partner(
        &self,
        client_id: &str,
        client_secret: SecretString,
        redirect: url::Url,
    ) -> Result<url::Url> {
        use secrecy::ExposeSecret;
        let client_id = client_id.trim();
        if client_id.is_empty() {
            return Err(Error::invalid("clientId", "REQUIRED", "is required"));
        }
        if client_secret.expose_secret().is_empty() {
            return Err(Error::invalid("clientSecret", "REQUIRED", "is required"));
        }
        let active = self.active()?;
        if active.sandbox_is_stopped() {
            return Err(Error::SandboxStopped);
        }
        let auth = PartnerAuth::new(&active.config, client_id, client_secret, redirect)?;
        let pending = auth.begin(PkceMethod::S256);
        let url = pending.authorize_url().clone();
        if let Ok(mut p) = active.partner.lock() {
            *p = Some(PendingPartner { auth, pending });
        }
        Ok(url)
    }

    /// The login page of the data-partner sign-in waiting on the active profile, to open
    /// again in the browser. Only a page on the profile's own service is handed out, so
    /// the app's "open in browser" can never be pointed elsewhere.
    pub fn sign_in_page(&self) -> Result<url::Url> {
        let active = self.active()?;
        let slot = active.partner.lock().map_err(|_| unavailable())?;
        let page = slot
            .as_ref()
            .map(|p| p.pending.authorize_url().clone())
            .ok_or_else(|| Error::State("no data-partner sign-in is waiting".into()))?;
        if page.origin() != active.config.base_url.origin() {
            return Err(Error::State(format!(
                "the sign-in page is not on this profile's service ({})",
                active.config.base_url
            )));
        }
        Ok(page)
    }

    /// Completes a partner sign-in from its redirect. The `state` is compared under the
    /// lock before anything else, error answers included, and the waiting sign-in is
    /// taken only on a match: a link with another `state` (forged, or from an older
    /// attempt), or one that arrives when no sign-in waits, is ignored, so nothing an
    /// outsider puts in a link reaches the buyer and the real redirect can still complete.
    pub async fn finish_partner(&self, redirect: &str) -> Result<PartnerCallback> {
        let active = self.active()?;
        // A link that is not a URL has no state to match: ignored like a forged one.
        let parsed = url::Url::parse(redirect).ok();
        let state = parsed.as_ref().and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        });
        let taken = {
            let mut slot = active.partner.lock().map_err(|_| unavailable())?;
            match slot.as_ref() {
                None => return Ok(PartnerCallback::NoneWaiting),
                Some(p) if state.as_deref() != Some(p.pending.state()) => {
                    return Ok(PartnerCallback::OtherState);
                }
                Some(_) => slot.take(),
            }
        };
        let (Some(PendingPartner { auth, pending }), Some(redirect)) = (taken, parsed) else {
            return Ok(PartnerCallback::NoneWaiting);
        };
        // The code exchange sends the client secret: never to a stopped sandbox's port.
        if active.sandbox_is_stopped() {
            return Err(Error::SandboxStopped);
        }
        let tokens = auth.finish(&pending, &redirect).await?;
        let client_id = auth.client_id().to_owned();
        let store = active.token_store(&client_id, true);
        let session = Session::partner(&active.config, auth, tokens, Some(store)).await?;
        active.use_account(&client_id, true)?;
        active.warm_tables();
        active.set_signed(Some(signed(&active.config, session, true)?));
        self.remember_account(&active.profile.id, &client_id, true)?;
        Ok(PartnerCallback::SignedIn)
    }

    /// Signs out of the active profile: the keyring entries go, the workspace stays.
    /// The profile's current account stays too: it names the workspace whose pending
    /// changes the next start shows, and the keyring has no session left to restore.
    pub async fn sign_out(&self) -> Result<()> {
        let active = self.active()?;
        active.cancel_resume();
        let parked = active.parked.lock().ok().and_then(|p| p.clone());
        if let Some(s) = active.signed() {
            s.session.sign_out().await?;
        } else if let Some(last) = parked.as_ref().or(active.profile.last_account.as_ref()) {
            // Signed out elsewhere (the other host) or never restored: clear the keyring
            // entries all the same, so "signed out" means no token is left behind.
            active.token_store(&last.account, last.partner).clear()?;
        }
        active.set_signed(None);
        Ok(())
    }

    fn remember_account(&self, id: &str, account: &str, partner: bool) -> Result<()> {
        let mut file = self.lock_profiles()?;
        file.remember_account(id, account, partner);
        file.write(&self.dir)
    }

    /// The embedded profile's last loopback address.
    pub fn embedded_addr(&self) -> Result<Option<std::net::SocketAddr>> {
        Ok(self.lock_profiles()?.embedded_addr())
    }

    /// The host is about to stop its embedded sandbox: from now on nothing is sent to
    /// its address (another program could bind the port and take the token, or the
    /// password on a renewal, and answer posts that never land). A running post or
    /// download of the embedded profile ends, its session is dropped from memory, and
    /// its requests are refused with [`Error::SandboxStopped`] until
    /// [`Core::embedded_started`]. The keyring keeps the sign-in: it names this
    /// sandbox's own account, and is read back when the sandbox starts.
    pub fn embedded_stopping(&self) -> Result<()> {
        self.sandbox_stopped.store(true, Ordering::SeqCst);
        let active = self.active()?;
        if active.profile.embedded {
            active.sandbox_stopping();
        }
        Ok(())
    }

    /// The embedded sandbox serves again (on the same address): its sign-in is
    /// restored from the keyring, and a post waiting for it resumes.
    pub async fn embedded_started(&self) -> Result<()> {
        self.sandbox_stopped.store(false, Ordering::SeqCst);
        let active = self.active()?;
        if active.profile.embedded {
            active.sandbox_started().await;
        }
        Ok(())
    }
}

async fn activate(
    dir: &Path,
    file: &Profiles,
    id: &str,
    warm: bool,
    sandbox_stopped: &Arc<AtomicBool>,
) -> Result<Arc<Account>> {
    let profile = file
        .get(id)
        .or_else(|| file.profiles.first())
        .cloned()
        .ok_or_else(|| Error::State("no profile is saved".into()))?;
    let stopped = profile.embedded.then(|| Arc::clone(sandbox_stopped));
    let account = Account::open(dir, profile, warm, stopped)?;
    // A keyring that cannot give the session back is not fatal: the buyer signs in again.
    let _ = account.restore().await;
    let account = Arc::new(account);
    account.warm_tables();
    Ok(account)
}
