//! Advertiser, site-list, audience and identifier rules.

mod common;

use common::{assert_exactly, assert_ok, assert_one, from_json};
use flightdeck_model::validate::{
    Op, SiteListOp, advertiser, audience_identifier, audience_segment, code_challenge, codes::*,
    external_advertiser_id, is_iab_category, site_list,
};
use flightdeck_model::{
    Advertiser, AudienceSegment, DataType, SITE_LIST_TYPE_ID_BASED, SITE_LIST_TYPE_RULE_BASED,
    SiteList, TTL_MAX_SECS, TTL_MIN_SECS, ValidationErrors,
};
use serde_json::{Value, json};

// ---- advertiser ----

fn adv(v: Value, op: Op) -> Result<(), ValidationErrors> {
    advertiser(&from_json::<Advertiser>(v), op)
}

fn valid_advertiser() -> Value {
    json!({"name": "Acme", "agencyId": "12", "currency": "USD", "category": "IAB3-1"})
}

#[test]
fn a_valid_advertiser_passes() {
    assert_ok(adv(valid_advertiser(), Op::Create));
    let mut v = valid_advertiser();
    v["timezoneName"] = json!("PT");
    v["externalAdvertiserId"] = json!("acme-01_{x}");
    assert_ok(adv(v, Op::Create));
    assert_ok(adv(json!({"id": 3, "name": "Acme"}), Op::Update));
}

#[test]
fn create_requires_agency_currency_and_category() {
    assert_exactly(
        adv(json!({}), Op::Create),
        &[
            ("name", REQUIRED),
            ("agencyId", REQUIRED),
            ("currency", REQUIRED),
            ("category", REQUIRED),
        ],
    );
    assert_exactly(adv(json!({"name": " "}), Op::Update), &[("name", REQUIRED)]);
}

#[test]
fn currency_is_three_upper_case_letters_on_create() {
    for bad in ["usd", "US", "USDX", "U$D", "ÉUR"] {
        let mut v = valid_advertiser();
        v["currency"] = json!(bad);
        assert_one(adv(v, Op::Create), "currency", INVALID);
    }
    // Ignored on update.
    assert_ok(adv(
        json!({"name": "A", "currency": "usd", "agencyId": 1}),
        Op::Update,
    ));
}

#[test]
fn category_has_the_iab_shape_whenever_sent() {
    for bad in [
        "Retail", "IAB", "IAB1-", "IAB-1", "iab1", "IAB1-2-3", "IABx",
    ] {
        assert!(!is_iab_category(bad), "{bad}");
        let mut v = valid_advertiser();
        v["category"] = json!(bad);
        assert_one(adv(v, Op::Create), "category", INVALID);
        assert_one(
            adv(json!({"name": "A", "category": bad}), Op::Update),
            "category",
            INVALID,
        );
    }
    for ok in ["IAB1", "IAB22", "IAB1-1", "IAB10-12"] {
        assert!(is_iab_category(ok), "{ok}");
    }
}

#[test]
fn external_advertiser_id_is_checked_on_the_advertiser() {
    let mut v = valid_advertiser();
    v["externalAdvertiserId"] = json!("has space");
    assert_one(adv(v.clone(), Op::Create), "externalAdvertiserId", INVALID);
    assert_one(adv(v, Op::Update), "externalAdvertiserId", INVALID);
}

#[test]
fn a_broken_advertiser_reports_everything() {
    assert_exactly(
        adv(
            json!({"currency": "eur", "category": "food", "externalAdvertiserId": ""}),
            Op::Create,
        ),
        &[
            ("name", REQUIRED),
            ("agencyId", REQUIRED),
            ("currency", INVALID),
            ("category", INVALID),
            ("externalAdvertiserId", INVALID),
        ],
    );
}

// ---- externalAdvertiserId ----

