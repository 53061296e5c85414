//! Sign-in tokens and the secret that renews them, kept only in the OS keyring
//! (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows) through the
//! `keyring` crate. There is no fallback: without a keyring, nothing is stored and the
//! caller gets [`Error::Keyring`] in plain words.
//!
//! Entries are namespaced per [`Profile`] (service root + kind + account). Each is a
//! keyring item with service `flightdeck` and user
//!
//! - `<base_url>#<kind>:<account>#access`: the access token and its expiry, as versioned
//!   JSON;
//! - `<base_url>#<kind>:<account>#refresh`: the refresh token, as versioned JSON (absent
//!   when the service sent none);
//! - `<base_url>#<kind>:<account>#secret`: the password (users) or client secret (data
//!   partners) that renewing the tokens needs,
//!
//! where `<base_url>` is the normalised service root (`http://127.0.0.1:8700/`), `<kind>`
//! is `user` or `partner` (so a username never collides with a client id), and `#` and
//! `%` in the account are percent-encoded. Every operation opens a fresh
//! `keyring::Entry`, so nothing is cached in process memory.
//!
//! One entry per token, because Windows Credential Manager holds at most
//! [`MAX_ENTRY_BYTES`] (2,560 bytes) per entry, and the tokens of a real identity provider
//! (RS256 JWTs of 1–1.5 KB each) do not fit one entry together. The tokens are written as
//! UTF-8 bytes (`set_secret`), since `set_password` stores UTF-16 on Windows and would
//! halve that room. An entry over the limit is refused before anything is written
//! ([`Error::KeyringEntryTooLarge`]), on every platform, so a sign-in that works on Linux
//! works on Windows too.
//!
//! Versions up to 1 kept every token (and the ID token, no longer kept) in one entry,
//! `…#tokens`. It is still read, and moved to the two entries on the first read, so a
//! signed-in user stays signed in.
//!
//! The calls block on the platform store (D-Bus on Linux); async code runs them with
//! `tokio::task::spawn_blocking`, as [`Session`](crate::session::Session) does.

use std::fmt;
use std::time::Duration;

use rand::Rng;
use secrecy::{ExposeSecret, SecretString};

use crate::auth::TokenSet;
use crate::config::ClientConfig;
use crate::error::{Error, Result};

/// The keyring service name of every Flightdeck entry. Development builds use their own,
/// so running the app from source never reads or overwrites an installed app's sign-in.
pub const SERVICE: &str = if cfg!(debug_assertions) {
    "flightdeck-dev"
} else {
    "flightdeck"
};

/// What an account signs in as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccountKind {
    /// An advertiser or agency user (username and password).
    User,
    /// A data partner (client id and secret).
    Partner,
}

impl AccountKind {
    fn as_str(self) -> &'static str {
        match self {
            AccountKind::User => "user",
            AccountKind::Partner => "partner",
        }
    }
}

/// Whose tokens: one service root and one account on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Profile {
    /// The service root, as normalised by [`ClientConfig`] (with a trailing slash).
    pub base_url: String,
    /// Username (users) or client id (data partners).
    pub account: String,
    /// Which of the two `account` is.
    pub kind: AccountKind,
}

impl Profile {
    /// A user's profile on the service of `config`.
    pub fn user(config: &ClientConfig, username: &str) -> Profile {
        Profile::new(config, username, AccountKind::User)
    }

    /// A data partner's profile on the service of `config`.
    pub fn partner(config: &ClientConfig, client_id: &str) -> Profile {
        Profile::new(config, client_id, AccountKind::Partner)
    }

    fn new(config: &ClientConfig, account: &str, kind: AccountKind) -> Profile {
        let mut base = config.base_url.clone();
        base.set_fragment(None);
        Profile {
            base_url: base.to_string(),
            account: account.to_owned(),
            kind,
        }
    }

    /// The keyring user name of one of the profile's entries.
    fn key(&self, what: &str) -> String {
        let account = self.account.replace('%', "%25").replace('#', "%23");
        format!("{}#{}:{account}#{what}", self.base_url, self.kind.as_str())
    }
}

/// The keyring entries of one [`Profile`]. `Debug` shows the profile only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenStore {
    profile: Profile,
}

