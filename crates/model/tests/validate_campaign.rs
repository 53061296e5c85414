//! Campaign, flight and flight-cap rules, with property tests of the overlap check.

mod common;

use common::{assert_exactly, assert_has, assert_ok, assert_one, errors, from_json};
use flightdeck_model::validate::{Op, campaign, codes::*, flight_caps, flights};
use flightdeck_model::{Campaign, CampaignFlight, FlightCap, ValidationErrors};
use proptest::prelude::*;
use serde_json::{Value, json};

const DAY: i64 = 86_400_000;
/// 1 Jan 2027 00:00 UTC.
const JAN1: i64 = 1_798_761_600_000;

fn valid_campaign() -> Value {
    json!({
        "advertiserId": 1,
        "name": "Spring",
        "domain": "example.com",
        "maxBudget": 1000.0,
        "startDate": JAN1,
        "endDate": JAN1 + 30 * DAY,
        "iabCategory": ["IAB1", "IAB2-3"],
    })
}

fn check(v: Value) -> Result<(), ValidationErrors> {
    campaign(&from_json::<Campaign>(v), Op::Create, None)
}

fn flight(start: i64, end: i64) -> CampaignFlight {
    CampaignFlight {
        start_date: Some(start),
        end_date: Some(end),
        max_budget: Some(100.0),
        ..CampaignFlight::default()
    }
}

fn stored(id: i64, start: i64, end: i64) -> CampaignFlight {
    CampaignFlight {
        id: Some(id),
        ..flight(start, end)
    }
}

fn flight_json(v: Value) -> CampaignFlight {
    from_json(v)
}

// ---- campaign ----

#[test]
fn a_valid_campaign_passes_on_create_and_update() {
    assert_ok(check(valid_campaign()));
    assert_ok(campaign(&from_json(valid_campaign()), Op::Update, None));
    let mut v = valid_campaign();
    v["dailyBudget"] = json!(50);
    v["dailyFrequencyCap"] = json!(3);
    v["frequencyCapDuration"] = json!(1);
    v["frequencyCapTimePeriod"] = json!("DAY");
    v["markupRate"] = json!(0.0);
    v["lifetimeImpressionCap"] = json!(0);
    v["minBidMultiplier"] = json!(0.5);
    v["maxBidMultiplier"] = json!(2.0);
    v["intradayFrontloadPct"] = json!(100.0);
    v["ioNumber"] = json!("IO-1");
    v["externalCampaignId"] = json!("");
    assert_ok(check(v));
}

#[test]
fn basic_fields_are_required() {
    for field in ["advertiserId", "name", "domain", "iabCategory"] {
        let mut v = valid_campaign();
        v.as_object_mut().expect("object").remove(field);
        assert_one(check(v), field, REQUIRED);
    }
    for (field, blank) in [
        ("name", json!(" ")),
        ("domain", json!("")),
        ("iabCategory", json!([])),
    ] {
        let mut v = valid_campaign();
        v[field] = blank;
        assert_one(check(v), field, REQUIRED);
    }
}

#[test]
fn iab_categories_must_have_the_iab_shape() {
    let mut v = valid_campaign();
    v["iabCategory"] = json!(["IAB1", "iab2", "IAB3-", "IAB12-4", "Food", "IAB-1", "IAB 1"]);
    assert_exactly(
        check(v),
        &[
            ("iabCategory[1]", INVALID),
            ("iabCategory[2]", INVALID),
            ("iabCategory[4]", INVALID),
            ("iabCategory[5]", INVALID),
            ("iabCategory[6]", INVALID),
        ],
    );
}

#[test]
fn domain_must_look_like_a_domain() {
    for bad in ["example com", "localhost", "https://example .com"] {
        let mut v = valid_campaign();
        v["domain"] = json!(bad);
        assert_one(check(v), "domain", INVALID);
    }
}

