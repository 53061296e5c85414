//! What the running app holds: the saved profiles, the active profile's session and
//! workspace, and the embedded sandbox. Commands borrow it through `tauri::State`.
//!
//! Locks are short: the workspace mutex is held only for one local read or write, never
//! across a network call. Downloads and posting open their own connection to the same
//! workspace file (SQLite WAL), so editing stays possible while they run.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use flightdeck_client::auth::{DESKTOP_REDIRECT_URI, PartnerAuth, PendingAuthorization};
use flightdeck_client::session::Session;
use flightdeck_client::token_store::{AccountKind, Profile, TokenStore};
use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_offline::workspace::Workspace;
use flightdeck_sandbox::{Config as SandboxConfig, Running, Sandbox, Seed};
use serde::{Deserialize, Serialize};
use specta::Type;

use crate::error::{AppError, Result};

/// The id of the profile that talks to the embedded sandbox.
pub const EMBEDDED_ID: &str = "local-sandbox";

/// A saved profile: one service, its own workspace file and keyring namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredProfile {
    /// Stable id; names the workspace file.
    pub id: String,
    /// What the buyer calls it.
    pub name: String,
    /// Service root. For the embedded sandbox the loopback address it last listened on,
    /// kept so the keyring namespace (per base URL) stays the same across restarts.
    pub base_url: String,
    /// True for the built-in "Local sandbox" profile.
    pub embedded: bool,
    /// Who signed in last (no secret), so the session can be restored from the keyring.
    pub last_account: Option<LastAccount>,
}

/// Who signed in last on a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LastAccount {
    /// Username or partner client id.
    pub account: String,
    /// True for a data partner.
    pub partner: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProfilesFile {
    profiles: Vec<StoredProfile>,
    active: String,
}

/// Whether the embedded sandbox is serving.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum SandboxState {
    /// Serving on loopback.
    Running,
    /// Stopped by the buyer (to work offline).
    Stopped,
}

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

/// A partner sign-in waiting for its redirect.
pub struct PendingPartner {
    /// The OAuth2 client of the sign-in.
    pub auth: PartnerAuth,
    /// `state` and PKCE verifier of this attempt.
    pub pending: PendingAuthorization,
}

/// The active profile.
pub struct Active {
    /// Its saved settings.
    pub profile: StoredProfile,
    /// Client settings for its service.
    pub config: ClientConfig,
    /// Where its workspace files are: one per account, so a data partner never sees an
    /// agency user's downloads on the same service.
    workspaces: PathBuf,
    workspace_path: RwLock<PathBuf>,
    workspace: Mutex<Workspace>,
    signed: RwLock<Option<Signed>>,
    partner: Mutex<Option<PendingPartner>>,
    /// A post is running in the background.
    pub posting: AtomicBool,
    /// The service answered the last probe.
    pub online: AtomicBool,
}

impl Active {
    /// The workspace, for one short local read or write.
    pub fn workspace(&self) -> Result<MutexGuard<'_, Workspace>> {
        self.workspace
            .lock()
            .map_err(|_| AppError::storage("the workspace is unavailable after an earlier failure"))
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
            .map_err(|_| AppError::storage("the workspace is unavailable after an earlier failure"))
    }

    /// Switches to the workspace of `account` (opening or creating its file).
    fn use_account(&self, account: &str, partner: bool) -> Result<()> {
        let path = self
            .workspaces
            .join(account_file(&self.profile.id, account, partner));
        if self.workspace_path()? == path {
            return Ok(());
        }
        let ws = Workspace::open(&path)?;
        *self.workspace()? = ws;
        if let Ok(mut p) = self.workspace_path.write() {
            *p = path;
        }
        Ok(())
    }

    /// The signed-in session, if any.
    pub fn signed(&self) -> Option<Signed> {
        self.signed.read().ok().and_then(|s| s.clone())
    }

    /// The session, or the error that sends the buyer to the sign-in screen.
    pub fn require_signed(&self) -> Result<Signed> {
        self.signed().ok_or_else(|| {
            AppError::new(
                crate::error::ErrorCode::SignInRequired,
                "sign in to talk to the ad platform; your pending changes are kept",
            )
        })
    }

    fn set_signed(&self, signed: Option<Signed>) {
        if let Ok(mut s) = self.signed.write() {
            *s = signed;
        }
    }

    /// Forgets the session after the service refused to renew it. The keyring entries
    /// were already cleared by the session; the workspace is untouched.
    pub fn session_ended(&self) {
        self.set_signed(None);
    }

    fn store(&self, account: &str, kind: AccountKind) -> TokenStore {
        let profile = match kind {
            AccountKind::User => Profile::user(&self.config, account),
            AccountKind::Partner => Profile::partner(&self.config, account),
        };
        TokenStore::new(profile)
    }

    async fn restore(&self) -> Result<()> {
        let Some(last) = &self.profile.last_account else {
            return Ok(());
        };
        let kind = if last.partner {
            AccountKind::Partner
        } else {
            AccountKind::User
        };
        self.use_account(&last.account, last.partner)?;
        let store = self.store(&last.account, kind);
        if let Some(session) = Session::restore(&self.config, store).await? {
            self.set_signed(Some(signed(&self.config, session, last.partner)?));
        }
        Ok(())
    }
}

