//! Sign-in flows and the tokens they produce.
//!
//! - Advertisers and agencies sign in with their service-issued username and password:
//!   [`authenticate`] (`POST /v1/oauth2/authenticate`, HTTP Basic) and [`refresh_user`]
//!   (`POST /v1/oauth2/token` with `X-Auth-Type: user`). These two are plain requests:
//!   they are not OAuth2 grants the `oauth2` crate models.
//! - Data partners use the authorization-code flow with PKCE through the `oauth2` crate:
//!   [`PartnerAuth`], with [`LoopbackListener`] to receive the browser's redirect on
//!   `http://127.0.0.1:PORT/callback` (RFC 8252) when no custom URL scheme is registered.
//!
//! Every request goes through [`ClientConfig::http_client`], which never follows
//! redirects, so credentials and codes cannot be forwarded to a third party.
//!
//! Secrets (passwords, client secrets, tokens, codes, PKCE verifiers) are held as
//! [`SecretString`] and never appear in `Debug` output or error text. A token endpoint's
//! raw body kept in [`Error::Decode`] has its token values replaced by `[redacted]`.

mod loopback;
mod partner;

use std::fmt;

use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use crate::clock::now_ms;
use crate::config::ClientConfig;
use crate::error::{Error, Result, TransportKind};

pub use loopback::LoopbackListener;
pub use partner::{DESKTOP_REDIRECT_URI, PartnerAuth, PendingAuthorization, PkceMethod};

/// Lifetime assumed when a token answer has no `expires_in` (the spec always shows
/// 86400 s; one hour errs on the side of renewing early).
const DEFAULT_EXPIRES_IN_S: u64 = 3600;

/// What a sign-in or a renewal produced.
///
/// The ID token that token answers also carry is not kept: nothing reads it, and with
/// it the tokens of a real identity provider do not fit one Windows keyring entry.
///
/// `Debug` shows only the expiry and whether a refresh token is present. The only
/// serialised forms are the JSON entries kept in the OS keyring (see
/// [`TokenStore`](crate::token_store::TokenStore)); there is deliberately no `Serialize`.
#[derive(Clone)]
pub struct TokenSet {
    /// `Authorization: Bearer` value for business and audience calls (a JWT).
    pub access_token: SecretString,
    /// Opaque token that renews the access token; `None` when the service sent none.
    pub refresh_token: Option<SecretString>,
    /// When the access token expires, in Unix milliseconds by the client's clock
    /// (time of the answer + `expires_in`).
    pub expires_at_ms: i64,
}

impl fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSet")
            .field("access_token", &"[redacted]")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "[redacted]"),
            )
            .field("expires_at_ms", &self.expires_at_ms)
            .finish()
    }
}

/// The keyring entry of the access token: versioned JSON, with the expiry that belongs
/// to this access token, so the two are always written together.
#[derive(Serialize)]
struct StoredAccessOut<'a> {
    v: u32,
    access_token: &'a str,
    expires_at_ms: i64,
}

/// The keyring entry of the refresh token: versioned JSON.
#[derive(Serialize)]
struct StoredRefreshOut<'a> {
    v: u32,
    refresh_token: &'a str,
}

/// Read side of [`StoredAccessOut`]. No `Debug`: it holds a secret in the clear.
#[derive(Deserialize)]
struct StoredAccessIn {
    v: u32,
    access_token: String,
    expires_at_ms: i64,
}

/// Read side of [`StoredRefreshOut`]. No `Debug`: it holds a secret in the clear.
#[derive(Deserialize)]
struct StoredRefreshIn {
    v: u32,
    refresh_token: String,
}

/// The single entry of every token that versions up to 1 wrote (`…#tokens`). Its ID
/// token is skipped. No `Debug`: it holds secrets in the clear.
#[derive(Deserialize)]
struct LegacyTokensIn {
    v: u32,
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    expires_at_ms: i64,
}

