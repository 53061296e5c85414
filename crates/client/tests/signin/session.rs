//! Sessions: renewal before expiry and after a 401 (single-flight), the end of a session
//! when renewal is refused, and partner sessions. Keyring-backed sessions are in
//! `keyring.rs`.

use std::sync::Arc;
use std::time::Duration;

use flightdeck_client::auth::{PartnerAuth, PkceMethod};
use flightdeck_client::session::Session;
use flightdeck_client::{Client, Credentials, Error, ExposeSecret, SecretString};
use reqwest::StatusCode;
use tokio::sync::Barrier;
use url::Url;

use crate::support::{APP_REDIRECT, CLIENT_ID, CLIENT_SECRET, PAST_EXPIRY, Server, log_in};

async fn demo_session(s: &Server) -> Session {
    Session::user(&s.config(), "demo", "demo".into(), None)
        .await
        .unwrap()
}

#[tokio::test]
async fn an_expired_token_is_renewed_and_the_call_retried() {
    let s = Server::start().await;
    let session = Arc::new(demo_session(&s).await);
    let client = Client::new(s.config(), Credentials::Session(Arc::clone(&session))).unwrap();
    client.advertisers(None).await.unwrap();
    assert_eq!(session.renewal_count(), 0);

    // The service's clock passes the token's expiry; the client's does not know.
    let before = session.bearer().await.unwrap();
    s.advance(PAST_EXPIRY);
    assert_eq!(
        s.get_with("/v1/advertiser", &before).await,
        StatusCode::UNAUTHORIZED
    );
    let reply = client.advertisers(None).await.unwrap();
    assert!(!reply.entity.is_empty());
    assert_eq!(session.renewal_count(), 1);
    let after = session.bearer().await.unwrap();
    assert_ne!(after.expose_secret(), before.expose_secret());

    // The next call needs no renewal.
    client.advertisers(None).await.unwrap();
    assert_eq!(session.renewal_count(), 1);
}

#[tokio::test]
async fn the_renewal_is_driven_by_hand_too() {
    let s = Server::start().await;
    let session = demo_session(&s).await;
    let token = session.bearer().await.unwrap();
    s.advance(PAST_EXPIRY);
    assert_eq!(
        s.get_with("/v1/advertiser", &token).await,
        StatusCode::UNAUTHORIZED
    );
    let renewed = session.renew_after_rejection(&token).await.unwrap();
    assert_eq!(s.get_with("/v1/advertiser", &renewed).await, StatusCode::OK);
    // A stale rejection after the renewal renews nothing.
    let same = session.renew_after_rejection(&token).await.unwrap();
    assert_eq!(same.expose_secret(), renewed.expose_secret());
    assert_eq!(session.renewal_count(), 1);
}

#[tokio::test]
async fn concurrent_rejections_share_one_renewal() {
    let s = Arc::new(Server::start().await);
    let session = Arc::new(demo_session(&s).await);
    s.advance(PAST_EXPIRY);
    let barrier = Arc::new(Barrier::new(10));
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let (s, session, barrier) = (Arc::clone(&s), Arc::clone(&session), Arc::clone(&barrier));
        tasks.push(tokio::spawn(async move {
            let token = session.bearer().await.unwrap();
            assert_eq!(
                s.get_with("/v1/advertiser", &token).await,
                StatusCode::UNAUTHORIZED
            );
            // Every request has been rejected before any of them renews.
            barrier.wait().await;
            let renewed = session.renew_after_rejection(&token).await.unwrap();
            assert_eq!(s.get_with("/v1/advertiser", &renewed).await, StatusCode::OK);
            renewed.expose_secret().to_owned()
        }));
    }
    let mut tokens = Vec::new();
    for t in tasks {
        tokens.push(t.await.unwrap());
    }
    assert_eq!(session.renewal_count(), 1, "one renewal for ten rejections");
    tokens.dedup();
    assert_eq!(tokens.len(), 1, "all ten retried with the same token");
}

#[tokio::test]
async fn bearer_renews_within_the_margin() {
    let s = Server::start().await;
    let session = demo_session(&s).await;
    // Default margin (5 minutes) against a 24 h token: no renewal.
    let a = session.bearer().await.unwrap();
    let b = session.bearer().await.unwrap();
    assert_eq!(a.expose_secret(), b.expose_secret());
    assert_eq!(session.renewal_count(), 0);

    // A margin longer than the token's life: every bearer() renews first.
    let session = demo_session(&s)
        .await
        .with_renew_margin(Duration::from_secs(86_400 + 60));
    let first_expiry = session.expires_at_ms().await.unwrap();
    let c = session.bearer().await.unwrap();
    assert_eq!(session.renewal_count(), 1);
    assert!(session.expires_at_ms().await.unwrap() >= first_expiry);
    assert_eq!(s.get_with("/v1/advertiser", &c).await, StatusCode::OK);
}

#[tokio::test]
async fn a_refused_renewal_ends_the_session() {
    let s = Server::start().await;
    let session = demo_session(&s).await;
    let token = session.bearer().await.unwrap();
    s.revoke_all().await;
    s.advance(PAST_EXPIRY);
    let err = session.renew_after_rejection(&token).await.unwrap_err();
    match &err {
        Error::SignInRequired { reason } => assert!(reason.contains("revoked"), "{reason}"),
        other => panic!("expected SignInRequired, got {other:?}"),
    }
    assert!(
        err.to_string().starts_with("your session has ended"),
        "{err}"
    );
    // No stale token is handed out afterwards, and nothing is renewed again.
    assert!(matches!(
        session.bearer().await,
        Err(Error::SignInRequired { .. })
    ));
    assert!(matches!(
        session.renew_after_rejection(&token).await,
        Err(Error::SignInRequired { .. })
    ));
    assert_eq!(session.expires_at_ms().await, None);
    assert_eq!(session.renewal_count(), 1);
}