const ACCESS: &str = "access";
const REFRESH: &str = "refresh";
/// The one entry of every token that versions up to 1 wrote.
const LEGACY_TOKENS: &str = "tokens";
const SECRET: &str = "secret";

/// Most bytes one keyring entry holds on every platform: Windows Credential Manager's
/// `CRED_MAX_CREDENTIAL_BLOB_SIZE` (5 × 512 bytes).
pub const MAX_ENTRY_BYTES: usize = 2560;

impl TokenStore {
    /// The store of `profile`. Nothing is read or written yet.
    pub fn new(profile: Profile) -> TokenStore {
        TokenStore { profile }
    }

    /// Whose entries these are.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Checks that the OS keyring works: writes, reads back and deletes a throwaway entry.
    /// Call it at start to tell the user early when there is no keyring.
    pub fn probe() -> Result<()> {
        let key = format!("probe#{:016x}", rand::rng().random::<u64>());
        let value = format!("{:016x}", rand::rng().random::<u64>());
        retried(|| entry(&key)?.set_password(&value))?;
        let read = entry_fresh_read(&key);
        let deleted = retried(|| entry(&key)?.delete_credential());
        match read? {
            Some(v) if v.expose_secret() == value => deleted,
            _ => Err(Error::Keyring {
                message: "The OS keyring accepted an entry but did not give it back, so \
                          Flightdeck cannot keep you signed in. Check the keyring (GNOME \
                          Keyring or KWallet) and try again."
                    .into(),
            }),
        }
    }

    /// Saves (replaces) the tokens.
    ///
    /// Both entries are checked against [`MAX_ENTRY_BYTES`] before anything is written,
    /// so tokens that cannot be kept replace nothing. The refresh token is written first:
    /// if the access token's write then fails, the entries hold the previous access token
    /// (with its own expiry) and the newest refresh token, which renews it; a rotated
    /// refresh token is never lost for an access token.
    pub fn save_tokens(&self, tokens: &TokenSet) -> Result<()> {
        let access = tokens.access_keyring_json()?;
        let refresh = tokens.refresh_keyring_json()?;
        fits("access token", &access)?;
        if let Some(refresh) = &refresh {
            fits("refresh token", refresh)?;
        }
        if let Some(refresh) = &refresh {
            self.set_bytes(REFRESH, refresh)?;
        }
        self.set_bytes(ACCESS, &access)?;
        if refresh.is_none() {
            self.delete(REFRESH)?;
        }
        // The new entries are in: an old single entry is now stale.
        if let Err(e) = self.delete(LEGACY_TOKENS) {
            tracing::warn!(error = %e, "the keyring's old token entry could not be deleted");
        }
        Ok(())
    }

    /// The saved tokens; `None` when there are none. Tokens found only in the single
    /// entry of versions up to 1 are moved to their own entries; if that move fails, the
    /// old entry stays and is read again next time.
    pub fn load_tokens(&self) -> Result<Option<TokenSet>> {
        match self.read_tokens()? {
            Some((tokens, Stored::Legacy)) => {
                if let Err(e) = self.save_tokens(&tokens) {
                    tracing::warn!(error = %e, "the keyring's old token entry could not be split");
                }
                Ok(Some(tokens))
            }
            Some((tokens, Stored::Current)) => Ok(Some(tokens)),
            None => Ok(None),
        }
    }

    /// The saved tokens and which entries held them, changing nothing.
    fn read_tokens(&self) -> Result<Option<(TokenSet, Stored)>> {
        if let Some(access) = self.get_bytes(ACCESS)? {
            let refresh = self.get_bytes(REFRESH)?;
            let tokens = TokenSet::from_keyring_json(&access, refresh.as_ref())?;
            return Ok(Some((tokens, Stored::Current)));
        }
        match self.get(LEGACY_TOKENS)? {
            Some(json) => {
                let tokens = TokenSet::from_legacy_keyring_json(&json)?;
                Ok(Some((tokens, Stored::Legacy)))
            }
            None => Ok(None),
        }
    }

    /// Saves (replaces) the password or client secret.
    pub fn save_secret(&self, secret: &SecretString) -> Result<()> {
        self.set(SECRET, secret)
    }

