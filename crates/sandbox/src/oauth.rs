//! Token endpoints: the data-partner login page, the code exchange and refresh, and
//! user sign-in.
//!
//! * `GET /v1/oauth2/login` shows a login form for a registered client and redirect URI;
//!   `POST /v1/oauth2/login` checks the user and redirects (303) to
//!   `<redirect_uri>?code=…&state=…`. A bad client or redirect URI gets a 400 page and
//!   never a redirect.
//! * `POST /v1/oauth2/token` exchanges a code (client Basic auth, PKCE when a challenge
//!   was sent) and refreshes (client Basic auth, or user Basic auth with
//!   `X-Auth-Type: user`). Bodies may be JSON or form-encoded.
//! * `POST /v1/oauth2/authenticate` signs a user in with Basic credentials.
//!
//! Failures of the two POST endpoints are `{error, error_description}` with OAuth2 codes.

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{FormRejection, QueryRejection};
use axum::extract::{FromRequest, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Json};
use flightdeck_model::{TokenRequest, TokenResponse};
use serde::Deserialize;

use crate::AppState;
use crate::auth::{self, Caller, ChallengeMethod, Client, Credentials};
use crate::error::{Error, Result};

/// `/v1/oauth2/*` routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/oauth2/login", get(login_page).post(login_submit))
        .route("/v1/oauth2/token", post(token))
        .route("/v1/oauth2/authenticate", post(authenticate))
}

// ---------------------------------------------------------------------------------
// Login page

