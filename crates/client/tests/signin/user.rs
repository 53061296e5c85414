//! Advertiser and agency sign-in: `POST /v1/oauth2/authenticate` and the user refresh.

use flightdeck_client::auth::{authenticate, refresh_user};
use flightdeck_client::{Error, ExposeSecret, SecretString, TransportKind};
use reqwest::StatusCode;

use crate::support::{Server, closed_port_config, reveal};

#[tokio::test]
async fn user_signs_in_and_the_token_works() {
    let s = Server::start().await;
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let tokens = authenticate(&s.config(), "demo", &"demo".into())
        .await
        .unwrap();
    let (access, refresh) = reveal(&tokens);
    assert_eq!(access.split('.').count(), 3, "a JWT");
    assert!(refresh.is_some_and(|r| r.len() >= 40));
    // expires_in (86400 s) is counted from the client's clock.
    let lifetime = tokens.expires_at_ms - started;
    assert!((86_400_000..86_460_000).contains(&lifetime), "{lifetime}");
    assert!(!tokens.expires_within(5 * 60_000));
    assert_eq!(
        s.get_with("/v1/advertiser", &tokens.access_token).await,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_wrong_password_is_a_token_error_without_the_password() {
    let s = Server::start().await;
    let password: SecretString = "not-the-password".into();
    let err = authenticate(&s.config(), "demo", &password)
        .await
        .unwrap_err();
    match &err {
        Error::Token {
            status,
            error,
            error_description,
        } => {
            assert_eq!(*status, 401);
            assert_eq!(error, "invalid_grant");
            assert!(!error_description.is_empty());
        }
        other => panic!("expected Error::Token, got {other:?}"),
    }
    let text = format!("{err} {err:?}");
    assert!(!text.contains("not-the-password"), "{text}");
}

#[tokio::test]
async fn user_refresh_gives_a_new_access_token_and_keeps_the_refresh_token() {
    let s = Server::start().await;
    let config = s.config();
    let password: SecretString = "demo".into();
    let first = authenticate(&config, "demo", &password).await.unwrap();
    let refresh = first.refresh_token.clone().unwrap();
    // The service checks expiry with its own clock: the old token is dead there.
    s.advance(crate::support::PAST_EXPIRY);
    assert_eq!(
        s.get_with("/v1/advertiser", &first.access_token).await,
        StatusCode::UNAUTHORIZED
    );

    let second = refresh_user(&config, "demo", &password, &refresh)
        .await
        .unwrap();
    assert_ne!(
        second.access_token.expose_secret(),
        first.access_token.expose_secret()
    );
    // The answer has no refresh token: the old one is kept.
    assert_eq!(
        second.refresh_token.as_ref().unwrap().expose_secret(),
        refresh.expose_secret()
    );
    assert_eq!(
        s.get_with("/v1/advertiser", &second.access_token).await,
        StatusCode::OK
    );

    // A wrong password on the refresh is invalid_client; an unknown token invalid_grant.
    let err = refresh_user(&config, "demo", &"nope".into(), &refresh)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Token { status: 401, error, .. } if error == "invalid_client"),
        "{err:?}"
    );
    let err = refresh_user(&config, "demo", &password, &"no-such-token".into())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Token { status: 400, error, .. } if error == "invalid_grant"),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_unreachable_service_is_a_transport_error() {
    let err = authenticate(&closed_port_config(), "demo", &"demo".into())
        .await
        .unwrap_err();
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
    assert!(err.is_retryable());
}