#[test]
fn external_advertiser_id_rules() {
    assert_ok(external_advertiser_id("f", "ABC-123_x.y/z!~"));
    assert_ok(external_advertiser_id("f", &"a".repeat(128)));

    let msg = assert_one(external_advertiser_id("f", ""), "f", INVALID);
    assert_eq!(msg, "must not be empty when sent");

    let msg = assert_one(
        external_advertiser_id("f", &"a".repeat(129)),
        "f",
        OUT_OF_RANGE,
    );
    assert!(msg.contains("128") && msg.contains("129"), "{msg}");

    let msg = assert_one(external_advertiser_id("x.y", "a b"), "x.y", INVALID);
    assert!(msg.contains("a space"), "{msg}");
    let msg = assert_one(external_advertiser_id("f", "café\t"), "f", INVALID);
    assert!(msg.contains("\"é\"") && msg.contains("a tab"), "{msg}");

    // Too long and wrong characters: both.
    assert_exactly(
        external_advertiser_id("f", &"é".repeat(129)),
        &[("f", OUT_OF_RANGE), ("f", INVALID)],
    );
}

// ---- site lists ----

fn sl(v: Value, op: SiteListOp, stored: Option<i64>) -> Result<(), ValidationErrors> {
    site_list(&from_json::<SiteList>(v), op, stored)
}

const ID: i64 = SITE_LIST_TYPE_ID_BASED;
const RULE: i64 = SITE_LIST_TYPE_RULE_BASED;

#[test]
fn add_an_id_based_list() {
    assert_ok(sl(
        json!({"name": "L", "typeId": 5, "siteIds": [1, 2]}),
        SiteListOp::Add,
        None,
    ));
    assert_exactly(
        sl(json!({"typeId": 5}), SiteListOp::Add, None),
        &[("name", REQUIRED), ("siteIds", REQUIRED)],
    );
    assert_one(
        sl(
            json!({"name": "L", "typeId": 5, "siteIds": []}),
            SiteListOp::Add,
            None,
        ),
        "siteIds",
        REQUIRED,
    );
    assert_exactly(
        sl(
            json!({"name": "L", "typeId": 5, "siteIds": [1, 0, -1],
                   "rules": [{"name": "a.com", "type": "web"}], "strategy": "precise"}),
            SiteListOp::Add,
            None,
        ),
        &[
            ("siteIds[1]", OUT_OF_RANGE),
            ("siteIds[2]", OUT_OF_RANGE),
            ("rules", NOT_APPLICABLE),
            ("strategy", NOT_APPLICABLE),
        ],
    );
}

#[test]
fn add_a_rule_based_list() {
    assert_ok(sl(
        json!({"name": "L", "typeId": 1, "strategy": "broad",
               "rules": [{"name": "example.com", "type": "web"}, {"name": "com.app", "type": "app"}]}),
        SiteListOp::Add,
        None,
    ));
    assert_exactly(
        sl(json!({"name": "L", "typeId": 1}), SiteListOp::Add, None),
        &[("strategy", REQUIRED), ("rules", REQUIRED)],
    );
    assert_exactly(
        sl(
            json!({"name": "L", "typeId": 1, "strategy": "precise", "siteIds": [1],
                   "rules": [{"name": "a b.com", "type": "web"}, {"name": " "}, {"type": "app"}]}),
            SiteListOp::Add,
            None,
        ),
        &[
            ("rules[0].name", INVALID),
            ("rules[1].name", REQUIRED),
            ("rules[1].type", REQUIRED),
            ("rules[2].name", REQUIRED),
            ("siteIds", NOT_APPLICABLE),
        ],
    );
    assert_one(
        sl(
            json!({"name": "L", "typeId": 1, "strategy": "precise", "rules": []}),
            SiteListOp::Add,
            None,
        ),
        "rules",
        REQUIRED,
    );
}

