//! Grants: signing tokens for a caller, refresh tokens and their revocation, and
//! authorization codes with PKCE, each stored only as a hash.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use flightdeck_model::{TOKEN_EXPIRES_IN, TokenResponse};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::{
    AUTH_CODE_TTL_MS, Caller, Keys, REFRESH_TOKEN_TTL_MS, TYP_ACCESS, TYP_ID, caller_by_id,
    random_token, token_hash,
};
use crate::AppState;
use crate::error::{Error, Result};

/// Signs an access token and an id token for `caller` at `now_ms` and, when
/// `with_refresh`, stores and returns a new refresh token bound to the caller's user
/// and client.
pub fn issue_tokens(
    conn: &Connection,
    keys: &Keys,
    caller: &Caller,
    now_ms: i64,
    with_refresh: bool,
) -> Result<TokenResponse> {
    let refresh_token = if with_refresh {
        Some(create_refresh_token(
            conn,
            caller.user_id,
            caller.client_id.as_deref(),
            caller.grant_id.as_deref(),
            now_ms,
        )?)
    } else {
        None
    };
    Ok(TokenResponse {
        access_token: keys.sign(caller, TYP_ACCESS, now_ms)?,
        expires_in: TOKEN_EXPIRES_IN,
        id_token: keys.sign(caller, TYP_ID, now_ms)?,
        refresh_token,
        token_type: "Bearer".to_owned(),
    })
}

/// An access token for user `user_id` issued at `at_ms` (sandbox time), as
/// `/v1/oauth2/authenticate` would give; for tests and benches.
pub fn mint_access_token(state: &AppState, user_id: i64, at_ms: i64) -> Result<String> {
    let caller = state
        .db
        .blocking(|conn| caller_by_id(conn, user_id))?
        .ok_or_else(|| Error::NotFound(format!("no user with id {user_id}")))?;
    state.keys.sign(&caller, TYP_ACCESS, at_ms)
}

/// Stores a new refresh token (valid 30 days) and returns it; only its hash is kept.
/// `grant_id` ties a code-flow token to its authorization code.
pub fn create_refresh_token(
    conn: &Connection,
    user_id: i64,
    client_id: Option<&str>,
    grant_id: Option<&str>,
    now_ms: i64,
) -> Result<String> {
    let token = random_token();
    conn.execute(
        "INSERT INTO refresh_tokens (token_hash, user_id, client_id, grant_id, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            token_hash(&token),
            user_id,
            client_id,
            grant_id,
            now_ms + REFRESH_TOKEN_TTL_MS
        ],
    )?;
    Ok(token)
}

/// Revokes every token issued from the authorization code of `grant_id`: its refresh
/// tokens at once, its access tokens at their next use (RFC 6749 §4.1.2: a code used
/// twice means someone else may hold it).
pub fn revoke_grant(conn: &Connection, grant_id: &str, now_ms: i64) -> Result<()> {
    conn.execute(
        "UPDATE refresh_tokens SET revoked = 1 WHERE grant_id = ?1",
        [grant_id],
    )?;
    conn.execute(
        "INSERT OR IGNORE INTO revoked_grants (grant_id, revoked_at) VALUES (?1, ?2)",
        params![grant_id, now_ms],
    )?;
    Ok(())
}

/// Whether the grant `grant_id` was revoked by a reuse of its code.
pub(super) fn grant_revoked(conn: &Connection, grant_id: &str) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM revoked_grants WHERE grant_id = ?1",
            [grant_id],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Revokes a refresh token. Returns whether it existed and was not revoked yet.
pub fn revoke_refresh_token(conn: &Connection, token: &str) -> Result<bool> {
    let n = conn.execute(
        "UPDATE refresh_tokens SET revoked = 1 WHERE token_hash = ?1 AND revoked = 0",
        [token_hash(token)],
    )?;
    Ok(n > 0)
}

/// Who a refresh token belongs to.
#[derive(Debug, Clone)]
pub struct RefreshGrant {
    /// The user it was issued to.
    pub user_id: i64,
    /// The data partner it was issued through; `None` for `/v1/oauth2/authenticate`.
    pub client_id: Option<String>,
    /// The authorization-code grant it descends from, if any.
    pub grant_id: Option<String>,
}

/// Looks up a refresh token that is neither revoked nor expired. The error is the
/// `error_description` of an `invalid_grant`.
pub fn check_refresh_token(
    conn: &Connection,
    token: &str,
    now_ms: i64,
) -> Result<Result<RefreshGrant, &'static str>> {
    let row = conn
        .query_row(
            "SELECT user_id, client_id, expires_at, revoked, grant_id FROM refresh_tokens
             WHERE token_hash = ?1",
            [token_hash(token)],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, bool>(3)?,
                    r.get::<_, Option<String>>(4)?,
                ))
            },
        )
        .optional()?;
    Ok(match row {
        None => Err("the refresh token is not valid"),
        Some((_, _, _, true, _)) => Err("the refresh token has been revoked; sign in again"),
        Some((_, _, expires_at, _, _)) if now_ms >= expires_at => {
            Err("the refresh token has expired; sign in again")
        }
        Some((user_id, client_id, _, _, grant_id)) => Ok(RefreshGrant {
            user_id,
            client_id,
            grant_id,
        }),
    })
}

