//! The `Authorization` header read into [`Credentials`], and the axum extractors that
//! turn it into a [`Caller`] for a handler.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::grants::grant_revoked;
use crate::AppState;
use crate::error::{Error, Result};

use super::{
    BAD_USER_PASSWORD, Caller, INVALID_TOKEN, JWT_REQUIRED, MISSING_CREDENTIALS, PARTNER_TOKEN,
    REVOKED_TOKEN, authenticate_user, user_by_id,
};

/// Credentials in an `Authorization` header.
pub enum Credentials {
    /// `Bearer <token>`.
    Bearer(String),
    /// `Basic base64(name:secret)`.
    Basic {
        /// Username or client id.
        name: String,
        /// Password or client secret.
        secret: String,
    },
}

impl std::fmt::Debug for Credentials {
    /// Secrets are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credentials::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            Credentials::Basic { name, .. } => f
                .debug_struct("Basic")
                .field("name", name)
                .finish_non_exhaustive(),
        }
    }
}

/// Why an `Authorization` header could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderProblem {
    /// No `Authorization` header.
    Missing,
    /// A scheme other than Bearer or Basic, or an unreadable value.
    Malformed(&'static str),
}

/// Reads the `Authorization` header (schemes are case-insensitive).
pub fn credentials(headers: &HeaderMap) -> Result<Credentials, HeaderProblem> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(HeaderProblem::Missing);
    };
    let value = value
        .to_str()
        .map_err(|_| HeaderProblem::Malformed("the Authorization header is not readable text"))?;
    let (scheme, rest) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    let rest = rest.trim();
    if scheme.eq_ignore_ascii_case("bearer") {
        if rest.is_empty() {
            return Err(HeaderProblem::Malformed("the Bearer token is empty"));
        }
        return Ok(Credentials::Bearer(rest.to_owned()));
    }
    if scheme.eq_ignore_ascii_case("basic") {
        let decoded = STANDARD
            .decode(rest)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or(HeaderProblem::Malformed(
                "the Basic credentials are not base64 of name:secret",
            ))?;
        let (name, secret) = decoded.split_once(':').ok_or(HeaderProblem::Malformed(
            "the Basic credentials are not base64 of name:secret",
        ))?;
        return Ok(Credentials::Basic {
            name: name.to_owned(),
            secret: secret.to_owned(),
        });
    }
    Err(HeaderProblem::Malformed(
        "unsupported Authorization scheme: use Bearer or Basic",
    ))
}

/// Resolves an access token to its caller (the user must still exist in the account
/// the token names). The error is the message for the caller.
async fn bearer_caller(state: &AppState, token: &str) -> Result<Result<Caller, &'static str>> {
    let claims = match state.keys.decode_access(token, state.clock.now_ms()) {
        Ok(c) => c,
        Err(p) => return Ok(Err(p.message())),
    };
    let Ok(user_id) = claims.sub.parse::<i64>() else {
        return Ok(Err(INVALID_TOKEN));
    };
    let grant = claims.gid.clone();
    let (user, revoked) = state
        .db
        .call(move |c| {
            let revoked = match &grant {
                Some(g) => grant_revoked(c, g)?,
                None => false,
            };
            Ok((user_by_id(c, user_id)?, revoked))
        })
        .await?;
    if revoked {
        return Ok(Err(REVOKED_TOKEN));
    }
    Ok(match user {
        Some(u) if u.account_id == claims.acct => {
            let mut caller = u.caller(claims.cid);
            caller.grant_id = claims.gid;
            Ok(caller)
        }
        _ => Err(INVALID_TOKEN),
    })
}

/// Caller of a business endpoint: `Authorization: Bearer <access token>` of a user, or
/// HTTP Basic user credentials. Failures render as the envelope (401/403).
pub struct User(pub Caller);

impl FromRequestParts<AppState> for User {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        match credentials(&parts.headers) {
            Err(HeaderProblem::Missing) => Err(Error::Unauthorized(MISSING_CREDENTIALS.into())),
            Err(HeaderProblem::Malformed(why)) => Err(Error::Unauthorized(why.into())),
            Ok(Credentials::Bearer(token)) => match bearer_caller(state, &token).await? {
                Ok(caller) if caller.client_id.is_some() => {
                    Err(Error::Forbidden(PARTNER_TOKEN.into()))
                }
                Ok(caller) => Ok(User(caller)),
                Err(why) => Err(Error::Unauthorized(why.into())),
            },
            Ok(Credentials::Basic { name, secret }) => {
                match authenticate_user(state, &name, &secret).await? {
                    Some(caller) => Ok(User(caller)),
                    None => Err(Error::Unauthorized(BAD_USER_PASSWORD.into())),
                }
            }
        }
    }
}

/// A [`User`] who may write: a read-only user gets the 403 before the body is read, so
/// what their request carries changes nothing in the answer.
pub struct Writer(pub Caller);

impl FromRequestParts<AppState> for Writer {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let User(caller) = User::from_request_parts(parts, state).await?;
        caller.require_write()?;
        Ok(Writer(caller))
    }
}

/// A [`JwtCaller`] who may write, refused (`{error}`, 403) before the body is read.
pub struct JwtWriter(pub Caller);

impl FromRequestParts<AppState> for JwtWriter {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let JwtCaller(caller) = JwtCaller::from_request_parts(parts, state).await?;
        caller.require_write().map_err(Error::into_audience)?;
        Ok(JwtWriter(caller))
    }
}

/// Caller of an audience endpoint: a valid access-token JWT (user or data partner) is
/// required. Failures render as `{error}`.
pub struct JwtCaller(pub Caller);

impl FromRequestParts<AppState> for JwtCaller {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let refuse = |why: &str| Error::Unauthorized(why.to_owned()).into_audience();
        match credentials(&parts.headers) {
            Ok(Credentials::Bearer(token)) => match bearer_caller(state, &token)
                .await
                .map_err(Error::into_audience)?
            {
                Ok(caller) => Ok(JwtCaller(caller)),
                Err(INVALID_TOKEN) => Err(refuse(JWT_REQUIRED)),
                Err(why) => Err(refuse(why)),
            },
            Ok(Credentials::Basic { .. }) | Err(_) => Err(refuse(JWT_REQUIRED)),
        }
    }
}
