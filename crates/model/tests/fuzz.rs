//! Property fuzzing of the wire types and their rules: generated JSON of every kind goes
//! through the decoders and `validate`, and nothing may panic. What decodes must encode
//! and decode again to the same value.
//!
//! The JSON is made two ways: fully at random (keys drawn from the wire names the types
//! know, and from nowhere), and as a fully populated entity of the kind with a few of
//! its members replaced, removed or added, which reaches the rules deep inside a valid
//! shape. CI runs proptest's default number of cases per property; the long run is
//! `scripts/fuzz.sh --cases 1000000`.

mod common;

use std::collections::BTreeSet;

use common::full;
use flightdeck_model::validate::{self, Op, SiteListOp};
use flightdeck_model::{
    AdOrder, AdOrderStatus, AdOrderStatusUpdate, Advertiser, AudienceDataRecord, AudienceSegment,
    Campaign, Creative, DataType, Envelope, FlightCap, ListedCreative, SiteList, TimezoneName,
};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Strings a wire value could hold: enum values, codes, dates as text, URLs, and noise.
fn wire_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "\\PC{0,24}",
        1 => "[A-Z_]{1,14}",
        1 => prop::sample::select(vec![
            "CPM", "CPC", "CPA", "VCR", "ROAS", "BANNER", "VIDEO", "AUDIO", "NATIVE", "DOOH",
            "TAG", "HOSTED", "VASTURL", "VASTXML", "IMAGE", "ET", "PT", "UTC", "US", "USA",
            "USD", "IAB1", "IAB20-3", "EMAIL_SHA256", "MOBILE_ID", "AUTO_BUDGET",
            "FIXED_BUDGET", "HOUR", "DAY", "WEEK", "MONTH", "INCLUDE", "EXCLUDE", "ACTIVE",
            "PAUSED", "https://example.com/a", "http://", "", " ", "null", "0", "-1",
            "9999999999999999999999", "1e308", "\u{0}", "ünïcødé", "<VAST/>",
        ])
        .prop_map(str::to_owned),
    ]
}

/// Numbers of every shape JSON allows: small, huge, negative, fractional, epoch dates.
fn wire_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-5i64..100).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (1_700_000_000_000i64..2_000_000_000_000).prop_map(Value::from),
        any::<f64>().prop_filter_map("JSON has no NaN or infinity", |f| {
            serde_json::Number::from_f64(f).map(Value::Number)
        }),
        (0u32..1_000_000).prop_map(|c| json!(f64::from(c) / 100.0)),
    ]
}

/// Any JSON, keys drawn from `names` (the kind's own) or made up.
fn any_json(names: Vec<String>) -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        4 => prop::sample::select(names),
        1 => "[a-zA-Z_]{0,10}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        wire_number(),
        wire_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every member name anywhere in `v`.
fn names_in(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.insert(k.clone());
                names_in(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| names_in(x, out)),
        _ => {}
    }
}

/// The JSON pointers of every member and element of `v`.
fn paths_in(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                paths_in(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                paths_in(x, p, out);
            }
        }
        _ => {}
    }
}

#[derive(Debug, Clone)]
enum Edit {
    Replace(Value),
    Remove,
    Insert(String, Value),
}

/// `sample` with a few of its members replaced, removed, or given new members.
fn mutated(sample: Value) -> impl Strategy<Value = Value> {
    let mut names = BTreeSet::new();
    names_in(&sample, &mut names);
    let names: Vec<String> = names.into_iter().collect();
    let mut paths = Vec::new();
    paths_in(&sample, String::new(), &mut paths);
    paths.push(String::new());
    let edit = prop_oneof![
        3 => any_json(names.clone()).prop_map(Edit::Replace),
        1 => Just(Edit::Remove),
        1 => (prop::sample::select(names.clone()), any_json(names.clone()))
            .prop_map(|(k, v)| Edit::Insert(k, v)),
    ];
    prop::collection::vec((prop::sample::select(paths), edit), 1..5).prop_map(move |edits| {
        let mut v = sample.clone();
        for (path, edit) in edits {
            apply(&mut v, &path, edit);
        }
        v
    })
}

