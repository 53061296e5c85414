//! [`Core`]: a host's view of Flightdeck's files, the saved profiles and the active one,
//! and the sign-ins that change who is signed in there.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use flightdeck_client::auth::{PartnerAuth, PkceMethod};
use flightdeck_client::session::Session;
use flightdeck_client::token_store::{Profile, TokenStore};
use flightdeck_client::{ClientConfig, SecretString};
use flightdeck_model::validate::codes;

use super::{Account, PartnerCallback, PendingPartner, Selection, signed, unavailable};
use crate::error::State;
use crate::paths;
use crate::profiles::Profiles;
use crate::{Error, Result};

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

/// How a host opens the core.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// Where the app's embedded sandbox listens now (the CLI has none).
    pub embedded_url: Option<String>,
    /// Build table indexes in the background whenever a workspace opens or changes
    /// wholesale: right for the app, which shows tables; wasted work for a CLI command.
    pub warm_tables: bool,
    /// Work on this workspace file instead of the account's (the CLI's `--workspace`):
    /// signing in then changes the session but never the file.
    pub workspace: Option<PathBuf>,
    /// Give up on an answer after this long instead of the profile's request timeout
    /// (the CLI's `--request-timeout`); a lost create is believed absent only twice this
    /// long after it was sent.
    pub request_timeout: Option<Duration>,
}

/// A host's view of Flightdeck's files: the profiles and the active one.
pub struct Core {
    dir: PathBuf,
    options: OpenOptions,
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
                    return Err(Error::NotFound {
                        what: "profile",
                        id,
                    });
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
        let active = activate(dir, &file, &id, &options, &sandbox_stopped).await?;
        Ok(Core {
            dir: dir.to_owned(),
            options,
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
            .map_err(|_| State::Unavailable("the active profile").into())
    }

    fn lock_profiles(&self) -> Result<MutexGuard<'_, Profiles>> {
        self.profiles
            .lock()
            .map_err(|_| State::Unavailable("the profile list").into())
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
                return Err(Error::NotFound {
                    what: "profile",
                    id: id.to_owned(),
                });
            }
            file.active = id.to_owned();
            file.write(&self.dir)?;
            file.clone()
        };
        let active = activate(&self.dir, &file, id, &self.options, &self.sandbox_stopped).await?;
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
            return Err(Error::invalid("username", codes::REQUIRED, "is required"));
        }
        if password.expose_secret().is_empty() {
            return Err(Error::invalid("password", codes::REQUIRED, "is required"));
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
            return Err(Error::invalid("clientId", codes::REQUIRED, "is required"));
        }
        if client_secret.expose_secret().is_empty() {
            return Err(Error::invalid(
                "clientSecret",
                codes::REQUIRED,
                "is required",
            ));
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
            .ok_or(State::NoPartnerSignIn)?;
        if page.origin() != active.config.base_url.origin() {
            return Err(State::ForeignSignInPage(active.config.base_url.clone()).into());
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
    options: &OpenOptions,
    sandbox_stopped: &Arc<AtomicBool>,
) -> Result<Arc<Account>> {
    let profile = file
        .get(id)
        .or_else(|| file.profiles.first())
        .cloned()
        .ok_or(State::NoProfile)?;
    let stopped = profile.embedded.then(|| Arc::clone(sandbox_stopped));
    let account = Account::open(dir, profile, options, stopped)?;
    // A keyring that cannot give the session back is not fatal: the buyer signs in again.
    let _ = account.restore().await;
    let account = Arc::new(account);
    account.warm_tables();
    Ok(account)
}
