use flightdeck_client::Error;
use flightdeck_model::{Campaign, CampaignFlight, FlightStatus};

use crate::common::{DAY, NOW, Proxy, TestServer};

fn flight(start: i64, end: i64, budget: f64) -> CampaignFlight {
    CampaignFlight {
        start_date: Some(start),
        end_date: Some(end),
        max_budget: Some(budget),
        ..CampaignFlight::default()
    }
}

fn new_campaign(advertiser: i64) -> Campaign {
    Campaign {
        advertiser_id: Some(advertiser),
        name: Some("Autumn push".into()),
        domain: Some("example.com".into()),
        iab_category: Some(vec!["IAB3".into()]),
        flights: Some(vec![
            flight(NOW + DAY, NOW + 11 * DAY, 1_000.0),
            flight(NOW + 11 * DAY, NOW + 21 * DAY, 2_000.0),
        ]),
        ..Campaign::default()
    }
}

#[tokio::test]
async fn campaign_save_with_flights_then_read_modify_write() {
    let s = TestServer::start().await;
    let proxy = Proxy::start(&s.base_url()).await;
    let c = proxy.client(flightdeck_client::Credentials::basic("demo", "demo"));
    let saved = c
        .campaign_save(&Campaign {
            io_number: Some("CMP-9".into()),
            ..new_campaign(1)
        })
        .await
        .unwrap()
        .entity;
    let id = saved.id.expect("id");
    assert_eq!(saved.has_flights, Some(true));
    assert_eq!(saved.max_budget, Some(3_000.0), "taken from the flights");
    assert_eq!(saved.start_date, Some(NOW + DAY));
    let flights = saved.flights.clone().unwrap();
    assert_eq!(flights.len(), 2);
    assert!(
        flights
            .iter()
            .all(|f| f.status == Some(Some(FlightStatus::Pending)))
    );
    // Both client ids come back with the same value.
    assert_eq!(saved.io_number.as_deref(), Some("CMP-9"));
    assert_eq!(saved.external_campaign_id.as_deref(), Some("CMP-9"));

    // Read it back from the listing, rename it and save it whole: the client sends one
    // client id and no response-only fields, so the service accepts it.
    let listed = c.campaigns_by_advertiser(1).await.unwrap().entity;
    let mut read = listed
        .into_iter()
        .find(|x| x.id == Some(id))
        .expect("listed");
    assert_eq!(read.io_number.as_deref(), Some("CMP-9"));
    assert_eq!(read.external_campaign_id.as_deref(), Some("CMP-9"));
    read.name = Some("Autumn push, renamed".into());
    let resaved = c.campaign_save(&read).await.unwrap().entity;
    assert_eq!(resaved.name.as_deref(), Some("Autumn push, renamed"));
    assert_eq!(resaved.external_campaign_id.as_deref(), Some("CMP-9"));
    assert_eq!(resaved.flights.map(|f| f.len()), Some(2));

    // On the wire: one client id, and no response-only field.
    let body = proxy
        .requests_to("/v1/campaign/save")
        .last()
        .expect("a save")
        .json();
    let ids: Vec<_> = ["ioNumber", "externalCampaignId"]
        .into_iter()
        .filter(|k| body.get(k).is_some())
        .collect();
    assert_eq!(ids, ["externalCampaignId"], "{body}");
    assert_eq!(body["externalCampaignId"], "CMP-9");
    assert_eq!(body["name"], "Autumn push, renamed");
    assert!(body.get("hasFlights").is_none(), "{body}");
    let flights = body["flights"].as_array().expect("flights");
    assert_eq!(flights.len(), 2);
    assert!(flights.iter().all(|f| f.get("status").is_none()), "{body}");
}

