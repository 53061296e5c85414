//! The data-partner login: authorization code with PKCE (S256 by default) and `state`,
//! through the `oauth2` crate, then the partner refresh.

use std::time::Duration;

use flightdeck_client::auth::{LoopbackListener, PartnerAuth, PkceMethod};
use flightdeck_client::{Error, ExposeSecret, SecretString, TransportKind};
use reqwest::StatusCode;
use url::Url;

use crate::support::{
    APP_REDIRECT, CLIENT_ID, CLIENT_SECRET, Server, closed_port_config, http, log_in, param,
};

fn partner(s: &Server, redirect: &str) -> PartnerAuth {
    PartnerAuth::new(
        &s.config(),
        CLIENT_ID,
        CLIENT_SECRET.into(),
        Url::parse(redirect).unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn partner_signs_in_with_s256_and_refreshes() {
    let s = Server::start().await;
    let auth = partner(&s, APP_REDIRECT);
    let pending = auth.begin(PkceMethod::default());
    assert_eq!(pending.pkce_method(), PkceMethod::S256);

    // The login URL: the service's login page with everything the flow needs.
    let url = pending.authorize_url();
    assert_eq!(
        url.as_str().split('?').next(),
        Some(s.url("/v1/oauth2/login").as_str())
    );
    assert_eq!(param(url, "client_id").as_deref(), Some(CLIENT_ID));
    assert_eq!(param(url, "redirect_uri").as_deref(), Some(APP_REDIRECT));
    assert_eq!(param(url, "code_challenge_method").as_deref(), Some("S256"));
    assert_eq!(param(url, "code_challenge").map(|c| c.len()), Some(43));
    let state = param(url, "state").unwrap();
    assert_eq!(state, pending.state());
    assert!(state.len() >= 16);

    // The browser's part, then the redirect back to the app with code and state.
    let redirect = log_in(url, "partner", "partner").await;
    assert_eq!(redirect.as_str().split('?').next(), Some(APP_REDIRECT));
    assert_eq!(param(&redirect, "state").as_deref(), Some(pending.state()));

    let tokens = auth.finish(&pending, &redirect).await.unwrap();
    let refresh = tokens.refresh_token.clone().expect("a refresh token");
    assert_eq!(
        s.get_with("/v1/audiences", &tokens.access_token).await,
        StatusCode::OK
    );

    // Refresh after the service considers the access token expired.
    s.advance(crate::support::PAST_EXPIRY);
    assert_eq!(
        s.get_with("/v1/audiences", &tokens.access_token).await,
        StatusCode::UNAUTHORIZED
    );
    let renewed = auth.refresh(&refresh).await.unwrap();
    assert_ne!(
        renewed.access_token.expose_secret(),
        tokens.access_token.expose_secret()
    );
    assert_eq!(
        renewed.refresh_token.as_ref().unwrap().expose_secret(),
        refresh.expose_secret(),
        "no new refresh token in the answer: the old one is kept"
    );
    assert_eq!(
        s.get_with("/v1/audiences", &renewed.access_token).await,
        StatusCode::OK
    );

    // The code is single-use, and presenting it again revokes what it gave
    // (RFC 6749 §4.1.2): the renewed access token and the refresh token stop working.
    let again = auth.finish(&pending, &redirect).await.unwrap_err();
    assert!(
        matches!(&again, Error::Token { status: 400, error, .. } if error == "invalid_grant"),
        "{again:?}"
    );
    assert_eq!(
        s.get_with("/v1/audiences", &renewed.access_token).await,
        StatusCode::UNAUTHORIZED
    );
    let revoked = auth.refresh(&refresh).await.unwrap_err();
    assert!(
        matches!(&revoked, Error::Token { status: 400, error, .. } if error == "invalid_grant"),
        "{revoked:?}"
    );
}

#[tokio::test]
async fn partner_signs_in_through_the_loopback_listener() {
    let s = Server::start().await;
    let listener = LoopbackListener::bind().await.unwrap();
    let auth = partner(&s, listener.redirect_uri().as_str());
    let pending = auth.begin(PkceMethod::S256);
    let location = log_in(pending.authorize_url(), "partner", "partner").await;
    assert_eq!(location.port(), listener.redirect_uri().port());

    // The "browser" follows the redirect to the listener.
    let browser = tokio::spawn(async move {
        let resp = http().get(location).send().await.unwrap();
        (resp.status(), resp.text().await.unwrap())
    });
    let redirect = listener
        .wait(Duration::from_secs(10), pending.state())
        .await
        .unwrap();
    let (status, page) = browser.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Signed in"), "{page}");

    let tokens = auth.finish(&pending, &redirect).await.unwrap();
    assert_eq!(
        s.get_with("/v1/audiences", &tokens.access_token).await,
        StatusCode::OK
    );
}

#[tokio::test]
async fn plain_pkce_only_when_asked_for() {
    let s = Server::start().await;
    let auth = partner(&s, APP_REDIRECT);
    let default = auth.begin(PkceMethod::default());
    assert_eq!(
        param(default.authorize_url(), "code_challenge_method").as_deref(),
        Some("S256")
    );

    let pending = auth.begin(PkceMethod::Plain);
    assert_eq!(pending.pkce_method(), PkceMethod::Plain);
    assert_eq!(
        param(pending.authorize_url(), "code_challenge_method").as_deref(),
        Some("plain")
    );
    let redirect = log_in(pending.authorize_url(), "partner", "partner").await;
    let tokens = auth.finish(&pending, &redirect).await.unwrap();
    assert_eq!(
        s.get_with("/v1/audiences", &tokens.access_token).await,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_pkce_verifier_from_another_sign_in_is_refused() {
    let s = Server::start().await;
    let auth = partner(&s, APP_REDIRECT);
    let first = auth.begin(PkceMethod::S256);
    let second = auth.begin(PkceMethod::S256);
    let redirect = log_in(first.authorize_url(), "partner", "partner").await;
    // Rewrite the redirect's state to match the second sign-in: the state check passes,
    // but the code is bound to the first challenge.
    let mut forged = redirect.clone();
    let code = param(&redirect, "code").unwrap();
    forged
        .query_pairs_mut()
        .clear()
        .append_pair("code", &code)
        .append_pair("state", second.state());
    let err = auth.finish(&second, &forged).await.unwrap_err();
    assert!(
        matches!(&err, Error::Token { status: 400, error, .. } if error == "invalid_grant"),
        "{err:?}"
    );
    assert!(!format!("{err} {err:?}").contains(&code));
}

#[tokio::test]
async fn a_wrong_client_secret_is_invalid_client_without_the_secret() {
    let s = Server::start().await;
    let good = partner(&s, APP_REDIRECT);
    let pending = good.begin(PkceMethod::S256);
    let redirect = log_in(pending.authorize_url(), "partner", "partner").await;
    let bad = PartnerAuth::new(
        &s.config(),
        CLIENT_ID,
        "wrong-secret-value".into(),
        Url::parse(APP_REDIRECT).unwrap(),
    )
    .unwrap();
    let err = bad.finish(&pending, &redirect).await.unwrap_err();
    assert!(
        matches!(&err, Error::Token { status: 401, error, .. } if error == "invalid_client"),
        "{err:?}"
    );
    let text = format!("{err} {err:?} {bad:?} {pending:?}");
    assert!(!text.contains("wrong-secret-value"), "{text}");
}

#[tokio::test]
async fn a_bad_redirect_is_refused_before_any_request() {
    // Nothing listens at this address: any request would be a Transport error.
    let config = closed_port_config();
    let auth = PartnerAuth::new(
        &config,
        CLIENT_ID,
        SecretString::from(CLIENT_SECRET),
        Url::parse(APP_REDIRECT).unwrap(),
    )
    .unwrap();
    let pending = auth.begin(PkceMethod::S256);
    let state = pending.state().to_owned();
    let refused = [
        format!("{APP_REDIRECT}?code=abc&state=not-{state}"),
        format!("{APP_REDIRECT}?code=abc"),
        format!("{APP_REDIRECT}?code=abc&state="),
        format!("{APP_REDIRECT}?error=access_denied&state={state}"),
        format!("{APP_REDIRECT}?state={state}"),
        format!("com.flightdeck.desktop:/elsewhere/callback?code=abc&state={state}"),
        format!("http://127.0.0.1:1/callback?code=abc&state={state}"),
    ];
    for redirect in refused {
        let err = auth
            .finish(&pending, &Url::parse(&redirect).unwrap())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::SignIn(_)), "{redirect}: {err:?}");
        assert!(!err.to_string().contains("abc"), "{err}");
    }
    // The same redirect with the right state does go to the network (and fails there),
    // so the refusals above happened before any request.
    let good = Url::parse(&format!("{APP_REDIRECT}?code=abc&state={state}")).unwrap();
    let err = auth.finish(&pending, &good).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Transport {
                kind: TransportKind::Connect,
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_revoked_partner_refresh_token_is_invalid_grant() {
    let s = Server::start().await;
    let auth = partner(&s, APP_REDIRECT);
    let pending = auth.begin(PkceMethod::S256);
    let redirect = log_in(pending.authorize_url(), "partner", "partner").await;
    let tokens = auth.finish(&pending, &redirect).await.unwrap();
    let refresh = tokens.refresh_token.unwrap();
    s.revoke(&refresh).await;
    let err = auth.refresh(&refresh).await.unwrap_err();
    assert!(
        matches!(&err, Error::Token { status: 400, error, .. } if error == "invalid_grant"),
        "{err:?}"
    );
    assert!(!format!("{err:?}").contains(refresh.expose_secret()));
}