#[test]
fn add_needs_a_known_type() {
    assert_one(
        sl(json!({"name": "L"}), SiteListOp::Add, None),
        "typeId",
        REQUIRED,
    );
    let msg = assert_one(
        sl(json!({"name": "L", "typeId": 3}), SiteListOp::Add, None),
        "typeId",
        INVALID,
    );
    assert!(msg.contains('5') && msg.contains('1'), "{msg}");
    // The stored type is irrelevant to Add.
    assert_ok(sl(
        json!({"name": "L", "typeId": 5, "siteIds": [1]}),
        SiteListOp::Add,
        Some(RULE),
    ));
}

#[test]
fn append_and_overwrite_follow_the_stored_type() {
    for op in [SiteListOp::Append, SiteListOp::Overwrite] {
        assert_ok(sl(
            json!({"id": 1, "name": "L", "siteIds": [4]}),
            op,
            Some(ID),
        ));
        assert_ok(sl(
            json!({"id": 1, "name": "L", "rules": [{"name": "a.com", "type": "web"}]}),
            op,
            Some(RULE),
        ));
        // Strategy is optional on these calls.
        assert_ok(sl(
            json!({"id": 1, "name": "L", "strategy": "precise", "rules": [{"name": "a.com", "type": "web"}]}),
            op,
            Some(RULE),
        ));
        assert_exactly(
            sl(json!({}), op, Some(ID)),
            &[("id", REQUIRED), ("name", REQUIRED), ("siteIds", REQUIRED)],
        );
        assert_exactly(
            sl(
                json!({"id": 1, "name": "L", "siteIds": [1]}),
                op,
                Some(RULE),
            ),
            &[("rules", REQUIRED), ("siteIds", NOT_APPLICABLE)],
        );
        assert_exactly(
            sl(
                json!({"id": 1, "name": "L", "siteIds": [1], "rules": []}),
                op,
                Some(ID),
            ),
            &[("rules", NOT_APPLICABLE)],
        );
    }
}

#[test]
fn append_without_a_stored_type_checks_what_it_can() {
    assert_ok(sl(
        json!({"id": 1, "name": "L", "siteIds": [1]}),
        SiteListOp::Append,
        None,
    ));
    assert_ok(sl(
        json!({"id": 1, "name": "L", "rules": [{"name": "a.com", "type": "web"}]}),
        SiteListOp::Overwrite,
        None,
    ));
    assert_one(
        sl(json!({"id": 1, "name": "L"}), SiteListOp::Append, None),
        "siteIds",
        REQUIRED,
    );
    assert_exactly(
        sl(
            json!({"id": 1, "name": "L", "siteIds": [0], "rules": [{"name": "a.com"}]}),
            SiteListOp::Append,
            None,
        ),
        &[("siteIds[0]", OUT_OF_RANGE), ("rules[0].type", REQUIRED)],
    );
}

#[test]
fn remove_sites() {
    assert_ok(sl(
        json!({"id": 1, "name": "L", "siteIds": [3]}),
        SiteListOp::Remove,
        Some(ID),
    ));
    assert_ok(sl(
        json!({"id": 1, "name": "L", "siteIds": [3]}),
        SiteListOp::Remove,
        None,
    ));
    assert_exactly(
        sl(json!({}), SiteListOp::Remove, Some(ID)),
        &[("id", REQUIRED), ("name", REQUIRED), ("siteIds", REQUIRED)],
    );
    assert_exactly(
        sl(
            json!({"id": 1, "name": "L", "siteIds": [3, -3]}),
            SiteListOp::Remove,
            None,
        ),
        &[("siteIds[1]", OUT_OF_RANGE)],
    );
    assert_one(
        sl(
            json!({"id": 1, "name": "L", "siteIds": []}),
            SiteListOp::Remove,
            None,
        ),
        "siteIds",
        REQUIRED,
    );
    let msg = assert_one(
        sl(
            json!({"id": 1, "name": "L", "siteIds": [3]}),
            SiteListOp::Remove,
            Some(RULE),
        ),
        "siteIds",
        INVALID,
    );
    assert_eq!(msg, "sites can only be removed from an id-based list");
}