#[test]
fn budget_and_dates_are_required_unless_flights_are_sent() {
    let mut v = valid_campaign();
    for f in ["maxBudget", "startDate", "endDate"] {
        v.as_object_mut().expect("object").remove(f);
    }
    let r = check(v.clone());
    assert_exactly(
        r.clone(),
        &[
            ("maxBudget", REQUIRED),
            ("startDate", REQUIRED),
            ("endDate", REQUIRED),
        ],
    );
    assert!(assert_has(&r, "maxBudget", REQUIRED).contains("flights"));

    // An empty flights array does not supply them.
    v["flights"] = json!([]);
    assert_eq!(errors(check(v.clone())).len(), 3);

    v["flights"] = json!([{"startDate": JAN1, "endDate": JAN1 + DAY, "maxBudget": 10}]);
    assert_ok(check(v));
}

#[test]
fn budgets_must_be_positive_and_daily_within_max() {
    let mut v = valid_campaign();
    v["maxBudget"] = json!(0);
    assert_one(check(v.clone()), "maxBudget", OUT_OF_RANGE);

    let mut v = valid_campaign();
    v["dailyBudget"] = json!(0);
    assert_one(check(v.clone()), "dailyBudget", OUT_OF_RANGE);
    v["dailyBudget"] = json!(1000.5);
    let msg = assert_one(check(v.clone()), "dailyBudget", OUT_OF_RANGE);
    assert!(msg.contains("maxBudget"), "{msg}");
    v["dailyBudget"] = json!(1000);
    assert_ok(check(v.clone()));
    v["dailyBudget"] = Value::Null;
    assert_ok(check(v));
}

#[test]
fn start_must_precede_end() {
    let mut v = valid_campaign();
    v["endDate"] = json!(JAN1);
    let msg = assert_one(check(v.clone()), "endDate", INVALID);
    assert!(msg.contains("1 Jan 2027"), "{msg}");
    v["endDate"] = json!(JAN1 - 1);
    assert_one(check(v), "endDate", INVALID);
}

#[test]
fn frequency_cap_fields_come_together() {
    let mut v = valid_campaign();
    v["dailyFrequencyCap"] = json!(3);
    let r = check(v.clone());
    assert_exactly(
        r.clone(),
        &[
            ("frequencyCapDuration", REQUIRED),
            ("frequencyCapTimePeriod", REQUIRED),
        ],
    );
    assert_eq!(
        assert_has(&r, "frequencyCapDuration", REQUIRED),
        "is required when dailyFrequencyCap is set"
    );

    let mut v = valid_campaign();
    v["frequencyCapDuration"] = json!(2);
    v["frequencyCapTimePeriod"] = json!("HOUR");
    v["dailyFrequencyCap"] = Value::Null;
    let msg = assert_one(check(v), "dailyFrequencyCap", REQUIRED);
    assert_eq!(
        msg,
        "is required when frequencyCapDuration and frequencyCapTimePeriod are set"
    );

    // Nulls are not values: nothing is set, nothing is required.
    let mut v = valid_campaign();
    v["dailyFrequencyCap"] = Value::Null;
    v["frequencyCapDuration"] = Value::Null;
    assert_ok(check(v));
}

#[test]
fn frequency_cap_counts_are_at_least_one() {
    let mut v = valid_campaign();
    v["dailyFrequencyCap"] = json!(0);
    v["frequencyCapDuration"] = json!(-1);
    v["frequencyCapTimePeriod"] = json!("MINUTE");
    assert_exactly(
        check(v),
        &[
            ("dailyFrequencyCap", OUT_OF_RANGE),
            ("frequencyCapDuration", OUT_OF_RANGE),
        ],
    );
}

#[test]
fn rates_and_caps_are_not_negative() {
    let mut v = valid_campaign();
    v["markupRate"] = json!(-0.1);
    v["lifetimeImpressionCap"] = json!(-1);
    v["dailyImpressionCap"] = json!(-1);
    v["lifetimeClickCap"] = json!(-1);
    v["dailyClickCap"] = json!(-1);
    assert_exactly(
        check(v),
        &[
            ("markupRate", OUT_OF_RANGE),
            ("lifetimeImpressionCap", OUT_OF_RANGE),
            ("dailyImpressionCap", OUT_OF_RANGE),
            ("lifetimeClickCap", OUT_OF_RANGE),
            ("dailyClickCap", OUT_OF_RANGE),
        ],
    );
}

