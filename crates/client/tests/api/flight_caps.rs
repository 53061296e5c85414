use flightdeck_client::{Client, Error};
use flightdeck_model::{FlightCap, Id};

use crate::common::TestServer;

/// An ad order of "Acme Spring Launch" (the seeded campaign with two flights) and the
/// ids of those flights.
async fn order_with_flights(c: &Client) -> (Id, Vec<Id>) {
    let campaigns = c.campaigns_by_advertiser(1).await.unwrap().entity;
    let spring = campaigns
        .iter()
        .find(|x| x.name.as_deref() == Some("Acme Spring Launch"))
        .expect("seeded campaign");
    let flights = spring
        .flights
        .as_ref()
        .unwrap()
        .iter()
        .map(|f| f.id.unwrap())
        .collect();
    let orders = c.all_ad_orders().await.unwrap().entity;
    let order = orders
        .iter()
        .find(|o| o.campaign_id == spring.id)
        .expect("seeded ad order");
    (order.id.unwrap(), flights)
}

fn cap(flight: Id, budget: f64) -> FlightCap {
    FlightCap {
        flight_id: Some(flight),
        max_budget: Some(budget),
        daily_budget: Some(budget / 10.0),
        ..FlightCap::default()
    }
}

#[tokio::test]
async fn caps_are_added_modified_and_deleted() {
    let s = TestServer::start().await;
    let c = s.demo();
    let (order, flights) = order_with_flights(&c).await;

    let caps = c
        .flight_caps_save(order, &[cap(flights[0], 1_000.0), cap(flights[1], 2_000.0)])
        .await
        .unwrap()
        .entity;
    assert_eq!(caps.len(), 2);
    assert!(
        caps.iter()
            .all(|x| x.order_id == Some(order) && x.id.is_some())
    );

    let mut first = caps[0].clone();
    first.max_budget = Some(1_500.0);
    let caps = c
        .flight_caps_save(order, &[first.clone()])
        .await
        .unwrap()
        .entity;
    assert_eq!(caps.len(), 2, "only the caps sent are modified");
    let changed = caps.iter().find(|x| x.id == first.id).unwrap();
    assert_eq!(changed.max_budget, Some(1_500.0));

    let left = c.flight_cap_delete(first.id.unwrap()).await.unwrap().entity;
    assert_eq!(left.len(), 1);
    assert_ne!(left[0].id, first.id);

    let e = c.flight_cap_delete(first.id.unwrap()).await.unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "deleted twice: {e:?}");
}

#[tokio::test]
async fn cap_errors() {
    let s = TestServer::start().await;
    let c = s.demo();
    let (order, flights) = order_with_flights(&c).await;

    let e = c
        .flight_caps_save(order, &[cap(999_999, 10.0)])
        .await
        .unwrap_err();
    let Error::Rejected { messages, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(
        messages
            .iter()
            .any(|m| m.field.as_deref() == Some("[0].flightId") && m.code == "BAD_REFERENCE"),
        "{messages:?}"
    );

    let e = c
        .flight_caps_save(999_999, &[cap(flights[0], 10.0)])
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    let e = c.flight_cap_delete(999_999).await.unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");

    let viewer = s.basic("viewer", "viewer");
    let e = viewer
        .flight_caps_save(order, &[cap(flights[0], 10.0)])
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
    let id = c
        .flight_caps_save(order, &[cap(flights[0], 10.0)])
        .await
        .unwrap()
        .entity[0]
        .id
        .unwrap();
    let e = viewer.flight_cap_delete(id).await.unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
    let e = s
        .basic("rival", "rival")
        .flight_cap_delete(id)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "other account: {e:?}");
}
