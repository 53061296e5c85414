//! What the running app holds: the shared core (profiles, the active profile's session
//! and workspace) and the embedded sandbox. Commands borrow it through `tauri::State`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flightdeck_client::SecretString;
use flightdeck_client::auth::DESKTOP_REDIRECT_URI;
use flightdeck_core::files::ChosenFiles;
use flightdeck_core::preview::LiveDocs;
use flightdeck_core::profiles::Profiles;
use flightdeck_core::{Account, Core, OpenOptions, Selection};
use flightdeck_sandbox::{Config as SandboxConfig, Running, Sandbox, Seed};
use serde::{Deserialize, Serialize};
use specta::Type;

use crate::error::{AppError, Result};

pub use flightdeck_core::profiles::EMBEDDED_ID;

/// Whether the embedded sandbox is serving.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum SandboxState {
    /// Serving on loopback.
    Running,
    /// Stopped by the buyer (to work offline).
    Stopped,
}

/// Everything the app holds. The window opens before the core and the sandbox are up
/// (a first launch seeds the sandbox, a later one restores the session from the
/// keyring), so a command waits for them in [`AppState::ready`] instead of the window
/// waiting for the whole start.
pub struct AppState {
    dir: PathBuf,
    ready: tokio::sync::OnceCell<Ready>,
    files: ChosenFiles,
    previews: LiveDocs,
}

/// The state once started.
struct Ready {
    core: Core,
    sandbox: tokio::sync::Mutex<Option<Running>>,
}

impl AppState {
    /// The app's state over `dir`, not started yet: the first command (or
    /// [`Self::start`], called from setup) starts it.
    pub fn new(dir: &Path) -> AppState {
        AppState {
            dir: dir.to_owned(),
            ready: tokio::sync::OnceCell::new(),
            files: ChosenFiles::new(),
            previews: LiveDocs::new(),
        }
    }

    /// Opens the app's data in `dir` and waits until it is started.
    pub async fn open(dir: &Path) -> Result<AppState> {
        let state = AppState::new(dir);
        state.ready().await?;
        Ok(state)
    }

    /// Starts the embedded sandbox (on the address it had before, so its sign-in can be
    /// restored), then the core on the active profile; once. A failed start is tried
    /// again by the next command.
    async fn ready(&self) -> Result<&Ready> {
        self.ready
            .get_or_try_init(|| async {
                let dir = &self.dir;
                flightdeck_core::paths::create_private_dir(dir)?;
                let previous = Profiles::read(dir)?.embedded_addr();
                let running = start_sandbox(dir, previous).await?;
                tracing::info!(ms = crate::since_start(), "start: sandbox");
                let options = OpenOptions {
                    embedded_url: Some(format!("http://{}/", running.addr)),
                    warm_tables: true,
                    ..OpenOptions::default()
                };
                let core = Core::open(dir, Selection::Active, options).await?;
                tracing::info!(ms = crate::since_start(), "start: core");
                Ok(Ready {
                    core,
                    sandbox: tokio::sync::Mutex::new(Some(running)),
                })
            })
            .await
    }

    /// The data directory: profiles, workspaces, settings.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The files the buyer chose in the import and export dialogs since the app started:
    /// the only ones a command reads or writes.
    pub fn files(&self) -> &ChosenFiles {
        &self.files
    }

    /// Live previews issued to the page and not loaded yet: the only documents the
    /// preview scheme serves, each once.
    pub fn previews(&self) -> &LiveDocs {
        &self.previews
    }

    /// Starts the state now, without waiting for a command to ask.
    pub async fn start(&self) -> Result<()> {
        self.ready().await.map(|_| ())
    }

    /// The shared core.
    pub async fn core(&self) -> Result<&Core> {
        Ok(&self.ready().await?.core)
    }

    /// The active profile.
    pub async fn active(&self) -> Result<Arc<Account>> {
        Ok(self.core().await?.active()?)
    }

    /// Signs a user in on the active profile.
    pub async fn sign_in_user(&self, username: &str, password: String) -> Result<()> {
        Ok(self
            .core()
            .await?
            .sign_in_user(username, SecretString::from(password))
            .await?)
    }

    /// Starts a data partner's sign-in; the redirect comes back through the deep link.
    pub async fn begin_partner(&self, client_id: &str, client_secret: String) -> Result<url::Url> {
        let redirect = url::Url::parse(DESKTOP_REDIRECT_URI)
            .map_err(|e| AppError::state(format!("bad redirect address: {e}")))?;
        Ok(self.core().await?.begin_partner(
            client_id,
            SecretString::from(client_secret),
            redirect,
        )?)
    }