#[test]
fn io_number_and_external_campaign_id_conflict() {
    let mut v = valid_campaign();
    v["ioNumber"] = json!("IO-1");
    v["externalCampaignId"] = json!("EXT-1");
    let msg = assert_one(check(v.clone()), "externalCampaignId", IDENTIFIER_CONFLICT);
    assert!(msg.contains("ioNumber"), "{msg}");
    // Exclusive on input even when equal; `Campaign::request_body` sends one.
    v["ioNumber"] = json!("EXT-1");
    assert_one(check(v.clone()), "externalCampaignId", IDENTIFIER_CONFLICT);
    v["ioNumber"] = json!(" ");
    assert_ok(check(v));
}

#[test]
fn bid_multipliers_are_non_negative_and_ordered() {
    let mut v = valid_campaign();
    v["minBidMultiplier"] = json!(-1);
    v["maxBidMultiplier"] = json!(-2);
    assert_exactly(
        check(v.clone()),
        &[
            ("minBidMultiplier", OUT_OF_RANGE),
            ("maxBidMultiplier", OUT_OF_RANGE),
            ("minBidMultiplier", OUT_OF_RANGE),
        ],
    );
    v["minBidMultiplier"] = json!(3);
    v["maxBidMultiplier"] = json!(2);
    let msg = assert_one(check(v.clone()), "minBidMultiplier", OUT_OF_RANGE);
    assert!(msg.contains("maxBidMultiplier"), "{msg}");
    v["maxBidMultiplier"] = Value::Null;
    assert_ok(check(v));
}

#[test]
fn intraday_frontload_is_a_percentage() {
    for (pct, ok) in [(0.0, true), (100.0, true), (-0.01, false), (100.01, false)] {
        let mut v = valid_campaign();
        v["intradayFrontloadPct"] = json!(pct);
        if ok {
            assert_ok(check(v));
        } else {
            assert_one(check(v), "intradayFrontloadPct", OUT_OF_RANGE);
        }
    }
}

#[test]
fn campaign_flights_are_checked_with_flight_paths() {
    let mut v = valid_campaign();
    v["flights"] = json!([
        {"startDate": JAN1, "endDate": JAN1 + 10 * DAY, "maxBudget": 10},
        {"startDate": JAN1 + 5 * DAY, "endDate": JAN1 + 20 * DAY, "maxBudget": 0},
        {"endDate": JAN1, "maxBudget": 5},
    ]);
    assert_exactly(
        check(v),
        &[
            ("flights[1].maxBudget", OUT_OF_RANGE),
            ("flights[2].startDate", REQUIRED),
            ("flights[1].startDate", OVERLAP),
        ],
    );
}

#[test]
fn a_broken_campaign_reports_everything_at_once() {
    let v = json!({
        "name": "",
        "domain": "nodot",
        "iabCategory": ["X"],
        "maxBudget": -1,
        "dailyBudget": 5,
        "startDate": JAN1,
        "endDate": JAN1,
        "frequencyCapTimePeriod": "DAY",
        "ioNumber": "a",
        "externalCampaignId": "b",
        "intradayFrontloadPct": 150,
    });
    assert_exactly(
        check(v),
        &[
            ("advertiserId", REQUIRED),
            ("name", REQUIRED),
            ("domain", INVALID),
            ("iabCategory[0]", INVALID),
            ("maxBudget", OUT_OF_RANGE),
            ("dailyBudget", OUT_OF_RANGE),
            ("endDate", INVALID),
            ("dailyFrequencyCap", REQUIRED),
            ("frequencyCapDuration", REQUIRED),
            ("externalCampaignId", IDENTIFIER_CONFLICT),
            ("intradayFrontloadPct", OUT_OF_RANGE),
        ],
    );
}