#[tokio::test]
async fn campaigns_by_advertiser_lists_seeded_campaigns_and_hides_other_accounts() {
    let s = TestServer::start().await;
    let c = s.demo();
    let acme = c.campaigns_by_advertiser(1).await.unwrap().entity;
    let names: Vec<_> = acme.iter().filter_map(|x| x.name.as_deref()).collect();
    assert_eq!(names, ["Acme Spring Launch", "Acme Always-On"]);
    assert_eq!(acme[0].flights.as_ref().map(Vec::len), Some(2));

    let rival = s
        .basic("rival", "rival")
        .advertisers(None)
        .await
        .unwrap()
        .entity;
    for id in [999_999, rival[0].id.unwrap()] {
        let e = c.campaigns_by_advertiser(id).await.unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{id}: {e:?}");
    }
}

#[tokio::test]
async fn flight_errors_name_their_fields() {
    let s = TestServer::start().await;
    let c = s.demo();
    let mut overlapping = new_campaign(1);
    overlapping.flights = Some(vec![
        flight(NOW + DAY, NOW + 11 * DAY, 1_000.0),
        flight(NOW + 5 * DAY, NOW + 15 * DAY, 1_000.0),
    ]);
    let e = c.campaign_save(&overlapping).await.unwrap_err();
    let Error::Rejected { status, messages } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(*status, 400);
    let m = messages
        .iter()
        .find(|m| m.code == "OVERLAP")
        .expect("overlap reported");
    assert_eq!(m.field.as_deref(), Some("flights[1].startDate"));

    let mut missing = new_campaign(1);
    missing.flights = Some(vec![CampaignFlight {
        start_date: None,
        ..flight(0, NOW + 11 * DAY, 1_000.0)
    }]);
    let e = c.campaign_save(&missing).await.unwrap_err();
    assert!(
        e.messages()
            .iter()
            .any(|m| m.field.as_deref() == Some("flights[0].startDate") && m.code == "REQUIRED"),
        "{e:?}"
    );
}

#[tokio::test]
async fn campaign_with_two_different_client_ids_is_a_conflict() {
    let s = TestServer::start().await;
    let e = s
        .demo()
        .campaign_save(&Campaign {
            io_number: Some("A".into()),
            external_campaign_id: Some("B".into()),
            ..new_campaign(1)
        })
        .await
        .unwrap_err();
    assert!(matches!(e, Error::IdentifierConflict { .. }), "{e:?}");
}

#[tokio::test]
async fn campaign_writes_need_permission_and_known_ids() {
    let s = TestServer::start().await;
    let e = s
        .basic("viewer", "viewer")
        .campaign_save(&new_campaign(1))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
    let e = s
        .demo()
        .campaign_save(&Campaign {
            id: Some(999_999),
            ..new_campaign(1)
        })
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
}

#[tokio::test]
async fn campaign_flights_save_adds_flights_and_checks_dates() {
    let s = TestServer::start().await;
    let c = s.demo();
    let campaign = c.campaign_save(&new_campaign(1)).await.unwrap().entity;
    let id = campaign.id.unwrap();

    // Flights read back carry `status`; sending them again with a new one works.
    let mut flights = campaign.flights.unwrap();
    flights.push(flight(NOW + 30 * DAY, NOW + 40 * DAY, 500.0));
    let all = c.campaign_flights_save(id, &flights).await.unwrap().entity;
    assert_eq!(all.len(), 3);
    assert!(all.iter().all(|f| f.id.is_some()));

    let e = c
        .campaign_flights_save(id, &[flight(NOW - DAY, NOW + 60 * DAY, 1.0)])
        .await
        .unwrap_err();
    let m = e
        .messages()
        .iter()
        .find(|m| m.code == "START_IN_PAST")
        .unwrap_or_else(|| panic!("{e:?}"));
    assert_eq!(m.field.as_deref(), Some("flights[0].startDate"));

    let e = c
        .campaign_flights_save(999_999, &[flight(NOW + 50 * DAY, NOW + 60 * DAY, 1.0)])
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    let e = s
        .basic("viewer", "viewer")
        .campaign_flights_save(id, &[flight(NOW + 50 * DAY, NOW + 60 * DAY, 1.0)])
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
}
