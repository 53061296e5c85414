//! Token endpoints and credential checks, over real HTTP: user sign-in and refresh, the
//! data-partner login page, code exchange (PKCE) and refresh, and how the `User` and
//! `JwtCaller` extractors treat tokens and Basic credentials.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use axum::routing::get;
use axum::{Json, Router};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::{NOW, TestServer, basic, start, start_with};
use flightdeck_sandbox::auth::{self, Caller, JwtCaller, User};
use flightdeck_sandbox::{Config, Sandbox, Seed};
use reqwest::{Response, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const CLIENT: &str = "demo-partner";
const SECRET: &str = "demo-partner-secret";
const REDIRECT: &str = "http://127.0.0.1:8765/callback";
const VERIFIER: &str = "a-fairly-long-pkce-code-verifier-with-enough-characters-0123456789";

fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Sorted keys of a JSON object.
fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect();
    k.sort_unstable();
    k
}

fn assert_jwt(v: &Value) {
    let s = v.as_str().unwrap_or_else(|| panic!("not a string: {v}"));
    assert_eq!(s.split('.').count(), 3, "not a JWT: {s}");
    assert!(s.split('.').all(|p| !p.is_empty()));
}

/// Checks a `{error, error_description}` answer.
async fn assert_token_error(resp: Response, status: StatusCode, error: &str) -> String {
    assert_eq!(resp.status(), status);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(keys(&body), ["error", "error_description"], "{body}");
    assert_eq!(body["error"], error, "{body}");
    let description = body["error_description"].as_str().unwrap().to_owned();
    assert!(!description.is_empty());
    description
}

async fn json_of(resp: Response) -> (StatusCode, Value) {
    let status = resp.status();
    (status, resp.json().await.unwrap())
}

/// `GET /v1/oauth2/login` with `query`.
async fn login_page(s: &TestServer, query: &[(&str, &str)]) -> Response {
    s.http
        .get(s.url("/v1/oauth2/login"))
        .query(query)
        .send()
        .await
        .unwrap()
}

/// Posts the login form with `query` as the hidden fields plus the credentials.
async fn login_post(
    s: &TestServer,
    query: &[(&str, &str)],
    user: &str,
    password: &str,
) -> Response {
    let mut form: Vec<(&str, &str)> = query.to_vec();
    form.push(("username", user));
    form.push(("password", password));
    s.http
        .post(s.url("/v1/oauth2/login"))
        .form(&form)
        .send()
        .await
        .unwrap()
}

