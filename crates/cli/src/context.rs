//! What every command works with: the shared core opened on the profile the command
//! line names, its active account, and whether to print JSON.

use std::path::PathBuf;
use std::sync::{Arc, MutexGuard};
use std::time::Duration;

use flightdeck_client::ClientConfig;
use flightdeck_core::{Account, Core, OpenOptions, Selection};
use flightdeck_offline::workspace::Workspace;

use crate::CliError;

/// Which profile and workspace the global options name.
pub struct Target {
    /// `--profile`.
    pub profile: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--workspace`.
    pub workspace: Option<PathBuf>,
}

/// The core and its active account, as one command sees them.
pub struct Ctx {
    /// Profiles and sign-ins.
    pub core: Core,
    /// The active profile: session, workspace, posting.
    pub account: Arc<Account>,
    /// `--json`.
    pub json: bool,
    /// `--workspace` named the file.
    workspace_given: bool,
}

impl Ctx {
    /// Opens the core on the profile `target` names (the app's active one by default);
    /// `request_timeout` replaces the profile's for this run.
    pub async fn open(
        target: Target,
        json: bool,
        request_timeout: Option<Duration>,
    ) -> Result<Ctx, CliError> {
        let selection = match (target.profile, target.base_url) {
            (Some(id), _) => Selection::Profile(id),
            (None, Some(url)) => {
                // A bad address is reported as such, not as a profile problem.
                ClientConfig::new(&url)?;
                Selection::Url(url)
            }
            (None, None) => Selection::Active,
        };
        let workspace_given = target.workspace.is_some();
        let options = OpenOptions {
            workspace: target.workspace,
            request_timeout,
            ..OpenOptions::default()
        };
        let dir = flightdeck_core::paths::data_dir()?;
        let core = Core::open(&dir, selection, options).await?;
        let account = core.active()?;
        if account.profile.embedded && account.config.base_url.port() == Some(0) {
            // The app has never run here, so its sandbox has no address yet.
            return Err(CliError::Usage(
                "the active profile is the desktop app's local sandbox, which has never run on \
                 this machine: start the app, or pass --base-url (or FLIGHTDECK_BASE_URL)"
                    .into(),
            ));
        }
        Ok(Ctx {
            core,
            account,
            json,
            workspace_given,
        })
    }

    /// The account, for a command that works on its workspace: the file given, or the
    /// profile's current account's, the same file the desktop app uses.
    pub fn work(&self) -> Result<&Arc<Account>, CliError> {
        if !self.workspace_given && self.account.profile.last_account.is_none() {
            return Err(CliError::Usage(
                "no workspace yet: run `flightdeck login`, then `flightdeck pull`".into(),
            ));
        }
        Ok(&self.account)
    }

    /// The workspace, for one short read; dropped before any call to the account.
    pub fn read(&self) -> Result<MutexGuard<'_, Workspace>, CliError> {
        Ok(self.work()?.workspace()?)
    }
}
