//! Serde round trips of the wire types: names, quirks and kept unknown fields.

use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, Creative, Envelope, OptimizationGoal, SiteList,
    TokenResponse,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn from<T: DeserializeOwned>(v: &Value) -> T {
    serde_json::from_value(v.clone()).expect("deserializes")
}

fn to<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("serializes")
}

/// Deserialize then serialize, compared as JSON values.
#[track_caller]
fn assert_round_trip<T: DeserializeOwned + Serialize>(v: Value) {
    let back = to(&from::<T>(&v));
    assert_eq!(back, v);
}

// ---- unknown fields survive ----

#[test]
fn creative_keeps_unknown_fields_at_top_level_and_nested() {
    assert_round_trip::<Creative>(json!({
        "name": "c",
        "creativeType": "NATIVE",
        "creativeSubtype": "IMAGE",
        "type": {"mediaType": "NATIVE", "videoType": null, "futureTypeField": [1, 2]},
        "advertiserId": 1,
        "native": {
            "headline": "h",
            "imageIcon": "https://example.com/i.png",
            "callToAction": "Shop now",
            "assets": {"deep": {"deeper": true}}
        },
        "video": {"vastUrl": "https://example.com/v.xml", "skippable": true},
        "display": {"htmlAsset": "<b/>", "mraidVersion": 3},
        "dooh": {"imageUrl": "https://example.com/d.png", "venueTypes": ["mall"]},
        "audio": {"daast": {"x": 1}, "bitrate": 128},
        "brandNewTopLevel": {"a": null},
        "status": "PENDING"
    }));
}

#[test]
fn ad_order_audiences_keep_unknown_fields() {
    assert_round_trip::<AdOrder>(json!({
        "id": 1,
        "name": "o",
        "campaignId": 2,
        "optimizationGoal": "CPC",
        "audiences": [{
            "id": 9,
            "name": "a",
            "weight": 50,
            "pmpDeals": null,
            "exchanges": {"include": [1], "exclude": [2]},
            "siteLists": {"include": [], "exclude": [3]},
            "geoTargeting": {"countries": ["US"]}
        }],
        "someNewOrderField": "kept"
    }));
}

/// A listing as text (the client's path): unknown members at every level of an ad order
/// come back byte for byte, in their places, after the known ones of their object.
#[test]
fn ad_order_listing_keeps_unknown_members_at_every_level_in_order() {
    let listing = r#"{"messages":[],"entity":[{"id":1,"name":"o","frequencyCap":{"limit":3,"duration":1,"timePeriod":"DAY","resetAt":"midnight"},"channelsV2":null,"audiences":[{"id":9,"pmpDeals":null,"exchanges":{"include":[1],"exclude":[],"mode":"strict"},"siteLists":{"include":[2],"zeta":{"deep":[{"x":null}]},"alpha":-1.5},"geo":["US"]}],"status":"RUNNING","metrics":{"spend":12.5,"impressions":18446744073709551615}}]}"#;
    let decoded: Envelope<Vec<AdOrder>> = serde_json::from_str(listing).expect("decodes");
    let order = &decoded.entity[0];
    assert_eq!(
        order.extra.keys().collect::<Vec<_>>(),
        ["status", "metrics"]
    );
    let audience = &order.audiences.as_ref().expect("audiences")[0];
    assert_eq!(audience.extra.get("geo"), Some(&json!(["US"])));
    let site_lists = audience.site_lists.as_ref().expect("site lists");
    assert_eq!(
        site_lists.extra.keys().collect::<Vec<_>>(),
        ["zeta", "alpha"]
    );
    assert_eq!(serde_json::to_string(&decoded).expect("encodes"), listing);
}

