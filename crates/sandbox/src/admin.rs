//! `/_sandbox/` controls for tests: injected faults and the service clock.
//!
//! The surface exists only when the sandbox was started with an admin token
//! (`--admin-token`, [`crate::Config::admin_token`]) *and* the request carries it in
//! the `X-Sandbox-Admin-Token` header. Otherwise every `/_sandbox/` request, whatever
//! its method, answers the same 404 as a path that does not exist.
//!
//! Bodies are JSON. Errors are `400 {"error": "..."}`.
//!
//! | Method and path | Body | Answer |
//! |---|---|---|
//! | `GET /_sandbox/faults` | | current [`FaultSettings`] |
//! | `PUT /_sandbox/faults` | [`FaultSettings`]; missing fields are 0 | the new settings |
//! | `DELETE /_sandbox/faults` | | the cleared settings (status answers cleared too) |
//! | `GET /_sandbox/faults/status` | | the [`StatusAnswer`]s in force |
//! | `PUT /_sandbox/faults/status` | `[{"path": "/v1/campaign/*/creatives", "status": 405}]` ([`StatusAnswer`]s; `[]` clears them) | the answers now in force |
//! | `GET /_sandbox/clock` | | `{"now": ms}` |
//! | `PUT /_sandbox/clock` | `{"now": ms}` | `{"now": ms}` |
//! | `POST /_sandbox/clock/advance` | `{"ms": delta}` (may be negative) | `{"now": ms}` |
//!
//! Creative review, creative-to-ad-order associations and ad-order status are in
//! [`trafficking`].

mod trafficking;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::AppState;
use crate::faults::{FaultSettings, StatusAnswer};

/// Header that carries the admin token.
pub const TOKEN_HEADER: &str = "x-sandbox-admin-token";

/// Shortest admin token accepted. The token opens the clock and the faults to whoever
/// holds it, and any local process can try tokens against the port: an empty or short
/// one (a typo, an unset shell variable) must not enable the surface.
pub const MIN_TOKEN_CHARS: usize = 16;

/// Refuses an admin token that is too short to keep the surface private, or that a
/// header could never carry as it is. The message never repeats the token.
pub fn check_token(token: &str) -> Result<(), String> {
    let chars = token.chars().count();
    if chars < MIN_TOKEN_CHARS {
        return Err(format!(
            "the admin token must be at least {MIN_TOKEN_CHARS} characters long (got {chars})"
        ));
    }
    // HTTP drops a header value's surrounding whitespace, so such a token never matches.
    if token.trim() != token {
        return Err("the admin token must not start or end with whitespace".into());
    }
    if token.chars().any(char::is_control) {
        return Err("the admin token must not contain control characters".into());
    }
    Ok(())
}

/// `/_sandbox/*` routes; they answer 404 unless an admin token was configured and sent.
pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/_sandbox/faults",
            hidden(get(get_faults).put(put_faults).delete(delete_faults)),
        )
        .route(
            "/_sandbox/faults/status",
            hidden(get(get_status_answers).put(put_status_answers)),
        )
        .route("/_sandbox/clock", hidden(get(get_clock).put(put_clock)))
        .route("/_sandbox/clock/advance", hidden(post(advance_clock)))
        .merge(trafficking::router())
}

/// Answers 404 instead of 405 for other methods, so the surface stays invisible to
/// callers without the token.
fn hidden(route: MethodRouter<AppState>) -> MethodRouter<AppState> {
    route.fallback(method_not_allowed)
}

async fn method_not_allowed(_admin: Admin) -> StatusCode {
    StatusCode::METHOD_NOT_ALLOWED
}

/// Proof that the request carries the configured admin token. Without it the answer is
/// the same 404 as for a path that does not exist.
pub struct Admin;

impl FromRequestParts<AppState> for Admin {
    type Rejection = crate::error::Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let hidden = || crate::error::Error::NotFound(crate::NO_SUCH_ENDPOINT.into());
        let expected = state.admin_token.as_deref().ok_or_else(hidden)?;
        let sent = parts.headers.get(TOKEN_HEADER).ok_or_else(hidden)?;
        if tokens_match(sent.as_bytes(), expected.as_bytes()) {
            Ok(Admin)
        } else {
            Err(hidden())
        }
    }
}