/// Query of `GET /v1/oauth2/login`, and the hidden part of the login form.
#[derive(Debug, Default, Deserialize)]
struct LoginQuery {
    client_id: Option<String>,
    redirect_uri: Option<String>,
    state: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

/// Body of `POST /v1/oauth2/login`: the query again (hidden inputs) and the user's
/// credentials. (No `#[serde(flatten)]`: it does not mix well with form decoding.)
#[derive(Default, Deserialize)]
struct LoginForm {
    client_id: Option<String>,
    redirect_uri: Option<String>,
    state: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    username: Option<String>,
    password: Option<String>,
}

/// A login request whose client, redirect URI and PKCE parameters are acceptable.
struct Authorize {
    client: Client,
    redirect_uri: String,
    state: Option<String>,
    challenge: Option<(String, ChallengeMethod)>,
}

/// Treats empty parameters (hidden inputs of absent ones) as absent.
fn present(v: &Option<String>) -> Option<&str> {
    v.as_deref().filter(|s| !s.is_empty())
}

/// Checks the client, the redirect URI and PKCE. The error is shown on a 400 page.
async fn authorize(state: &AppState, q: &LoginQuery) -> Result<Result<Authorize, String>> {
    let Some(client_id) = present(&q.client_id) else {
        return Ok(Err("client_id is required.".into()));
    };
    let id = client_id.to_owned();
    let Some(client) = state.db.call(move |c| auth::client_by_id(c, &id)).await? else {
        return Ok(Err(format!("Unknown client_id \"{client_id}\".")));
    };
    let Some(redirect_uri) = present(&q.redirect_uri) else {
        return Ok(Err("redirect_uri is required.".into()));
    };
    if !client.allows_redirect(redirect_uri) {
        return Ok(Err(format!(
            "redirect_uri \"{redirect_uri}\" is not registered for client \"{client_id}\"."
        )));
    }
    let challenge = match (
        present(&q.code_challenge),
        present(&q.code_challenge_method),
    ) {
        (None, None) => None,
        (None, Some(_)) => {
            return Ok(Err(
                "code_challenge_method was sent without code_challenge.".into(),
            ));
        }
        (Some(challenge), method) => {
            if let Err(errors) = flightdeck_model::validate::code_challenge(challenge) {
                return Ok(Err(format!("Invalid PKCE parameters: {errors}.")));
            }
            // RFC 7636 4.3: `plain` when the method is omitted.
            let method = match method {
                None => ChallengeMethod::Plain,
                Some(m) => match ChallengeMethod::parse(m) {
                    Some(m) => m,
                    None => {
                        return Ok(Err(format!(
                            "code_challenge_method must be plain or S256 (got \"{m}\")."
                        )));
                    }
                },
            };
            Some((challenge.to_owned(), method))
        }
    };
    Ok(Ok(Authorize {
        client,
        redirect_uri: redirect_uri.to_owned(),
        state: present(&q.state).map(str::to_owned),
        challenge,
    }))
}

async fn login_page(
    State(state): State<AppState>,
    query: Result<Query<LoginQuery>, QueryRejection>,
) -> Result<Response> {
    let Ok(Query(q)) = query else {
        return Ok(error_page("The query string could not be read."));
    };
    Ok(match authorize(&state, &q).await? {
        Ok(_) => login_form(StatusCode::OK, &q, None, ""),
        Err(why) => error_page(&why),
    })
}

async fn login_submit(
    State(state): State<AppState>,
    form: Result<Form<LoginForm>, FormRejection>,
) -> Result<Response> {
    let Ok(Form(form)) = form else {
        return Ok(error_page(
            "The login form must be posted as application/x-www-form-urlencoded.",
        ));
    };
    let q = &LoginQuery {
        client_id: form.client_id,
        redirect_uri: form.redirect_uri,
        state: form.state,
        code_challenge: form.code_challenge,
        code_challenge_method: form.code_challenge_method,
    };
    let a = match authorize(&state, q).await? {
        Ok(a) => a,
        Err(why) => return Ok(error_page(&why)),
    };
    let username = form.username.as_deref().unwrap_or("");
    let password = form.password.as_deref().unwrap_or("");
    if username.is_empty() || password.is_empty() {
        return Ok(login_form(
            StatusCode::UNAUTHORIZED,
            q,
            Some("Enter your username and password."),
            username,
        ));
    }
    let Some(user) = auth::authenticate_user(&state, username, password).await? else {
        return Ok(login_form(
            StatusCode::UNAUTHORIZED,
            q,
            Some("Invalid username or password."),
            username,
        ));
    };
    if user.account_id != a.client.account_id {
        return Ok(login_form(
            StatusCode::FORBIDDEN,
            q,
            Some("This user does not belong to the account of this application."),
            username,
        ));
    }
    let now = state.clock.now_ms();
    let (client_id, redirect_uri) = (a.client.client_id.clone(), a.redirect_uri.clone());
    let challenge = a.challenge.clone();
    let code = state
        .db
        .call(move |c| {
            auth::create_auth_code(
                c,
                &client_id,
                user.user_id,
                &redirect_uri,
                challenge.as_ref().map(|(ch, m)| (ch.as_str(), *m)),
                now,
            )
        })
        .await?;
    let sep = if a.redirect_uri.contains('?') {
        '&'
    } else {
        '?'
    };
    let mut location = format!("{}{sep}code={}", a.redirect_uri, percent_encode(&code));
    if let Some(st) = &a.state {
        location.push_str("&state=");
        location.push_str(&percent_encode(st));
    }
    let location = HeaderValue::from_str(&location)
        .map_err(|e| Error::Internal(format!("redirect location: {e}")))?;
    let mut resp = StatusCode::SEE_OTHER.into_response();
    resp.headers_mut().insert(header::LOCATION, location);
    no_store(resp.headers_mut());
    Ok(resp)
}

/// Percent-encodes everything outside RFC 3986's unreserved set.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Escapes text for HTML content and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;padding:2rem;\
background:#f4f5f7;color:#1d1f23}main{max-width:24rem;margin:auto;background:#fff;\
padding:2rem;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.2)}\
label{display:block;margin-top:1rem;font-weight:600}\
input{display:block;width:100%;box-sizing:border-box;padding:.5rem;margin-top:.25rem;\
font-size:1rem}button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem}\
.error{color:#a4001d;font-weight:600}";

fn html_page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} - Flightdeck sandbox</title>\n<style>{STYLE}</style>\n</head>\n\
         <body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        esc(title)
    );
    let mut resp = (status, Html(html)).into_response();
    let h = resp.headers_mut();
    no_store(h);
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'",
        ),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    resp
}