#[test]
fn a_member_given_twice_is_refused_when_known_and_kept_once_when_not() {
    let twice = serde_json::from_str::<AdOrder>(r#"{"name":"a","name":"b"}"#);
    assert!(
        twice.is_err_and(|e| e.to_string().contains("duplicate field `name`")),
        "a known member given twice"
    );
    let o: AdOrder = serde_json::from_str(r#"{"future":1,"id":2,"future":[3]}"#).expect("decodes");
    assert_eq!(o.id, Some(2));
    assert_eq!(o.extra.len(), 1);
    assert_eq!(o.extra.get("future"), Some(&json!([3])));
}

#[test]
fn an_escaped_member_name_is_the_member() {
    let o: AdOrder =
        serde_json::from_str(r#"{"na\u006de":"n","\u0073tatus":"x"}"#).expect("decodes");
    assert_eq!(o.name.as_deref(), Some("n"));
    assert_eq!(o.extra.get("status"), Some(&json!("x")));
}

#[test]
fn campaign_flights_keep_unknown_fields() {
    assert_round_trip::<Campaign>(json!({
        "id": 3,
        "name": "c",
        "hasFlights": true,
        "flights": [{
            "id": 17,
            "status": "ACTIVE",
            "budgetType": "AUTO_BUDGET",
            "dailyBudget": null,
            "maxBudget": 100.5,
            "remainingBudget": null,
            "startDate": 1_798_761_600_000_i64,
            "endDate": 1_801_440_000_000_i64,
            "pacingHint": "front"
        }],
        "channelGroup": "MOBILE_COMPUTER_CTV",
        "undocumented": 1
    }));
}

#[test]
fn other_resources_keep_unknown_fields() {
    assert_round_trip::<Advertiser>(json!({"id": 1, "name": "a", "agencyId": 7, "tier": "gold"}));
    assert_round_trip::<AudienceSegment>(json!({
        "name": "s", "advertiserIds": [1], "ttl": 172800, "region": "EU"
    }));
}

// ---- spellings ----

#[test]
fn io_number_in_and_out_are_separate_fields() {
    let o: AdOrder =
        from(&json!({"ioNumber": "IN", "io_number": "OUT", "externalAdOrderId": "OUT"}));
    assert_eq!(o.io_number.as_deref(), Some("IN"));
    assert_eq!(o.io_number_out.as_deref(), Some("OUT"));
    assert_eq!(o.external_ad_order_id.as_deref(), Some("OUT"));
    assert!(o.extra.is_empty());
    let v = to(&o);
    assert_eq!(v["ioNumber"], "IN");
    assert_eq!(v["io_number"], "OUT");

    // A listing carries only the output spelling; nothing invents the input one.
    let listed: AdOrder = from(&json!({"io_number": "X"}));
    assert_eq!(listed.io_number, None);
    assert_eq!(to(&listed), json!({"io_number": "X"}));
}

#[test]
fn creative_id_and_pixel_spellings() {
    let c: Creative = from(&json!({
        "externalCreativeid": "E1",
        "impressionTrackingPixel_1": "https://p/1",
        "impressionTrackingPixel_4": "https://p/4",
        "type": {"mediaType": "VAST_WITH_VPAID"},
    }));
    assert_eq!(c.external_creativeid.as_deref(), Some("E1"));
    assert_eq!(
        c.impression_tracking_pixel_1.as_deref(),
        Some("https://p/1")
    );
    assert_eq!(
        c.impression_tracking_pixel_4.as_deref(),
        Some("https://p/4")
    );
    assert!(c.extra.is_empty());
    let v = to(&c);
    assert_eq!(v["externalCreativeid"], "E1");
    assert_eq!(v["impressionTrackingPixel_1"], "https://p/1");
    assert_eq!(v["type"]["mediaType"], "VAST_WITH_VPAID");
    assert!(v.get("externalCreativeId").is_none());
    assert!(v.get("impressionTrackingPixel1").is_none());

    // The camel-case spellings are not the field: they are kept as unknown members.
    let c: Creative = from(&json!({"externalCreativeId": "E1", "impressionTrackingPixel1": "x"}));
    assert_eq!(c.external_creativeid, None);
    assert_eq!(c.impression_tracking_pixel_1, None);
    assert_eq!(c.extra.len(), 2);
}

#[test]
fn max_bid_is_snake_case() {
    let o: AdOrder = from(&json!({"max_bid": 2.5}));
    assert_eq!(o.max_bid, Some(2.5));
    assert_eq!(to(&o), json!({"max_bid": 2.5}));
    let o: AdOrder = from(&json!({"maxBid": 2.5}));
    assert_eq!(o.max_bid, None);
    assert_eq!(o.extra.get("maxBid"), Some(&json!(2.5)));
}

#[test]
fn vcr_in_any_case_is_video_completion_rate() {
    for s in ["VCR", "vcr", "Vcr", "vCr", "VIDEO_COMPLETION_RATE"] {
        let o: AdOrder = from(&json!({"optimizationGoal": s}));
        assert_eq!(
            o.optimization_goal,
            Some(OptimizationGoal::VideoCompletionRate),
            "{s}"
        );
        assert_eq!(to(&o), json!({"optimizationGoal": "VIDEO_COMPLETION_RATE"}));
    }
    for (s, g) in [
        ("CPM", OptimizationGoal::Cpm),
        ("CPC", OptimizationGoal::Cpc),
        ("CPA", OptimizationGoal::Cpa),
    ] {
        let o: AdOrder = from(&json!({"optimizationGoal": s}));
        assert_eq!(o.optimization_goal, Some(g));
        assert_eq!(to(&o)["optimizationGoal"], s);
    }
    // A goal the service adds decodes as itself and goes back unchanged.
    for other in ["cpm", "CPV", "VCRX"] {
        let o: AdOrder = from(&json!({"optimizationGoal": other}));
        assert_eq!(
            o.optimization_goal,
            Some(OptimizationGoal::Other(other.to_owned()))
        );
        assert_eq!(to(&o)["optimizationGoal"], other);
    }
}

/// Every enum the service may extend, with an unknown value inside a listing: the
/// listing decodes, the value is kept as sent, and it goes back unchanged.
#[test]
fn an_unknown_enum_value_never_fails_a_listing() {
    use flightdeck_model::{Advertiser, AudienceList, Campaign, Creative, Envelope, SiteList};
    fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(v: serde_json::Value) {
        let decoded: T = serde_json::from_value(v.clone()).expect("listing decodes");
        assert_eq!(serde_json::to_value(&decoded).expect("encodes"), v);
    }
    let cases: Vec<(&str, serde_json::Value)> = vec![
        ("optimizationGoal", json!({"optimizationGoal": "CPV"})),
        ("goalMode", json!({"goalMode": "BALANCED"})),
        (
            "hourlyPacingMode",
            json!({"hourlyPacingMode": "FRONTLOADED"}),
        ),
        (
            "frequencyCap.timePeriod",
            json!({"frequencyCap": {"limit": 1, "duration": 1, "timePeriod": "WEEK"}}),
        ),
    ];
    for (what, order) in cases {
        let listing = json!({"messages": [], "entity": [{"id": 1, "name": "ok"}, order]});
        let env: Envelope<Vec<AdOrder>> =
            serde_json::from_value(listing.clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(env.entity.len(), 2, "{what}");
        round_trip::<Envelope<Vec<AdOrder>>>(listing);
    }
    round_trip::<Envelope<Vec<Campaign>>>(json!({"messages": [], "entity": [{
        "id": 1, "objective": "REACH", "pacingMode": "HOURLY", "frequencyCapTimePeriod": "WEEK",
        "flights": [{"id": 2, "status": "PAUSED", "budgetType": "LIFETIME_BUDGET"}]
    }]}));
    round_trip::<Envelope<Vec<Advertiser>>>(
        json!({"messages": [], "entity": [{"id": 1, "timezoneName": "CET"}]}),
    );
    // Site lists always send their members (null when unset), so compare the values.
    let lists: Envelope<Vec<SiteList>> =
        serde_json::from_value(json!({"messages": [], "entity": [{
            "id": 1, "strategy": "fuzzy", "rules": [{"name": "a.com", "type": "ctv"}]
        }]}))
        .expect("site lists decode");
    let back = serde_json::to_value(&lists.entity[0]).expect("encodes");
    assert_eq!(back["strategy"], "fuzzy");
    assert_eq!(back["rules"][0]["type"], "ctv");
    round_trip::<AudienceList>(json!({
        "audiences": [{"serviceSegmentId": "fpsegm1", "dataType": "email_md5", "status": "PROCESSING"}],
        "pagination": {"page": 1, "pageSize": 50}
    }));
    round_trip::<Envelope<Creative>>(
        json!({"messages": [{"level": "NOTICE", "code": "", "message": "m"}], "entity": {
            "id": 9, "creativeType": "CTV", "creativeSubtype": "SHOPPABLE", "status": "ARCHIVED",
            "type": {"mediaType": "SIMID", "videoType": "MOV"}
        }}),
    );
}

// ---- quirky shapes ----

#[test]
fn agency_id_arrives_as_string_or_number_and_leaves_as_number() {
    for v in [json!("123"), json!(123), json!(" 123 ")] {
        let a: Advertiser = from(&json!({"agencyId": v}));
        assert_eq!(a.agency_id, Some(123));
        assert_eq!(to(&a), json!({"agencyId": 123}));
    }
    let a: Advertiser = from(&json!({"agencyId": null}));
    assert_eq!(a.agency_id, None);
    assert!(serde_json::from_value::<Advertiser>(json!({"agencyId": "twelve"})).is_err());
}

#[test]
fn advertiser_ids_arrive_as_one_or_many_and_leave_as_an_array() {
    for v in [json!(5), json!([5])] {
        let s: AudienceSegment = from(&json!({"advertiserIds": v}));
        assert_eq!(s.advertiser_ids, Some(vec![5]));
        assert_eq!(to(&s), json!({"advertiserIds": [5]}));
    }
    let s: AudienceSegment = from(&json!({"advertiserIds": [1, 2]}));
    assert_eq!(s.advertiser_ids, Some(vec![1, 2]));
}

// ---- absent, null and value ----

#[test]
fn nullable_fields_keep_absent_null_and_value_apart() {
    let absent: AdOrder = from(&json!({}));
    assert_eq!(absent.frequency_cap, None);
    assert_eq!(absent.hourly_frontload, None);
    assert_eq!(to(&absent), json!({}));

    let null = json!({"frequencyCap": null, "hourlyFrontload": null, "channelsV2": null});
    let o: AdOrder = from(&null);
    assert_eq!(o.frequency_cap, Some(None));
    assert_eq!(o.hourly_frontload, Some(None));
    assert_eq!(o.channels_v2, Some(None));
    assert_eq!(to(&o), null);

    let value = json!({
        "frequencyCap": {"limit": 3, "duration": 1, "timePeriod": "DAY"},
        "hourlyFrontload": 12.5,
        "channelsV2": ["Display"],
    });
    let o: AdOrder = from(&value);
    assert_eq!(
        o.frequency_cap
            .as_ref()
            .and_then(|c| c.as_ref())
            .and_then(|c| c.limit),
        Some(3)
    );
    assert_eq!(o.hourly_frontload, Some(Some(12.5)));
    assert_eq!(to(&o), value);
}

#[test]
fn campaign_and_flight_nullables_round_trip() {
    assert_round_trip::<Campaign>(json!({
        "dailyBudget": null,
        "dailyFrequencyCap": 2,
        "frequencyCapDuration": null,
        "minBidMultiplier": null,
        "maxBidMultiplier": 1.5,
        "flights": [{"dailyBudget": null, "dailyImpCap": 10, "status": null}, {}]
    }));
    let c: Campaign = from(&json!({"dailyBudget": null, "markupRate": 0.1}));
    assert_eq!(c.daily_budget, Some(None));
    assert_eq!(c.markup_rate, Some(Some(0.1)));
    assert_eq!(c.daily_frequency_cap, None);
}

// ---- others ----

#[test]
fn site_list_members_are_null_in_responses() {
    let s: SiteList = from(&json!({
        "id": 1, "name": "L", "typeId": null, "strategy": null,
        "siteIds": null, "rules": null, "insertedCount": 2
    }));
    assert_eq!(s.inserted_count, Some(2));
    assert_eq!(s.site_ids, None);
    let v = to(&s);
    assert_eq!(v["siteIds"], Value::Null);
    assert_eq!(v["rules"], Value::Null);
    assert_round_trip::<SiteList>(json!({
        "id": 1, "name": "L", "typeId": 1, "strategy": "broad", "siteIds": null,
        "rules": [{"name": "a.com", "type": "web"}], "insertedCount": null
    }));
}

#[test]
fn envelope_round_trips_and_defaults_messages() {
    assert_round_trip::<Envelope<Advertiser>>(json!({
        "messages": [{"level": "INFO", "code": "", "message": "ok"}],
        "entity": {"id": 1, "name": "a"}
    }));
    let e: Envelope<Vec<Advertiser>> = from(&json!({"entity": []}));
    assert!(e.messages.is_empty());
}

#[test]
fn token_response_debug_hides_the_tokens() {
    let t: TokenResponse = from(&json!({
        "access_token": "eyJhbGciOi.SECRET-ACCESS",
        "expires_in": 86400,
        "id_token": "eyJhbGciOi.SECRET-ID",
        "refresh_token": "SECRET-REFRESH",
        "token_type": "Bearer"
    }));
    let dbg = format!("{t:?} {t:#?}");
    for secret in ["SECRET-ACCESS", "SECRET-ID", "SECRET-REFRESH", "eyJ"] {
        assert!(!dbg.contains(secret), "{dbg}");
    }
    assert!(dbg.contains("86400") && dbg.contains("Bearer"));
    assert_round_trip::<TokenResponse>(json!({
        "access_token": "a", "expires_in": 1, "id_token": "i", "token_type": "Bearer"
    }));
}

#[test]
fn an_unknown_message_level_does_not_break_the_envelope() {
    let env: flightdeck_model::Envelope<serde_json::Value> =
        serde_json::from_value(serde_json::json!({
            "messages": [{"level": "NOTICE", "code": "", "message": "maintenance tonight"}],
            "entity": {"id": 1}
        }))
        .expect("envelope with an unknown level");
    assert_eq!(
        env.messages[0].level,
        flightdeck_model::MessageLevel::Other("NOTICE".into())
    );
    assert_eq!(env.messages[0].message, "maintenance tonight");
}

// ---- trafficking endpoints (the service's reference beyond the interface) ----

#[test]
fn a_listed_creative_decodes_every_reference_field_and_keeps_new_ones() {
    use flightdeck_model::{CreativeChannel, CreativeStatus, ListedCreative, MediaType, VideoType};
    let v = json!({
        "id": 7,
        "status": "APPROVED",
        "name": "Spring 15s",
        "type": {"id": 5, "vendor": "Hosted video", "mediaType": "VAST", "videoType": "MP4",
                 "futureTypeField": true},
        "externalCreativeid": "ref-7",
        "crawlableUrl": null,
        "landingPageUrl": "https://example.com/l",
        "impressionTrackingPixel_1": "https://px.example/1",
        "impressionTrackingPixel_2": null,
        "impressionTrackingPixel_3": null,
        "impressionTrackingPixel_4": null,
        "size": {"width": 640, "height": 360},
        "channels": ["MOBILE", "CONNECTED_TV", "BILLBOARD"],
        "adTagId": null,
        "duration": 15,
        "bitRate": 2500.5,
        "advertiserId": 3
    });
    let c: ListedCreative = from(&v);
    assert_eq!(c.status, Some(CreativeStatus::APPROVED));
    let t = c.type_.as_ref().expect("type");
    assert_eq!((t.id, t.vendor.as_deref()), (Some(5), Some("Hosted video")));
    assert_eq!(t.media_type, Some(MediaType::VAST));
    assert_eq!(t.video_type, Some(VideoType::MP4));
    assert_eq!(t.extra["futureTypeField"], true);
    assert_eq!(
        c.channels.as_deref(),
        Some(
            &[
                CreativeChannel::MOBILE,
                CreativeChannel::CONNECTED_TV,
                CreativeChannel::Other("BILLBOARD".into())
            ][..]
        )
    );
    assert_eq!((c.duration, c.bit_rate), (Some(15.0), Some(2500.5)));
    assert_eq!(c.external_creativeid.as_deref(), Some("ref-7"));
    assert_eq!(c.extra["advertiserId"], 3);

    // A status the crate does not know, and a sparse creative, still decode.
    let sparse: ListedCreative = from(&json!({"id": 8, "status": "ARCHIVED", "type": null}));
    assert_eq!(
        sparse.status,
        Some(CreativeStatus::Other("ARCHIVED".into()))
    );
    assert_eq!(sparse.type_, None);
}

#[test]
fn ad_order_status_is_an_open_integer() {
    use flightdeck_model::{AdOrderStatus, AdOrderStatusUpdate};
    let answer: Envelope<AdOrderStatusUpdate> =
        from(&json!({"messages": [], "entity": {"id": 1001, "status": 0}}));
    assert_eq!(answer.entity.status, Some(AdOrderStatus::Inactive));
    let odd: AdOrderStatusUpdate = from(&json!({"id": 1, "status": 9}));
    assert_eq!(odd.status, Some(AdOrderStatus::Other(9)));
    assert_eq!(to(&odd), json!({"id": 1, "status": 9}));
    assert_eq!(
        to(&AdOrderStatusUpdate::new(5, AdOrderStatus::Paused)),
        json!({"id": 5, "status": 3})
    );
    for s in AdOrderStatus::KNOWN {
        assert_eq!(AdOrderStatus::from_code(s.code()), *s);
    }
}

#[test]
fn ad_order_status_refusals_follow_a_real_platform() {
    use flightdeck_model::AdOrderStatus::{Active, Archived, Completed, Inactive, Other, Paused};
    for (from, to) in [
        (Inactive, Active),
        (Active, Paused),
        (Paused, Active),
        (Paused, Inactive),
        (Active, Archived),
        (Completed, Archived),
        (Archived, Archived),
        (Completed, Completed),
    ] {
        assert_eq!(from.refusal(to), None, "{from} -> {to}");
    }
    let why = |from: flightdeck_model::AdOrderStatus, to| from.refusal(to).unwrap_or_default();
    assert!(why(Archived, Active).contains("archived"));
    assert!(why(Active, Completed).contains("end date passes"));
    assert!(why(Completed, Active).contains("can only be archived"));
    assert!(why(Active, Other(7)).contains("got 7"));
}

#[test]
fn messages_decode_as_objects_or_as_bare_strings() {
    use flightdeck_model::{Message, MessageLevel};
    let e: Envelope<Value> = from(&json!({
        "messages": ["Status updated", {"level": "WARNING", "code": "W1", "message": "late"}],
        "entity": null
    }));
    assert_eq!(e.messages[0], Message::info("", "Status updated"));
    assert_eq!(e.messages[1].level, MessageLevel::Warning);
    assert_eq!(e.messages[1].code, "W1");
    assert!(
        serde_json::from_value::<Envelope<Value>>(json!({"messages": [3], "entity": null}))
            .is_err()
    );
}