/// The query parameters of a redirect's `Location`, undecoded.
fn location_params(resp: &Response) -> (String, Vec<(String, String)>) {
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    let loc = resp.headers()["location"].to_str().unwrap().to_owned();
    let (base, query) = loc.split_once('?').expect("query in Location");
    let params = query
        .split('&')
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect();
    (base.to_owned(), params)
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// Runs the login as `partner` with a S256 challenge for [`VERIFIER`]; returns the code.
async fn partner_code(s: &TestServer, redirect: &str) -> String {
    let challenge = s256(VERIFIER);
    let query = [
        ("client_id", CLIENT),
        ("redirect_uri", redirect),
        ("state", "xyz"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let resp = login_post(s, &query, "partner", "partner").await;
    let (_, params) = location_params(&resp);
    param(&params, "code").unwrap().to_owned()
}

/// `POST /v1/oauth2/token` with a JSON body and client Basic credentials.
async fn token_json(s: &TestServer, auth: &str, body: Value) -> Response {
    s.http
        .post(s.url("/v1/oauth2/token"))
        .header("authorization", auth)
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn exchange(s: &TestServer, code: &str, redirect: &str, verifier: Option<&str>) -> Response {
    let mut body =
        json!({"grant_type": "authorization_code", "code": code, "redirect_uri": redirect});
    if let Some(v) = verifier {
        body["code_verifier"] = json!(v);
    }
    token_json(s, &basic(CLIENT, SECRET), body).await
}

// ---------------------------------------------------------------------------------
// User sign-in and refresh

#[tokio::test]
async fn authenticate_answers_five_fields() {
    let s = start().await;
    let resp = s
        .http
        .post(s.url("/v1/oauth2/authenticate"))
        .header("authorization", basic("demo", "demo"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["cache-control"], "no-store");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        keys(&body),
        [
            "access_token",
            "expires_in",
            "id_token",
            "refresh_token",
            "token_type"
        ]
    );
    assert_eq!(body["expires_in"], 86_400);
    assert_eq!(body["token_type"], "Bearer");
    assert_jwt(&body["access_token"]);
    assert_jwt(&body["id_token"]);
    assert!(body["refresh_token"].as_str().unwrap().len() >= 40);
    assert_ne!(body["access_token"], body["id_token"]);
}

#[tokio::test]
async fn authenticate_failures_are_oauth_errors() {
    let s = start().await;
    let post = |auth: Option<String>| {
        let mut req = s.http.post(s.url("/v1/oauth2/authenticate"));
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        req.send()
    };
    let wrong = post(Some(basic("demo", "not-the-password"))).await.unwrap();
    let text = assert_token_error(wrong, StatusCode::UNAUTHORIZED, "invalid_grant").await;
    assert!(!text.contains("not-the-password"), "{text}");
    let unknown = post(Some(basic("nobody", "demo"))).await.unwrap();
    assert_token_error(unknown, StatusCode::UNAUTHORIZED, "invalid_grant").await;
    let missing = post(None).await.unwrap();
    assert_token_error(missing, StatusCode::UNAUTHORIZED, "invalid_client").await;
    let garbled = post(Some("Basic %%%".into())).await.unwrap();
    assert_token_error(garbled, StatusCode::UNAUTHORIZED, "invalid_client").await;
}

#[tokio::test]
async fn user_refresh_needs_x_auth_type_and_answers_without_refresh_token() {
    let s = start().await;
    let signed_in = s.sign_in("demo", "demo").await;
    let refresh = signed_in["refresh_token"].as_str().unwrap();
    let user_refresh = |user: &'static str, password: &'static str, token: String| {
        s.http
            .post(s.url("/v1/oauth2/token"))
            .header("authorization", basic(user, password))
            .header("x-auth-type", "user")
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", token.as_str()),
            ])
            .send()
    };

    let (status, body) = json_of(user_refresh("demo", "demo", refresh.into()).await.unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        keys(&body),
        ["access_token", "expires_in", "id_token", "token_type"]
    );
    assert_eq!(body["expires_in"], 86_400);
    assert_ne!(body["access_token"], signed_in["access_token"]);
    // The refresh token stays valid.
    let again = user_refresh("demo", "demo", refresh.into()).await.unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    // The new access token works on a business endpoint.
    let resp = s
        .http
        .get(s.url("/v1/advertiser"))
        .bearer_auth(body["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);

    // Another user's credentials, a wrong password, an unknown token.
    let other = user_refresh("viewer", "viewer", refresh.into())
        .await
        .unwrap();
    assert_token_error(other, StatusCode::BAD_REQUEST, "invalid_grant").await;
    let wrong = user_refresh("demo", "nope", refresh.into()).await.unwrap();
    assert_token_error(wrong, StatusCode::UNAUTHORIZED, "invalid_client").await;
    let unknown = user_refresh("demo", "demo", "no-such-token".into())
        .await
        .unwrap();
    assert_token_error(unknown, StatusCode::BAD_REQUEST, "invalid_grant").await;

    // Without X-Auth-Type the Basic credentials are taken as a client's: rejected.
    let as_client = token_json(
        &s,
        &basic("demo", "demo"),
        json!({"grant_type": "refresh_token", "refresh_token": refresh}),
    )
    .await;
    assert_token_error(as_client, StatusCode::UNAUTHORIZED, "invalid_client").await;
}

#[tokio::test]
async fn revoked_refresh_tokens_are_refused() {
    let s = start().await;
    let refresh = s.sign_in("demo", "demo").await["refresh_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let tok = refresh.clone();
    let revoked = s
        .sandbox
        .state()
        .db
        .call(move |c| auth::revoke_refresh_token(c, &tok))
        .await
        .unwrap();
    assert!(revoked);
    let resp = s
        .http
        .post(s.url("/v1/oauth2/token"))
        .header("authorization", basic("demo", "demo"))
        .header("x-auth-type", "user")
        .json(&json!({"grant_type": "refresh_token", "refresh_token": refresh}))
        .send()
        .await
        .unwrap();
    let text = assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(text.contains("revoked"), "{text}");
}

#[tokio::test]
async fn refresh_tokens_expire_after_30_days() {
    let s = start_with(Config {
        clock_start: Some(NOW),
        ..Config::default()
    })
    .await;
    let refresh = s.sign_in("demo", "demo").await["refresh_token"]
        .as_str()
        .unwrap()
        .to_owned();
    s.sandbox.state().clock.advance(30 * 86_400_000 + 1);
    let resp = s
        .http
        .post(s.url("/v1/oauth2/token"))
        .header("authorization", basic("demo", "demo"))
        .header("x-auth-type", "user")
        .json(&json!({"grant_type": "refresh_token", "refresh_token": refresh}))
        .send()
        .await
        .unwrap();
    let text = assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(text.contains("expired"), "{text}");
}

// ---------------------------------------------------------------------------------
// Data-partner code flow

#[tokio::test]
async fn partner_flow_login_exchange_with_pkce_and_refresh() {
    let s = start().await;
    let challenge = s256(VERIFIER);
    let query = [
        ("client_id", CLIENT),
        ("redirect_uri", REDIRECT),
        ("state", "st-42"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];

    // The login page.
    let page = login_page(&s, &query).await;
    assert_eq!(page.status(), StatusCode::OK);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().await.unwrap();
    for needle in [
        "<form method=\"post\" action=\"/v1/oauth2/login\"",
        "<label for=\"username\">",
        "id=\"username\"",
        "<label for=\"password\">",
        "id=\"password\"",
        "type=\"password\"",
        "type=\"submit\"",
        "name=\"client_id\" value=\"demo-partner\"",
        "name=\"state\" value=\"st-42\"",
        "name=\"code_challenge_method\" value=\"S256\"",
    ] {
        assert!(html.contains(needle), "{needle} missing from {html}");
    }
    assert!(html.contains(&format!("name=\"code_challenge\" value=\"{challenge}\"")));

    // Signing in redirects with the code and the state.
    let resp = login_post(&s, &query, "partner", "partner").await;
    let (base, params) = location_params(&resp);
    assert_eq!(base, REDIRECT);
    assert_eq!(param(&params, "state"), Some("st-42"));
    let code = param(&params, "code").unwrap().to_owned();

    // Exchange, as a form body.
    let resp = s
        .http
        .post(s.url("/v1/oauth2/token"))
        .header("authorization", basic(CLIENT, SECRET))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["cache-control"], "no-store");
    let (status, tokens) = json_of(resp).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert_eq!(
        keys(&tokens),
        [
            "access_token",
            "expires_in",
            "id_token",
            "refresh_token",
            "token_type"
        ]
    );
    assert_eq!(tokens["expires_in"], 86_400);
    assert_eq!(tokens["token_type"], "Bearer");
    assert_jwt(&tokens["access_token"]);
    assert_jwt(&tokens["id_token"]);

    // The partner's access token works on the audience endpoints, not the business ones.
    let access = tokens["access_token"].as_str().unwrap();
    let audiences = s
        .http
        .get(s.url("/v1/audiences"))
        .bearer_auth(access)
        .send()
        .await
        .unwrap();
    assert_eq!(audiences.status(), StatusCode::OK);
    let business = s
        .http
        .get(s.url("/v1/advertiser"))
        .bearer_auth(access)
        .send()
        .await
        .unwrap();
    assert_eq!(business.status(), StatusCode::FORBIDDEN);
    let body: Value = business.json().await.unwrap();
    assert!(
        body["messages"][0]["message"]
            .as_str()
            .unwrap()
            .contains("data-partner tokens may only call the audience endpoints"),
        "{body}"
    );

    // Refresh (JSON body): four fields, and the refresh token keeps working.
    let refresh = tokens["refresh_token"].as_str().unwrap();
    for _ in 0..2 {
        let (status, body) = json_of(
            token_json(
                &s,
                &basic(CLIENT, SECRET),
                json!({"grant_type": "refresh_token", "refresh_token": refresh}),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(
            keys(&body),
            ["access_token", "expires_in", "id_token", "token_type"]
        );
        assert_jwt(&body["access_token"]);
    }

    // A user cannot use the partner's refresh token.
    let resp = s
        .http
        .post(s.url("/v1/oauth2/token"))
        .header("authorization", basic("partner", "partner"))
        .header("x-auth-type", "user")
        .json(&json!({"grant_type": "refresh_token", "refresh_token": refresh}))
        .send()
        .await
        .unwrap();
    assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_grant").await;
}

#[tokio::test]
async fn custom_scheme_redirect_plain_pkce_and_no_state() {
    let s = start().await;
    let challenge = "plain-challenge-plain-challenge-plain-challenge";
    // No method: plain (RFC 7636 4.3). No state: none in the redirect.
    let query = [
        ("client_id", CLIENT),
        ("redirect_uri", "com.flightdeck.desktop:/oauth/callback"),
        ("code_challenge", challenge),
    ];
    let resp = login_post(&s, &query, "demo", "demo").await;
    let (base, params) = location_params(&resp);
    assert_eq!(base, "com.flightdeck.desktop:/oauth/callback");
    assert_eq!(param(&params, "state"), None);
    let code = param(&params, "code").unwrap();
    let resp = exchange(
        &s,
        code,
        "com.flightdeck.desktop:/oauth/callback",
        Some(challenge),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
}

#[tokio::test]
async fn state_is_percent_encoded_in_the_redirect() {
    let s = start().await;
    let query = [
        ("client_id", CLIENT),
        ("redirect_uri", REDIRECT),
        ("state", "a b&c=d/é"),
    ];
    let resp = login_post(&s, &query, "partner", "partner").await;
    let (_, params) = location_params(&resp);
    assert_eq!(param(&params, "state"), Some("a%20b%26c%3Dd%2F%C3%A9"));
    // Without PKCE at login, no verifier at the exchange.
    let code = param(&params, "code").unwrap().to_owned();
    let with_verifier = exchange(&s, &code, REDIRECT, Some(VERIFIER)).await;
    assert_token_error(with_verifier, StatusCode::BAD_REQUEST, "invalid_grant").await;
}

#[tokio::test]
async fn a_wrong_verifier_fails_and_spends_the_code() {
    let s = start().await;
    let code = partner_code(&s, REDIRECT).await;
    let wrong = exchange(&s, &code, REDIRECT, Some(&format!("{VERIFIER}x"))).await;
    let text = assert_token_error(wrong, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(text.contains("code_verifier"), "{text}");
    let right = exchange(&s, &code, REDIRECT, Some(VERIFIER)).await;
    assert_token_error(right, StatusCode::BAD_REQUEST, "invalid_grant").await;

    let code = partner_code(&s, REDIRECT).await;
    let missing = exchange(&s, &code, REDIRECT, None).await;
    let text = assert_token_error(missing, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(text.contains("code_verifier"), "{text}");
}

#[tokio::test]
async fn a_code_is_single_use() {
    let s = start().await;
    let code = partner_code(&s, REDIRECT).await;
    let first = exchange(&s, &code, REDIRECT, Some(VERIFIER)).await;
    assert_eq!(first.status(), StatusCode::OK);
    let second = exchange(&s, &code, REDIRECT, Some(VERIFIER)).await;
    let text = assert_token_error(second, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(text.contains("already been used"), "{text}");
}

/// `GET /v1/audiences` with a bearer token: the status, and the body.
async fn audiences_with(s: &TestServer, token: &str) -> (StatusCode, Value) {
    let resp = s
        .http
        .get(s.url("/v1/audiences"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    json_of(resp).await
}

#[tokio::test]
async fn reusing_a_code_revokes_the_tokens_issued_from_it() {
    let s = start().await;
    let code = partner_code(&s, REDIRECT).await;
    let (status, tokens) = json_of(exchange(&s, &code, REDIRECT, Some(VERIFIER)).await).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    let refresh = tokens["refresh_token"].as_str().unwrap().to_owned();
    // A token refreshed from the code's refresh token descends from the code too.
    let (status, refreshed) = json_of(
        token_json(
            &s,
            &basic(CLIENT, SECRET),
            json!({"grant_type": "refresh_token", "refresh_token": refresh}),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    let refreshed_access = refreshed["access_token"].as_str().unwrap().to_owned();
    assert_eq!(audiences_with(&s, &access).await.0, StatusCode::OK);
    assert_eq!(
        audiences_with(&s, &refreshed_access).await.0,
        StatusCode::OK
    );

    // Someone presents the code again: it is refused, and so is everything it gave.
    let again = exchange(&s, &code, REDIRECT, Some(VERIFIER)).await;
    let text = assert_token_error(again, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(text.contains("revoked"), "{text}");
    for token in [&access, &refreshed_access] {
        let (status, body) = audiences_with(&s, token).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
        assert!(
            body["error"].as_str().unwrap().contains("revoked"),
            "{body}"
        );
    }
    let refused = token_json(
        &s,
        &basic(CLIENT, SECRET),
        json!({"grant_type": "refresh_token", "refresh_token": refresh}),
    )
    .await;
    assert_token_error(refused, StatusCode::BAD_REQUEST, "invalid_grant").await;

    // Another sign-in's tokens are untouched.
    let other = partner_code(&s, REDIRECT).await;
    let (status, fresh) = json_of(exchange(&s, &other, REDIRECT, Some(VERIFIER)).await).await;
    assert_eq!(status, StatusCode::OK, "{fresh}");
    let fresh_access = fresh["access_token"].as_str().unwrap();
    assert_eq!(audiences_with(&s, fresh_access).await.0, StatusCode::OK);
    // And a user's own sign-in is untouched.
    let user = s.user_token("partner", "partner").await;
    assert_eq!(audiences_with(&s, &user).await.0, StatusCode::OK);
}

#[tokio::test]
async fn unknown_users_and_clients_cost_a_verification_like_known_ones() {
    let s = start().await;
    let work = s.sandbox.state().password_work.clone();
    let authenticate = |user: &str, password: &str| {
        s.http
            .post(s.url("/v1/oauth2/authenticate"))
            .header("authorization", basic(user, password))
            .send()
    };
    let before = work.verifications();
    assert_eq!(authenticate("demo", "wrong").await.unwrap().status(), 401);
    assert_eq!(
        work.verifications(),
        before + 1,
        "a known user, wrong password"
    );
    assert_eq!(
        authenticate("nobody-here", "wrong").await.unwrap().status(),
        401
    );
    assert_eq!(work.verifications(), before + 2, "an unknown user");
    let login = login_post(
        &s,
        &[("client_id", CLIENT), ("redirect_uri", REDIRECT)],
        "nobody-here",
        "wrong",
    )
    .await;
    assert_eq!(login.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        work.verifications(),
        before + 3,
        "an unknown user on the login page"
    );
    let token = token_json(
        &s,
        &basic("no-such-client", "secret"),
        json!({"grant_type": "refresh_token", "refresh_token": "x"}),
    )
    .await;
    assert_token_error(token, StatusCode::UNAUTHORIZED, "invalid_client").await;
    assert_eq!(work.verifications(), before + 4, "an unknown client");
    // A remembered success costs nothing; a business call with Basic pays once.
    assert_eq!(authenticate("demo", "demo").await.unwrap().status(), 200);
    let after_success = work.verifications();
    assert_eq!(authenticate("demo", "demo").await.unwrap().status(), 200);
    assert_eq!(work.verifications(), after_success);
}

#[tokio::test]
async fn concurrent_verifications_are_capped() {
    let s = start().await;
    let work = s.sandbox.state().password_work.clone();
    let attempts = work.slots() * 4 + 2;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..attempts {
        let http = s.http.clone();
        let url = s.url("/v1/oauth2/authenticate");
        tasks.spawn(async move {
            http.post(url)
                .header("authorization", basic(&format!("flood-{i}"), "wrong"))
                .send()
                .await
                .unwrap()
                .status()
        });
    }
    while let Some(status) = tasks.join_next().await {
        assert_eq!(status.unwrap(), StatusCode::UNAUTHORIZED);
    }
    assert!(work.verifications() >= attempts as u64);
    assert!(
        (1..=work.slots()).contains(&work.peak()),
        "{} verifications at once with {} slots",
        work.peak(),
        work.slots()
    );
}

#[tokio::test]
async fn audience_401s_name_the_bearer_scheme() {
    let s = start().await;
    let no_token = s.http.get(s.url("/v1/audiences")).send().await.unwrap();
    let basic_only = s
        .http
        .get(s.url("/v1/audiences"))
        .header("authorization", basic("demo", "demo"))
        .send()
        .await
        .unwrap();
    let bad_token = s
        .http
        .get(s.url("/v1/audiences"))
        .bearer_auth("not-a-jwt")
        .send()
        .await
        .unwrap();
    for resp in [no_token, basic_only, bad_token] {
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
        let challenge = resp
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        assert!(challenge.starts_with("Bearer "), "{challenge:?}");
        let body: Value = resp.json().await.unwrap();
        assert!(body["error"].is_string(), "{body}");
    }
}

#[tokio::test]
async fn the_redirect_uri_must_match_the_login() {
    let s = start().await;
    let code = partner_code(&s, REDIRECT).await;
    let other = "http://127.0.0.1:9999/callback";
    let resp = exchange(&s, &code, other, Some(VERIFIER)).await;
    let text = assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(text.contains("redirect_uri"), "{text}");
}

#[tokio::test]
async fn codes_expire_after_ten_minutes() {
    let s = start_with(Config {
        clock_start: Some(NOW),
        ..Config::default()
    })
    .await;
    let code = partner_code(&s, REDIRECT).await;
    s.sandbox.state().clock.advance(10 * 60_000 + 1);
    let resp = exchange(&s, &code, REDIRECT, Some(VERIFIER)).await;
    let text = assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(text.contains("expired"), "{text}");
}

#[tokio::test]
async fn client_authentication_is_required_on_the_token_endpoint() {
    let s = start().await;
    let code = partner_code(&s, REDIRECT).await;
    let body = json!({"grant_type": "authorization_code", "code": code,
                      "redirect_uri": REDIRECT, "code_verifier": VERIFIER});
    let wrong = token_json(&s, &basic(CLIENT, "wrong-secret"), body.clone()).await;
    let text = assert_token_error(wrong, StatusCode::UNAUTHORIZED, "invalid_client").await;
    assert!(!text.contains("wrong-secret"), "{text}");
    let missing = s
        .http
        .post(s.url("/v1/oauth2/token"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_token_error(missing, StatusCode::UNAUTHORIZED, "invalid_client").await;
    // The failed attempts did not spend the code.
    let ok = exchange(&s, &code, REDIRECT, Some(VERIFIER)).await;
    assert_eq!(ok.status(), StatusCode::OK);
}

#[tokio::test]
async fn malformed_token_requests_are_invalid_request_or_unsupported() {
    let s = start().await;
    let auth = basic(CLIENT, SECRET);
    let resp = token_json(&s, &auth, json!({"grant_type": "password"})).await;
    assert_token_error(resp, StatusCode::BAD_REQUEST, "unsupported_grant_type").await;
    let resp = token_json(&s, &auth, json!({})).await;
    let text = assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_request").await;
    assert!(text.contains("grant_type"), "{text}");
    let resp = token_json(&s, &auth, json!({"grant_type": "authorization_code"})).await;
    let text = assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_request").await;
    assert!(text.contains("code"), "{text}");
    let resp = token_json(&s, &auth, json!({"grant_type": "refresh_token"})).await;
    assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_request").await;
    let resp = token_json(&s, &auth, json!({"grant_type": 5})).await;
    let text = assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_request").await;
    assert!(text.contains("grant_type"), "{text}");
    let resp = s
        .http
        .post(s.url("/v1/oauth2/token"))
        .header("authorization", &auth)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_request").await;
    let resp = s
        .http
        .post(s.url("/v1/oauth2/token"))
        .header("authorization", &auth)
        .header("content-type", "text/plain")
        .body("grant_type=refresh_token")
        .send()
        .await
        .unwrap();
    assert_token_error(resp, StatusCode::BAD_REQUEST, "invalid_request").await;
}

// ---------------------------------------------------------------------------------
// Login page failures: never a redirect

async fn assert_rejected_page(resp: Response, needle: &str) {
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(resp.headers().get("location").is_none());
    let html = resp.text().await.unwrap();
    assert!(html.contains(needle), "{needle} missing from {html}");
    assert!(!html.contains("<form"), "{html}");
}

#[tokio::test]
async fn the_login_page_rejects_bad_requests_without_redirecting() {
    let s = start().await;
    let short = "too-short";
    let evil = "https://evil.example/callback";
    let long_enough = "c".repeat(43);
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (
            vec![
                ("client_id", CLIENT),
                ("redirect_uri", REDIRECT),
                ("code_challenge", short),
            ],
            "43 to 128 characters",
        ),
        (
            vec![("client_id", CLIENT), ("redirect_uri", evil)],
            "is not registered",
        ),
        (
            vec![
                ("client_id", CLIENT),
                ("redirect_uri", "http://127.0.0.1:8765/other"),
            ],
            "is not registered",
        ),
        (
            vec![("client_id", "no-such-client"), ("redirect_uri", REDIRECT)],
            "Unknown client_id",
        ),
        (vec![("redirect_uri", REDIRECT)], "client_id is required"),
        (vec![("client_id", CLIENT)], "redirect_uri is required"),
        (
            vec![
                ("client_id", CLIENT),
                ("redirect_uri", REDIRECT),
                ("code_challenge", long_enough.as_str()),
                ("code_challenge_method", "S512"),
            ],
            "plain or S256",
        ),
    ];
    for (query, needle) in &cases {
        assert_rejected_page(login_page(&s, query).await, needle).await;
        // Posting the form is checked the same way, even with good credentials.
        assert_rejected_page(login_post(&s, query, "partner", "partner").await, needle).await;
    }
}

#[tokio::test]
async fn wrong_credentials_show_the_form_again() {
    let s = start().await;
    let query = [
        ("client_id", CLIENT),
        ("redirect_uri", REDIRECT),
        ("state", "s1"),
    ];
    let resp = login_post(&s, &query, "partner", "not-partner").await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert!(resp.headers().get("location").is_none());
    let html = resp.text().await.unwrap();
    assert!(html.contains("Invalid username or password"), "{html}");
    assert!(html.contains("role=\"alert\""));
    assert!(html.contains("id=\"password\""));
    assert!(html.contains("name=\"state\" value=\"s1\""));
    assert!(
        !html.contains("not-partner"),
        "the password is never echoed"
    );

    // A user of another account may not sign in through this client.
    let resp = login_post(&s, &query, "rival", "rival").await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    assert!(resp.headers().get("location").is_none());
}

#[tokio::test]
async fn reflected_parameters_are_escaped() {
    let s = start().await;
    let state = "\"><script>alert(1)</script>";
    let resp = login_page(
        &s,
        &[
            ("client_id", CLIENT),
            ("redirect_uri", REDIRECT),
            ("state", state),
        ],
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let html = resp.text().await.unwrap();
    assert!(!html.contains("<script>"), "{html}");
    assert!(html.contains("&quot;&gt;&lt;script&gt;"), "{html}");
}

// ---------------------------------------------------------------------------------
// Extractors

/// A sandbox plus two probe routes that echo the caller seen by `User` and `JwtCaller`.
struct Probe {
    sandbox: Sandbox,
    base: String,
    http: reqwest::Client,
    _stop: tokio::sync::oneshot::Sender<()>,
}

fn caller_json(c: &Caller) -> Json<Value> {
    Json(json!({
        "userId": c.user_id,
        "accountId": c.account_id,
        "username": c.username,
        "canWrite": c.can_write,
        "clientId": c.client_id,
    }))
}

async fn probe(config: Config) -> Probe {
    let sandbox = Sandbox::open(&config).unwrap();
    let extra = Router::new()
        .route(
            "/probe/user",
            get(|User(c): User| async move { caller_json(&c) }),
        )
        .route(
            "/probe/jwt",
            get(|JwtCaller(c): JwtCaller| async move { caller_json(&c) }),
        )
        .with_state(sandbox.state().clone());
    let app = sandbox.router().merge(extra);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(flightdeck_sandbox::server::serve(listener, app, async {
        let _ = stopped.await;
    }));
    Probe {
        sandbox,
        base,
        http: common::client(),
        _stop: stop,
    }
}

impl Probe {
    async fn get(&self, path: &str, auth: Option<&str>) -> (StatusCode, Value) {
        let mut req = self.http.get(format!("{}{path}", self.base));
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        json_of(req.send().await.unwrap()).await
    }

    async fn tokens(&self, user: &str, password: &str) -> Value {
        let resp = self
            .http
            .post(format!("{}/v1/oauth2/authenticate", self.base))
            .header("authorization", basic(user, password))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        resp.json().await.unwrap()
    }
}

fn bearer(token: &Value) -> String {
    format!("Bearer {}", token.as_str().unwrap())
}

/// The envelope's only message text.
fn envelope_message(body: &Value) -> &str {
    assert_eq!(body["entity"], Value::Null, "{body}");
    body["messages"][0]["message"].as_str().unwrap()
}

#[tokio::test]
async fn user_extractor_takes_bearer_or_basic() {
    let p = probe(Config::default()).await;
    let tokens = p.tokens("demo", "demo").await;

    let (status, me) = p
        .get("/probe/user", Some(&bearer(&tokens["access_token"])))
        .await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["username"], "demo");
    assert_eq!(me["accountId"], 1);
    assert_eq!(me["canWrite"], true);
    assert_eq!(me["clientId"], Value::Null);

    let (status, me) = p.get("/probe/user", Some(&basic("viewer", "viewer"))).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["canWrite"], false);
    // Lower-case scheme names work too.
    let lower = basic("rival", "rival").replacen("Basic", "basic", 1);
    let (status, me) = p.get("/probe/user", Some(&lower)).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["accountId"], 2);

    let (status, body) = p.get("/probe/user", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        envelope_message(&body),
        "missing credentials: send Authorization: Bearer <access token> or HTTP Basic user credentials"
    );
    let (status, body) = p
        .get("/probe/user", Some(&basic("demo", "secret-typo")))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(envelope_message(&body), "invalid username or password");
    assert!(!body.to_string().contains("secret-typo"));

    let (status, body) = p.get("/probe/user", Some("Bearer not.a.jwt")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(!body.to_string().contains("not.a.jwt"), "{body}");
    // The id token does not authorize requests.
    let (status, body) = p
        .get("/probe/user", Some(&bearer(&tokens["id_token"])))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    let (status, _) = p.get("/probe/user", Some("Digest abc")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn jwt_extractor_takes_access_tokens_only() {
    let p = probe(Config::default()).await;
    let tokens = p.tokens("viewer", "viewer").await;
    let (status, me) = p
        .get("/probe/jwt", Some(&bearer(&tokens["access_token"])))
        .await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["username"], "viewer");

    let required = json!({"error": "a valid access token (JWT) is required"});
    for auth in [
        None,
        Some(basic("demo", "demo")),
        Some("Bearer garbage".to_owned()),
        Some("Bearer ".to_owned()),
    ] {
        let (status, body) = p.get("/probe/jwt", auth.as_deref()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(body, required, "{auth:?}");
    }
    let (status, body) = p
        .get("/probe/jwt", Some(&bearer(&tokens["id_token"])))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(keys(&body), ["error"]);

    // A token signed by another sandbox (another secret) is refused.
    let other = probe(Config::default()).await;
    let foreign = other.tokens("viewer", "viewer").await;
    let (status, body) = p
        .get("/probe/jwt", Some(&bearer(&foreign["access_token"])))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body, required);
}

#[tokio::test]
async fn expired_access_tokens_are_refused_on_the_sandbox_clock() {
    let p = probe(Config {
        clock_start: Some(NOW),
        ..Config::default()
    })
    .await;
    let tokens = p.tokens("demo", "demo").await;
    let access = bearer(&tokens["access_token"]);
    let minted = format!(
        "Bearer {}",
        auth::mint_access_token(p.sandbox.state(), 1, NOW).unwrap()
    );
    for t in [&access, &minted] {
        assert_eq!(p.get("/probe/jwt", Some(t)).await.0, StatusCode::OK);
        assert_eq!(p.get("/v1/audiences", Some(t)).await.0, StatusCode::OK);
    }

    p.sandbox.state().clock.advance(86_400_001);
    let expired = "the access token has expired; refresh it or sign in again";
    for t in [&access, &minted] {
        let (status, body) = p.get("/v1/audiences", Some(t)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body, json!({"error": expired}));
        let (status, body) = p.get("/probe/jwt", Some(t)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body, json!({"error": expired}));
        let (status, body) = p.get("/probe/user", Some(t)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(envelope_message(&body), expired);
    }
    // Basic credentials do not expire.
    assert_eq!(
        p.get("/probe/user", Some(&basic("demo", "demo"))).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn tokens_survive_a_restart_with_a_file_database() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        data: Some(dir.path().join("sandbox.db")),
        seed: Seed::Demo,
        ..Config::default()
    };
    let first = start_with(config.clone()).await;
    let access = first.user_token("demo", "demo").await;
    first.running.stop().await.unwrap();
    drop(first.sandbox);

    let second = start_with(config).await;
    let resp = second
        .http
        .get(second.url("/v1/audiences"))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    // Seeded once: still two accounts.
    let accounts: i64 = second
        .sandbox
        .state()
        .db
        .call(|c| Ok(c.query_row("SELECT COUNT(*) FROM accounts", [], |r| r.get(0))?))
        .await
        .unwrap();
    assert_eq!(accounts, 2);
}
