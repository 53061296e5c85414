//! Answers of every kind carrying fields and enum values the real service may add: they
//! decode through the real HTTP path, keep the unknowns (`extra`, `Other`), and encode
//! back to what was received. The answers are canned on a loopback server, because the
//! sandbox only ever sends values it knows.

use flightdeck_client::auth::{self, PartnerAuth};
use flightdeck_client::{Credentials, ExposeSecret, SecretString};
use flightdeck_model::{
    BudgetType, CreativeStatus, CreativeSubtype, CreativeType, DataType, FlightStatus, GoalMode,
    MediaType, MessageLevel, Objective, OptimizationGoal, PacingMode, SegmentStatus, SiteList,
    SiteListStrategy, SiteRuleType, TimePeriod, TimezoneName, VideoType,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::common::{Canned, NOW};

fn envelope(entity: Value) -> Value {
    json!({
        "messages": [{"level": "NOTICE", "code": "NEW_CODE", "message": "a level the client has never seen"}],
        "entity": entity,
    })
}

/// `decoded` encodes back to exactly `wire`: nothing dropped, nothing renamed.
fn round_trips<T: Serialize>(decoded: &T, wire: &Value) {
    assert_eq!(&serde_json::to_value(decoded).unwrap(), wire);
}

fn advertisers() -> Value {
    json!([
        {"id": 1, "name": "Acme", "agencyId": 7, "currency": "USD", "category": "IAB3",
         "timezoneName": "PT", "externalAdvertiserId": "A-1"},
        {"id": 2, "name": "Orbit", "agencyId": 7, "currency": "EUR", "category": "IAB19",
         "timezoneName": "MARS_OLYMPUS", "externalAdvertiserId": "A-2",
         "billingTier": "gold", "flags": {"beta": true}},
    ])
}

fn campaigns() -> Value {
    json!([{
        "id": 4, "advertiserId": 2, "name": "Launch", "maxBudget": 3000.0,
        "frequencyCapTimePeriod": "FORTNIGHT", "frequencyCapDuration": 2,
        "objective": "RETENTION", "pacingMode": "SPEND_WISELY",
        "ioNumber": "C-1", "externalCampaignId": "C-1", "hasFlights": true,
        "carbonScore": 3,
        "flights": [
            {"id": 9, "status": "PAUSED", "budgetType": "PER_DAY_BUDGET", "maxBudget": 1000.0,
             "startDate": NOW, "endDate": NOW + 86_400_000, "flightNote": "holiday"},
            {"id": 10, "status": "ACTIVE", "budgetType": "AUTO_BUDGET", "maxBudget": 2000.0,
             "startDate": NOW + 86_400_000, "endDate": NOW + 172_800_000},
        ],
    }])
}

fn ad_orders() -> Value {
    json!([{
        "id": 5, "name": "Retargeting", "campaignId": 4, "optimizationGoal": "ROAS",
        "goalMode": "BALANCED", "hourlyPacingMode": "SMOOTH",
        "frequencyCap": {"limit": 3, "duration": 1, "timePeriod": "FORTNIGHT", "scope": "household"},
        "channelsV2": ["Display", "LTV_Premium"],
        "io_number": "IO-1", "externalAdOrderId": "IO-1",
        "audiences": [{
            "id": 1, "name": "Default audience", "weight": 100, "segmentMatch": "any",
            "exchanges": {"include": [1], "exclude": [], "mode": "strict"},
        }],
        "brandSafety": "strict",
    }])
}

fn flight_caps() -> Value {
    json!([{"id": 1, "orderId": 5, "flightId": 9, "maxBudget": 100.0, "dailyBudget": 10.0,
            "lifetimeImpressions": null, "capMode": "soft"}])
}

fn creative() -> Value {
    json!({
        "id": 77, "name": "Hologram", "creativeType": "HOLOGRAM", "creativeSubtype": "VOLUMETRIC",
        "type": {"mediaType": "XR", "id": 3, "videoType": "AV1", "codecProfile": "main"},
        "advertiserId": 2, "size": {"width": 300, "height": 250},
        "landingPageUrl": "https://example.com", "status": "UNDER_REVIEW",
        "reviewNotes": "queued",
    })
}

fn id_list() -> Value {
    json!({"id": 3, "name": "Allowed", "typeId": 5, "strategy": "smart",
           "siteIds": [1, 2], "rules": null, "insertedCount": 2})
}

fn rule_list() -> Value {
    json!({"id": 4, "name": "Rules", "typeId": 1, "strategy": "precise", "siteIds": null,
           "rules": [{"name": "example.com", "type": "web"}, {"name": "tv.example", "type": "ctv"}],
           "insertedCount": 2})
}

fn segment_listed() -> Value {
    json!({"accountId": 1, "advertiserIds": [1, 2], "dataCount": 0, "description": "d",
           "externalAudienceId": "e-1", "name": "Lookalikes", "status": "PROCESSING",
           "serviceSegmentId": "fpsegm1", "ttl": 172_800, "dataType": "email_md5",
           "lookalike": true})
}

fn upload_answer() -> Value {
    json!({"message": "Audience data payload processed.", "published": 1,
           "failed_publishes": 0, "bad_records": 0, "bad_records_details": "",
           "request_id": "r-1"})
}

fn token_answer() -> Value {
    json!({"access_token": "access.jwt", "expires_in": 86_400, "id_token": "id.jwt",
           "refresh_token": "refresh-1", "token_type": "DPoP", "scope": "openid audiences",
           "session_state": "s-1"})
}

async fn server() -> Canned {
    Canned::start(vec![
        ("/v1/advertiser", 200, envelope(advertisers())),
        (
            "/v1/campaign/getCampaignsByAdvertiser",
            200,
            envelope(campaigns()),
        ),
        ("/v1/adorder/getAllAdOrders", 200, envelope(ad_orders())),
        (
            "/v1/campaignflightcaps/byAdOrder/5",
            200,
            envelope(flight_caps()),
        ),
        ("/v1/creative/save", 200, envelope(creative())),
        ("/v1/site-list/addNewSiteList", 200, envelope(id_list())),
        ("/v1/site-list/appendToSiteList", 200, envelope(id_list())),
        (
            "/v1/site-list/overwriteSiteList",
            200,
            envelope(rule_list()),
        ),
        (
            "/v1/site-list/removeSites",
            200,
            envelope(
                json!({"id": 3, "name": "Allowed", "typeId": null, "strategy": "smart",
                            "siteIds": null, "rules": null, "insertedCount": null}),
            ),
        ),
        (
            "/v1/audiences",
            200,
            json!({"audiences": [segment_listed()],
                   "pagination": {"page": 1, "pageSize": 50, "total": 1}}),
        ),
        (
            "/v1/audiences/fpsegm1",
            200,
            json!({"name": "One", "advertiserIds": 7, "dataType": "email_sha256",
                   "serviceSegmentId": "fpsegm1", "status": "PROCESSING", "dataCount": 1200,
                   "message": "Segment is being processed", "consentMode": "opt-in"}),
        ),
        (
            "/v1/audiences/fpsegm2",
            200,
            json!({"name": "Two", "advertiserIds": [7, 8], "serviceSegmentId": "fpsegm2",
                   "status": "ACTIVE", "message": "Segment is active"}),
        ),
        ("/v1/audiences/fpsegm1/data", 200, upload_answer()),
        ("/v1/oauth2/authenticate", 200, token_answer()),
        ("/v1/oauth2/token", 200, token_answer()),
    ])
    .await
}

#[tokio::test]
async fn business_listings_keep_unknown_fields_and_values() {
    let canned = server().await;
    let c = canned.client(Credentials::basic("demo", "demo"));

    let reply = c.advertisers(None).await.unwrap();
    assert_eq!(
        reply.messages[0].level,
        MessageLevel::Other("NOTICE".into())
    );
    let list = reply.entity;
    assert_eq!(list[0].timezone_name, Some(TimezoneName::PT));
    assert_eq!(
        list[1].timezone_name,
        Some(TimezoneName::Other("MARS_OLYMPUS".into()))
    );
    assert_eq!(list[1].extra.get("billingTier"), Some(&json!("gold")));
    round_trips(&list, &advertisers());

    let list = c.campaigns_by_advertiser(2).await.unwrap().entity;
    let campaign = &list[0];
    assert_eq!(
        campaign.objective,
        Some(Objective::Other("RETENTION".into()))
    );
    assert_eq!(
        campaign.pacing_mode,
        Some(PacingMode::Other("SPEND_WISELY".into()))
    );
    assert_eq!(
        campaign.frequency_cap_time_period,
        Some(Some(TimePeriod::Other("FORTNIGHT".into())))
    );
    let flights = campaign.flights.as_ref().unwrap();
    assert_eq!(
        flights[0].status,
        Some(Some(FlightStatus::Other("PAUSED".into())))
    );
    assert_eq!(
        flights[0].budget_type,
        Some(BudgetType::Other("PER_DAY_BUDGET".into()))
    );
    assert_eq!(flights[1].status, Some(Some(FlightStatus::Active)));
    assert_eq!(flights[0].extra.get("flightNote"), Some(&json!("holiday")));
    assert_eq!(campaign.extra.get("carbonScore"), Some(&json!(3)));
    round_trips(&list, &campaigns());

    let list = c.all_ad_orders().await.unwrap().entity;
    let order = &list[0];
    assert_eq!(
        order.optimization_goal,
        Some(OptimizationGoal::Other("ROAS".into()))
    );
    assert_eq!(order.goal_mode, Some(GoalMode::Other("BALANCED".into())));
    assert_eq!(
        order.hourly_pacing_mode,
        Some(PacingMode::Other("SMOOTH".into()))
    );
    let cap = order.frequency_cap.clone().flatten().unwrap();
    assert_eq!(cap.time_period, Some(TimePeriod::Other("FORTNIGHT".into())));
    assert_eq!(cap.extra.get("scope"), Some(&json!("household")));
    assert_eq!(
        order.channels_v2,
        Some(Some(vec!["Display".into(), "LTV_Premium".into()]))
    );
    let audience = &order.audiences.as_ref().unwrap()[0];
    assert_eq!(audience.extra.get("segmentMatch"), Some(&json!("any")));
    assert_eq!(
        audience.exchanges.as_ref().unwrap().extra.get("mode"),
        Some(&json!("strict"))
    );
    round_trips(&list, &ad_orders());

    let caps = c.flight_caps_save(5, &[]).await.unwrap().entity;
    assert_eq!(caps[0].extra.get("capMode"), Some(&json!("soft")));
    assert_eq!(
        caps[0].lifetime_impressions,
        Some(None),
        "null is kept as null"
    );
    round_trips(&caps, &flight_caps());
}

#[tokio::test]
async fn change_answers_keep_unknown_fields_and_values() {
    let canned = server().await;
    let c = canned.client(Credentials::basic("demo", "demo"));

    let saved = c.creative_save(&Default::default()).await.unwrap().entity;
    assert_eq!(
        saved.creative_type,
        Some(CreativeType::Other("HOLOGRAM".into()))
    );
    assert_eq!(
        saved.creative_subtype,
        Some(CreativeSubtype::Other("VOLUMETRIC".into()))
    );
    assert_eq!(
        saved.status,
        Some(CreativeStatus::Other("UNDER_REVIEW".into()))
    );
    let type_ = saved.type_.as_ref().unwrap();
    assert_eq!(type_.media_type, Some(MediaType::Other("XR".into())));
    assert_eq!(type_.video_type, Some(Some(VideoType::Other("AV1".into()))));
    assert_eq!(type_.extra.get("codecProfile"), Some(&json!("main")));
    assert_eq!(saved.extra.get("reviewNotes"), Some(&json!("queued")));
    round_trips(&saved, &creative());

    // Site lists: the model keeps no fields it does not name (no `extra`), so only the
    // open enums are checked here.
    let list = SiteList::default();
    for (answer, wire) in [
        (c.site_list_add(&list).await.unwrap().entity, id_list()),
        (c.site_list_append(&list).await.unwrap().entity, id_list()),
    ] {
        assert_eq!(
            answer.strategy,
            Some(SiteListStrategy::Other("smart".into()))
        );
        round_trips(&answer, &wire);
    }
    let rules = c.site_list_overwrite(&list).await.unwrap().entity;
    let types: Vec<_> = rules
        .rules
        .iter()
        .flatten()
        .filter_map(|r| r.type_.clone())
        .collect();
    assert_eq!(
        types,
        [SiteRuleType::Web, SiteRuleType::Other("ctv".into())]
    );
    round_trips(&rules, &rule_list());
    let removed = c.site_list_remove_sites(&list).await.unwrap().entity;
    assert_eq!(
        removed.strategy,
        Some(SiteListStrategy::Other("smart".into()))
    );
}

#[tokio::test]
async fn audience_answers_keep_unknown_fields_and_values() {
    let canned = server().await;
    let c = canned.client(Credentials::Bearer(SecretString::from("access.jwt")));

    let page = c.audiences(None, None).await.unwrap();
    let listed = &page.audiences[0];
    assert_eq!(
        listed.status,
        Some(SegmentStatus::Other("PROCESSING".into()))
    );
    assert_eq!(listed.data_type, Some(DataType::Other("email_md5".into())));
    assert_eq!(listed.extra.get("lookalike"), Some(&json!(true)));
    round_trips(&page.audiences, &json!([segment_listed()]));
    assert_eq!((page.pagination.page, page.pagination.page_size), (1, 50));

    // One segment: `message`, and `advertiserIds` as a single Number (as in the
    // service's documented example) or an array.
    let one = c.audience("fpsegm1").await.unwrap();
    assert_eq!(one.advertiser_ids, Some(vec![7]));
    assert_eq!(one.message.as_deref(), Some("Segment is being processed"));
    assert_eq!(one.status, Some(SegmentStatus::Other("PROCESSING".into())));
    assert_eq!(one.data_count, Some(1200));
    assert_eq!(one.extra.get("consentMode"), Some(&json!("opt-in")));
    let two = c.audience("fpsegm2").await.unwrap();
    assert_eq!(two.advertiser_ids, Some(vec![7, 8]));
    assert_eq!(two.message.as_deref(), Some("Segment is active"));
    assert_eq!(two.status, Some(SegmentStatus::Active));

    let result = c
        .audience_add_data(
            "fpsegm1",
            &vec![flightdeck_model::AudienceDataRecord {
                service_segment_id: "fpsegm1".into(),
                country_code: "US".into(),
                values: vec!["0".repeat(64)],
                ..Default::default()
            }],
        )
        .await
        .unwrap();
    assert_eq!(result.extra.get("request_id"), Some(&json!("r-1")));
    round_trips(&result, &upload_answer());
}

#[tokio::test]
async fn token_answers_with_unknown_fields_and_token_types_are_read() {
    let canned = server().await;
    let config = canned.config();
    let password = SecretString::from("demo");

    let tokens = auth::authenticate(&config, "demo", &password)
        .await
        .unwrap();
    assert_eq!(tokens.access_token.expose_secret(), "access.jwt");
    assert_eq!(
        tokens.refresh_token.as_ref().map(|t| t.expose_secret()),
        Some("refresh-1")
    );

    let renewed = auth::refresh_user(&config, "demo", &password, &SecretString::from("r-0"))
        .await
        .unwrap();
    assert_eq!(renewed.access_token.expose_secret(), "access.jwt");

    let partner = PartnerAuth::new(
        &config,
        "partner-app",
        SecretString::from("secret"),
        url::Url::parse("http://127.0.0.1:9/callback").unwrap(),
    )
    .unwrap();
    let renewed = partner.refresh(&SecretString::from("r-0")).await.unwrap();
    assert_eq!(renewed.access_token.expose_secret(), "access.jwt");
}

/// A hostile or broken service cannot make Flightdeck read without end: an answer longer
/// than the client reads (a listing, a plain answer, a token answer) is refused as an
/// answer it could not read, whatever it declares.
#[tokio::test]
async fn answers_longer_than_the_client_reads_are_refused() {
    const MB: usize = 1024 * 1024;
    let advertiser = advertisers()[0].to_string();
    let many = vec![advertiser.as_str(); 2 * MB / advertiser.len()].join(",");
    let listing = format!(r#"{{"messages":[],"entity":[{many}]}}"#);
    let audiences = format!(r#"{{"audiences":[],"padding":"{}"}}"#, "x".repeat(2 * MB));
    let token = format!(
        r#"{{"access_token":"{}","id_token":"i","expires_in":60}}"#,
        "a".repeat(2 * MB)
    );
    let canned = Canned::start_raw(vec![
        ("/v1/advertiser", 200, listing),
        ("/v1/audiences", 200, audiences),
        ("/v1/oauth2/authenticate", 200, token),
    ])
    .await;
    let mut config = canned.config();
    config.max_listing_bytes = MB;
    config.max_answer_bytes = MB;
    let client = flightdeck_client::Client::new(config.clone(), Credentials::basic("demo", "demo"))
        .unwrap()
        .with_retry_policy(flightdeck_client::retry::RetryPolicy::none());

    let too_long = |e: flightdeck_client::Error| match e {
        flightdeck_client::Error::Decode { detail, .. } => detail,
        other => panic!("expected a decode error, got {other:?}"),
    };
    match client.advertisers(None).await.unwrap_err() {
        flightdeck_client::Error::ListingTooLarge { listing, limit } => {
            assert_eq!((listing.as_str(), limit), ("/v1/advertiser", MB));
        }
        other => panic!("expected ListingTooLarge, got {other:?}"),
    }
    let plain = too_long(client.audiences(None, None).await.unwrap_err());
    assert!(plain.contains("longer than 1 MB"), "{plain}");
    let token = too_long(
        auth::authenticate(&config, "demo", &SecretString::from("demo"))
            .await
            .unwrap_err(),
    );
    assert!(token.contains("longer than 1 MB"), "{token}");

    // Within the limits the same client reads the same listing.
    let mut roomy = canned.config();
    roomy.max_listing_bytes = 4 * MB;
    let client = flightdeck_client::Client::new(roomy, Credentials::basic("demo", "demo")).unwrap();
    assert!(client.advertisers(None).await.unwrap().entity.len() > 1000);
}