#[tokio::test]
async fn a_business_call_after_a_refused_renewal_is_sign_in_required() {
    let s = Server::start().await;
    let session = Arc::new(demo_session(&s).await);
    let client = Client::new(s.config(), Credentials::Session(Arc::clone(&session))).unwrap();
    s.revoke_all().await;
    s.advance(PAST_EXPIRY);
    let err = client.advertisers(None).await.unwrap_err();
    assert!(matches!(err, Error::SignInRequired { .. }), "{err:?}");
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn network_trouble_during_renewal_keeps_the_session() {
    let s = Server::start().await;
    let session = demo_session(&s)
        .await
        .with_renew_margin(Duration::from_secs(86_400 + 60));
    let token = session.bearer().await.unwrap();
    assert_eq!(session.renewal_count(), 1);
    drop(s);
    // The sandbox is gone. The early renewal fails, but the token has not expired by
    // the client's clock, so it is still handed out.
    let still = session.bearer().await.unwrap();
    assert_eq!(still.expose_secret(), token.expose_secret());
    assert_eq!(session.renewal_count(), 2);
    // After a 401 there is no such fallback: the network error, not SignInRequired.
    let err = session.renew_after_rejection(&token).await.unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert!(session.expires_at_ms().await.is_some(), "tokens kept");
}

#[tokio::test]
async fn a_partner_session_renews_with_the_client_secret() {
    let s = Server::start().await;
    let config = s.config();
    let auth = PartnerAuth::new(
        &config,
        CLIENT_ID,
        SecretString::from(CLIENT_SECRET),
        Url::parse(APP_REDIRECT).unwrap(),
    )
    .unwrap();
    let pending = auth.begin(PkceMethod::S256);
    let redirect = log_in(pending.authorize_url(), "partner", "partner").await;
    let tokens = auth.finish(&pending, &redirect).await.unwrap();
    let session = Arc::new(Session::partner(&config, auth, tokens, None).await.unwrap());
    assert_eq!(session.account(), CLIENT_ID);

    let client = Client::new(config, Credentials::Session(Arc::clone(&session))).unwrap();
    client.audiences(None, None).await.unwrap();
    s.advance(PAST_EXPIRY);
    client.audiences(None, None).await.unwrap();
    assert_eq!(session.renewal_count(), 1);
}

/// A service whose sign-in works and whose token endpoint answers each renewal with the
/// next of `refusals` (status, OAuth2 error), then with new tokens. Counts renewals.
async fn token_endpoint(
    refusals: Vec<(u16, &'static str)>,
) -> (
    flightdeck_client::ClientConfig,
    Arc<std::sync::atomic::AtomicUsize>,
) {
    use axum::http::StatusCode as Status;
    use std::collections::VecDeque;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn tokens(tag: usize) -> serde_json::Value {
        serde_json::json!({
            "access_token": format!("access-{tag}"),
            "id_token": format!("id-{tag}"),
            "refresh_token": "refresh",
            "expires_in": 3600,
        })
    }
    let calls = Arc::new(AtomicUsize::new(0));
    let queue = Arc::new(std::sync::Mutex::new(VecDeque::from(refusals)));
    let counted = Arc::clone(&calls);
    let app = axum::Router::new()
        .route(
            "/v1/oauth2/authenticate",
            axum::routing::post(|| async { axum::Json(tokens(0)) }),
        )
        .route(
            "/v1/oauth2/token",
            axum::routing::post(move || {
                let n = counted.fetch_add(1, Ordering::SeqCst) + 1;
                let next = queue.lock().unwrap().pop_front();
                async move {
                    match next {
                        Some((status, error)) => (
                            Status::from_u16(status).unwrap(),
                            axum::Json(serde_json::json!({"error": error})),
                        ),
                        None => (Status::OK, axum::Json(tokens(n))),
                    }
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let config = flightdeck_client::ClientConfig::new(&format!("http://{addr}/")).unwrap();
    (config, calls)
}

#[tokio::test]
async fn a_busy_or_slow_token_endpoint_is_tried_again_and_the_session_lives() {
    use std::sync::atomic::Ordering;
    let (config, calls) = token_endpoint(vec![(429, "slow_down"), (408, "timeout")]).await;
    let session = Session::user(&config, "buyer", "pw".into(), None)
        .await
        .unwrap();
    let token = session.bearer().await.unwrap();
    let renewed = session.renew_after_rejection(&token).await.unwrap();
    assert_eq!(renewed.expose_secret(), "access-3");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        3,
        "429 and 408 were tried again"
    );
    assert!(session.expires_at_ms().await.is_some());
}

#[tokio::test]
async fn only_invalid_grant_or_invalid_client_end_the_session() {
    let (config, _) = token_endpoint(vec![(400, "invalid_request"), (401, "invalid_client")]).await;
    let session = Session::user(&config, "buyer", "pw".into(), None)
        .await
        .unwrap();
    let token = session.bearer().await.unwrap();
    // A refusal that says nothing about the sign-in leaves the session as it was.
    let err = session.renew_after_rejection(&token).await.unwrap_err();
    assert!(
        matches!(&err, Error::Token { status: 400, error, .. } if error == "invalid_request"),
        "{err:?}"
    );
    assert!(session.expires_at_ms().await.is_some(), "the session lives");
    assert_eq!(
        session.bearer().await.unwrap().expose_secret(),
        token.expose_secret()
    );
    // invalid_client (the password changed) ends it.
    let err = session.renew_after_rejection(&token).await.unwrap_err();
    assert!(matches!(err, Error::SignInRequired { .. }), "{err:?}");
    assert_eq!(session.expires_at_ms().await, None);
}
