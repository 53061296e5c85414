use std::time::{Duration, Instant};

use flightdeck_client::retry::RetryPolicy;
use flightdeck_client::{Client, Credentials, Error, TransportKind};
use flightdeck_model::{AdOrder, OptimizationGoal};
use flightdeck_sandbox::faults::FaultSettings;

use crate::common::{DAY, NOW, TestServer};

fn order(name: &str) -> AdOrder {
    AdOrder {
        name: Some(name.into()),
        campaign_id: Some(1),
        optimization_goal: Some(OptimizationGoal::Cpm),
        start_date: Some(NOW + DAY),
        end_date: Some(NOW + 31 * DAY),
        lifetime_budget: Some(100.0),
        ..AdOrder::default()
    }
}

fn set(s: &TestServer, faults: FaultSettings) {
    s.sandbox.state().faults.set(faults).unwrap();
}

/// A demo client whose requests give up after `timeout`.
fn impatient(s: &TestServer, timeout: Duration) -> Client {
    let mut config = s.config();
    config.request_timeout = timeout;
    Client::new(config, Credentials::basic("demo", "demo"))
        .unwrap()
        .with_retry_policy(RetryPolicy {
            max_attempts: 2,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(20),
        })
}

#[tokio::test]
async fn server_errors_are_retried_for_reads_only_then_reported() {
    let s = TestServer::start().await;
    set(
        &s,
        FaultSettings {
            error_rate: 1.0,
            ..Default::default()
        },
    );
    // 3 attempts with waits of at least 50 and 100 ms (the jitter scales the upper half).
    let c = s.demo().with_retry_policy(RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(100),
        max_delay: Duration::from_secs(1),
    });
    let started = Instant::now();
    let e = c.all_ad_orders().await.unwrap_err();
    let waited = started.elapsed();
    assert!(matches!(&e, Error::Server { status: 503, .. }), "{e:?}");
    assert!(e.is_retryable());
    assert!(waited >= Duration::from_millis(150), "retried: {waited:?}");

    let c = c.with_retry_policy(RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_secs(5),
        max_delay: Duration::from_secs(5),
    });
    let started = Instant::now();
    let e = c.ad_order_save(&order("Not now")).await.unwrap_err();
    assert!(matches!(&e, Error::Server { status: 503, .. }), "{e:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "a POST is never retried"
    );

    set(&s, FaultSettings::default());
    assert_eq!(c.all_ad_orders().await.unwrap().entity.len(), 10);
    assert!(
        c.all_ad_orders()
            .await
            .unwrap()
            .entity
            .iter()
            .all(|o| o.name.as_deref() != Some("Not now")),
        "the failed POST did nothing"
    );
}

#[tokio::test]
async fn a_read_that_fails_once_succeeds_on_retry() {
    let s = TestServer::start().await;
    // The drop happens after the (read-only) handler ran: a lost answer to a GET is
    // simply asked for again.
    set(
        &s,
        FaultSettings {
            drop_after_commit: 1,
            ..Default::default()
        },
    );
    assert_eq!(s.demo().all_ad_orders().await.unwrap().entity.len(), 10);
    assert_eq!(s.sandbox.state().faults.get().drop_after_commit, 0);
}

#[tokio::test]
async fn slow_answers_time_out() {
    let s = TestServer::start().await;
    set(
        &s,
        FaultSettings {
            latency_ms: 1_000,
            ..Default::default()
        },
    );
    let c = impatient(&s, Duration::from_millis(200));
    let e = c.all_ad_orders().await.unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Transport {
                kind: TransportKind::Timeout,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.is_retryable());

    let e = c.ad_order_save(&order("Slow")).await.unwrap_err();
    match &e {
        Error::OutcomeUnknown { request, .. } => assert_eq!(request, "POST /v1/adorder/save"),
        other => panic!("{other:?}"),
    }
    assert!(!e.is_retryable(), "it may have been applied");
    let e = c.flight_cap_delete(1).await.unwrap_err();
    assert!(
        matches!(&e, Error::OutcomeUnknown { request, .. } if request == "DELETE /v1/campaignflightcaps/1"),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_dropped_answer_to_a_change_is_outcome_unknown_and_applied_once() {
    let s = TestServer::start().await;
    set(
        &s,
        FaultSettings {
            drop_after_commit: 1,
            ..Default::default()
        },
    );
    let c = s.demo();
    let e = c.ad_order_save(&order("Committed")).await.unwrap_err();
    assert!(
        matches!(&e, Error::OutcomeUnknown { request, .. } if request == "POST /v1/adorder/save"),
        "{e:?}"
    );
    let named = c
        .all_ad_orders()
        .await
        .unwrap()
        .entity
        .into_iter()
        .filter(|o| o.name.as_deref() == Some("Committed"))
        .count();
    assert_eq!(named, 1, "committed exactly once, never re-sent");
}

#[tokio::test]
async fn nothing_listening_is_a_connect_error_for_reads_and_changes() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let config = flightdeck_client::ClientConfig::new(&format!("http://127.0.0.1:{port}")).unwrap();
    let c = Client::new(config, Credentials::basic("demo", "demo"))
        .unwrap()
        .with_retry_policy(crate::common::fast_retries());
    let e = c.all_ad_orders().await.unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Transport {
                kind: TransportKind::Connect,
                ..
            }
        ),
        "{e:?}"
    );
    // Nothing was sent, so a change that could not connect is not "outcome unknown".
    let e = c.ad_order_save(&order("Nowhere")).await.unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Transport {
                kind: TransportKind::Connect,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.is_retryable());
}