fn apply(v: &mut Value, path: &str, edit: Edit) {
    let (parent, last) = match path.rfind('/') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", ""),
    };
    match edit {
        Edit::Replace(x) => {
            if let Some(slot) = v.pointer_mut(path) {
                *slot = x;
            }
        }
        Edit::Remove => match v.pointer_mut(parent) {
            Some(Value::Object(m)) => {
                m.remove(&last.replace("~1", "/").replace("~0", "~"));
            }
            Some(Value::Array(a)) => {
                if let Ok(i) = last.parse::<usize>()
                    && i < a.len()
                {
                    a.remove(i);
                }
            }
            _ => {}
        },
        Edit::Insert(k, x) => match v.pointer_mut(path) {
            Some(Value::Object(m)) => {
                m.insert(k, x);
            }
            Some(Value::Array(a)) => a.push(x),
            _ => {}
        },
    }
}

/// Either a mutated `sample` or wholly random JSON with the kind's names.
fn json_of(sample: Value) -> impl Strategy<Value = Value> {
    let mut names = BTreeSet::new();
    names_in(&sample, &mut names);
    prop_oneof![
        4 => mutated(sample),
        1 => any_json(names.into_iter().collect()),
    ]
}

/// Decodes `v` from a value and from its text; what decodes encodes and decodes back
/// to itself, and goes through `rules`.
fn check<T>(v: &Value, rules: impl Fn(&T))
where
    T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
{
    let from_text = serde_json::from_str::<T>(&v.to_string());
    let Ok(decoded) = serde_json::from_value::<T>(v.clone()) else {
        return;
    };
    assert!(from_text.is_ok(), "decodes as a value but not as text: {v}");
    rules(&decoded);
    let again: T = serde_json::from_value(serde_json::to_value(&decoded).expect("encodes"))
        .expect("what decoded decodes again once encoded");
    assert_eq!(again, decoded, "changed in a round trip: {v}");
}

fn sample<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("a sample encodes")
}

fn timezones() -> impl Strategy<Value = Option<TimezoneName>> {
    prop::option::of(
        prop::sample::select(vec!["ET", "PT", "UTC", "HST", "MARS"]).prop_map(|z| {
            serde_json::from_value::<TimezoneName>(json!(z)).expect("timezones decode")
        }),
    )
}