/// PKCE method of an authorization code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeMethod {
    /// The verifier equals the challenge.
    Plain,
    /// The challenge is BASE64URL-NOPAD(SHA256(verifier)).
    S256,
}

impl ChallengeMethod {
    /// Parses `plain` or `S256` (exact spelling, as RFC 7636 defines them).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "plain" => Some(Self::Plain),
            "S256" => Some(Self::S256),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::S256 => "S256",
        }
    }

    /// Whether `verifier` answers `challenge`.
    pub fn verify(self, verifier: &str, challenge: &str) -> bool {
        match self {
            Self::Plain => verifier == challenge,
            Self::S256 => URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) == challenge,
        }
    }
}

/// Stores a new authorization code (single use, valid 10 minutes) bound to the client,
/// user, redirect URI and PKCE challenge, and returns it; only its hash is kept.
pub fn create_auth_code(
    conn: &Connection,
    client_id: &str,
    user_id: i64,
    redirect_uri: &str,
    challenge: Option<(&str, ChallengeMethod)>,
    now_ms: i64,
) -> Result<String> {
    let code = random_token();
    conn.execute(
        "INSERT INTO auth_codes
           (code_hash, client_id, user_id, redirect_uri, code_challenge, challenge_method,
            expires_at, grant_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            token_hash(&code),
            client_id,
            user_id,
            redirect_uri,
            challenge.map(|(c, _)| c),
            challenge.map(|(_, m)| m.as_str()),
            now_ms + AUTH_CODE_TTL_MS,
            random_token()
        ],
    )?;
    Ok(code)
}

/// What a redeemed authorization code grants.
#[derive(Debug, Clone)]
pub struct CodeGrant {
    /// The user who signed in.
    pub user_id: i64,
    /// Ties the tokens issued now to the code (`None` for codes from before grants).
    pub grant_id: Option<String>,
}

/// Redeems an authorization code for `client_id`: the code is marked used as soon as
/// its own client presents it, whatever the outcome, so it can never be tried twice.
/// Presenting a used code again revokes every token issued from it
/// ([`revoke_grant`]); the caller must commit even then. Returns the grant, or the
/// `error_description` of an `invalid_grant`.
pub fn redeem_auth_code(
    conn: &Connection,
    code: &str,
    client_id: &str,
    redirect_uri: &str,
    code_verifier: Option<&str>,
    now_ms: i64,
) -> Result<Result<CodeGrant, &'static str>> {
    let hash = token_hash(code);
    let row = conn
        .query_row(
            "SELECT client_id, user_id, redirect_uri, code_challenge, challenge_method,
                    expires_at, used, grant_id
             FROM auth_codes WHERE code_hash = ?1",
            [&hash],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, bool>(6)?,
                    r.get::<_, Option<String>>(7)?,
                ))
            },
        )
        .optional()?;
    let Some((owner, user_id, bound_uri, challenge, method, expires_at, used, grant_id)) = row
    else {
        return Ok(Err("the authorization code is not valid"));
    };
    if owner != client_id {
        return Ok(Err("the authorization code was issued to another client"));
    }
    if used {
        if let Some(grant) = &grant_id {
            revoke_grant(conn, grant, now_ms)?;
        }
        return Ok(Err(
            "the authorization code has already been used; the tokens issued from it are revoked",
        ));
    }
    conn.execute(
        "UPDATE auth_codes SET used = 1 WHERE code_hash = ?1",
        [&hash],
    )?;
    if now_ms >= expires_at {
        return Ok(Err(
            "the authorization code has expired (codes live 10 minutes); sign in again",
        ));
    }
    if bound_uri != redirect_uri {
        return Ok(Err("redirect_uri does not match the one used at login"));
    }
    match (challenge, code_verifier) {
        (None, None) => {}
        (None, Some(_)) => {
            return Ok(Err(
                "code_verifier was sent, but the login did not send a code_challenge",
            ));
        }
        (Some(_), None) => {
            return Ok(Err(
                "code_verifier is required: the login sent a code_challenge",
            ));
        }
        (Some(challenge), Some(verifier)) => {
            let method = method
                .as_deref()
                .and_then(ChallengeMethod::parse)
                .unwrap_or(ChallengeMethod::Plain);
            if !method.verify(verifier, &challenge) {
                return Ok(Err(
                    "code_verifier does not match the code_challenge sent at login",
                ));
            }
        }
    }
    Ok(Ok(CodeGrant { user_id, grant_id }))
}