// ---- audience segments ----

fn seg(v: Value) -> Result<(), ValidationErrors> {
    audience_segment(&from_json::<AudienceSegment>(v))
}

fn valid_segment() -> Value {
    json!({
        "name": "Buyers", "accountId": 1, "advertiserIds": [2, 3],
        "externalAudienceId": "crm-1", "dataType": "email_sha256",
    })
}

#[test]
fn a_valid_segment_passes() {
    assert_ok(seg(valid_segment()));
    let mut v = valid_segment();
    v["advertiserIds"] = json!(2);
    v["ttl"] = json!(TTL_MIN_SECS);
    v["description"] = json!("d".repeat(1000));
    assert_ok(seg(v.clone()));
    v["ttl"] = json!(TTL_MAX_SECS);
    assert_ok(seg(v));
}

#[test]
fn segment_required_fields() {
    assert_exactly(
        seg(json!({})),
        &[
            ("name", REQUIRED),
            ("accountId", REQUIRED),
            ("advertiserIds", REQUIRED),
            ("externalAudienceId", REQUIRED),
            ("dataType", REQUIRED),
        ],
    );
    let mut v = valid_segment();
    v["advertiserIds"] = json!([]);
    v["externalAudienceId"] = json!(" ");
    assert_exactly(
        seg(v),
        &[
            ("advertiserIds", REQUIRED),
            ("externalAudienceId", REQUIRED),
        ],
    );
}

#[test]
fn segment_limits() {
    let mut v = valid_segment();
    v["advertiserIds"] = json!([1, 0]);
    v["ttl"] = json!(TTL_MIN_SECS - 1);
    v["description"] = json!("d".repeat(1001));
    assert_exactly(
        seg(v.clone()),
        &[
            ("advertiserIds[1]", OUT_OF_RANGE),
            ("ttl", OUT_OF_RANGE),
            ("description", OUT_OF_RANGE),
        ],
    );
    v["advertiserIds"] = json!([1]);
    v["description"] = Value::Null;
    v["ttl"] = json!(TTL_MAX_SECS + 1);
    assert_one(seg(v), "ttl", OUT_OF_RANGE);
}

// ---- audience identifiers ----

#[test]
fn hashed_identifiers_are_64_hex_characters() {
    let lower = "a".repeat(64);
    let mixed = format!(
        "{}{}",
        "0123456789abcdef".repeat(2),
        "0123456789ABCDEF".repeat(2)
    );
    for dt in [
        DataType::EmailSha256,
        DataType::PhonenumberSha256,
        DataType::AddressSha256,
    ] {
        assert!(audience_identifier(&dt, &lower));
        assert!(audience_identifier(&dt, &mixed));
        assert!(!audience_identifier(&dt, &"a".repeat(63)));
        assert!(!audience_identifier(&dt, &"a".repeat(65)));
        assert!(!audience_identifier(&dt, &"g".repeat(64)));
        assert!(!audience_identifier(&dt, "someone@example.com"));
        assert!(!audience_identifier(&dt, ""));
    }
}

#[test]
fn ip_identifiers_are_ipv4() {
    for ok in ["1.2.3.4", "255.255.255.255", "0.0.0.0"] {
        assert!(audience_identifier(&DataType::Ip, ok), "{ok}");
    }
    for bad in ["256.1.1.1", "1.2.3", "::1", "1.2.3.4 ", "a.b.c.d", ""] {
        assert!(!audience_identifier(&DataType::Ip, bad), "{bad}");
    }
}