/// The login page's policy. Browsers (Chrome, Edge, Safari) apply `form-action` to the
/// redirects that follow a form's submission too, so the 303 to the client's redirect
/// URI must be allowed beside the page's own origin: its origin for http(s) (the CLI's
/// loopback port), its scheme for a private-use scheme (`com.flightdeck.desktop:`).
/// Only a redirect URI registered for the client reaches here.
fn login_policy(redirect_uri: &str) -> HeaderValue {
    let target = url::Url::parse(redirect_uri)
        .ok()
        .and_then(|u| match u.scheme() {
            "http" | "https" => Some(u.origin().ascii_serialization()).filter(|o| o != "null"),
            scheme => Some(format!("{scheme}:")),
        });
    let policy = format!(
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'{}; frame-ancestors 'none'",
        target.map(|t| format!(" {t}")).unwrap_or_default()
    );
    // A URL's origin and scheme hold no byte a header refuses; 'self' alone otherwise.
    HeaderValue::from_str(&policy).unwrap_or_else(|_| {
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        )
    })
}

fn error_page(message: &str) -> Response {
    html_page(
        StatusCode::BAD_REQUEST,
        "Sign-in request rejected",
        &format!(
            "<h1>Sign-in request rejected</h1>\n<p class=\"error\" role=\"alert\">{}</p>\n\
             <p>The application that sent you here made an invalid request. \
             Nothing was sent back to it.</p>\n",
            esc(message)
        ),
    )
}

fn login_form(status: StatusCode, q: &LoginQuery, error: Option<&str>, username: &str) -> Response {
    let mut body = String::from("<h1>Sign in</h1>\n");
    if let Some(client) = present(&q.client_id) {
        body.push_str(&format!(
            "<p>The application <strong>{}</strong> asks to access your account.</p>\n",
            esc(client)
        ));
    }
    let described = if let Some(err) = error {
        body.push_str(&format!(
            "<p id=\"login-error\" class=\"error\" role=\"alert\">{}</p>\n",
            esc(err)
        ));
        " aria-invalid=\"true\" aria-describedby=\"login-error\""
    } else {
        ""
    };
    body.push_str("<form method=\"post\" action=\"/v1/oauth2/login\">\n");
    for (name, value) in [
        ("client_id", &q.client_id),
        ("redirect_uri", &q.redirect_uri),
        ("state", &q.state),
        ("code_challenge", &q.code_challenge),
        ("code_challenge_method", &q.code_challenge_method),
    ] {
        if let Some(v) = present(value) {
            body.push_str(&format!(
                "<input type=\"hidden\" name=\"{name}\" value=\"{}\">\n",
                esc(v)
            ));
        }
    }
    body.push_str(&format!(
        "<label for=\"username\">Username</label>\n\
         <input id=\"username\" name=\"username\" type=\"text\" autocomplete=\"username\" \
         required autofocus value=\"{}\"{described}>\n\
         <label for=\"password\">Password</label>\n\
         <input id=\"password\" name=\"password\" type=\"password\" \
         autocomplete=\"current-password\" required{described}>\n\
         <button type=\"submit\">Sign in</button>\n</form>\n",
        esc(username)
    ));
    let mut resp = html_page(status, "Sign in", &body);
    resp.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        login_policy(present(&q.redirect_uri).unwrap_or_default()),
    );
    resp
}

// ---------------------------------------------------------------------------------
// Token endpoints

fn token_error(status: StatusCode, error: &'static str, description: impl Into<String>) -> Error {
    Error::Token {
        status,
        error,
        description: description.into(),
    }
}

fn invalid_request(description: impl Into<String>) -> Error {
    token_error(StatusCode::BAD_REQUEST, "invalid_request", description)
}

fn invalid_grant(description: impl Into<String>) -> Error {
    token_error(StatusCode::BAD_REQUEST, "invalid_grant", description)
}

fn invalid_client(description: impl Into<String>) -> Error {
    token_error(StatusCode::UNAUTHORIZED, "invalid_client", description)
}

/// RFC 6749 5.1: token responses must not be cached.
fn no_store(h: &mut HeaderMap) {
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
}

fn token_ok(body: TokenResponse) -> Response {
    let mut resp = Json(body).into_response();
    no_store(resp.headers_mut());
    resp
}

/// Basic credentials from the headers, or an `invalid_client` naming what to send.
fn basic(headers: &HeaderMap, what: &str) -> Result<(String, String)> {
    match auth::credentials(headers) {
        Ok(Credentials::Basic { name, secret }) => Ok((name, secret)),
        Ok(Credentials::Bearer(_)) | Err(_) => Err(invalid_client(format!(
            "send HTTP Basic credentials ({what}) in the Authorization header"
        ))),
    }
}