fn signed(config: &ClientConfig, session: Session, partner: bool) -> Result<Signed> {
    let session = Arc::new(session);
    let client = Client::new(config.clone(), Credentials::Session(session.clone()))?;
    Ok(Signed {
        session,
        client,
        partner,
    })
}

/// Everything the app holds.
pub struct AppState {
    dir: PathBuf,
    profiles: Mutex<ProfilesFile>,
    active: RwLock<Arc<Active>>,
    sandbox: tokio::sync::Mutex<Option<Running>>,
}

impl AppState {
    /// Opens the app's data in `dir`: profiles, the active profile's workspace and
    /// session (from the keyring), and starts the embedded sandbox.
    pub async fn open(dir: &Path) -> Result<AppState> {
        std::fs::create_dir_all(dir.join("workspaces"))?;
        let mut file = read_profiles(dir)?;
        let running = start_sandbox(dir, embedded_addr(&file)).await?;
        let url = format!("http://{}/", running.addr);
        if let Some(p) = file.profiles.iter_mut().find(|p| p.embedded)
            && p.base_url != url
        {
            // A new port is a new keyring namespace: the old sign-in cannot be restored.
            p.base_url = url;
            p.last_account = None;
        }
        write_profiles(dir, &file)?;
        let active = activate(dir, &file, &file.active).await?;
        Ok(AppState {
            dir: dir.to_owned(),
            profiles: Mutex::new(file),
            active: RwLock::new(active),
            sandbox: tokio::sync::Mutex::new(Some(running)),
        })
    }

    /// The active profile.
    pub fn active(&self) -> Result<Arc<Active>> {
        self.active
            .read()
            .map(|a| a.clone())
            .map_err(|_| AppError::state("no active profile"))
    }

    /// Every saved profile and which is active.
    pub fn profiles(&self) -> Result<(Vec<StoredProfile>, String)> {
        let file = self.lock_profiles()?;
        Ok((file.profiles.clone(), file.active.clone()))
    }