    /// The saved password or client secret; `None` when there is none.
    pub fn load_secret(&self) -> Result<Option<SecretString>> {
        self.get(SECRET)
    }

    /// Deletes the tokens only (the session ended; the secret may serve the next sign-in).
    /// Every token entry is tried; the first failure is returned.
    pub fn clear_tokens(&self) -> Result<()> {
        let access = self.delete(ACCESS);
        let refresh = self.delete(REFRESH);
        let legacy = self.delete(LEGACY_TOKENS);
        access.and(refresh).and(legacy)
    }

    /// Deletes every entry of the profile. Entries of other profiles are untouched.
    pub fn clear(&self) -> Result<()> {
        let tokens = self.clear_tokens();
        let secret = self.delete(SECRET);
        tokens.and(secret)
    }

    /// Moves every entry of this profile to `to` (the same account at a new address),
    /// leaving none here; a no-op when there are none. Copied first and deleted after,
    /// so a failure in between leaves a copy rather than none.
    pub fn move_to(&self, to: &TokenStore) -> Result<()> {
        let tokens = self.read_tokens()?;
        let secret = self.get(SECRET)?;
        if let Some((t, _)) = &tokens {
            to.save_tokens(t)?;
        }
        if let Some(s) = &secret {
            to.set(SECRET, s)?;
        }
        self.clear()
    }

    /// Writes `value` as UTF-8 bytes: `set_password` would store UTF-16 on Windows.
    fn set_bytes(&self, what: &str, value: &SecretString) -> Result<()> {
        let key = self.profile.key(what);
        retried(|| entry(&key)?.set_secret(value.expose_secret().as_bytes()))
    }

