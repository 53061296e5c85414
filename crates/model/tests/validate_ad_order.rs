//! Ad-order rules.

mod common;

use common::{assert_exactly, assert_ok, assert_one, from_json};
use flightdeck_model::validate::{Op, ad_order, codes::*};
use flightdeck_model::{AdOrder, ValidationErrors};
use serde_json::{Value, json};

const DAY: i64 = 86_400_000;
const JAN1: i64 = 1_798_761_600_000;

fn valid() -> Value {
    json!({
        "name": "Prospecting",
        "campaignId": 5,
        "optimizationGoal": "CPM",
        "startDate": JAN1,
        "endDate": JAN1 + 30 * DAY,
        "lifetimeBudget": 500.0,
    })
}

fn create(v: Value) -> Result<(), ValidationErrors> {
    ad_order(&from_json::<AdOrder>(v), Op::Create, None)
}

fn update(v: Value) -> Result<(), ValidationErrors> {
    ad_order(&from_json::<AdOrder>(v), Op::Update, None)
}

fn with(pairs: &[(&str, Value)]) -> Value {
    let mut v = valid();
    for (k, x) in pairs {
        v[*k] = x.clone();
    }
    v
}

#[test]
fn a_valid_ad_order_passes() {
    assert_ok(create(valid()));
    assert_ok(create(with(&[
        (
            "frequencyCap",
            json!({"limit": 1, "duration": 1, "timePeriod": "HOUR"}),
        ),
        (
            "channelsV2",
            json!([
                "Display",
                "Video",
                "Native",
                "Audio",
                "DOOH",
                "CTV",
                "LTV",
                "LTV-Partner"
            ]),
        ),
        ("max_bid", json!(2.5)),
        ("hourlyPacingMode", json!("SPEND_EVENLY")),
        ("hourlyFrontload", json!(0.0)),
        ("ioNumber", json!("IO-1")),
        ("cpaGoal", json!(3)),
        ("ctrGoal", json!(0.002)),
        ("vcrGoal", json!(1.0)),
        ("minBidMultiplier", json!(0)),
        ("maxBidMultiplier", json!(0)),
        ("dailyBudget", json!(500)),
        ("lifetimeImpressionBudget", json!(0)),
        ("dailyImpressionBudget", json!(0)),
        (
            "audiences",
            json!([{"weight": 100, "pmpDeals": [1], "exchanges": {"include": [1], "exclude": [2]}}]),
        ),
    ])));
}

#[test]
fn name_campaign_and_goal_are_always_required() {
    for field in ["name", "campaignId", "optimizationGoal"] {
        let mut v = valid();
        v.as_object_mut().expect("object").remove(field);
        assert_one(create(v.clone()), field, REQUIRED);
        assert_one(update(v), field, REQUIRED);
    }
    assert_one(create(with(&[("name", json!(""))])), "name", REQUIRED);
}

#[test]
fn dates_and_budget_are_required_only_on_create() {
    let v = json!({"name": "n", "campaignId": 1, "optimizationGoal": "VCR"});
    assert_exactly(
        create(v.clone()),
        &[
            ("startDate", REQUIRED),
            ("endDate", REQUIRED),
            ("lifetimeBudget", REQUIRED),
        ],
    );
    assert_ok(update(v));
}

#[test]
fn dates_in_order_and_budget_positive() {
    let v = with(&[("endDate", json!(JAN1 - DAY)), ("lifetimeBudget", json!(0))]);
    assert_exactly(
        create(v.clone()),
        &[("endDate", INVALID), ("lifetimeBudget", OUT_OF_RANGE)],
    );
    assert_exactly(
        update(v),
        &[("endDate", INVALID), ("lifetimeBudget", OUT_OF_RANGE)],
    );
}