// ---- flights: per flight ----

#[test]
fn valid_flights_pass() {
    let sent = [
        flight(JAN1, JAN1 + 10 * DAY),
        flight_json(json!({
            "budgetType": "FIXED_BUDGET", "dailyBudget": 10, "dailyFrontload": 100,
            "maxBudget": 100, "dailyImpCap": 5, "lifetimeImpCap": 5,
            "startDate": JAN1 + 10 * DAY, "endDate": JAN1 + 20 * DAY,
        })),
    ];
    assert_ok(flights(&sent, &[], None, None));
    assert_ok(flights(&[], &[], None, None));
}

#[test]
fn flight_dates_and_budget_are_required() {
    let sent = [flight(JAN1, JAN1 + DAY), CampaignFlight::default()];
    assert_exactly(
        flights(&sent, &[], None, None),
        &[
            ("flights[1].startDate", REQUIRED),
            ("flights[1].endDate", REQUIRED),
            ("flights[1].maxBudget", REQUIRED),
        ],
    );
}

#[test]
fn flight_start_must_precede_end() {
    assert_one(
        flights(&[flight(JAN1, JAN1)], &[], None, None),
        "flights[0].endDate",
        INVALID,
    );
}

#[test]
fn flight_budgets() {
    let f = flight_json(json!({
        "startDate": JAN1, "endDate": JAN1 + DAY, "maxBudget": 0, "dailyBudget": -3,
    }));
    assert_exactly(
        flights(&[f], &[], None, None),
        &[
            ("flights[0].maxBudget", OUT_OF_RANGE),
            ("flights[0].dailyBudget", OUT_OF_RANGE),
        ],
    );
    let f = flight_json(json!({
        "startDate": JAN1, "endDate": JAN1 + DAY, "maxBudget": 10, "dailyBudget": 11,
    }));
    assert_one(
        flights(&[f], &[], None, None),
        "flights[0].dailyBudget",
        OUT_OF_RANGE,
    );
}

#[test]
fn fixed_budget_needs_a_daily_budget() {
    let f = flight_json(json!({
        "startDate": JAN1, "endDate": JAN1 + DAY, "maxBudget": 10,
        "budgetType": "FIXED_BUDGET", "dailyBudget": null,
    }));
    let msg = assert_one(
        flights(&[f], &[], None, None),
        "flights[0].dailyBudget",
        REQUIRED,
    );
    assert!(msg.contains("FIXED_BUDGET"), "{msg}");
    let f = flight_json(json!({
        "startDate": JAN1, "endDate": JAN1 + DAY, "maxBudget": 10, "budgetType": "AUTO_BUDGET",
    }));
    assert_ok(flights(&[f], &[], None, None));
}

#[test]
fn flight_frontload_and_impression_caps() {
    let f = flight_json(json!({
        "startDate": JAN1, "endDate": JAN1 + DAY, "maxBudget": 10,
        "dailyFrontload": 100.5, "dailyImpCap": -1, "lifetimeImpCap": -2,
    }));
    assert_exactly(
        flights(&[f], &[], None, None),
        &[
            ("flights[0].dailyFrontload", OUT_OF_RANGE),
            ("flights[0].dailyImpCap", OUT_OF_RANGE),
            ("flights[0].lifetimeImpCap", OUT_OF_RANGE),
            ("flights[0].dailyImpCap", OUT_OF_RANGE),
        ],
    );
    let f = flight_json(json!({
        "startDate": JAN1, "endDate": JAN1 + DAY, "maxBudget": 10,
        "dailyImpCap": 11, "lifetimeImpCap": 10,
    }));
    let msg = assert_one(
        flights(&[f], &[], None, None),
        "flights[0].dailyImpCap",
        OUT_OF_RANGE,
    );
    assert!(msg.contains("lifetimeImpCap"), "{msg}");
}

