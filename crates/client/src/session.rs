//! A signed-in session: holds the tokens, renews them shortly before expiry and after a
//! 401, and shares one renewal among concurrent requests.
//!
//! - Users (advertisers, agencies) renew with their username and password
//!   ([`auth::refresh_user`]); data partners with their client secret
//!   ([`PartnerAuth::refresh`]).
//! - With a [`TokenStore`], the tokens and that secret live in the OS keyring, and every
//!   renewal is saved there; [`Session::restore`] picks them up at the next start.
//! - When renewal is refused (refresh token revoked or expired, password changed), the
//!   session ends: calls return [`Error::SignInRequired`], the saved tokens are deleted,
//!   and nothing else is touched: work the caller queued stays with the caller.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use tokio::sync::{Mutex, MutexGuard};
use url::Url;

use crate::auth::{self, DESKTOP_REDIRECT_URI, PartnerAuth, TokenSet};
use crate::config::ClientConfig;
use crate::error::{Error, Result, TransportKind};
use crate::retry::{self, Decision, Outcome, RetryPolicy};
use crate::token_store::{AccountKind, Profile, TokenStore};

/// A renewal failure that may pass if tried again: the token endpoint was busy (429),
/// timed out (408) or failed (5xx), or the network was. As the retry outcome to decide on.
fn passing_failure(e: &Error) -> Option<Outcome> {
    match e {
        // The retry policy retries a 503 as a busy service; a 408 is the same here.
        Error::Token { status: 408, .. } => Some(Outcome::Status(503)),
        Error::Token { status, .. } if e.token_endpoint_busy() => Some(Outcome::Status(*status)),
        Error::Transport { kind, .. } if *kind != TransportKind::Tls => {
            Some(Outcome::Transport(*kind))
        }
        _ => None,
    }
}

/// Renew this long before the access token expires, by default.
pub const DEFAULT_RENEW_MARGIN: Duration = Duration::from_secs(5 * 60);

/// How tokens are renewed.
enum Renewal {
    User {
        username: String,
        password: SecretString,
    },
    Partner(Box<PartnerAuth>),
}

/// A signed-in session. Share it as `Arc<Session>` (see
/// [`Credentials::Session`](crate::Credentials::Session)). `Debug` shows no secret.
pub struct Session {
    config: ClientConfig,
    renewal: Renewal,
    store: Option<TokenStore>,
    /// `None` once the session has ended. Held across a renewal: that is what makes
    /// concurrent callers share one.
    tokens: Mutex<Option<TokenSet>>,
    renew_margin_ms: i64,
    renewals: AtomicU64,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let account = match &self.renewal {
            Renewal::User { username, .. } => format!("user {username}"),
            Renewal::Partner(p) => format!("partner {}", p.client_id()),
        };
        f.debug_struct("Session")
            .field("base_url", &self.config.base_url.as_str())
            .field("account", &account)
            .field("store", &self.store)
            .field("tokens", &"[redacted]")
            .field("renew_margin_ms", &self.renew_margin_ms)
            .finish()
    }
}

impl Session {
    /// Signs in an advertiser or agency user (`POST /v1/oauth2/authenticate`). With a
    /// store (which must be `Profile::user(config, username)`), the password and tokens
    /// are saved in the OS keyring; a keyring failure fails the sign-in.
    pub async fn user(
        config: &ClientConfig,
        username: &str,
        password: SecretString,
        store: Option<TokenStore>,
    ) -> Result<Session> {
        check_store(&store, &Profile::user(config, username))?;
        let tokens = auth::authenticate(config, username, &password).await?;
        let session = Session::new(
            config,
            Renewal::User {
                username: username.to_owned(),
                password,
            },
            store,
            tokens,
        );
        session.save_all().await?;
        Ok(session)
    }

    /// A session from a data partner's tokens (from [`PartnerAuth::finish`]). With a
    /// store (which must be `Profile::partner(config, client_id)`), the client secret and
    /// tokens are saved in the OS keyring.
    pub async fn partner(
        config: &ClientConfig,
        auth: PartnerAuth,
        tokens: TokenSet,
        store: Option<TokenStore>,
    ) -> Result<Session> {
        if auth.base_url() != &config.base_url {
            return Err(Error::Config(
                "the partner sign-in was made for another service address".into(),
            ));
        }
        check_store(&store, &Profile::partner(config, auth.client_id()))?;
        let session = Session::new(config, Renewal::Partner(Box::new(auth)), store, tokens);
        session.save_all().await?;
        Ok(session)
    }