    /// The embedded sandbox's state.
    pub async fn sandbox_state(&self) -> Result<SandboxState> {
        // A sandbox whose task ended (its database would not open) serves nothing.
        let slot = self.ready().await?.sandbox.lock().await;
        Ok(if slot.as_ref().is_some_and(|r| !r.is_finished()) {
            SandboxState::Running
        } else {
            SandboxState::Stopped
        })
    }

    /// Stops or restarts the embedded sandbox (on the same address, so the session and
    /// its keyring entries stay valid). Stopping is how a buyer tries working offline;
    /// while stopped, the core sends nothing to its address and holds no session for it.
    pub async fn set_sandbox_running(&self, running: bool) -> Result<()> {
        let ready = self.ready().await?;
        let mut slot = ready.sandbox.lock().await;
        let live = slot.as_ref().is_some_and(|r| !r.is_finished());
        match (running, live) {
            (true, false) => {
                let addr = ready
                    .core
                    .embedded_addr()?
                    .ok_or_else(|| AppError::state("the local sandbox has no address"))?;
                let dir = ready.core.dir().to_owned();
                let started = start_sandbox(&dir, Some(addr)).await?;
                if started.addr != addr {
                    // Still stopped to the core: nothing goes to whoever has the port.
                    return Err(AppError::state(format!(
                        "the local sandbox's address {addr} is taken by another program"
                    )));
                }
                *slot = Some(started);
                ready.core.embedded_started().await?;
            }
            (false, true) => {
                // First: from here on nothing is sent to the port, which another
                // program may take once the sandbox lets go of it.
                ready.core.embedded_stopping()?;
                if let Some(r) = slot.take() {
                    r.stop().await?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Stops the sandbox before the app exits, so its database closes cleanly, and
    /// saves the table indexes for the next start if they changed.
    pub async fn shutdown(&self) {
        let Some(ready) = self.ready.get() else {
            return;
        };
        if let Ok(account) = ready.core.active() {
            account.save_tables();
        }
        if let Some(r) = ready.sandbox.lock().await.take() {
            let _ = r.stop().await;
        }
    }
}

/// Enables the embedded sandbox's `/_sandbox/` test controls (its clock, faults) for
/// requests that carry this token. Unset, as for every buyer, they do not exist.
pub const SANDBOX_ADMIN_TOKEN_ENV: &str = "FLIGHTDECK_SANDBOX_ADMIN_TOKEN";

/// Starts the sandbox on `preferred`, or on a free loopback port when that is taken. It
/// answers once its database is open (seeded, on a first launch); the address is known
/// before that, so the core and the window do not wait for it.
async fn start_sandbox(dir: &Path, preferred: Option<SocketAddr>) -> Result<Running> {
    let admin_token = std::env::var(SANDBOX_ADMIN_TOKEN_ENV)
        .ok()
        .filter(|t| !t.is_empty());
    let config = SandboxConfig {
        data: Some(dir.join("sandbox.db")),
        seed: Seed::Demo,
        clock_start: None,
        admin_token,
        ..SandboxConfig::default()
    };
    if let Some(addr) = preferred
        && let Ok(r) = Sandbox::open_and_spawn(config.clone(), addr).await
    {
        return Ok(r);
    }
    for _ in 0..PORT_TRIES {
        let addr = SocketAddr::from(([127, 0, 0, 1], random_port()));
        if let Ok(r) = Sandbox::open_and_spawn(config.clone(), addr).await {
            return Ok(r);
        }
    }
    Ok(Sandbox::open_and_spawn(config, SocketAddr::from(([127, 0, 0, 1], 0))).await?)
}

/// Where the embedded sandbox's port is chosen, the first time or when its own is taken:
/// below every OS's ephemeral range (Linux 32768-60999, Windows and macOS 49152-65535).
/// A port from that range (what binding port 0 gives) can be handed to any outgoing
/// connection while the app is closed, and the sandbox would then move on the next start;
/// its session's keyring entries are kept under its address. A port here is only ever
/// taken by a program that binds it on purpose.
pub const SANDBOX_PORTS: std::ops::Range<u16> = 20_000..32_768;

/// Random ports of [`SANDBOX_PORTS`] tried before any free port is taken.
const PORT_TRIES: usize = 16;

/// A random port of [`SANDBOX_PORTS`].
fn random_port() -> u16 {
    rand::random_range(SANDBOX_PORTS)
}
