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

mod host;
mod posting;
mod trafficking;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use flightdeck_client::auth::{PartnerAuth, PendingAuthorization};
use flightdeck_client::session::Session;
use flightdeck_client::token_store::{Profile, TokenStore};
use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{PullOptions, Workspace};

use crate::paths::{self, anonymous_workspace_file, workspace_file, workspaces_dir};
use crate::profiles::{LastAccount, StoredProfile};
use crate::query::{Row, TableQuery, Tables, Window};
use crate::{Error, Result};

pub use host::{Core, OpenOptions};
pub use posting::{PostingGuard, PullSummary};
pub use trafficking::{AdOrderCreatives, AssociatedCreative, LISTED_CREATIVE_NOTE};

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
    /// The host chose the workspace file ([`OpenOptions::workspace`]): it stays.
    pinned: bool,
    /// Set by [`Account::host_started`]: the host's first screen asked for its state.
    started: (Mutex<bool>, std::sync::Condvar),
}

impl Drop for Account {
    /// The account closes (another profile, a sign-out, the app's end): its table
    /// indexes are saved for the next start if they changed.
    fn drop(&mut self) {
        self.save_tables();
    }
}

fn unavailable() -> Error {
    crate::error::State::Unavailable("the workspace").into()
}

impl Account {
    fn open(
        dir: &Path,
        profile: StoredProfile,
        options: &OpenOptions,
        sandbox_stopped: Option<Arc<AtomicBool>>,
    ) -> Result<Account> {
        let mut config = profile.client_config()?;
        if let Some(timeout) = options.request_timeout {
            config.request_timeout = timeout;
        }
        let workspaces = workspaces_dir(dir);
        paths::create_private_dir(&workspaces)?;
        let workspace_path = match &options.workspace {
            Some(path) => {
                if let Some(parent) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(|e| Error::storage(parent, e))?;
                }
                path.clone()
            }
            // Before anyone signs in: an empty workspace of the profile's own.
            None => workspaces.join(anonymous_workspace_file(&profile.id)),
        };
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
            warm: options.warm_tables,
            pinned: options.workspace.is_some(),
            started: (Mutex::new(false), std::sync::Condvar::new()),
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
        if self.pinned || self.workspace_path()? == path {
            return Ok(());
        }
        let ws = Workspace::open(&path)?;
        self.save_tables();
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
        self.signed().ok_or_else(|| Error::SignInRequired {
            service: self.config.base_url.clone(),
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

    /// The host's first screen asked for its state: its window and page are up, so
    /// readying the table indexes ([`Account::warm_tables`]) no longer slows their
    /// start. Called on every ask; only the first counts.
    pub fn host_started(&self) {
        let (lock, cvar) = &self.started;
        if let Ok(mut started) = lock.lock()
            && !*started
        {
            *started = true;
            cvar.notify_all();
        }
    }

    /// Waits for [`Account::host_started`], or `timeout` (a host that never calls it).
    fn wait_for_host(&self, timeout: std::time::Duration) {
        let (lock, cvar) = &self.started;
        if let Ok(started) = lock.lock() {
            let _ = cvar.wait_timeout_while(started, timeout, |s| !*s);
        }
    }

    /// Makes the table indexes ready on a background thread with a connection of its
    /// own, so the first view of a large account finds them: loaded from the file kept
    /// beside the workspace when it is current (a fraction of a second at 1,000,000
    /// rows), else built after the window's first view and then saved there. At start
    /// both wait until the host's page is up ([`Account::host_started`], or
    /// [`HOST_WAIT`]): a load of
    /// 1,000,000 rows alongside the window's creation slowed its start by 130 ms, at any
    /// thread priority. The page asks for its state before it asks for any table, so a
    /// view still finds the load under way and waits for it rather than building.
    /// Saves go on meanwhile; a build that raced one is redone, a load that did is
    /// dropped.
    pub fn warm_tables(self: &Arc<Self>) {
        if !self.warm {
            return;
        }
        let account = Arc::clone(self);
        let _ = std::thread::Builder::new()
            .name("table-index".into())
            .spawn(move || {
                give_way();
                account.wait_for_host(HOST_WAIT);
                let (Ok(path), Ok(ws)) = (account.workspace_path(), account.open_workspace())
                else {
                    return;
                };
                // Failures show when a view asks: it builds the index itself.
                let loaded = account.tables.load(&ws, &path).unwrap_or(false);
                let ws = if loaded {
                    ws
                } else {
                    // At start, after the window's first view (or a moment): see
                    // `Tables::wait_for_first_view`. Later calls find a view answered.
                    account.tables.wait_for_first_view(WARM_AFTER);
                    // A sign-in may have switched the account to another workspace while
                    // this waited: that switch warms its own. Building from the one
                    // opened before would show another workspace's rows.
                    match (account.workspace_path(), account.open_workspace()) {
                        (Ok(now), Ok(ws)) if now == path => ws,
                        _ => return,
                    }
                };
                if account
                    .tables
                    .prebuild(&ws, &crate::query::TABLE_KINDS)
                    .is_ok()
                    && account.workspace_path().ok().as_ref() == Some(&path)
                {
                    account.save_tables();
                }
            });
    }

    /// Saves the table indexes beside the workspace for the next start, if they changed
    /// since they were loaded or last saved ([`Tables::save`]): when the account closes
    /// or switches workspaces. A failure only costs the next start a build: logged.
    pub fn save_tables(&self) {
        let Ok(path) = self.workspace_path() else {
            return;
        };
        if let Err(e) = self.tables.save(&path) {
            tracing::warn!(error = %e, "the table index could not be saved");
        }
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
        // The only writer through this connection meanwhile is `f`: see
        // `Tables::touched_since`.
        let before = ws.change_stamp().ok();
        let (out, changed) = f(&mut ws)?;
        self.tables.touched_since(&ws, &changed, before)?;
        Ok((out, changed))
    }

    /// The number of changes not applied yet.
    pub fn pending_count(&self) -> Result<usize> {
        Ok(self.workspace()?.pending_count()?)
    }
}

/// The nice value of the thread that readies the table indexes: it runs while the page
/// evaluates its script and renders its first screen, which want both cores of a small
/// machine. A view that waits for it leaves the CPU free, so it then runs as fast as
/// before.
#[cfg(target_os = "linux")]
const BACKGROUND_NICE: i32 = 10;

/// Lowers the calling thread's CPU priority to [`BACKGROUND_NICE`]; the threads it starts
/// inherit it. Linux only: there a nice value is a thread's own, while macOS's and
/// Windows' process-wide calls would slow the whole app.
fn give_way() {
    #[cfg(target_os = "linux")]
    if let Err(e) =
        rustix::process::setpriority_process(Some(rustix::thread::gettid()), BACKGROUND_NICE)
    {
        tracing::debug!(error = %e, "the table index thread keeps its priority");
    }
}

/// How long readying the indexes at start waits for the host's page to ask for its state
/// ([`Account::host_started`]): only a host that never asks waits this long.
const HOST_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use rustix::process::getpriority_process;
    use rustix::thread::gettid;

    /// The thread that readies the indexes gives way; the thread that started it (in the
    /// app, a window's command) keeps its priority.
    #[test]
    fn the_index_thread_gives_way_and_its_starter_does_not() {
        let mine = getpriority_process(Some(gettid())).expect("own nice value");
        let theirs = std::thread::spawn(|| {
            super::give_way();
            getpriority_process(Some(gettid())).expect("the thread's nice value")
        })
        .join()
        .expect("the thread ran");
        // Already lower (a test run under `nice`): an unprivileged thread cannot raise it.
        assert_eq!(theirs, super::BACKGROUND_NICE.max(mine));
        assert_eq!(getpriority_process(Some(gettid())).expect("own"), mine);
    }
}