    /// The session saved in the keyring for `store`'s profile, or `None` when there is
    /// none (never signed in, signed out, or ended). A partner session restored this way
    /// renews its tokens; starting a new partner sign-in needs a [`PartnerAuth`] with
    /// the redirect URI of the moment.
    pub async fn restore(config: &ClientConfig, store: TokenStore) -> Result<Option<Session>> {
        let profile = store.profile().clone();
        let expected = match profile.kind {
            AccountKind::User => Profile::user(config, &profile.account),
            AccountKind::Partner => Profile::partner(config, &profile.account),
        };
        if expected != profile {
            return Err(Error::Config(format!(
                "the saved sign-in ({profile}) is for another service address"
            )));
        }
        let Some(tokens) = blocking(&store, TokenStore::load_tokens).await? else {
            return Ok(None);
        };
        let Some(secret) = blocking(&store, TokenStore::load_secret).await? else {
            // Tokens that cannot be renewed: treat as signed out and drop them.
            blocking(&store, TokenStore::clear_tokens).await?;
            return Ok(None);
        };
        let renewal = match profile.kind {
            AccountKind::User => Renewal::User {
                username: profile.account.clone(),
                password: secret,
            },
            AccountKind::Partner => {
                let redirect = Url::parse(DESKTOP_REDIRECT_URI)
                    .map_err(|e| Error::Config(format!("bad redirect URI: {e}")))?;
                Renewal::Partner(Box::new(PartnerAuth::new(
                    config,
                    profile.account.clone(),
                    secret,
                    redirect,
                )?))
            }
        };
        Ok(Some(Session::new(config, renewal, Some(store), tokens)))
    }

    fn new(
        config: &ClientConfig,
        renewal: Renewal,
        store: Option<TokenStore>,
        tokens: TokenSet,
    ) -> Session {
        Session {
            config: config.clone(),
            renewal,
            store,
            tokens: Mutex::new(Some(tokens)),
            renew_margin_ms: margin_ms(DEFAULT_RENEW_MARGIN),
            renewals: AtomicU64::new(0),
        }
    }

    /// Renew when the access token expires within `margin` (default
    /// [`DEFAULT_RENEW_MARGIN`]).
    pub fn with_renew_margin(mut self, margin: Duration) -> Session {
        self.renew_margin_ms = margin_ms(margin);
        self
    }

    /// Username or client id.
    pub fn account(&self) -> &str {
        match &self.renewal {
            Renewal::User { username, .. } => username,
            Renewal::Partner(p) => p.client_id(),
        }
    }

    /// The keyring store, if the session has one.
    pub fn store(&self) -> Option<&TokenStore> {
        self.store.as_ref()
    }

    /// How many renewals this session has sent to the service (for diagnostics and tests).
    pub fn renewal_count(&self) -> u64 {
        self.renewals.load(Ordering::SeqCst)
    }

    /// When the current access token expires (client clock, Unix ms); `None` once the
    /// session has ended.
    pub async fn expires_at_ms(&self) -> Option<i64> {
        self.tokens.lock().await.as_ref().map(|t| t.expires_at_ms)
    }

    /// The access token to send now, renewed first when it expires soon. When that early
    /// renewal fails on the network or the server, the current token is returned while
    /// it has not expired yet (by the client's clock).
    pub async fn bearer(&self) -> Result<SecretString> {
        let mut tokens = self.tokens.lock().await;
        let current = tokens.as_ref().ok_or_else(ended)?;
        if !current.expires_within(self.renew_margin_ms) {
            return Ok(current.access_token.clone());
        }
        match self.renew(&mut tokens).await {
            Err(e) if e.is_retryable() => match tokens.as_ref() {
                Some(t) if !t.expires_within(0) => Ok(t.access_token.clone()),
                _ => Err(e),
            },
            other => other,
        }
    }

    /// Called after the service answered 401 to `rejected`: renews once (concurrent
    /// callers share one renewal) and returns the token to retry with. A failed renewal
    /// is [`Error::SignInRequired`].
    pub async fn renew_after_rejection(&self, rejected: &SecretString) -> Result<SecretString> {
        let mut tokens = self.tokens.lock().await;
        let current = tokens.as_ref().ok_or_else(ended)?;
        if current.access_token.expose_secret() != rejected.expose_secret() {
            // Another request renewed while this one waited for the lock.
            return Ok(current.access_token.clone());
        }
        self.renew(&mut tokens).await
    }

    /// Ends the session: forgets the tokens and deletes the profile's keyring entries
    /// (tokens and the password or client secret).
    pub async fn sign_out(&self) -> Result<()> {
        let mut tokens = self.tokens.lock().await;
        *tokens = None;
        match &self.store {
            Some(store) => blocking(store, TokenStore::clear).await,
            None => Ok(()),
        }
    }