/// The token request body, as JSON or form according to `Content-Type`.
async fn token_body(req: Request, state: &AppState) -> Result<TokenRequest> {
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    match content_type.as_deref() {
        Some("application/x-www-form-urlencoded") => Form::<TokenRequest>::from_request(req, state)
            .await
            .map(|Form(body)| body)
            .map_err(|e| invalid_request(format!("body: {}", e.body_text()))),
        Some(ct) if ct == "application/json" || ct.ends_with("+json") => {
            let bytes = Bytes::from_request(req, state)
                .await
                .map_err(|e| invalid_request(format!("body: {e}")))?;
            let mut de = serde_json::Deserializer::from_slice(&bytes);
            serde_path_to_error::deserialize(&mut de).map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                if path == "." {
                    invalid_request(format!(
                        "body: not a JSON object of token parameters ({inner})"
                    ))
                } else {
                    invalid_request(format!("{path}: {inner}"))
                }
            })
        }
        other => {
            let bytes = Bytes::from_request(req, state)
                .await
                .map_err(|e| invalid_request(format!("body: {e}")))?;
            if bytes.is_empty() {
                return Err(invalid_request(
                    "grant_type is required (send the body as application/json or \
                     application/x-www-form-urlencoded)",
                ));
            }
            Err(invalid_request(format!(
                "unsupported Content-Type {}: send application/json or \
                 application/x-www-form-urlencoded",
                other.unwrap_or("(none)")
            )))
        }
    }
}

fn required<'a>(value: &'a Option<String>, name: &str) -> Result<&'a str> {
    present(value).ok_or_else(|| invalid_request(format!("{name} is required")))
}