const STORED_TOKENS_VERSION: u32 = 2;
const LEGACY_TOKENS_VERSION: u32 = 1;

fn damaged() -> Error {
    Error::Keyring {
        message: "The sign-in entry Flightdeck saved in the OS keyring is damaged; \
                  sign out and sign in again."
            .into(),
    }
}

fn keyring_json<T: Serialize>(value: &T) -> Result<SecretString> {
    serde_json::to_string(value)
        .map(SecretString::from)
        .map_err(|_| Error::Keyring {
            message: "Flightdeck could not prepare the sign-in tokens for the OS keyring.".into(),
        })
}

impl TokenSet {
    /// Whether the access token expires within `margin_ms` from now (client clock).
    pub fn expires_within(&self, margin_ms: i64) -> bool {
        self.expires_at_ms.saturating_sub(now_ms()) <= margin_ms
    }

    /// The access token's keyring entry. Only
    /// [`TokenStore`](crate::token_store::TokenStore) calls this.
    pub(crate) fn access_keyring_json(&self) -> Result<SecretString> {
        keyring_json(&StoredAccessOut {
            v: STORED_TOKENS_VERSION,
            access_token: self.access_token.expose_secret(),
            expires_at_ms: self.expires_at_ms,
        })
    }

    /// The refresh token's keyring entry; `None` when there is no refresh token.
    pub(crate) fn refresh_keyring_json(&self) -> Result<Option<SecretString>> {
        self.refresh_token
            .as_ref()
            .map(|t| {
                keyring_json(&StoredRefreshOut {
                    v: STORED_TOKENS_VERSION,
                    refresh_token: t.expose_secret(),
                })
            })
            .transpose()
    }

    /// Reads the entries written by [`TokenSet::access_keyring_json`] and
    /// [`TokenSet::refresh_keyring_json`].
    pub(crate) fn from_keyring_json(
        access: &SecretString,
        refresh: Option<&SecretString>,
    ) -> Result<TokenSet> {
        let stored: StoredAccessIn =
            serde_json::from_str(access.expose_secret()).map_err(|_| damaged())?;
        if stored.v != STORED_TOKENS_VERSION {
            return Err(damaged());
        }
        let refresh_token = match refresh {
            Some(json) => {
                let stored: StoredRefreshIn =
                    serde_json::from_str(json.expose_secret()).map_err(|_| damaged())?;
                if stored.v != STORED_TOKENS_VERSION {
                    return Err(damaged());
                }
                Some(stored.refresh_token.into())
            }
            None => None,
        };
        Ok(TokenSet {
            access_token: stored.access_token.into(),
            refresh_token,
            expires_at_ms: stored.expires_at_ms,
        })
    }

    /// Reads the single entry of every token written by earlier versions.
    pub(crate) fn from_legacy_keyring_json(json: &SecretString) -> Result<TokenSet> {
        let stored: LegacyTokensIn =
            serde_json::from_str(json.expose_secret()).map_err(|_| damaged())?;
        if stored.v != LEGACY_TOKENS_VERSION {
            return Err(damaged());
        }
        Ok(TokenSet {
            access_token: stored.access_token.into(),
            refresh_token: stored.refresh_token.map(SecretString::from),
            expires_at_ms: stored.expires_at_ms,
        })
    }

    /// Builds a set from a token answer received now.
    fn received(
        access_token: String,
        refresh_token: Option<String>,
        expires_in_s: Option<u64>,
    ) -> TokenSet {
        let lifetime_ms = expires_in_s
            .unwrap_or(DEFAULT_EXPIRES_IN_S)
            .saturating_mul(1000);
        TokenSet {
            access_token: access_token.into(),
            refresh_token: refresh_token.map(SecretString::from),
            expires_at_ms: now_ms().saturating_add(i64::try_from(lifetime_ms).unwrap_or(i64::MAX)),
        }
    }
}