    /// Renews with the lock held. On a refusal the session ends.
    async fn renew(&self, tokens: &mut MutexGuard<'_, Option<TokenSet>>) -> Result<SecretString> {
        let refresh = tokens.as_ref().ok_or_else(ended)?.refresh_token.clone();
        let Some(refresh) = refresh else {
            return Err(self
                .end(
                    tokens,
                    "the ad platform gave no way to renew the sign-in".into(),
                )
                .await);
        };
        self.renewals.fetch_add(1, Ordering::SeqCst);
        let policy = RetryPolicy::default();
        let mut attempt = 1;
        let renewed = loop {
            let result = match &self.renewal {
                Renewal::User { username, password } => {
                    auth::refresh_user(&self.config, username, password, &refresh).await
                }
                Renewal::Partner(partner) => partner.refresh(&refresh).await,
            };
            let Some(outcome) = result.as_ref().err().and_then(passing_failure) else {
                break result;
            };
            match retry::decide(&policy, true, attempt, outcome, None, rand::random()) {
                Decision::RetryAfter(wait) => {
                    tracing::warn!(attempt, outcome = ?outcome, "renewing the sign-in failed; trying again");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Decision::Stop => break result,
            }
        };
        match renewed {
            Ok(new) => {
                tracing::info!(expires_at_ms = new.expires_at_ms, "sign-in renewed");
                let access = new.access_token.clone();
                let saved = match &self.store {
                    Some(store) => {
                        let new = new.clone();
                        blocking(store, move |s| s.save_tokens(&new)).await
                    }
                    None => Ok(()),
                };
                // The new tokens are valid either way; a keyring failure is still reported.
                **tokens = Some(new);
                saved.map(|()| access)
            }
            // Only these say the sign-in itself is no longer good (RFC 6749 §5.2): the
            // refresh token is revoked or expired, or the password or secret changed.
            // Any other refusal (a 429, a 408, a malformed request) leaves the session.
            Err(Error::Token {
                status,
                error,
                error_description,
            }) if error == "invalid_grant" || error == "invalid_client" => {
                tracing::warn!(status, error = %error, "the token endpoint refused the renewal; the session ends");
                let reason = if error_description.is_empty() {
                    format!("the ad platform refused to renew the sign-in ({error})")
                } else {
                    format!("the ad platform refused to renew the sign-in: {error_description}")
                };
                Err(self.end(tokens, reason).await)
            }
            // Network trouble or a server failure: keep the tokens, the caller may retry.
            Err(e) => {
                tracing::warn!(error = %e, "renewing the sign-in failed; the session stays");
                Err(e)
            }
        }
    }

    /// Ends the session after a failed renewal: forgets the tokens and deletes the saved
    /// ones (the secret stays for the next sign-in). Returns the error to give the caller.
    async fn end(&self, tokens: &mut MutexGuard<'_, Option<TokenSet>>, reason: String) -> Error {
        **tokens = None;
        if let Some(store) = &self.store {
            // Best effort: the session has ended whether or not the keyring answers.
            let _ = blocking(store, TokenStore::clear_tokens).await;
        }
        Error::SignInRequired { reason }
    }

    /// Saves the secret and the current tokens to the store, if any.
    async fn save_all(&self) -> Result<()> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let secret = match &self.renewal {
            Renewal::User { password, .. } => password.clone(),
            Renewal::Partner(p) => p.client_secret().clone(),
        };
        let tokens = self.tokens.lock().await.clone().ok_or_else(ended)?;
        blocking(store, move |s| {
            s.save_secret(&secret)?;
            s.save_tokens(&tokens)
        })
        .await
    }
}

/// The error of a session that has already ended.
fn ended() -> Error {
    Error::SignInRequired {
        reason: "signed out, or the sign-in could not be renewed earlier".into(),
    }
}

fn margin_ms(margin: Duration) -> i64 {
    i64::try_from(margin.as_millis()).unwrap_or(i64::MAX)
}

fn check_store(store: &Option<TokenStore>, expected: &Profile) -> Result<()> {
    match store {
        Some(s) if s.profile() != expected => Err(Error::Config(format!(
            "the token store is for {}, not for {expected}",
            s.profile()
        ))),
        _ => Ok(()),
    }
}

/// Runs a keyring operation off the async threads (the platform store blocks).
async fn blocking<T, F>(store: &TokenStore, op: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&TokenStore) -> Result<T> + Send + 'static,
{
    let store = store.clone();
    tokio::task::spawn_blocking(move || op(&store))
        .await
        .map_err(|_| Error::Keyring {
            message: "The OS keyring did not answer (the keyring task stopped).".into(),
        })?
}