proptest! {
    #[test]
    fn advertisers(v in json_of(json!({
        "id": 1, "name": "Acme", "agencyId": 2, "currency": "USD", "category": "IAB3",
        "timezoneName": "ET", "externalAdvertiserId": "A-1"
    }))) {
        check::<Advertiser>(&v, |a| {
            let _ = validate::advertiser(a, Op::Create);
            let _ = validate::advertiser(a, Op::Update);
        });
        if let Value::Object(m) = &v {
            let _ = validate::cleared_on_update(&["category", "name", "currency"], m);
        }
        let _ = validate::ignored_on_update(validate::ADVERTISER_IGNORED_ON_UPDATE, &v, &v);
    }

    #[test]
    fn campaigns_and_their_flights(v in json_of(sample(&full::campaign(false))), tz in timezones()) {
        check::<Campaign>(&v, |c| {
            let _ = validate::campaign(c, Op::Create, tz.as_ref());
            let _ = validate::campaign(c, Op::Update, tz.as_ref());
            if let Some(flights) = &c.flights {
                let _ = validate::flight_layout(flights);
            }
        });
    }

    #[test]
    fn ad_orders(v in json_of(sample(&full::ad_order(false))), tz in timezones()) {
        check::<AdOrder>(&v, |o| {
            let _ = validate::ad_order(o, Op::Create, tz.as_ref());
            let _ = validate::ad_order(o, Op::Update, tz.as_ref());
        });
    }

    #[test]
    fn flight_caps(v in json_of(json!([
        {"id": 1, "orderId": 2, "flightId": 3, "budget": 100.0, "dailyBudget": 10.0},
        {"orderId": 2, "flightId": 4, "budget": 50.5}
    ])), ids in prop::collection::vec(-3i64..8, 0..4)) {
        check::<Vec<FlightCap>>(&v, |caps| {
            let _ = validate::flight_caps(caps, &ids);
        });
    }

    #[test]
    fn creatives(v in json_of(sample(&full::creative(false)))) {
        check::<Creative>(&v, |c| {
            let _ = validate::creative(c);
        });
    }

    #[test]
    fn listed_creatives_and_status_answers(v in json_of(json!({
        "id": 7, "status": "APPROVED", "name": "Spring",
        "type": {"id": 5, "vendor": "Hosted video", "mediaType": "VAST", "videoType": "MP4"},
        "externalCreativeid": "ref", "crawlableUrl": null, "landingPageUrl": "https://e.example",
        "impressionTrackingPixel_1": "https://px.example/1", "impressionTrackingPixel_2": null,
        "impressionTrackingPixel_3": null, "impressionTrackingPixel_4": null,
        "size": {"width": 640, "height": 360}, "channels": ["MOBILE", "CONNECTED_TV"],
        "adTagId": null, "duration": 15, "bitRate": 2500
    })), answer in json_of(json!({"messages": ["Updated", {"level": "INFO", "code": "", "message": "ok"}],
                                  "entity": {"id": 1001, "status": 0}}))) {
        check::<ListedCreative>(&v, |_| {});
        check::<Envelope<AdOrderStatusUpdate>>(&answer, |a| {
            if let Some(status) = a.entity.status {
                for to in AdOrderStatus::KNOWN {
                    let _ = status.refusal(*to);
                }
            }
        });
    }

    #[test]
    fn site_lists(v in json_of(json!({
        "id": 7, "name": "Safe sites", "typeId": 1, "strategy": "INCLUDE",
        "sites": ["example.com", "news.example.org"],
        "rules": [{"ruleType": "DOMAIN", "value": "example.com"}]
    })), stored in prop::option::of(-1i64..4)) {
        check::<SiteList>(&v, |s| {
            for op in [SiteListOp::Add, SiteListOp::Append, SiteListOp::Overwrite, SiteListOp::Remove] {
                let _ = validate::site_list(s, op, stored);
            }
        });
    }

    #[test]
    fn audience_segments_and_uploads(
        segment in json_of(json!({
            "name": "Buyers", "description": "d", "dataType": "EMAIL_SHA256", "accountId": 1,
            "advertiserIds": [2, 3], "externalAudienceId": "x", "serviceSegmentId": "fpsegm1",
            "status": "ACTIVE", "ttl": 2_592_000, "dataCount": 1200
        })),
        records in json_of(json!([{
            "serviceSegmentId": "fpsegm1", "countryCode": "US",
            "values": ["a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3"]
        }])),
        data_type in prop::sample::select(vec!["EMAIL_SHA256", "MOBILE_ID", "PHONE_SHA256", "NEW_KIND"]),
        id in wire_string(),
    ) {
        check::<AudienceSegment>(&segment, |s| {
            let _ = validate::audience_segment(s);
        });
        let data_type: DataType = serde_json::from_value(json!(data_type)).expect("data types decode");
        check::<Vec<AudienceDataRecord>>(&records, |r| {
            if let Err(e) = validate::audience_data(&id, Some(&data_type), r) {
                let _ = validate::bad_records(&e);
            }
            let _ = validate::audience_data(&id, None, r);
        });
    }

    /// The text rules take any string.
    #[test]
    fn text_rules_take_any_string(s in wire_string(), ms in any::<i64>(), tz in timezones()) {
        let _ = validate::is_http_url(&s);
        let _ = validate::is_iab_category(&s);
        let _ = validate::code_challenge(&s);
        let _ = validate::external_advertiser_id("externalAdvertiserId", &s);
        for t in ["EMAIL_SHA256", "MOBILE_ID", "PHONE_SHA256", "IP_ADDRESS"] {
            let t: DataType = serde_json::from_value(json!(t)).expect("data types decode");
            let _ = validate::audience_identifier(&t, &s);
        }
        let _ = validate::format_millis(ms);
        let _ = validate::format_millis_in(ms, tz.as_ref());
    }
}