// ---------------------------------------------------------------------------------
// Advertisers and agencies

/// Signs in an advertiser or agency user: `POST /v1/oauth2/authenticate` with HTTP Basic
/// `username:password` and no body. The answer includes a refresh token.
///
/// A refusal is [`Error::Token`] (a wrong password is `invalid_grant`).
pub async fn authenticate(
    config: &ClientConfig,
    username: &str,
    password: &SecretString,
) -> Result<TokenSet> {
    let http = config.http_client()?;
    let request = http
        .post(config.url("/v1/oauth2/authenticate")?)
        .basic_auth(username, Some(password.expose_secret()));
    token_call(request).await
}

/// Renews a user's access token: `POST /v1/oauth2/token` with HTTP Basic
/// `username:password`, `X-Auth-Type: user` and the form
/// `grant_type=refresh_token&refresh_token=…`.
///
/// The service's answer has no refresh token; the one passed in is kept in the result.
pub async fn refresh_user(
    config: &ClientConfig,
    username: &str,
    password: &SecretString,
    refresh_token: &SecretString,
) -> Result<TokenSet> {
    let http = config.http_client()?;
    let request = http
        .post(config.url("/v1/oauth2/token")?)
        .basic_auth(username, Some(password.expose_secret()))
        .header("X-Auth-Type", "user")
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token.expose_secret()),
        ]);
    let mut tokens = token_call(request).await?;
    if tokens.refresh_token.is_none() {
        tokens.refresh_token = Some(refresh_token.clone());
    }
    Ok(tokens)
}

/// Largest token answer read: a few tokens and numbers fit in a few kilobytes.
pub(crate) const TOKEN_ANSWER_MAX: usize = 1024 * 1024;

/// A token endpoint's body, refused beyond [`TOKEN_ANSWER_MAX`] so a hostile server
/// cannot exhaust memory.
pub(crate) async fn read_token_answer(mut response: reqwest::Response) -> Result<Vec<u8>> {
    let status = response.status();
    crate::client::read_capped(&mut response, TOKEN_ANSWER_MAX)
        .await
        .map_err(|e| transport_error(&e))?
        .ok_or_else(|| crate::client::too_large(status, TOKEN_ANSWER_MAX))
}

/// A token answer as sent; its ID token is not read (see [`TokenSet`]). No `Debug`: it
/// holds secrets in the clear.
#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
}

/// `{error, error_description}` of a token endpoint.
#[derive(Deserialize)]
struct TokenErrorAnswer {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// Sends a token request and reads the answer.
async fn token_call(request: reqwest::RequestBuilder) -> Result<TokenSet> {
    use tracing::Instrument;
    let (http, request) = request.build_split();
    let request = request.map_err(|e| transport_error(&e))?;
    // Method and path only: the credentials ride in a header and the form.
    let span =
        tracing::debug_span!("request", method = %request.method(), path = %request.url().path());
    token_exchange(&http, request).instrument(span).await
}

async fn token_exchange(http: &reqwest::Client, request: reqwest::Request) -> Result<TokenSet> {
    let response = http
        .execute(request)
        .await
        .map_err(|e| transport_error(&e))?;
    let status = response.status().as_u16();
    tracing::debug!(status, "token endpoint answered");
    let body = read_token_answer(response).await?;
    if status == 200 {
        let answer: TokenAnswer =
            serde_json::from_slice(&body).map_err(|e| decode_error(status, &e, &body))?;
        return Ok(TokenSet::received(
            answer.access_token,
            answer.refresh_token,
            answer.expires_in,
        ));
    }
    match serde_json::from_slice::<TokenErrorAnswer>(&body) {
        Ok(answer) => Err(Error::Token {
            status,
            error: answer.error,
            error_description: answer.error_description.unwrap_or_default(),
        }),
        Err(e) => Err(decode_error(status, &e, &body)),
    }
}

// ---------------------------------------------------------------------------------
// Error mapping shared by both flows

/// A reqwest failure as [`Error::Transport`], with the source chain as detail. Token
/// endpoint URLs carry no secrets, so the detail may name them.
pub(crate) fn transport_error(e: &reqwest::Error) -> Error {
    let kind = if e.is_timeout() {
        TransportKind::Timeout
    } else if e.is_connect() {
        TransportKind::Connect
    } else {
        TransportKind::Other
    };
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        detail.push_str(": ");
        detail.push_str(&s.to_string());
        source = s.source();
    }
    Error::Transport { kind, detail }
}