#[test]
fn a_new_flight_must_start_after_now() {
    let now = JAN1;
    assert_one(
        flights(&[flight(now, now + DAY)], &[], Some(now), None),
        "flights[0].startDate",
        START_IN_PAST,
    );
    assert_one(
        flights(&[flight(now - DAY, now + DAY)], &[], Some(now), None),
        "flights[0].startDate",
        START_IN_PAST,
    );
    assert_ok(flights(&[flight(now + 1, now + DAY)], &[], Some(now), None));
    // Existing flights may have started; without `now` nothing is compared.
    assert_ok(flights(
        &[stored(5, now - DAY, now + DAY)],
        &[],
        Some(now),
        None,
    ));
    assert_ok(flights(&[flight(now - DAY, now + DAY)], &[], None, None));
}

// ---- flights: overlap ----

#[test]
fn two_sent_flights_that_overlap_are_reported_on_the_later_index() {
    let sent = [
        flight(JAN1, JAN1 + 31 * DAY),
        flight(JAN1 + 30 * DAY, JAN1 + 40 * DAY),
    ];
    let msg = assert_one(
        flights(&sent, &[], None, None),
        "flights[1].startDate",
        OVERLAP,
    );
    assert_eq!(msg, "overlaps flights[0] (1 Jan 2027 – 1 Feb 2027)");

    // Index order, not date order, picks the flight that carries the error.
    let sent = [
        flight(JAN1 + 30 * DAY, JAN1 + 40 * DAY),
        flight(JAN1, JAN1 + 31 * DAY),
    ];
    let msg = assert_one(
        flights(&sent, &[], None, None),
        "flights[1].startDate",
        OVERLAP,
    );
    assert!(msg.starts_with("overlaps flights[0] (31 Jan 2027"), "{msg}");
}

#[test]
fn overlap_with_a_stored_flight_names_it_by_id() {
    let sent = [flight(JAN1 + 5 * DAY, JAN1 + 6 * DAY)];
    let others = [stored(17, JAN1, JAN1 + 31 * DAY)];
    let msg = assert_one(
        flights(&sent, &others, None, None),
        "flights[0].startDate",
        OVERLAP,
    );
    assert_eq!(msg, "overlaps flight 17 (1 Jan 2027 – 1 Feb 2027)");
}

#[test]
fn back_to_back_flights_do_not_overlap() {
    let sent = [flight(JAN1, JAN1 + DAY), flight(JAN1 + DAY, JAN1 + 2 * DAY)];
    let others = [
        stored(1, JAN1 - DAY, JAN1),
        stored(2, JAN1 + 2 * DAY, JAN1 + 3 * DAY),
    ];
    assert_ok(flights(&sent, &others, None, None));
}

#[test]
fn stored_flights_overlapping_each_other_are_not_this_requests_problem() {
    let others = [
        stored(1, JAN1, JAN1 + 10 * DAY),
        stored(2, JAN1, JAN1 + 10 * DAY),
    ];
    assert_ok(flights(
        &[flight(JAN1 + 10 * DAY, JAN1 + 11 * DAY)],
        &others,
        None,
        None,
    ));
}