/// Compares digests in constant time, so neither the content nor the length of the
/// token leaks through timing.
fn tokens_match(sent: &[u8], expected: &[u8]) -> bool {
    let a = Sha256::digest(sent);
    let b = Sha256::digest(expected);
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

/// `400 {"error": message}`.
struct BadRequest(String);

impl IntoResponse for BadRequest {
    fn into_response(self) -> Response {
        (
            StatusCode::BAD_REQUEST,
            Json(serde_json::json!({ "error": self.0 })),
        )
            .into_response()
    }
}

/// Parses a JSON body whatever its content type, with errors as [`BadRequest`].
fn parse<T: DeserializeOwned>(body: &Bytes) -> Result<T, BadRequest> {
    serde_json::from_slice(body).map_err(|e| BadRequest(format!("invalid body: {e}")))
}

/// `GET /_sandbox/faults`: the faults in force.
async fn get_faults(_admin: Admin, State(state): State<AppState>) -> Json<FaultSettings> {
    Json(state.faults.get())
}

/// `PUT /_sandbox/faults`: replaces all faults (missing fields are 0); answers the new
/// settings, or 400 when a value is out of range (the old settings stay).
async fn put_faults(
    _admin: Admin,
    State(state): State<AppState>,
    body: Bytes,
) -> Result<Json<FaultSettings>, BadRequest> {
    let settings: FaultSettings = parse(&body)?;
    state.faults.set(settings).map(Json).map_err(BadRequest)
}

/// `DELETE /_sandbox/faults`: clears every fault; answers the cleared settings.
async fn delete_faults(_admin: Admin, State(state): State<AppState>) -> Json<FaultSettings> {
    state.faults.reset();
    Json(state.faults.get())
}

/// `GET /_sandbox/faults/status`: the status answers in force.
async fn get_status_answers(
    _admin: Admin,
    State(state): State<AppState>,
) -> Json<Vec<StatusAnswer>> {
    Json(state.faults.status_answers())
}

/// `PUT /_sandbox/faults/status`: replaces the status answers, so a test can play an
/// older deployment that lacks an endpoint; 400 when one is invalid (the old ones stay).
async fn put_status_answers(
    _admin: Admin,
    State(state): State<AppState>,
    body: Bytes,
) -> Result<Json<Vec<StatusAnswer>>, BadRequest> {
    let answers: Vec<StatusAnswer> = parse(&body)?;
    state
        .faults
        .set_status_answers(answers)
        .map(Json)
        .map_err(BadRequest)
}

/// The service time, in Unix milliseconds.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Now {
    now: i64,
}

/// A clock move, in milliseconds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    ms: i64,
}

/// `GET /_sandbox/clock`: the service time.
async fn get_clock(_admin: Admin, State(state): State<AppState>) -> Json<Now> {
    Json(Now {
        now: state.clock.now_ms(),
    })
}

/// `PUT /_sandbox/clock` `{"now": ms}`: sets the service time, which runs on from there.
async fn put_clock(
    _admin: Admin,
    State(state): State<AppState>,
    body: Bytes,
) -> Result<Json<Now>, BadRequest> {
    let Now { now } = parse(&body)?;
    state.clock.set(now);
    Ok(Json(Now {
        now: state.clock.now_ms(),
    }))
}

/// `POST /_sandbox/clock/advance` `{"ms": delta}`: moves the service time by `delta`
/// (negative moves it back); answers the new time.
async fn advance_clock(
    _admin: Admin,
    State(state): State<AppState>,
    body: Bytes,
) -> Result<Json<Now>, BadRequest> {
    let Advance { ms } = parse(&body)?;
    state.clock.advance(ms);
    Ok(Json(Now {
        now: state.clock.now_ms(),
    }))
}

#[cfg(test)]
mod tests {
    use super::{check_token, tokens_match};

    #[test]
    fn short_or_padded_tokens_are_refused() {
        assert!(check_token("sixteen-chars-ok").is_ok());
        for bad in [
            "",
            "short",
            "fifteen-chars-x",
            " sixteen-chars-ok",
            "sixteen-chars-ok\n",
        ] {
            let Err(why) = check_token(bad) else {
                panic!("accepted {bad:?}");
            };
            assert!(bad.trim().is_empty() || !why.contains(bad.trim()), "{why}");
        }
    }

    #[test]
    fn token_comparison() {
        assert!(tokens_match(b"secret", b"secret"));
        assert!(!tokens_match(b"secret", b"secreT"));
        assert!(!tokens_match(b"secret", b"secret2"));
        assert!(!tokens_match(b"", b"secret"));
    }
}
