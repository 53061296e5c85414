//! The rules of each component, member by member: required members, bounds, lengths,
//! patterns and catalogues, and how they are written into a component's schema.

use flightdeck_model::validate::AD_ORDER_CHANNELS_V2;
use flightdeck_model::validate::limits::{
    CODE_CHALLENGE_MAX, CODE_CHALLENGE_MIN, CREATIVE_EXTERNAL_ID_MAX, CREATIVE_NAME_MAX,
    CREATIVE_SIZE_MAX, EXTERNAL_ADVERTISER_ID_MAX, SEGMENT_DESCRIPTION_MAX,
};
use flightdeck_model::{
    BudgetType, CreativeStatus, DataType, GoalMode, MediaType, Objective, OptimizationGoal,
    PacingMode, SITE_LIST_TYPE_ID_BASED, SITE_LIST_TYPE_RULE_BASED, SiteListStrategy, SiteRuleType,
    TTL_MAX_SECS, TTL_MIN_SECS, TimePeriod, TimezoneName, VideoType,
};
use serde_json::{Value, json};

use super::{
    CURRENCY, EXTERNAL_ADVERTISER_ID, IAB, WS, domain, frequency_cap_together, http_url, no_space,
    not_blank,
};

/// What to write into one component: members required, and per member a schema to merge.
pub(super) struct Rules {
    pub(super) required: &'static [&'static str],
    pub(super) members: Vec<(&'static str, Value)>,
    /// Value rules of members an update ignores (the model's `*_IGNORED_ON_UPDATE`):
    /// they hold only when the body creates (has no integer `id`); `members` gives
    /// these members the type an update still checks.
    pub(super) create_only: Vec<(&'static str, Value)>,
    /// Keywords added to the component itself (`anyOf`, `allOf` of `if`/`then`) for
    /// members required together or depending on another member's value.
    pub(super) whole: Value,
}

pub(super) fn apply_rules(schema: &mut Value, rules: &Rules) {
    // An `Option<T>` component is `oneOf: [null, {object}]`; the rules go on the object.
    let target = match schema.get_mut("oneOf").and_then(Value::as_array_mut) {
        Some(variants) => variants
            .iter_mut()
            .find(|v| v.get("type") == Some(&json!("object"))),
        None => Some(schema),
    };
    let Some(target) = target.and_then(Value::as_object_mut) else {
        return;
    };
    if !rules.required.is_empty() {
        target.insert("required".into(), json!(rules.required));
    }
    if let Some(whole) = rules.whole.as_object() {
        for (k, v) in whole {
            target.insert(k.clone(), v.clone());
        }
    }
    if !rules.create_only.is_empty() {
        let creating: serde_json::Map<String, Value> = rules
            .create_only
            .iter()
            .map(|(m, rule)| ((*m).to_owned(), rule.clone()))
            .collect();
        let branch = json!({
            "if": {"required": ["id"], "properties": {"id": {"type": "integer"}}},
            "else": {"properties": creating},
        });
        match target.get_mut("allOf").and_then(Value::as_array_mut) {
            Some(all) => all.push(branch),
            None => {
                target.insert("allOf".into(), json!([branch]));
            }
        }
    }
    let Some(props) = target.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for (member, extra) in &rules.members {
        let Some(prop) = props.get_mut(*member) else {
            continue;
        };
        let description = prop.get("description").cloned();
        let mut merged = extra.clone();
        if let (Some(obj), Some(d)) = (merged.as_object_mut(), description) {
            obj.entry("description").or_insert(d);
        }
        *prop = merged;
    }
}

pub(super) fn names<T: serde::Serialize>(values: &[T]) -> Vec<Value> {
    values
        .iter()
        .filter_map(|v| serde_json::to_value(v).ok())
        .collect()
}

/// `{"enum": [values…]}`, with null when `nullable`.
pub(super) fn one_of<T: serde::Serialize>(values: &[T], nullable: bool) -> Value {
    let mut all = names(values);
    if nullable {
        all.push(Value::Null);
    }
    json!({ "enum": all })
}

/// An integer the service reads as 64 bits: the range is always stated, so a generator
/// does not go past it.
pub(super) fn int(min: Option<i64>, max: Option<i64>, nullable: bool) -> Value {
    json!({
        "type": if nullable { json!(["integer", "null"]) } else { json!("integer") },
        "format": "int64",
        "minimum": min.unwrap_or(i64::MIN),
        "maximum": max.unwrap_or(i64::MAX),
    })
}

fn number(min: Option<f64>, exclusive_min: bool, max: Option<f64>, nullable: bool) -> Value {
    let mut s =
        json!({ "type": if nullable { json!(["number", "null"]) } else { json!("number") } });
    match (min, exclusive_min) {
        (Some(m), true) => s["exclusiveMinimum"] = json!(m),
        (Some(m), false) => s["minimum"] = json!(m),
        (None, _) => {}
    }
    if let Some(m) = max {
        s["maximum"] = json!(m);
    }
    s
}

fn text(pattern: Option<&str>, max_len: Option<usize>, nullable: bool) -> Value {
    let mut s =
        json!({ "type": if nullable { json!(["string", "null"]) } else { json!("string") } });
    if let Some(p) = pattern {
        s["pattern"] = json!(p);
    }
    if let Some(m) = max_len {
        s["maxLength"] = json!(m);
    }
    s
}

/// A required, non-blank string.
pub(super) fn required_text(max_len: Option<usize>) -> Value {
    let mut s = text(Some(&not_blank()), max_len, false);
    s["minLength"] = json!(1);
    s
}

/// Positive ids (`validate::positive_id`), as items of a list.
fn ids(min_items: usize, nullable: bool) -> Value {
    json!({
        "type": if nullable { json!(["array", "null"]) } else { json!("array") },
        "items": { "type": "integer", "format": "int64", "minimum": 1 },
        "minItems": min_items,
    })
}

pub(super) fn rules() -> Vec<(&'static str, Rules)> {
    let money = || number(Some(0.0), true, None, false);
    let money_or_null = || number(Some(0.0), true, None, true);
    let count_or_null = || int(Some(0), None, true);
    let percent_or_null = || number(Some(0.0), false, Some(100.0), true);
    let share_or_null = || number(Some(0.0), false, Some(1.0), true);
    let multiplier = || number(Some(0.0), false, None, true);
    let url_or_null = || text(Some(&http_url()), None, true);
    vec![
        (
            "Advertiser",
            Rules {
                // Every answer carries these; a create needs them (agencyId, currency and
                // category are kept from the stored advertiser on update).
                required: &["name", "agencyId", "currency", "category"],
                members: vec![
                    ("name", required_text(None)),
                    // A Number or a String of digits, on update too (it is decoded then).
                    (
                        "agencyId",
                        json!({"oneOf": [
                            {"type": "integer", "format": "int64"},
                            {"type": "string", "pattern": format!("^[{WS}]*[0-9]{{1,18}}[{WS}]*$")},
                        ]}),
                    ),
                    ("currency", json!({"type": "string"})),
                    ("category", text(Some(IAB), None, false)),
                    ("timezoneName", json!({"type": ["string", "null"]})),
                    (
                        "externalAdvertiserId",
                        json!({"type": ["string", "null"], "minLength": 1,
                               "maxLength": EXTERNAL_ADVERTISER_ID_MAX,
                               "pattern": EXTERNAL_ADVERTISER_ID}),
                    ),
                ],
                create_only: vec![
                    ("agencyId", json!({"minimum": 1})),
                    ("currency", text(Some(CURRENCY), None, false)),
                    ("timezoneName", one_of(&TimezoneName::ALL, true)),
                ],
                whole: Value::Null,
            },
        ),
        (
            "Campaign",
            Rules {
                required: &["advertiserId", "name", "domain", "iabCategory"],
                members: vec![
                    ("advertiserId", int(None, None, false)),
                    ("name", required_text(None)),
                    ("domain", text(Some(&domain()), None, false)),
                    (
                        "iabCategory",
                        json!({"type": "array", "minItems": 1,
                               "items": {"type": "string", "pattern": IAB}}),
                    ),
                    ("maxBudget", money_or_null()),
                    ("dailyBudget", money_or_null()),
                    ("dailyFrequencyCap", int(Some(1), None, true)),
                    ("frequencyCapDuration", int(Some(1), None, true)),
                    ("frequencyCapTimePeriod", one_of(TimePeriod::KNOWN, true)),
                    ("markupRate", number(Some(0.0), false, None, true)),
                    ("lifetimeImpressionCap", count_or_null()),
                    ("dailyImpressionCap", count_or_null()),
                    ("lifetimeClickCap", count_or_null()),
                    ("dailyClickCap", count_or_null()),
                    ("minBidMultiplier", multiplier()),
                    ("maxBidMultiplier", multiplier()),
                    ("pacingMode", one_of(PacingMode::KNOWN, true)),
                    ("intradayFrontloadPct", percent_or_null()),
                    ("objective", one_of(Objective::KNOWN, true)),
                ],
                create_only: vec![("advertiserId", int(Some(1), None, false))],
                whole: json!({
                    // Budget and dates, unless flights give them.
                    "anyOf": [
                        {"required": ["maxBudget", "startDate", "endDate"],
                         "properties": {"maxBudget": {"type": "number"},
                                        "startDate": {"type": "integer"},
                                        "endDate": {"type": "integer"}}},
                        {"required": ["flights"],
                         "properties": {"flights": {"type": "array", "minItems": 1}}},
                    ],
                    // The frequency cap's three members go together.
                    "allOf": frequency_cap_together(),
                }),
            },
        ),
        (
            "CampaignFlight",
            Rules {
                required: &["startDate", "endDate", "maxBudget"],
                members: vec![
                    ("startDate", int(None, None, false)),
                    ("endDate", int(None, None, false)),
                    ("maxBudget", money()),
                    ("dailyBudget", money_or_null()),
                    ("budgetType", one_of(BudgetType::KNOWN, true)),
                    ("dailyFrontload", percent_or_null()),
                    ("dailyImpCap", count_or_null()),
                    ("lifetimeImpCap", count_or_null()),
                ],
                create_only: vec![],
                whole: json!({
                    "if": {"required": ["budgetType"],
                           "properties": {"budgetType": {"const": "FIXED_BUDGET"}}},
                    "then": {"required": ["dailyBudget"],
                             "properties": {"dailyBudget": {"type": "number"}}},
                }),
            },
        ),
        (
            "FlightCap",
            Rules {
                required: &["flightId"],
                members: vec![
                    ("flightId", int(Some(1), None, false)),
                    ("maxBudget", money_or_null()),
                    ("dailyBudget", money_or_null()),
                    ("lifetimeImpressions", count_or_null()),
                    ("dailyImpressions", count_or_null()),
                ],
                // A new cap (no id) needs its budget.
                create_only: vec![],
                whole: json!({
                    "if": {"required": ["id"], "properties": {"id": {"type": "integer"}}},
                    "else": {"required": ["maxBudget"],
                             "properties": {"maxBudget": {"type": "number"}}},
                }),
            },
        ),
        (
            "AdOrder",
            Rules {
                required: &["name", "campaignId", "optimizationGoal"],
                members: vec![
                    ("name", required_text(None)),
                    ("campaignId", int(None, None, false)),
                    ("optimizationGoal", one_of(OptimizationGoal::KNOWN, false)),
                    ("lifetimeBudget", number(None, false, None, true)),
                    ("startDate", int(None, None, true)),
                    ("endDate", int(None, None, true)),
                    ("dailyBudget", money_or_null()),
                    ("max_bid", money_or_null()),
                    ("cpaGoal", money_or_null()),
                    ("ctrGoal", share_or_null()),
                    ("vcrGoal", share_or_null()),
                    ("lifetimeImpressionBudget", count_or_null()),
                    ("dailyImpressionBudget", count_or_null()),
                    (
                        "channelsV2",
                        json!({"type": ["array", "null"], "items": {"anyOf": [
                            {"enum": AD_ORDER_CHANNELS_V2},
                            {"type": "string", "pattern": "^LTV"},
                        ]}}),
                    ),
                    ("goalMode", one_of(GoalMode::KNOWN, true)),
                    ("hourlyPacingMode", one_of(PacingMode::KNOWN, true)),
                    ("hourlyFrontload", percent_or_null()),
                    ("minBidMultiplier", multiplier()),
                    ("maxBidMultiplier", multiplier()),
                ],
                create_only: vec![
                    ("campaignId", int(Some(1), None, false)),
                    ("lifetimeBudget", money_or_null()),
                    ("startDate", int(None, None, true)),
                    ("endDate", int(None, None, true)),
                ],
                whole: json!({
                    // Dates and budget on create; an update (with an id) keeps the stored ones.
                    "anyOf": [
                        {"required": ["id"], "properties": {"id": {"type": "integer"}}},
                        {"required": ["startDate", "endDate", "lifetimeBudget"],
                         "properties": {"startDate": {"type": "integer"},
                                        "endDate": {"type": "integer"},
                                        "lifetimeBudget": {"type": "number"}}},
                    ],
                    "if": {"required": ["hourlyPacingMode"],
                           "properties": {"hourlyPacingMode": {"const": "SPEND_EVENLY"}}},
                    "then": {"required": ["hourlyFrontload"],
                             "properties": {"hourlyFrontload": {"type": "number"}}},
                }),
            },
        ),
        (
            "Option_FrequencyCap",
            Rules {
                required: &["limit", "duration", "timePeriod"],
                members: vec![
                    ("limit", int(Some(1), None, false)),
                    ("duration", int(Some(1), None, false)),
                    ("timePeriod", one_of(TimePeriod::KNOWN, false)),
                ],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "AdOrderAudience",
            Rules {
                required: &[],
                members: vec![
                    ("weight", int(Some(0), Some(100), true)),
                    ("pmpDeals", ids(0, true)),
                ],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "IncludeExclude",
            Rules {
                required: &[],
                members: vec![("include", ids(0, true)), ("exclude", ids(0, true))],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "Creative",
            Rules {
                required: &["name", "creativeType", "creativeSubtype", "type"],
                members: vec![
                    ("name", required_text(Some(CREATIVE_NAME_MAX))),
                    ("status", one_of(CreativeStatus::KNOWN, true)),
                    (
                        "externalCreativeid",
                        text(None, Some(CREATIVE_EXTERNAL_ID_MAX), true),
                    ),
                    ("advertiserId", int(Some(1), None, true)),
                    ("campaignId", int(Some(1), None, true)),
                    ("landingPageUrl", url_or_null()),
                    ("imageUrl", url_or_null()),
                    ("crawlableUrl", url_or_null()),
                    ("impressionTrackingPixel_1", url_or_null()),
                    ("impressionTrackingPixel_2", url_or_null()),
                    ("impressionTrackingPixel_3", url_or_null()),
                    ("impressionTrackingPixel_4", url_or_null()),
                ],
                create_only: vec![],
                whole: json!({
                    "anyOf": [
                        {"required": ["advertiserId"], "properties": {"advertiserId": {"type": "integer"}}},
                        {"required": ["campaignId"], "properties": {"campaignId": {"type": "integer"}}},
                    ],
                }),
            },
        ),
        (
            "TypeObject",
            Rules {
                required: &["mediaType"],
                members: vec![
                    ("mediaType", one_of(MediaType::KNOWN, false)),
                    ("videoType", one_of(VideoType::KNOWN, true)),
                ],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "Size",
            Rules {
                required: &["width", "height"],
                members: vec![
                    ("width", int(Some(1), Some(CREATIVE_SIZE_MAX), false)),
                    ("height", int(Some(1), Some(CREATIVE_SIZE_MAX), false)),
                ],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "SiteList",
            Rules {
                required: &["name"],
                members: vec![
                    ("name", required_text(None)),
                    (
                        "typeId",
                        json!({"enum": [SITE_LIST_TYPE_ID_BASED, SITE_LIST_TYPE_RULE_BASED, null]}),
                    ),
                    ("strategy", one_of(SiteListStrategy::KNOWN, true)),
                    ("siteIds", ids(1, true)),
                ],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "SiteRule",
            Rules {
                required: &["name", "type"],
                members: vec![
                    // A domain or app bundle, without white space.
                    (
                        "name",
                        json!({"type": "string", "minLength": 1, "pattern": no_space()}),
                    ),
                    ("type", one_of(SiteRuleType::KNOWN, false)),
                ],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "AudienceSegment",
            Rules {
                // Required in the create request only: the create answers a short shape.
                required: &[],
                members: vec![
                    ("name", required_text(None)),
                    ("accountId", int(Some(1), None, false)),
                    // An array; a single number is read as a list of one (a listing sample
                    // shows one).
                    (
                        "advertiserIds",
                        json!({"oneOf": [
                            ids(1, false),
                            {"type": "integer", "format": "int64", "minimum": 1},
                        ]}),
                    ),
                    ("externalAudienceId", required_text(None)),
                    ("dataType", one_of(DataType::KNOWN, false)),
                    ("ttl", int(Some(TTL_MIN_SECS), Some(TTL_MAX_SECS), true)),
                    (
                        "description",
                        text(None, Some(SEGMENT_DESCRIPTION_MAX), true),
                    ),
                ],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "AudienceDataRecord",
            Rules {
                required: &["serviceSegmentId", "countryCode", "values"],
                members: vec![
                    ("countryCode", text(Some("^[A-Z]{2}$"), None, false)),
                    (
                        "values",
                        json!({"type": "array", "minItems": 1,
                               "items": {"type": "string", "pattern": not_blank()}}),
                    ),
                ],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        ("VideoAsset", asset_urls(&["vastUrl"])),
        ("AudioAsset", asset_urls(&["vastUrl"])),
        (
            "NativeAsset",
            asset_urls(&["vastUrl", "imageUrl", "imageIcon"]),
        ),
        ("DoohAsset", asset_urls(&["imageUrl"])),
        (
            "AudienceDataResult",
            Rules {
                // Every answer carries all five, so `{error}` never reads as one.
                required: &[
                    "message",
                    "published",
                    "failed_publishes",
                    "bad_records",
                    "bad_records_details",
                ],
                members: vec![],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "AudienceError",
            Rules {
                required: &["error"],
                members: vec![],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "TokenRequest",
            Rules {
                required: &["grant_type"],
                members: vec![(
                    "grant_type",
                    json!({"enum": ["authorization_code", "refresh_token"]}),
                )],
                create_only: vec![],
                whole: Value::Null,
            },
        ),
        (
            "LoginForm",
            Rules {
                required: &["client_id", "redirect_uri", "username", "password"],
                members: vec![
                    ("client_id", required_text(None)),
                    ("redirect_uri", required_text(None)),
                    ("username", required_text(None)),
                    ("password", required_text(None)),
                    // A form has no null: an absent parameter is left out.
                    (
                        "code_challenge",
                        json!({"type": "string", "pattern": "^[A-Za-z0-9._~-]*$",
                               "minLength": CODE_CHALLENGE_MIN, "maxLength": CODE_CHALLENGE_MAX}),
                    ),
                    ("code_challenge_method", json!({"enum": ["plain", "S256"]})),
                    ("state", json!({"type": "string"})),
                ],
                create_only: vec![],
                whole: json!({"dependentRequired": {"code_challenge_method": ["code_challenge"]}}),
            },
        ),
    ]
}

/// The URL members of a creative payload: absolute http(s) URLs when sent.
fn asset_urls(urls: &[&'static str]) -> Rules {
    let mut members: Vec<(&'static str, Value)> = urls
        .iter()
        .map(|u| (*u, text(Some(&http_url()), None, true)))
        .collect();
    members.push((
        "mediaUrls",
        json!({"type": ["array", "null"], "items": {"type": "string", "pattern": http_url()}}),
    ));
    Rules {
        required: &[],
        members,
        create_only: vec![],
        whole: Value::Null,
    }
}
