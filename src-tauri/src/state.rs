//! What the running app holds: the shared core (profiles, the active profile's session
//! and workspace) and the embedded sandbox. Commands borrow it through `tauri::State`.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use flightdeck_client::SecretString;
use flightdeck_client::auth::DESKTOP_REDIRECT_URI;
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

/// Everything the app holds.
pub struct AppState {
    core: Core,
    sandbox: tokio::sync::Mutex<Option<Running>>,
}

impl AppState {
    /// Opens the app's data in `dir`: starts the embedded sandbox (on the address it had
    /// before, so its sign-in can be restored), then the core on the active profile.
    pub async fn open(dir: &Path) -> Result<AppState> {
        flightdeck_core::paths::create_private_dir(dir)?;
        let previous = Profiles::read(dir)?.embedded_addr();
        let running = start_sandbox(dir, previous).await?;
        let url = format!("http://{}/", running.addr);
        let options = OpenOptions {
            embedded_url: Some(url),
            warm_tables: true,
        };
        let core = Core::open(dir, Selection::Active, options).await?;
        Ok(AppState {
            core,
            sandbox: tokio::sync::Mutex::new(Some(running)),
        })
    }

    /// The shared core.
    pub fn core(&self) -> &Core {
        &self.core
    }

    /// The active profile.
    pub fn active(&self) -> Result<Arc<Account>> {
        Ok(self.core.active()?)
    }

    /// Signs a user in on the active profile.
    pub async fn sign_in_user(&self, username: &str, password: String) -> Result<()> {
        Ok(self
            .core
            .sign_in_user(username, SecretString::from(password))
            .await?)
    }

    /// Starts a data partner's sign-in; the redirect comes back through the deep link.
    pub fn begin_partner(&self, client_id: &str, client_secret: String) -> Result<url::Url> {
        let redirect = url::Url::parse(DESKTOP_REDIRECT_URI)
            .map_err(|e| AppError::state(format!("bad redirect address: {e}")))?;
        Ok(self
            .core
            .begin_partner(client_id, SecretString::from(client_secret), redirect)?)
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
                let addr = self
                    .core
                    .embedded_addr()?
                    .ok_or_else(|| AppError::state("the local sandbox has no address"))?;
                let dir = self.core.dir().to_owned();
                let started = start_sandbox(&dir, Some(addr)).await?;
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