#[test]
fn every_overlapping_pair_is_reported() {
    let sent = [
        flight(JAN1, JAN1 + 10 * DAY),
        flight(JAN1 + DAY, JAN1 + 2 * DAY),
        flight(JAN1 + DAY, JAN1 + 3 * DAY),
    ];
    let others = [stored(9, JAN1 + 9 * DAY, JAN1 + 12 * DAY)];
    let errs = errors(flights(&sent, &others, None, None));
    let got: Vec<(String, String)> = errs
        .into_iter()
        .map(|e| {
            (
                e.field,
                e.message.split(" (").next().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("flights[0].startDate".into(), "overlaps flight 9".into()),
            ("flights[1].startDate".into(), "overlaps flights[0]".into()),
            ("flights[2].startDate".into(), "overlaps flights[0]".into()),
            ("flights[2].startDate".into(), "overlaps flights[1]".into()),
        ]
    );
}

#[test]
fn flights_without_both_dates_or_with_inverted_dates_are_skipped_for_overlap() {
    let mut no_end = flight(JAN1, JAN1);
    no_end.end_date = None;
    let inverted = flight(JAN1 + 5 * DAY, JAN1 + 3 * DAY);
    let sent = [flight(JAN1, JAN1 + 10 * DAY), no_end, inverted];
    assert_exactly(
        flights(&sent, &[], None, None),
        &[
            ("flights[1].endDate", REQUIRED),
            ("flights[2].endDate", INVALID),
        ],
    );
}

#[test]
fn identical_and_nested_flights_overlap() {
    let sent = [flight(JAN1, JAN1 + DAY), flight(JAN1, JAN1 + DAY)];
    assert_one(
        flights(&sent, &[], None, None),
        "flights[1].startDate",
        OVERLAP,
    );
    let sent = [flight(JAN1 + 1, JAN1 + 2), flight(JAN1, JAN1 + DAY)];
    assert_one(
        flights(&sent, &[], None, None),
        "flights[1].startDate",
        OVERLAP,
    );
}

#[test]
fn many_flights_are_checked_quickly() {
    // 50 000 stored flights on the same dates would be 1.25e9 pairs if stored pairs
    // were compared; only pairs with a sent flight may cost anything.
    let others: Vec<CampaignFlight> = (0..50_000).map(|i| stored(i, JAN1, JAN1 + DAY)).collect();
    let sent: Vec<CampaignFlight> = (0..20_000)
        .map(|i| flight(JAN1 + (i + 1) * DAY, JAN1 + (i + 2) * DAY))
        .collect();
    let started = std::time::Instant::now();
    assert_ok(flights(&sent, &others, None, None));
    assert!(started.elapsed().as_secs() < 5);

    let sent = [flight(JAN1, JAN1 + DAY)];
    assert_eq!(errors(flights(&sent, &others, None, None)).len(), 50_000);
}

// ---- flights: property tests ----

/// A dated span as (start, length); length may be zero or negative (an invalid flight).
fn spans(max: usize) -> impl Strategy<Value = Vec<(Option<(i64, i64)>, bool)>> {
    prop::collection::vec(
        (
            prop::option::weighted(0.9, (0i64..60, -3i64..25)),
            any::<bool>(),
        ),
        0..max,
    )
}

fn to_flight((span, has_id): (Option<(i64, i64)>, bool), id: i64) -> CampaignFlight {
    let mut f = match span {
        Some((s, len)) => flight(JAN1 + s * DAY, JAN1 + (s + len) * DAY),
        None => CampaignFlight {
            max_budget: Some(1.0),
            ..CampaignFlight::default()
        },
    };
    f.id = has_id.then_some(id);
    f
}

/// `(flagged sent index, name of the other flight)` for every overlap, by brute force.
fn oracle(sent: &[CampaignFlight], others: &[CampaignFlight]) -> Vec<(usize, String)> {
    let span = |f: &CampaignFlight| match (f.start_date, f.end_date) {
        (Some(s), Some(e)) if s < e => Some((s, e)),
        _ => None,
    };
    let overlap = |a: (i64, i64), b: (i64, i64)| a.0 < b.1 && b.0 < a.1;
    let mut out = Vec::new();
    for (i, a) in sent.iter().enumerate() {
        let Some(sa) = span(a) else { continue };
        for (j, b) in sent.iter().enumerate().take(i) {
            if span(b).is_some_and(|sb| overlap(sa, sb)) {
                out.push((i, format!("flights[{j}]")));
            }
        }
        for b in others {
            if span(b).is_some_and(|sb| overlap(sa, sb)) {
                let id = b.id.expect("stored flights have ids");
                out.push((i, format!("flight {id}")));
            }
        }
    }
    out.sort();
    out
}

fn reported(r: Result<(), ValidationErrors>) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = errors(r)
        .into_iter()
        .filter(|e| e.code == OVERLAP)
        .map(|e| {
            let i = e
                .field
                .strip_prefix("flights[")
                .and_then(|s| s.strip_suffix("].startDate"))
                .and_then(|s| s.parse().ok())
                .expect("overlap is on flights[i].startDate");
            let other = e
                .message
                .strip_prefix("overlaps ")
                .and_then(|m| m.split(" (").next())
                .expect("message names the other flight")
                .to_owned();
            (i, other)
        })
        .collect();
    out.sort();
    out
}

