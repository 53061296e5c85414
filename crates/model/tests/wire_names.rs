//! Serialization names come from the serde attributes, decoding names from the
//! `wire_deserialize!` lists. These tests fill every field of every type with a distinct
//! value and require that the encoded form decodes to the same value with nothing left in
//! `extra`: a name spelled differently on the two sides, two names swapped, or a
//! `Nullable` field decoded without its null handling fails here. The struct literals
//! name every field, so a field added later does not compile here until it is covered.

use flightdeck_model::{
    Advertiser, AudienceDataRecord, AudienceDataResult, AudienceSegment, DataType, Extra,
    FlightCap, SegmentStatus, TimezoneName,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

mod common;

use common::full::{ad_order, campaign, creative, s};

/// Encodes `value`, decodes it from text and from a `Value`, and requires both to equal it.
#[track_caller]
fn assert_decodes_as_encoded<T>(value: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).expect("encodes");
    let from_text: T = serde_json::from_str(&text).expect("decodes from text");
    assert_eq!(&from_text, value, "from text: {text}");
    let from_value: T =
        serde_json::from_value(serde_json::from_str(&text).expect("is JSON")).expect("decodes");
    assert_eq!(&from_value, value, "from a Value: {text}");
}

#[test]
fn every_ad_order_field_decodes_under_the_name_it_is_encoded_with() {
    assert_decodes_as_encoded(&ad_order(false));
    assert_decodes_as_encoded(&ad_order(true));
}

#[test]
fn every_campaign_and_flight_cap_field_decodes_under_the_name_it_is_encoded_with() {
    assert_decodes_as_encoded(&campaign(false));
    assert_decodes_as_encoded(&campaign(true));
    for null in [false, true] {
        assert_decodes_as_encoded(&FlightCap {
            id: Some(1),
            order_id: Some(2),
            flight_id: Some(3),
            max_budget: Some(4.5),
            daily_budget: Some(5.5),
            lifetime_impressions: if null { Some(None) } else { Some(Some(6)) },
            daily_impressions: if null { Some(None) } else { Some(Some(7)) },
            extra: Extra::new(),
        });
    }
}

#[test]
fn every_advertiser_and_audience_field_decodes_under_the_name_it_is_encoded_with() {
    assert_decodes_as_encoded(&Advertiser {
        id: Some(1),
        name: s("advertiser"),
        agency_id: Some(2),
        currency: s("USD"),
        category: s("IAB1"),
        timezone_name: Some(TimezoneName::HST),
        external_advertiser_id: s("external"),
        extra: Extra::new(),
    });
    assert_decodes_as_encoded(&AudienceSegment {
        name: s("segment"),
        description: s("description"),
        data_type: Some(DataType::MobileId),
        account_id: Some(1),
        advertiser_ids: Some(vec![2, 3]),
        external_audience_id: s("external"),
        service_segment_id: s("fpsegm1"),
        status: Some(SegmentStatus::Archived),
        ttl: Some(172_800),
        data_count: Some(4),
        message: s("message"),
        extra: Extra::new(),
    });
    assert_decodes_as_encoded(&AudienceDataRecord {
        service_segment_id: "fpsegm1".to_owned(),
        country_code: "US".to_owned(),
        values: vec!["a".to_owned(), "b".to_owned()],
        extra: Extra::new(),
    });
    assert_decodes_as_encoded(&AudienceDataResult {
        message: "message".to_owned(),
        published: 1,
        failed_publishes: 2,
        bad_records: 3,
        bad_records_details: "details".to_owned(),
        extra: Extra::new(),
    });
}

#[test]
fn every_creative_field_decodes_under_the_name_it_is_encoded_with() {
    assert_decodes_as_encoded(&creative(false));
    assert_decodes_as_encoded(&creative(true));
}

/// The members a fully filled value encodes, sorted.
fn encoded_members<T: Serialize>(value: &T) -> Vec<String> {
    let v = serde_json::to_value(value).expect("encodes");
    let mut keys: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
    keys.sort();
    keys
}

fn sorted(members: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = members.iter().map(|m| (*m).to_owned()).collect();
    v.sort();
    v
}

/// `WIRE_MEMBERS` is what hosts offer as a kind's fields and check hand-typed edits
/// against: a member missing from it would be refused as unknown.
#[test]
fn wire_members_list_every_member_a_full_value_encodes() {
    use flightdeck_model::{AdOrder, Campaign, Creative};
    assert_eq!(
        encoded_members(&ad_order(false)),
        sorted(AdOrder::WIRE_MEMBERS)
    );
    assert_eq!(
        encoded_members(&campaign(false)),
        sorted(Campaign::WIRE_MEMBERS)
    );
    assert_eq!(
        encoded_members(&creative(false)),
        sorted(Creative::WIRE_MEMBERS)
    );
}