#[test]
fn cookie_identifiers() {
    assert!(audience_identifier(&DataType::Cookie, "c"));
    assert!(audience_identifier(&DataType::Cookie, &"é".repeat(256)));
    assert!(!audience_identifier(&DataType::Cookie, ""));
    assert!(!audience_identifier(&DataType::Cookie, &"c".repeat(257)));
    assert!(!audience_identifier(&DataType::Cookie, "a b"));
    assert!(!audience_identifier(&DataType::Cookie, "ab\n"));
}

#[test]
fn mobile_identifiers_are_uuids() {
    assert!(audience_identifier(
        &DataType::MobileId,
        "6D92078A-8246-4BA4-AE5B-76104861E7DC"
    ));
    assert!(audience_identifier(
        &DataType::MobileId,
        "38400000-8cf0-11bd-b23e-10b96e40000d"
    ));
    for bad in [
        "38400000-8cf0-11bd-b23e-10b96e40000",
        "38400000-8cf0-11bd-b23e-10b96e40000dd",
        "384000008cf011bdb23e10b96e40000d",
        "38400000_8cf0_11bd_b23e_10b96e40000d",
        "3840000g-8cf0-11bd-b23e-10b96e40000d",
        "",
    ] {
        assert!(!audience_identifier(&DataType::MobileId, bad), "{bad}");
    }
}

// ---- code_challenge ----

#[test]
fn code_challenge_rules() {
    assert_ok(code_challenge(&"a".repeat(43)));
    assert_ok(code_challenge(&"Z".repeat(128)));
    assert_ok(code_challenge(
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    ));
    assert_ok(code_challenge(&format!("{}-._~", "a".repeat(40))));

    let msg = assert_one(
        code_challenge(&"a".repeat(42)),
        "code_challenge",
        OUT_OF_RANGE,
    );
    assert!(msg.contains("42"), "{msg}");
    assert_one(
        code_challenge(&"a".repeat(129)),
        "code_challenge",
        OUT_OF_RANGE,
    );
    assert_one(
        code_challenge(&format!("{}+/=", "a".repeat(43))),
        "code_challenge",
        INVALID,
    );
    assert_exactly(
        code_challenge("short space"),
        &[
            ("code_challenge", OUT_OF_RANGE),
            ("code_challenge", INVALID),
        ],
    );
}

#[test]
fn an_upload_is_an_array_of_records_for_the_segment_of_the_url() {
    use flightdeck_model::AudienceDataRecord;
    use flightdeck_model::validate::{audience_data, bad_records};
    let hash = "ab".repeat(32);
    let record = |segment: &str, country: &str, values: Vec<String>| AudienceDataRecord {
        service_segment_id: segment.to_owned(),
        country_code: country.to_owned(),
        values,
        ..AudienceDataRecord::default()
    };
    let ok = [record("fpsegm1", "US", vec![hash.clone()])];
    assert!(audience_data("fpsegm1", Some(&DataType::EmailSha256), &ok).is_ok());

    let errors = audience_data("fpsegm1", Some(&DataType::EmailSha256), &[]).expect_err("empty");
    assert_eq!(errors.0[0].code, "REQUIRED");

    let bad = [
        record("fpsegm2", "US", vec![hash.clone()]),
        record("fpsegm1", "usa", vec![hash.clone()]),
        record(
            "fpsegm1",
            "US",
            vec![hash.clone(), "someone@example.com".to_owned()],
        ),
        record("fpsegm1", "GB", vec![hash.clone()]),
    ];
    let errors =
        audience_data("fpsegm1", Some(&DataType::EmailSha256), &bad).expect_err("bad records");
    let fields: Vec<&str> = errors.0.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        ["[0].serviceSegmentId", "[1].countryCode", "[2].values[1]"]
    );
    assert_eq!(bad_records(&errors), 3);
    // A type the crate does not know still checks the record, not the values.
    let unknown = DataType::Other("email_md5".to_owned());
    assert!(
        audience_data(
            "fpsegm1",
            Some(&unknown),
            &[record("fpsegm1", "US", vec!["x".into()])]
        )
        .is_ok()
    );
}