proptest! {
    #[test]
    fn overlap_matches_the_pairwise_oracle(sent in spans(10), others in spans(8)) {
        let sent: Vec<CampaignFlight> = sent.into_iter().map(|s| to_flight(s, 0)).collect();
        let others: Vec<CampaignFlight> = others
            .into_iter()
            .enumerate()
            .map(|(k, (span, _))| to_flight((span, true), 1000 + k as i64))
            .collect();
        let got = reported(flights(&sent, &others, None, None));
        let want = oracle(&sent, &others);
        let flagged = |v: &[(usize, String)]| {
            v.iter().map(|p| p.0).collect::<std::collections::BTreeSet<_>>()
        };
        prop_assert_eq!(flagged(&got), flagged(&want));
        prop_assert_eq!(got, want);
    }

    #[test]
    fn back_to_back_flights_never_overlap(
        (lens, order, stored_mask) in prop::collection::vec(1i64..(40 * DAY), 1..40)
            .prop_flat_map(|lens| {
                let n = lens.len();
                (
                    Just(lens),
                    Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
                    prop::collection::vec(any::<bool>(), n),
                )
            }),
        start in (JAN1 - 1000 * DAY)..(JAN1 + 1000 * DAY),
    ) {
        let mut at = start;
        let chain: Vec<CampaignFlight> = lens
            .iter()
            .map(|len| {
                let f = flight(at, at + len);
                at += len;
                f
            })
            .collect();
        let mut sent = Vec::new();
        let mut others = Vec::new();
        for (k, i) in order.into_iter().enumerate() {
            if stored_mask[k] {
                others.push(stored(i as i64 + 1, chain[i].start_date.unwrap_or_default(), chain[i].end_date.unwrap_or_default()));
            } else {
                sent.push(chain[i].clone());
            }
        }
        prop_assert!(reported(flights(&sent, &others, None, None)).is_empty());
        prop_assert!(flights(&sent, &others, None, None).is_ok());
    }
}

// ---- flight caps ----

fn cap(v: Value) -> FlightCap {
    from_json(v)
}

#[test]
fn valid_caps_pass() {
    let caps = [
        cap(
            json!({"flightId": 1, "maxBudget": 100, "dailyBudget": 100, "lifetimeImpressions": 10, "dailyImpressions": 10}),
        ),
        cap(json!({"id": 7, "flightId": 2})),
    ];
    assert_ok(flight_caps(&caps, &[1, 2, 3]));
    assert_ok(flight_caps(&[], &[]));
}

#[test]
fn cap_flight_must_be_a_flight_of_the_campaign() {
    assert_one(
        flight_caps(&[cap(json!({"maxBudget": 1}))], &[1]),
        "[0].flightId",
        REQUIRED,
    );
    let msg = assert_one(
        flight_caps(
            &[
                cap(json!({"flightId": 1, "maxBudget": 1})),
                cap(json!({"flightId": 4, "maxBudget": 1})),
            ],
            &[1, 2],
        ),
        "[1].flightId",
        BAD_REFERENCE,
    );
    assert_eq!(msg, "is not a flight of this ad order's campaign");
}

#[test]
fn a_new_cap_needs_a_budget() {
    assert_one(
        flight_caps(&[cap(json!({"flightId": 1}))], &[1]),
        "[0].maxBudget",
        REQUIRED,
    );
    assert_ok(flight_caps(&[cap(json!({"id": 3, "flightId": 1}))], &[1]));
}