    fn lock_profiles(&self) -> Result<MutexGuard<'_, ProfilesFile>> {
        self.profiles
            .lock()
            .map_err(|_| AppError::storage("the profile list is unavailable"))
    }

    /// Adds a profile for another service and makes it active.
    pub async fn add_profile(&self, name: &str, base_url: &str) -> Result<()> {
        let name = name.trim();
        if name.is_empty() {
            return Err(invalid_field("name", "REQUIRED", "is required"));
        }
        let config = ClientConfig::new(base_url.trim())
            .map_err(|e| invalid_field("baseUrl", "INVALID", &e.to_string()))?;
        let id = {
            let mut file = self.lock_profiles()?;
            let id = unique_id(&file, name);
            file.profiles.push(StoredProfile {
                id: id.clone(),
                name: name.to_owned(),
                base_url: config.base_url.to_string(),
                embedded: false,
                last_account: None,
            });
            write_profiles(&self.dir, &file)?;
            id
        };
        self.switch(&id).await
    }

    /// Makes profile `id` active, restoring its session from the keyring.
    pub async fn switch(&self, id: &str) -> Result<()> {
        let file = {
            let mut file = self.lock_profiles()?;
            if !file.profiles.iter().any(|p| p.id == id) {
                return Err(AppError::new(
                    crate::error::ErrorCode::NotFound,
                    format!("there is no profile {id}"),
                ));
            }
            file.active = id.to_owned();
            write_profiles(&self.dir, &file)?;
            file.clone()
        };
        let active = activate(&self.dir, &file, id).await?;
        if let Ok(mut a) = self.active.write() {
            *a = active;
        }
        Ok(())
    }

    /// Signs a user in on the active profile; the password and tokens go to the keyring.
    pub async fn sign_in_user(&self, username: &str, password: String) -> Result<()> {
        let username = username.trim();
        if username.is_empty() {
            return Err(invalid_field("username", "REQUIRED", "is required"));
        }
        if password.is_empty() {
            return Err(invalid_field("password", "REQUIRED", "is required"));
        }
        let active = self.active()?;
        let store = active.store(username, AccountKind::User);
        let session = Session::user(&active.config, username, password.into(), Some(store)).await?;
        active.use_account(username, false)?;
        active.set_signed(Some(signed(&active.config, session, false)?));
        self.remember_account(&active.profile.id, username, false)
    }

    /// Starts a data partner's sign-in: returns the login URL for the system browser.
    pub fn begin_partner(&self, client_id: &str, client_secret: String) -> Result<url::Url> {
        let client_id = client_id.trim();
        if client_id.is_empty() {
            return Err(invalid_field("clientId", "REQUIRED", "is required"));
        }
        if client_secret.is_empty() {
            return Err(invalid_field("clientSecret", "REQUIRED", "is required"));
        }
        let active = self.active()?;
        let redirect = url::Url::parse(DESKTOP_REDIRECT_URI)
            .map_err(|e| AppError::state(format!("bad redirect address: {e}")))?;
        let auth = PartnerAuth::new(&active.config, client_id, client_secret.into(), redirect)?;
        let pending = auth.begin(flightdeck_client::auth::PkceMethod::S256);
        let url = pending.authorize_url().clone();
        if let Ok(mut p) = active.partner.lock() {
            *p = Some(PendingPartner { auth, pending });
        }
        Ok(url)
    }

    /// Completes a partner sign-in from the redirect the OS handed over (deep link).
    /// The `state` is checked before any request; a forged redirect leaves the pending
    /// sign-in in place so the real one can still complete.
    pub async fn finish_partner(&self, redirect: &url::Url) -> Result<()> {
        let active = self.active()?;
        let taken = active.partner.lock().ok().and_then(|mut p| p.take());
        let Some(PendingPartner { auth, pending }) = taken else {
            return Err(AppError::state(
                "a sign-in link arrived, but no data-partner sign-in was started in Flightdeck",
            ));
        };
        match auth.finish(&pending, redirect).await {
            Ok(tokens) => {
                let client_id = auth.client_id().to_owned();
                let store = active.store(&client_id, AccountKind::Partner);
                let session = Session::partner(&active.config, auth, tokens, Some(store)).await?;
                active.use_account(&client_id, true)?;
                active.set_signed(Some(signed(&active.config, session, true)?));
                self.remember_account(&active.profile.id, &client_id, true)
            }
            Err(e) => {
                if let Ok(mut p) = active.partner.lock() {
                    *p = Some(PendingPartner { auth, pending });
                }
                Err(e.into())
            }
        }
    }

    /// Signs out of the active profile: the keyring entries go, the workspace stays.
    pub async fn sign_out(&self) -> Result<()> {
        let active = self.active()?;
        if let Some(s) = active.signed() {
            s.session.sign_out().await?;
        }
        // `last_account` stays: it names the workspace whose pending changes the next
        // start shows, and the keyring no longer has a session to restore.
        active.set_signed(None);
        Ok(())
    }

    fn remember_account(&self, id: &str, account: &str, partner: bool) -> Result<()> {
        let mut file = self.lock_profiles()?;
        if let Some(p) = file.profiles.iter_mut().find(|p| p.id == id) {
            p.last_account = Some(LastAccount {
                account: account.to_owned(),
                partner,
            });
        }
        write_profiles(&self.dir, &file)
    }

    /// The embedded sandbox's state.
    pub async fn sandbox_state(&self) -> SandboxState {
        if self.sandbox.lock().await.is_some() {
            SandboxState::Running
        } else {
            SandboxState::Stopped
        }
    }

    /// Stops or restarts the embedded sandbox (on the same address, so the session and
    /// its keyring entries stay valid). Stopping is how a buyer tries working offline.
    pub async fn set_sandbox_running(&self, running: bool) -> Result<()> {
        let mut slot = self.sandbox.lock().await;
        match (running, slot.is_some()) {
            (true, false) => {
                let addr = {
                    let file = self.lock_profiles()?;
                    embedded_addr(&file)
                };
                let addr =
                    addr.ok_or_else(|| AppError::state("the local sandbox has no address"))?;
                let started = start_sandbox(&self.dir, Some(addr)).await?;
                if started.addr != addr {
                    return Err(AppError::state(format!(
                        "the local sandbox's address {addr} is taken by another program"
                    )));
                }
                *slot = Some(started);
            }
            (false, true) => {
                if let Some(r) = slot.take() {
                    r.stop().await?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Stops the sandbox before the app exits, so its database closes cleanly.
    pub async fn shutdown(&self) {
        if let Some(r) = self.sandbox.lock().await.take() {
            let _ = r.stop().await;
        }
    }
}

/// Marks the probe result; true when it changed.
pub fn set_online(active: &Active, online: bool) -> bool {
    active.online.swap(online, Ordering::SeqCst) != online
}

fn invalid_field(field: &str, code: &str, message: &str) -> AppError {
    AppError {
        code: crate::error::ErrorCode::Invalid,
        message: format!("{field}: {message}"),
        field_errors: vec![flightdeck_model::FieldError::new(field, code, message)],
    }
}

async fn activate(dir: &Path, file: &ProfilesFile, id: &str) -> Result<Arc<Active>> {
    let profile = file
        .profiles
        .iter()
        .find(|p| p.id == id)
        .or_else(|| file.profiles.first())
        .cloned()
        .ok_or_else(|| AppError::state("no profile is saved"))?;
    let config = ClientConfig::new(&profile.base_url)?;
    let workspaces = dir.join("workspaces");
    // Before anyone signs in: an empty workspace of the profile's own.
    let workspace_path = workspaces.join(format!("{}.db", profile.id));
    let workspace = Workspace::open(&workspace_path)?;
    let active = Active {
        profile,
        config,
        workspaces,
        workspace_path: RwLock::new(workspace_path),
        workspace: Mutex::new(workspace),
        signed: RwLock::new(None),
        partner: Mutex::new(None),
        posting: AtomicBool::new(false),
        online: AtomicBool::new(false),
    };
    // A keyring that cannot give the session back is not fatal: the buyer signs in again.
    let _ = active.restore().await;
    Ok(Arc::new(active))
}

/// The workspace file name of one account of a profile. Characters outside a safe set
/// are hex-escaped, so two accounts never share a file.
fn account_file(profile: &str, account: &str, partner: bool) -> String {
    let mut name = format!("{profile}--{}-", if partner { "partner" } else { "user" });
    for b in account.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' {
            name.push(char::from(b));
        } else {
            name.push_str(&format!("%{b:02x}"));
        }
    }
    name.push_str(".db");
    name
}

fn embedded_addr(file: &ProfilesFile) -> Option<SocketAddr> {
    let p = file.profiles.iter().find(|p| p.embedded)?;
    let url = url::Url::parse(&p.base_url).ok()?;
    let port = url.port()?;
    Some(SocketAddr::from(([127, 0, 0, 1], port)))
}

/// Enables the embedded sandbox's `/_sandbox/` test controls (its clock, faults) for
/// requests that carry this token. Unset, as for every buyer, they do not exist.
pub const SANDBOX_ADMIN_TOKEN_ENV: &str = "FLIGHTDECK_SANDBOX_ADMIN_TOKEN";

/// Starts the sandbox on `preferred`, or on a free loopback port when that is taken.
async fn start_sandbox(dir: &Path, preferred: Option<SocketAddr>) -> Result<Running> {
    let admin_token = std::env::var(SANDBOX_ADMIN_TOKEN_ENV)
        .ok()
        .filter(|t| !t.is_empty());
    let open = || {
        Sandbox::open(&SandboxConfig {
            data: Some(dir.join("sandbox.db")),
            seed: Seed::Demo,
            clock_start: None,
            admin_token: admin_token.clone(),
        })
    };
    if let Some(addr) = preferred
        && let Ok(r) = open()?.spawn(addr).await
    {
        return Ok(r);
    }
    Ok(open()?.spawn(SocketAddr::from(([127, 0, 0, 1], 0))).await?)
}

fn profiles_path(dir: &Path) -> PathBuf {
    dir.join("profiles.json")
}

fn read_profiles(dir: &Path) -> Result<ProfilesFile> {
    let path = profiles_path(dir);
    match std::fs::read(&path) {
        Ok(bytes) => {
            let mut file: ProfilesFile = serde_json::from_slice(&bytes)
                .map_err(|e| AppError::storage(format!("{} is damaged: {e}", path.display())))?;
            if !file.profiles.iter().any(|p| p.embedded) {
                file.profiles.insert(0, embedded_profile());
            }
            Ok(file)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ProfilesFile {
            profiles: vec![embedded_profile()],
            active: EMBEDDED_ID.to_owned(),
        }),
        Err(e) => Err(e.into()),
    }
}

/// Written to a temporary file and renamed, so a crash never leaves half a file.
fn write_profiles(dir: &Path, file: &ProfilesFile) -> Result<()> {
    let path = profiles_path(dir);
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(file)?)?;
    std::fs::rename(&tmp, &path)?;
    Ok(())
}

fn embedded_profile() -> StoredProfile {
    StoredProfile {
        id: EMBEDDED_ID.to_owned(),
        name: "Local sandbox".to_owned(),
        base_url: "http://127.0.0.1:0/".to_owned(),
        embedded: true,
        last_account: None,
    }
}

fn unique_id(file: &ProfilesFile, name: &str) -> String {
    let base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let base = base.trim_matches('-');
    let base = if base.is_empty() { "profile" } else { base };
    let mut id = base.to_owned();
    let mut n = 2;
    while file.profiles.iter().any(|p| p.id == id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    id
}