/// Whether the request says the Basic credentials are a user's (`X-Auth-Type: user`).
fn user_auth(headers: &HeaderMap) -> bool {
    headers
        .get("x-auth-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("user"))
}

async fn token(State(state): State<AppState>, req: Request) -> Result<Response> {
    let as_user = user_auth(req.headers());
    let (name, secret) = basic(
        req.headers(),
        if as_user {
            "username:password"
        } else {
            "client_id:client_secret"
        },
    )?;
    if as_user {
        let Some(user) = auth::authenticate_user(&state, &name, &secret).await? else {
            return Err(invalid_client("invalid username or password"));
        };
        let body = token_body(req, &state).await?;
        return match required(&body.grant_type, "grant_type")? {
            "refresh_token" => {
                let token = required(&body.refresh_token, "refresh_token")?.to_owned();
                refresh(&state, token, Holder::User(user)).await
            }
            "authorization_code" => Err(token_error(
                StatusCode::BAD_REQUEST,
                "unauthorized_client",
                "users sign in with /v1/oauth2/authenticate; authorization_code is for data partners",
            )),
            other => Err(unsupported_grant(other)),
        };
    }
    // RFC 6749 §2.3.1 form-encodes client credentials before Basic; clients that follow
    // it (the oauth2 crate does) and clients that send them raw (the spec's examples)
    // are both accepted.
    let mut client = auth::authenticate_client(&state, &name, &secret).await?;
    if client.is_none()
        && let (Some(id), Some(sec)) = (form_decode(&name), form_decode(&secret))
        && (id != name || sec != secret)
    {
        client = auth::authenticate_client(&state, &id, &sec).await?;
    }
    let Some(client) = client else {
        return Err(invalid_client("invalid client_id or client_secret"));
    };
    let body = token_body(req, &state).await?;
    match required(&body.grant_type, "grant_type")? {
        "authorization_code" => exchange_code(&state, client, &body).await,
        "refresh_token" => {
            let token = required(&body.refresh_token, "refresh_token")?.to_owned();
            refresh(&state, token, Holder::Client(client)).await
        }
        other => Err(unsupported_grant(other)),
    }
}

/// Decodes `application/x-www-form-urlencoded` text (`+` is a space, `%HH` a byte);
/// `None` when it is not valid encoding of UTF-8.
fn form_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

fn unsupported_grant(grant: &str) -> Error {
    token_error(
        StatusCode::BAD_REQUEST,
        "unsupported_grant_type",
        format!("grant_type must be authorization_code or refresh_token (got \"{grant}\")"),
    )
}

async fn exchange_code(state: &AppState, client: Client, body: &TokenRequest) -> Result<Response> {
    let code = required(&body.code, "code")?.to_owned();
    let redirect_uri = required(&body.redirect_uri, "redirect_uri")?.to_owned();
    let verifier = present(&body.code_verifier).map(str::to_owned);
    let now = state.clock.now_ms();
    let keys = state.keys.clone();
    let outcome = state
        .db
        .tx(move |tx| {
            let grant = match auth::redeem_auth_code(
                tx,
                &code,
                &client.client_id,
                &redirect_uri,
                verifier.as_deref(),
                now,
            )? {
                Ok(grant) => grant,
                // Committed anyway: the code stays used, and a reuse's revocation holds.
                Err(why) => return Ok(Err(why)),
            };
            let Some(mut caller) = auth::caller_by_id(tx, grant.user_id)? else {
                return Ok(Err("the user of this authorization code no longer exists"));
            };
            caller.client_id = Some(client.client_id.clone());
            caller.grant_id = grant.grant_id;
            auth::issue_tokens(tx, &keys, &caller, now, true).map(Ok)
        })
        .await?;
    outcome.map(token_ok).map_err(invalid_grant)
}

/// Whose refresh token is being used.
enum Holder {
    /// A data partner (client Basic auth): the token must have been issued to it.
    Client(Client),
    /// A user (Basic auth with `X-Auth-Type: user`): the token must be theirs, from
    /// `/v1/oauth2/authenticate`.
    User(Caller),
}

async fn refresh(state: &AppState, token: String, holder: Holder) -> Result<Response> {
    let now = state.clock.now_ms();
    let keys = state.keys.clone();
    let outcome = state
        .db
        .call(move |conn| {
            let grant = match auth::check_refresh_token(conn, &token, now)? {
                Ok(g) => g,
                Err(why) => return Ok(Err(why)),
            };
            let caller = match holder {
                Holder::Client(client) => {
                    if grant.client_id.as_deref() != Some(client.client_id.as_str()) {
                        return Ok(Err("the refresh token was not issued to this client"));
                    }
                    let Some(mut caller) = auth::caller_by_id(conn, grant.user_id)? else {
                        return Ok(Err("the user of this refresh token no longer exists"));
                    };
                    caller.client_id = Some(client.client_id);
                    caller.grant_id = grant.grant_id;
                    caller
                }
                Holder::User(user) => {
                    if grant.client_id.is_some() || grant.user_id != user.user_id {
                        return Ok(Err("the refresh token was not issued to this user"));
                    }
                    user
                }
            };
            auth::issue_tokens(conn, &keys, &caller, now, false).map(Ok)
        })
        .await?;
    outcome.map(token_ok).map_err(invalid_grant)
}

async fn authenticate(State(state): State<AppState>, headers: HeaderMap) -> Result<Response> {
    let (name, secret) = basic(&headers, "username:password")?;
    let Some(user) = auth::authenticate_user(&state, &name, &secret).await? else {
        return Err(token_error(
            StatusCode::UNAUTHORIZED,
            "invalid_grant",
            "invalid username or password",
        ));
    };
    let now = state.clock.now_ms();
    let keys = state.keys.clone();
    let body = state
        .db
        .call(move |conn| auth::issue_tokens(conn, &keys, &user, now, true))
        .await?;
    Ok(token_ok(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_decoding_of_client_credentials() {
        assert_eq!(
            form_decode("a%2Bb%2Fc%3Dd%3Ae").as_deref(),
            Some("a+b/c=d:e")
        );
        assert_eq!(form_decode("two+words").as_deref(), Some("two words"));
        assert_eq!(form_decode("plain-secret").as_deref(), Some("plain-secret"));
        assert_eq!(form_decode("bad%zz"), None);
        assert_eq!(form_decode("cut%4"), None);
    }

    #[test]
    fn percent_encoding_keeps_unreserved_only() {
        assert_eq!(percent_encode("aZ09-._~"), "aZ09-._~");
        assert_eq!(percent_encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
    }

    #[test]
    fn escaping_covers_attribute_breakers() {
        assert_eq!(esc("\"><script>'&"), "&quot;&gt;&lt;script&gt;&#39;&amp;");
    }
}