    /// Reads an entry written by [`TokenStore::set_bytes`].
    fn get_bytes(&self, what: &str) -> Result<Option<SecretString>> {
        let key = self.profile.key(what);
        match retried_raw(|| entry(&key)?.get_secret()) {
            Ok(bytes) => String::from_utf8(bytes)
                .map(|text| Some(SecretString::from(text)))
                .map_err(|_| keyring_error(keyring::Error::BadEncoding(Vec::new()))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(keyring_error(e)),
        }
    }

    fn set(&self, what: &str, value: &SecretString) -> Result<()> {
        let key = self.profile.key(what);
        retried(|| entry(&key)?.set_password(value.expose_secret()))
    }

    fn get(&self, what: &str) -> Result<Option<SecretString>> {
        entry_fresh_read(&self.profile.key(what))
    }

    fn delete(&self, what: &str) -> Result<()> {
        let key = self.profile.key(what);
        match retried_raw(|| entry(&key)?.delete_credential()) {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(keyring_error(e)),
        }
    }
}

/// Where the tokens were found.
enum Stored {
    /// Their own entries.
    Current,
    /// The single entry of versions up to 1.
    Legacy,
}

/// Refuses an entry larger than [`MAX_ENTRY_BYTES`], naming the token, never its value.
fn fits(entry: &'static str, value: &SecretString) -> Result<()> {
    let bytes = value.expose_secret().len();
    if bytes > MAX_ENTRY_BYTES {
        return Err(Error::KeyringEntryTooLarge {
            entry,
            bytes,
            limit: MAX_ENTRY_BYTES,
        });
    }
    Ok(())
}

fn entry(key: &str) -> keyring::Result<keyring::Entry> {
    keyring::Entry::new(SERVICE, key)
}

/// How long to wait before the second try of a keyring call.
const RETRY_AFTER: Duration = Duration::from_millis(250);

/// A keyring call, tried once more after a platform failure. Every call opens its own
/// D-Bus connection, and when gnome-keyring-daemon dies under a call (it aborts on some
/// races between clients), D-Bus starts it again on demand: the call fails once and the
/// next one works. A locked or refused keyring (`NoStorageAccess`) is not tried again,
/// since that would prompt the user a second time.
fn retried_raw<T>(call: impl Fn() -> keyring::Result<T>) -> keyring::Result<T> {
    match call() {
        Err(keyring::Error::PlatformFailure(_)) => {
            std::thread::sleep(RETRY_AFTER);
            call()
        }
        other => other,
    }
}

fn retried<T>(call: impl Fn() -> keyring::Result<T>) -> Result<T> {
    retried_raw(call).map_err(keyring_error)
}

/// Reads through a new `Entry`, so the value comes from the platform store.
fn entry_fresh_read(key: &str) -> Result<Option<SecretString>> {
    match retried_raw(|| entry(key)?.get_password()) {
        Ok(value) => Ok(Some(SecretString::from(value))),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(keyring_error(e)),
    }
}

/// The message when no keyring can be reached.
pub const NO_KEYRING: &str = "No OS keyring is available: Flightdeck keeps sign-in tokens only \
     in the system keyring (Secret Service on Linux). Start GNOME Keyring or KWallet and try again.";

/// A keyring failure in plain words. Never includes stored values (`BadEncoding` and
/// `Ambiguous` carry them, so their payloads are not shown).
fn keyring_error(e: keyring::Error) -> Error {
    let message = match &e {
        keyring::Error::PlatformFailure(detail) => format!("{NO_KEYRING} (Details: {detail})"),
        keyring::Error::NoStorageAccess(detail) => format!(
            "The OS keyring is locked or refused access: Flightdeck keeps sign-in tokens only \
             in the system keyring (Secret Service on Linux). Unlock it (or start GNOME \
             Keyring or KWallet) and try again. (Details: {detail})"
        ),
        keyring::Error::BadEncoding(_) => "An entry Flightdeck saved in the OS keyring is \
             damaged; sign out and sign in again."
            .into(),
        keyring::Error::Ambiguous(items) => format!(
            "The OS keyring holds {} entries where Flightdeck expects one; remove the \
             \"{SERVICE}\" duplicates in the keyring manager and sign in again.",
            items.len()
        ),
        keyring::Error::TooLong(attribute, limit) => format!(
            "The OS keyring refused Flightdeck's entry: its {attribute} is longer than \
             {limit} characters."
        ),
        keyring::Error::Invalid(attribute, reason) => {
            format!("The OS keyring refused Flightdeck's entry: {attribute} is invalid ({reason}).")
        }
        keyring::Error::NoEntry => "The OS keyring has no such entry.".into(),
        _ => "The OS keyring failed; try again, or restart GNOME Keyring or KWallet.".into(),
    };
    Error::Keyring { message }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} on {}",
            self.kind.as_str(),
            self.account,
            self.base_url
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn keys_are_namespaced_and_unambiguous() {
        let config = ClientConfig::new("http://127.0.0.1:8700").unwrap();
        assert_eq!(
            Profile::user(&config, "demo").key(ACCESS),
            "http://127.0.0.1:8700/#user:demo#access"
        );
        assert_eq!(
            Profile::partner(&config, "demo").key(SECRET),
            "http://127.0.0.1:8700/#partner:demo#secret"
        );
        assert_eq!(
            Profile::user(&config, "a#tokens").key(SECRET),
            "http://127.0.0.1:8700/#user:a%23tokens#secret"
        );
    }

    fn failing_then(
        first: keyring::Error,
    ) -> (
        std::cell::Cell<u32>,
        impl Fn(&std::cell::Cell<u32>) -> keyring::Result<&'static str>,
    ) {
        let first = std::cell::RefCell::new(Some(first));
        (
            std::cell::Cell::new(0),
            move |calls: &std::cell::Cell<u32>| {
                calls.set(calls.get() + 1);
                match first.borrow_mut().take() {
                    Some(e) => Err(e),
                    None => Ok("value"),
                }
            },
        )
    }

    #[test]
    fn a_keyring_daemon_that_died_under_a_call_is_asked_again() {
        let (calls, call) = failing_then(keyring::Error::PlatformFailure(
            "Message recipient disconnected from message bus without replying".into(),
        ));
        assert_eq!(retried(|| call(&calls)).unwrap(), "value");
        assert_eq!(calls.get(), 2);
    }

    #[test]
    fn a_locked_keyring_is_not_asked_twice() {
        let (calls, call) = failing_then(keyring::Error::NoStorageAccess("locked".into()));
        let err = retried(|| call(&calls)).unwrap_err();
        assert!(err.to_string().contains("locked or refused"), "{err}");
        assert_eq!(calls.get(), 1);
    }
}