#[test]
fn frequency_cap_members_are_required_when_it_is_a_value() {
    assert_ok(create(with(&[("frequencyCap", Value::Null)])));
    let r = create(with(&[("frequencyCap", json!({}))]));
    assert_exactly(
        r,
        &[
            ("frequencyCap.limit", REQUIRED),
            ("frequencyCap.duration", REQUIRED),
            ("frequencyCap.timePeriod", REQUIRED),
        ],
    );
    let r = create(with(&[(
        "frequencyCap",
        json!({"limit": 0, "duration": 0, "timePeriod": "DAY"}),
    )]));
    assert_exactly(
        r,
        &[
            ("frequencyCap.limit", OUT_OF_RANGE),
            ("frequencyCap.duration", OUT_OF_RANGE),
        ],
    );
}

#[test]
fn spend_evenly_needs_an_hourly_frontload_within_0_and_100() {
    let msg = assert_one(
        create(with(&[("hourlyPacingMode", json!("SPEND_EVENLY"))])),
        "hourlyFrontload",
        REQUIRED,
    );
    assert!(msg.contains("SPEND_EVENLY"), "{msg}");
    assert_one(
        create(with(&[
            ("hourlyPacingMode", json!("SPEND_EVENLY")),
            ("hourlyFrontload", Value::Null),
        ])),
        "hourlyFrontload",
        REQUIRED,
    );
    assert_ok(create(with(&[
        ("hourlyPacingMode", json!("ASAP")),
        ("hourlyFrontload", Value::Null),
    ])));
    assert_ok(create(with(&[("hourlyFrontload", json!(100.0))])));
    // Checked whatever the pacing mode.
    assert_one(
        create(with(&[
            ("hourlyPacingMode", json!("ASAP")),
            ("hourlyFrontload", json!(100.01)),
        ])),
        "hourlyFrontload",
        OUT_OF_RANGE,
    );
    assert_one(
        create(with(&[("hourlyFrontload", json!(-1))])),
        "hourlyFrontload",
        OUT_OF_RANGE,
    );
}

#[test]
fn io_number_in_either_spelling_conflicts_with_external_ad_order_id() {
    for io in ["ioNumber", "io_number"] {
        let msg = assert_one(
            create(with(&[
                (io, json!("IO-1")),
                ("externalAdOrderId", json!("EXT")),
            ])),
            "externalAdOrderId",
            IDENTIFIER_CONFLICT,
        );
        assert!(
            msg.starts_with("send only one of ioNumber or externalAdOrderId"),
            "{msg}"
        );
    }
    assert_ok(create(with(&[
        ("ioNumber", json!("IO-1")),
        ("externalAdOrderId", json!("")),
    ])));
    assert_ok(create(with(&[
        ("ioNumber", json!("")),
        ("externalAdOrderId", json!("EXT")),
    ])));
    // The errors table: both is a 400 even when equal; `request_body` sends one.
    assert_one(
        create(with(&[
            ("io_number", json!("EXT")),
            ("externalAdOrderId", json!("EXT")),
        ])),
        "externalAdOrderId",
        IDENTIFIER_CONFLICT,
    );
    assert_ok(create(with(&[("externalAdOrderId", json!("EXT"))])));
}

#[test]
fn channels_v2_values_are_known_or_ltv_variants() {
    let r = create(with(&[(
        "channelsV2",
        json!([
            "Display",
            "display",
            "Mobile",
            "LTVSomething",
            "DOOH",
            "ltv"
        ]),
    )]));
    assert_exactly(
        r,
        &[
            ("channelsV2[1]", INVALID),
            ("channelsV2[2]", INVALID),
            ("channelsV2[5]", INVALID),
        ],
    );
    assert_ok(create(with(&[("channelsV2", Value::Null)])));
    assert_ok(create(with(&[("channelsV2", json!([]))])));
}