/// An unreadable token answer. serde_json's message can quote the offending value (a
/// token), so only its category and position are kept.
fn decode_error(status: u16, e: &serde_json::Error, body: &[u8]) -> Error {
    Error::Decode {
        status,
        detail: format!(
            "token answer is not the expected JSON ({:?} error at line {} column {})",
            e.classify(),
            e.line(),
            e.column()
        ),
        raw_body: redacted_body(body),
    }
}

/// Names whose values are secrets wherever they appear in a token answer.
const SECRET_FIELDS: [&str; 7] = [
    "access_token",
    "id_token",
    "refresh_token",
    "code",
    "code_verifier",
    "password",
    "client_secret",
];

/// A token endpoint's body for the log: JSON with secret fields replaced, or the text
/// (cut to 2000 characters) when it is not JSON.
pub(crate) fn redacted_body(body: &[u8]) -> String {
    fn scrub(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if SECRET_FIELDS.contains(&k.as_str()) {
                        *v = serde_json::Value::String("[redacted]".into());
                    } else {
                        scrub(v);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(scrub),
            _ => {}
        }
    }
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(mut v) => {
            scrub(&mut v);
            v.to_string()
        }
        Err(_) => String::from_utf8_lossy(body).chars().take(2000).collect(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn sample() -> TokenSet {
        TokenSet {
            access_token: "acc-SECRET-1".into(),
            refresh_token: Some("ref-SECRET-3".into()),
            expires_at_ms: 42,
        }
    }

    #[test]
    fn debug_hides_every_token() {
        let text = format!("{:?} {:#?}", sample(), sample());
        assert!(!text.contains("SECRET"), "{text}");
        assert!(text.contains("expires_at_ms: 42"), "{text}");
    }

    #[test]
    fn keyring_json_round_trips() {
        let tokens = sample();
        let access = tokens.access_keyring_json().unwrap();
        let refresh = tokens.refresh_keyring_json().unwrap().unwrap();
        let back = TokenSet::from_keyring_json(&access, Some(&refresh)).unwrap();
        assert_eq!(back.access_token.expose_secret(), "acc-SECRET-1");
        assert_eq!(
            back.refresh_token.as_ref().map(|t| t.expose_secret()),
            Some("ref-SECRET-3")
        );
        assert_eq!(back.expires_at_ms, 42);
        let back = TokenSet::from_keyring_json(&access, None).unwrap();
        assert!(back.refresh_token.is_none());
        let damaged = TokenSet::from_keyring_json(&"{\"v\":9}".into(), None).unwrap_err();
        assert!(matches!(damaged, Error::Keyring { .. }));
        let legacy = TokenSet::from_legacy_keyring_json(&access).unwrap_err();
        assert!(matches!(legacy, Error::Keyring { .. }));
    }

    #[test]
    fn decode_errors_never_carry_tokens() {
        let body = br#"{"access_token":"acc-SECRET","expires_in":"7","refresh_token":"r-SECRET"}"#;
        let e = serde_json::from_slice::<TokenAnswer>(body).err().unwrap();
        let err = decode_error(200, &e, body);
        let text = format!("{err} {err:?}");
        assert!(!text.contains("SECRET"), "{text}");
        assert!(text.contains("[redacted]"), "{text}");
    }
}
