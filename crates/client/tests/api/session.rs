//! `Credentials::Session`: a token the service rejects is renewed once and the request
//! sent again; a refused renewal ends in `SignInRequired`.
//!
//! The service clock is moved past the token's expiry while the client's clock is not,
//! so the session does not renew ahead of time and the 401 path is what runs.

use std::sync::Arc;

use flightdeck_client::session::Session;
use flightdeck_client::{Client, Credentials, Error, SecretString};
use flightdeck_model::{AdOrder, OptimizationGoal};
use futures_util::future::join_all;

use crate::common::{DAY, NOW, TestServer};

async fn session_client(s: &TestServer) -> (Client, Arc<Session>) {
    let session = Session::user(&s.config(), "demo", SecretString::from("demo"), None)
        .await
        .unwrap();
    let session = Arc::new(session);
    (
        s.client_with(Credentials::Session(Arc::clone(&session))),
        session,
    )
}

fn order(name: &str) -> AdOrder {
    AdOrder {
        name: Some(name.into()),
        campaign_id: Some(1),
        optimization_goal: Some(OptimizationGoal::Cpm),
        start_date: Some(NOW + 10 * DAY),
        end_date: Some(NOW + 40 * DAY),
        lifetime_budget: Some(100.0),
        ..AdOrder::default()
    }
}

#[tokio::test]
async fn an_expired_token_is_renewed_once_and_the_request_sent_again() {
    let s = TestServer::start().await;
    let (c, session) = session_client(&s).await;
    assert_eq!(c.all_ad_orders().await.unwrap().entity.len(), 10);
    assert!(
        c.audiences(None, None).await.is_ok(),
        "a session works on audiences"
    );
    assert_eq!(session.renewal_count(), 0);

    s.advance(2 * DAY);
    assert_eq!(c.all_ad_orders().await.unwrap().entity.len(), 10);
    assert_eq!(session.renewal_count(), 1);
    assert_eq!(c.advertisers(None).await.unwrap().entity.len(), 3);
    assert_eq!(session.renewal_count(), 1, "the renewed token is kept");

    // A change is sent again too: a 401 means the service did nothing.
    s.advance(2 * DAY);
    c.ad_order_save(&order("After renewal")).await.unwrap();
    assert_eq!(session.renewal_count(), 2);
    let named = c
        .all_ad_orders()
        .await
        .unwrap()
        .entity
        .iter()
        .filter(|o| o.name.as_deref() == Some("After renewal"))
        .count();
    assert_eq!(named, 1);
}

#[tokio::test]
async fn concurrent_rejections_share_one_renewal() {
    let s = TestServer::start().await;
    let (c, session) = session_client(&s).await;
    s.advance(2 * DAY);
    let results = join_all((0..8).map(|_| c.all_ad_orders())).await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(session.renewal_count(), 1);
}

#[tokio::test]
async fn a_refused_renewal_requires_signing_in_again() {
    let s = TestServer::start().await;
    let (c, _session) = session_client(&s).await;
    // Past the refresh token's 30 days as well.
    s.advance(31 * DAY);
    let e = c.all_ad_orders().await.unwrap_err();
    assert!(matches!(e, Error::SignInRequired { .. }), "{e:?}");
    assert!(!e.is_retryable());
    let e = c.ad_order_save(&order("Never sent")).await.unwrap_err();
    assert!(matches!(e, Error::SignInRequired { .. }), "{e:?}");
    let e = c.audiences(None, None).await.unwrap_err();
    assert!(matches!(e, Error::SignInRequired { .. }), "{e:?}");
}
