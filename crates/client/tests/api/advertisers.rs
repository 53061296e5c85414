use flightdeck_client::{Credentials, Error, SecretString};
use flightdeck_model::{Advertiser, TimezoneName};

use crate::common::TestServer;

fn new_advertiser(name: &str) -> Advertiser {
    Advertiser {
        name: Some(name.into()),
        agency_id: Some(1),
        currency: Some("USD".into()),
        category: Some("IAB3".into()),
        external_advertiser_id: Some(format!("EXT-{name}")),
        ..Advertiser::default()
    }
}

#[tokio::test]
async fn advertiser_save_creates_then_updates() {
    let s = TestServer::start().await;
    let c = s.demo();
    let created = c.advertiser_save(&new_advertiser("Zephyr")).await.unwrap();
    let a = created.entity;
    assert!(a.id.is_some());
    assert_eq!(a.name.as_deref(), Some("Zephyr"));
    assert_eq!(a.agency_id, Some(1));
    assert_eq!(
        a.timezone_name,
        Some(TimezoneName::ET),
        "account timezone applies"
    );
    assert!(created.messages.is_empty());

    let changed = Advertiser {
        name: Some("Zephyr Bikes".into()),
        category: Some("IAB2".into()),
        ..a.clone()
    };
    let updated = c.advertiser_save(&changed).await.unwrap().entity;
    assert_eq!(updated.id, a.id);
    assert_eq!(updated.name.as_deref(), Some("Zephyr Bikes"));
    assert_eq!(updated.category.as_deref(), Some("IAB2"));
}

#[tokio::test]
async fn advertisers_list_and_filter_by_external_id() {
    let s = TestServer::start().await;
    let c = s.demo();
    let all = c.advertisers(None).await.unwrap().entity;
    let names: Vec<_> = all.iter().filter_map(|a| a.name.as_deref()).collect();
    assert_eq!(
        names,
        ["Acme Outdoor", "Bluebird Coffee", "Northwind Travel"]
    );

    let acme = c.advertisers(Some("ACME-001")).await.unwrap().entity;
    assert_eq!(acme.len(), 1);
    assert_eq!(acme[0].name.as_deref(), Some("Acme Outdoor"));
    assert!(
        c.advertisers(Some("nope & more"))
            .await
            .unwrap()
            .entity
            .is_empty()
    );

    let deprecated = c.all_advertisers().await.unwrap().entity;
    assert_eq!(deprecated, all);
}

#[tokio::test]
async fn unauthenticated_calls_are_401() {
    let s = TestServer::start().await;
    let cases = [
        ("no credentials", s.client_with(Credentials::None)),
        ("bad password", s.basic("demo", "wrong")),
        ("unknown user", s.basic("nobody", "demo")),
        (
            "garbage token",
            s.client_with(Credentials::Bearer(SecretString::from("not.a.jwt"))),
        ),
    ];
    for (what, c) in cases {
        match c.advertisers(None).await {
            Err(Error::Unauthenticated { messages }) => {
                assert!(!messages.is_empty(), "{what}: the service says why")
            }
            other => panic!("{what}: {other:?}"),
        }
        let e = c
            .advertiser_save(&new_advertiser("Nope"))
            .await
            .unwrap_err();
        assert!(matches!(e, Error::Unauthenticated { .. }), "{what}: {e:?}");
        assert!(!e.is_retryable());
    }
}

#[tokio::test]
async fn viewer_reads_but_cannot_write() {
    let s = TestServer::start().await;
    let viewer = s.basic("viewer", "viewer");
    assert_eq!(viewer.advertisers(None).await.unwrap().entity.len(), 3);
    let e = viewer
        .advertiser_save(&new_advertiser("Nope"))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::Forbidden { messages } if !messages.is_empty()),
        "{e:?}"
    );
}

#[tokio::test]
async fn unknown_and_foreign_ids_are_404() {
    let s = TestServer::start().await;
    let c = s.demo();
    let rival = s
        .basic("rival", "rival")
        .advertisers(None)
        .await
        .unwrap()
        .entity;
    let rival_id = rival[0].id.unwrap();
    for id in [999_999, rival_id] {
        let e = c
            .advertiser_save(&Advertiser {
                id: Some(id),
                name: Some("Mine now".into()),
                ..Advertiser::default()
            })
            .await
            .unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "id {id}: {e:?}");
    }
    // The rival's advertiser is untouched.
    let again = s
        .basic("rival", "rival")
        .advertisers(None)
        .await
        .unwrap()
        .entity;
    assert_eq!(again, rival);
}

#[tokio::test]
async fn invalid_advertisers_are_rejected_with_fields() {
    let s = TestServer::start().await;
    let bad = Advertiser {
        name: None,
        external_advertiser_id: Some("x".repeat(129)),
        ..new_advertiser("x")
    };
    match s.demo().advertiser_save(&bad).await {
        Err(Error::Rejected { status, messages }) => {
            assert_eq!(status, 400);
            let name = messages
                .iter()
                .find(|m| m.field.as_deref() == Some("name"))
                .expect("name named");
            assert_eq!(name.code, "REQUIRED");
            assert!(
                messages
                    .iter()
                    .any(|m| m.field.as_deref() == Some("externalAdvertiserId"))
            );
        }
        other => panic!("{other:?}"),
    }
}
