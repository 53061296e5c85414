//! The active profile of a host: its session, its workspace and its posting state.
//!
//! Locks are short: the workspace mutex is held only for one local read or write, never
//! across a network call. Downloads and posting open their own connection to the same
//! workspace file (SQLite WAL), so editing stays possible while they run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use flightdeck_client::auth::{PartnerAuth, PendingAuthorization, PkceMethod};
use flightdeck_client::session::Session;
use flightdeck_client::token_store::{Profile, TokenStore};
use flightdeck_client::{Client, ClientConfig, Credentials, SecretString};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::sync;
use flightdeck_offline::workspace::{Progress, PullOptions, PullReport, PullScope, Workspace};

use crate::paths::{self, anonymous_workspace_file, workspace_file, workspaces_dir};
use crate::profiles::{Profiles, StoredProfile};
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
    fn open(dir: &Path, profile: StoredProfile, warm: bool) -> Result<Account> {
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

    /// The session, or the error that sends the buyer to sign in.
    pub fn require_signed(&self) -> Result<Signed> {
        self.signed().ok_or_else(|| {
            Error::SignInRequired(format!(
                "sign in to {} to talk to the ad platform; your pending changes are kept",
                self.config.base_url
            ))
        })
    }

    fn set_signed(&self, signed: Option<Signed>) {
        // Once someone signs in, why the start could not restore the sign-in is old news,
        // also after they sign out again.
        if signed.is_some()
            && let Ok(mut p) = self.restore_problem.lock()
        {
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
    pub async fn post(
        self: &Arc<Self>,
        guard: PostingGuard,
        only: Option<BTreeSet<i64>>,
        progress: impl FnMut(sync::PushProgress) + Send,
    ) -> Result<sync::PushReport> {
        let signed = self.require_signed()?;
        let mut ws = self.open_workspace()?;
        let options = sync::PushOptions {
            only,
            ..sync::PushOptions::default()
        };
        let report = sync::push(&mut ws, &signed.client, &options, progress).await;
        // Applied changes rewrote rows and swapped draft keys for ids.
        self.tables.clear();
        self.warm_tables();
        drop(guard);
        Ok(report?)
    }

    /// Downloads the account into the workspace, on a connection of its own; what it may
    /// fetch depends on the kind of account ([`crate::scope`]). Pending entities keep the
    /// buyer's version.
    pub async fn download(
        self: &Arc<Self>,
        scope: PullScope,
        progress: impl FnMut(Progress) + Send,
    ) -> Result<PullReport> {
        let signed = self.require_signed()?;
        let mut ws = self.open_workspace()?;
        let report = ws
            .pull_with(&signed.client, scope, signed.pull_options(), progress)
            .await;
        self.tables.clear();
        self.warm_tables();
        Ok(report?)
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
        let active = activate(dir, &file, &id, options.warm_tables).await?;
        Ok(Core {
            dir: dir.to_owned(),
            warm: options.warm_tables,
            profiles: Mutex::new(file),
            active: RwLock::new(active),
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
        let active = activate(&self.dir, &file, id, self.warm).await?;
        if let Ok(mut a) = self.active.write() {
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
        if let Some(s) = active.signed() {
            s.session.sign_out().await?;
        } else if let Some(last) = &active.profile.last_account {
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
}

async fn activate(dir: &Path, file: &Profiles, id: &str, warm: bool) -> Result<Arc<Account>> {
    let profile = file
        .get(id)
        .or_else(|| file.profiles.first())
        .cloned()
        .ok_or_else(|| Error::State("no profile is saved".into()))?;
    let account = Account::open(dir, profile, warm)?;
    // A keyring that cannot give the session back is not fatal: the buyer signs in again.
    let _ = account.restore().await;
    let account = Arc::new(account);
    account.warm_tables();
    Ok(account)
}