#[test]
fn bids_goals_and_budgets_are_bounded() {
    let r = create(with(&[
        ("max_bid", json!(0)),
        ("cpaGoal", json!(0)),
        ("ctrGoal", json!(1.5)),
        ("vcrGoal", json!(-0.1)),
        ("minBidMultiplier", json!(-1)),
        ("maxBidMultiplier", json!(-1)),
        ("dailyBudget", json!(0)),
        ("lifetimeImpressionBudget", json!(-1)),
        ("dailyImpressionBudget", json!(-1)),
    ]));
    assert_exactly(
        r,
        &[
            ("max_bid", OUT_OF_RANGE),
            ("cpaGoal", OUT_OF_RANGE),
            ("ctrGoal", OUT_OF_RANGE),
            ("vcrGoal", OUT_OF_RANGE),
            ("minBidMultiplier", OUT_OF_RANGE),
            ("maxBidMultiplier", OUT_OF_RANGE),
            ("dailyBudget", OUT_OF_RANGE),
            ("lifetimeImpressionBudget", OUT_OF_RANGE),
            ("dailyImpressionBudget", OUT_OF_RANGE),
        ],
    );
    assert_one(
        create(with(&[
            ("minBidMultiplier", json!(2)),
            ("maxBidMultiplier", json!(1)),
        ])),
        "minBidMultiplier",
        OUT_OF_RANGE,
    );
    let msg = assert_one(
        create(with(&[("dailyBudget", json!(501))])),
        "dailyBudget",
        OUT_OF_RANGE,
    );
    assert!(msg.contains("lifetimeBudget"), "{msg}");
    assert_ok(create(with(&[
        ("ctrGoal", json!(0)),
        ("vcrGoal", json!(0)),
        ("dailyBudget", Value::Null),
    ])));
}

#[test]
fn audience_weights_deals_and_targeting() {
    let r = create(with(&[(
        "audiences",
        json!([
            {"weight": 50},
            {"weight": 101, "pmpDeals": [3, 0, -4]},
            {"weight": -1, "pmpDeals": null,
             "exchanges": {"include": [0, 1], "exclude": [-2]},
             "siteLists": {"include": [7, 8, 9], "exclude": [9, 7, 10]}},
        ]),
    )]));
    assert_exactly(
        r.clone(),
        &[
            ("audiences[1].weight", OUT_OF_RANGE),
            ("audiences[1].pmpDeals[1]", OUT_OF_RANGE),
            ("audiences[1].pmpDeals[2]", OUT_OF_RANGE),
            ("audiences[2].weight", OUT_OF_RANGE),
            ("audiences[2].exchanges.include[0]", OUT_OF_RANGE),
            ("audiences[2].exchanges.exclude[0]", OUT_OF_RANGE),
            ("audiences[2].siteLists.exclude", INVALID),
        ],
    );
    let msg = common::assert_has(&r, "audiences[2].siteLists.exclude", INVALID);
    assert_eq!(msg, "site lists 7, 9 are both included and excluded");

    let msg = assert_one(
        create(with(&[(
            "audiences",
            json!([{"exchanges": {"include": [4], "exclude": [4]}}]),
        )])),
        "audiences[0].exchanges.exclude",
        INVALID,
    );
    assert_eq!(msg, "exchange 4 is both included and excluded");
}

#[test]
fn everything_is_reported_at_once() {
    let v = json!({
        "optimizationGoal": "vcr",
        "startDate": JAN1,
        "endDate": JAN1,
        "frequencyCap": {"limit": 2},
        "hourlyPacingMode": "SPEND_EVENLY",
        "ioNumber": "a",
        "externalAdOrderId": "b",
        "channelsV2": ["TV"],
        "audiences": [{"weight": 200}],
    });
    assert_exactly(
        create(v),
        &[
            ("name", REQUIRED),
            ("campaignId", REQUIRED),
            ("lifetimeBudget", REQUIRED),
            ("endDate", INVALID),
            ("frequencyCap.duration", REQUIRED),
            ("frequencyCap.timePeriod", REQUIRED),
            ("hourlyFrontload", REQUIRED),
            ("externalAdOrderId", IDENTIFIER_CONFLICT),
            ("channelsV2[0]", INVALID),
            ("audiences[0].weight", OUT_OF_RANGE),
        ],
    );
}

#[test]
fn an_unknown_goal_mode_the_service_returned_does_not_block_an_update() {
    assert_ok(update(with(&[("goalMode", json!("BALANCED"))])));
    assert_one(
        create(with(&[("goalMode", json!("BALANCED"))])),
        "goalMode",
        INVALID,
    );
}