#[test]
fn cap_budgets_and_impressions() {
    let caps = [cap(json!({
        "flightId": 1, "maxBudget": 0, "dailyBudget": 0,
        "lifetimeImpressions": -1, "dailyImpressions": -1,
    }))];
    assert_exactly(
        flight_caps(&caps, &[1]),
        &[
            ("[0].maxBudget", OUT_OF_RANGE),
            ("[0].dailyBudget", OUT_OF_RANGE),
            ("[0].lifetimeImpressions", OUT_OF_RANGE),
            ("[0].dailyImpressions", OUT_OF_RANGE),
        ],
    );
    let caps = [cap(json!({
        "flightId": 1, "maxBudget": 10, "dailyBudget": 11,
        "lifetimeImpressions": 5, "dailyImpressions": 6,
    }))];
    assert_exactly(
        flight_caps(&caps, &[1]),
        &[
            ("[0].dailyBudget", OUT_OF_RANGE),
            ("[0].dailyImpressions", OUT_OF_RANGE),
        ],
    );
}

#[test]
fn two_caps_for_one_flight_are_reported_on_the_later() {
    let caps = [
        cap(json!({"flightId": 1, "maxBudget": 1})),
        cap(json!({"flightId": 2, "maxBudget": 1})),
        cap(json!({"flightId": 1, "maxBudget": 1})),
        cap(json!({"flightId": 1, "maxBudget": 1})),
    ];
    let r = flight_caps(&caps, &[1, 2]);
    assert_exactly(
        r.clone(),
        &[("[2].flightId", INVALID), ("[3].flightId", INVALID)],
    );
    assert!(assert_has(&r, "[3].flightId", INVALID).contains("[0]"));
}

#[test]
fn every_cap_error_is_reported_at_once() {
    let caps = [
        cap(json!({"maxBudget": -1})),
        cap(json!({"flightId": 99})),
        cap(json!({"flightId": 99, "id": 4, "dailyBudget": -2})),
    ];
    assert_exactly(
        flight_caps(&caps, &[1]),
        &[
            ("[0].flightId", REQUIRED),
            ("[0].maxBudget", OUT_OF_RANGE),
            ("[1].flightId", BAD_REFERENCE),
            ("[1].maxBudget", REQUIRED),
            ("[2].flightId", BAD_REFERENCE),
            ("[2].flightId", INVALID),
            ("[2].dailyBudget", OUT_OF_RANGE),
        ],
    );
}

#[test]
fn an_unknown_value_the_service_returned_does_not_block_an_update() {
    let mut v = valid_campaign();
    v["pacingMode"] = json!("SPEND_WISELY");
    v["objective"] = json!("RETENTION");
    // A listed campaign with values this crate does not know can still be edited...
    assert_ok(campaign(&from_json(v.clone()), Op::Update, None));
    // ...but a new campaign must use the values the spec lists.
    let errors = campaign(&from_json(v), Op::Create, None).expect_err("unknown values");
    let fields: Vec<&str> = errors.0.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["pacingMode", "objective"]);
}

/// A flight ending at a day's last minute and the next starting at the following
/// midnight run on consecutive days: the timeline shows no gap between them. A day
/// between them is still a gap.
#[test]
fn consecutive_days_leave_no_gap_between_flights() {
    use flightdeck_model::validate::flight_layout;
    let last_minute = JAN1 + DAY - 60_000;
    let layout = flight_layout(&[
        flight(JAN1, last_minute),
        flight(JAN1 + DAY, JAN1 + 2 * DAY),
    ]);
    assert!(layout.gaps.is_empty(), "{layout:?}");
    assert!(layout.overlaps.is_empty(), "{layout:?}");

    let layout = flight_layout(&[
        flight(JAN1, last_minute),
        flight(JAN1 + 2 * DAY, JAN1 + 3 * DAY),
    ]);
    assert_eq!(layout.gaps.len(), 1, "{layout:?}");
    assert_eq!(layout.gaps[0].from, last_minute);
}
