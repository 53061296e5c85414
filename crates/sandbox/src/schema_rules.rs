//! The rules the sandbox enforces, written into the OpenAPI document's schemas: which
//! members are required, minimum and maximum, lengths, patterns and the catalogues of
//! enums. utoipa derives the shapes from the wire types; the rules live in
//! `flightdeck_model::validate`, and this module states them for generators (schemathesis,
//! client generators), with the model's own limits (`validate::limits`, the ttl bounds).
//!
//! A component serves requests and responses alike, so a member is only required here
//! when every answer carries it too. Rules that compare two members, or a member with
//! what the service holds (dates in order, budgets within budgets, references that must
//! exist), are beyond JSON Schema: the descriptions say them, `scripts/schemathesis/hooks.py`
//! explains how the fuzzing treats them.

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

/// White space as Rust's `char::is_whitespace` (Unicode White_Space) counts it, which is
/// what the model trims: written out, because `\s` differs between regex dialects.
const WS: &str = "\t\n\u{b}\u{c}\r \u{85}\u{a0}\u{1680}\u{2000}-\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}";

/// A string with at least one character that is not white space: the model counts a
/// blank string as missing.
fn not_blank() -> String {
    format!("[^{WS}]")
}

/// No white space at all (site-list rule names).
fn no_space() -> String {
    format!("^[^{WS}]+$")
}
/// IAB category code shape (`validate::is_iab_category`).
const IAB: &str = r"^IAB[0-9]+(-[0-9]+)?$";
/// Three upper-case letters (`validate::advertiser`).
const CURRENCY: &str = "^[A-Z]{3}$";
/// Letters, digits and ASCII punctuation (`validate::external_advertiser_id`).
const EXTERNAL_ADVERTISER_ID: &str = r"^[A-Za-z0-9!-/:-@\[-`{-~]*$";
/// Absolute http(s) URL (`validate::is_http_url`): a scheme, then a host without white
/// space up to the first `/`, `?` or `#`.
fn http_url() -> String {
    format!(r"^[Hh][Tt][Tt][Pp][Ss]?://[^{WS}/?#]+([/?#][\s\S]*)?$")
}
/// A domain such as example.com, without white space (`validate::campaign`).
fn domain() -> String {
    format!(r"^[^{WS}]*\.[^{WS}]*$")
}

/// Writes the rules into `doc` (the serialised document).
pub fn apply(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    // utoipa inlines a copy of the entity in each generic envelope (`Envelope_AdOrder`);
    // those copies become references, so answers are held to the same rules.
    let originals: Vec<(String, Value)> = schemas
        .iter()
        .filter(|(name, _)| !name.starts_with("Envelope_"))
        .map(|(name, schema)| (name.clone(), schema.clone()))
        .collect();
    for (name, schema) in schemas.iter_mut() {
        if name.starts_with("Envelope_")
            && let Some(entity) = schema.pointer_mut("/properties/entity")
        {
            let target = match entity.get("type") {
                Some(t) if t == "array" => entity.get_mut("items"),
                _ => Some(entity),
            };
            if let Some(target) = target
                && let Some((original, _)) = originals.iter().find(|(_, s)| s == target)
            {
                *target = json!({ "$ref": format!("#/components/schemas/{original}") });
            }
        }
    }
    for (name, rules) in rules() {
        if let Some(schema) = schemas.get_mut(name) {
            apply_rules(schema, &rules);
        }
    }
    // Ids are whole numbers that fit the service's 64 bits.
    for name in [
        "Advertiser",
        "Campaign",
        "CampaignFlight",
        "FlightCap",
        "AdOrder",
        "AdOrderAudience",
        "SiteList",
        "TypeObject",
    ] {
        if let Some(id) = schemas
            .get_mut(name)
            .and_then(|s| s.pointer_mut("/properties/id"))
        {
            let description = id.get("description").cloned();
            *id = int(Some(i64::MIN), None, true);
            if let Some(d) = description {
                id["description"] = d;
            }
        }
    }
    // Enum components the sandbox checks against its whole catalogue.
    for (name, values) in catalogues() {
        if let Some(schema) = schemas.get_mut(name)
            && let Some(obj) = schema.as_object_mut()
        {
            obj.insert("enum".into(), json!(values));
        }
    }
    read_only(doc);
    parameters(doc);
    request_bodies(doc);
    unsupported_media_type(doc);
    if let Some(upload) = doc.pointer_mut(
        "/paths/~1v1~1audiences~1{service_segment_id}~1data/post/requestBody/content/application~1json/schema",
    ) && let Some(obj) = upload.as_object_mut()
    {
        // At least one record (`validate::audience_data`).
        obj.insert("minItems".into(), json!(1));
    }
}

/// Every operation with a JSON body answers 415 to another content type
/// ([`crate::extract::require_json`]); the token endpoint takes a form too, and answers
/// another type with the OAuth `invalid_request` (400) instead.
fn unsupported_media_type(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        if path.starts_with("/v1/oauth2/") {
            continue;
        }
        let schema = if path.starts_with("/v1/audiences") {
            "#/components/schemas/AudienceError"
        } else {
            "#/components/schemas/ErrorEnvelope"
        };
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for op in item.values_mut() {
            if op.get("requestBody").is_none() {
                continue;
            }
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            responses.entry("415").or_insert_with(|| {
                json!({
                    "description": "The body was not sent as `application/json`.",
                    "content": {"application/json": {"schema": {"$ref": schema}}},
                })
            });
        }
    }
}

fn request_bodies(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(schema) = request_body(path) else {
            continue;
        };
        if let Some(content) = item
            .pointer_mut("/post/requestBody/content/application~1json")
            .and_then(Value::as_object_mut)
        {
            content.insert("schema".into(), schema);
        }
    }
}

/// What to write into one component: members required, and per member a schema to merge.
struct Rules {
    required: &'static [&'static str],
    members: Vec<(&'static str, Value)>,
    /// Value rules of members an update ignores (the model's `*_IGNORED_ON_UPDATE`):
    /// they hold only when the body creates (has no integer `id`); `members` gives
    /// these members the type an update still checks.
    create_only: Vec<(&'static str, Value)>,
    /// Keywords added to the component itself (`anyOf`, `allOf` of `if`/`then`) for
    /// members required together or depending on another member's value.
    whole: Value,
}

fn apply_rules(schema: &mut Value, rules: &Rules) {
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

fn names<T: serde::Serialize>(values: &[T]) -> Vec<Value> {
    values
        .iter()
        .filter_map(|v| serde_json::to_value(v).ok())
        .collect()
}

/// `{"enum": [values…]}`, with null when `nullable`.
fn one_of<T: serde::Serialize>(values: &[T], nullable: bool) -> Value {
    let mut all = names(values);
    if nullable {
        all.push(Value::Null);
    }
    json!({ "enum": all })
}

/// An integer the service reads as 64 bits: the range is always stated, so a generator
/// does not go past it.
fn int(min: Option<i64>, max: Option<i64>, nullable: bool) -> Value {
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
fn required_text(max_len: Option<usize>) -> Value {
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

fn rules() -> Vec<(&'static str, Rules)> {
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

/// Members only answers carry: a request's value is ignored, so a generator must not
/// count on the service judging it.
fn read_only(doc: &mut Value) {
    const MEMBERS: &[(&str, &str)] = &[
        ("AudienceSegment", "status"),
        ("AudienceSegment", "serviceSegmentId"),
        ("AudienceSegment", "dataCount"),
        ("AudienceSegment", "message"),
        ("Campaign", "hasFlights"),
        ("CampaignFlight", "status"),
        ("CampaignFlight", "remainingBudget"),
        ("SiteList", "insertedCount"),
        ("AdOrder", "costOptimizationEnabled"),
    ];
    for (component, member) in MEMBERS {
        let pointer = format!("/components/schemas/{component}/properties/{member}");
        if let Some(obj) = doc.pointer_mut(&pointer).and_then(Value::as_object_mut) {
            obj.insert("readOnly".into(), Value::Bool(true));
        }
    }
}

/// `if` one frequency-cap member of a campaign is set, `then` the other two are.
fn frequency_cap_together() -> Value {
    let members = [
        ("dailyFrequencyCap", json!({"type": "integer"})),
        ("frequencyCapDuration", json!({"type": "integer"})),
        ("frequencyCapTimePeriod", json!({"type": "string"})),
    ];
    let all: serde_json::Map<String, Value> = members
        .iter()
        .map(|(name, schema)| ((*name).to_owned(), schema.clone()))
        .collect();
    let names: Vec<&str> = members.iter().map(|(n, _)| *n).collect();
    Value::Array(
        members
            .iter()
            .map(|(name, schema)| {
                json!({
                    "if": {"required": [name], "properties": {*name: schema}},
                    "then": {"required": names, "properties": all},
                })
            })
            .collect(),
    )
}

/// The request body of a call whose component also describes answers that lack some
/// members (site lists: one shape for four calls; segments: the create answers a short
/// shape; creatives: an answer has the `id` a request must omit): the component, plus
/// what the request requires.
pub fn request_body(path: &str) -> Option<Value> {
    let site_ids = json!({"type": "array", "minItems": 1,
                          "items": {"type": "integer", "format": "int64", "minimum": 1}});
    let rules = json!({"type": "array", "minItems": 1,
                       "items": {"$ref": "#/components/schemas/SiteRule"}});
    let id = json!({"type": "integer", "format": "int64", "minimum": 1});
    let call = match path {
        "/v1/site-list/addNewSiteList" => json!({
            "required": ["name", "typeId"],
            "oneOf": [
                {"required": ["siteIds"],
                 "properties": {"typeId": {"const": SITE_LIST_TYPE_ID_BASED}, "siteIds": site_ids,
                                "strategy": {"type": "null"}, "rules": {"type": "null"}}},
                {"required": ["strategy", "rules"],
                 "properties": {"typeId": {"const": SITE_LIST_TYPE_RULE_BASED}, "rules": rules,
                                "strategy": one_of(SiteListStrategy::KNOWN, false),
                                "siteIds": {"type": "null"}}},
            ],
        }),
        "/v1/site-list/appendToSiteList" | "/v1/site-list/overwriteSiteList" => json!({
            "required": ["id", "name"],
            "properties": {"id": id},
            "oneOf": [
                {"required": ["siteIds"], "properties": {"siteIds": site_ids, "rules": {"type": "null"}}},
                {"required": ["rules"], "properties": {"rules": rules, "siteIds": {"type": "null"}}},
            ],
        }),
        "/v1/site-list/removeSites" => json!({
            "required": ["id", "name", "siteIds"],
            "properties": {"id": id, "siteIds": site_ids, "rules": {"type": "null"}},
        }),
        // One client id of the two (`IDENTIFIER_CONFLICT`): the service refuses both, even
        // when equal; answers carry both, so only the request says it.
        "/v1/adorder/save" => {
            return Some(json!({"allOf": [
                {"$ref": "#/components/schemas/AdOrder"},
                {"not": both_ids("ioNumber", "externalAdOrderId")},
                {"not": both_ids("io_number", "externalAdOrderId")},
            ]}));
        }
        "/v1/campaign/save" => {
            return Some(json!({"allOf": [
                {"$ref": "#/components/schemas/Campaign"},
                {"not": both_ids("ioNumber", "externalCampaignId")},
            ]}));
        }
        "/v1/audiences" => {
            return Some(json!({"allOf": [
                {"$ref": "#/components/schemas/AudienceSegment"},
                {"required": ["name", "accountId", "advertiserIds", "externalAudienceId", "dataType"]},
            ]}));
        }
        "/v1/creative/save" => {
            // No update: `id` is omitted or null; and one cell of the matrix.
            return Some(json!({"allOf": [
                {"$ref": "#/components/schemas/Creative"},
                {"properties": {"id": {"type": "null"}}},
                {"oneOf": creative_cells()},
            ]}));
        }
        _ => return None,
    };
    Some(json!({"allOf": [{"$ref": "#/components/schemas/SiteList"}, call]}))
}

/// One schema per cell of the creative matrix (`validate::creative_matrix`): the type and
/// subtype, the media types observed for it, its required members, and the payload
/// objects of other types absent.
fn creative_cells() -> Vec<Value> {
    const PAYLOADS: [(&str, &str); 4] = [
        ("video", "VIDEO"),
        ("audio", "AUDIO"),
        ("native", "NATIVE"),
        ("dooh", "DOOH"),
    ];
    let member = |name: &str| -> Value {
        if name == "size" {
            json!({"$ref": "#/components/schemas/Size"})
        } else if name == "mediaUrls" {
            json!({"type": "array", "minItems": 1, "items": {"type": "string", "pattern": http_url()}})
        } else if name.ends_with("Url") || name == "imageIcon" {
            json!({"type": "string", "pattern": http_url()})
        } else {
            required_text(None)
        }
    };
    flightdeck_model::validate::creative_matrix()
        .iter()
        .map(|cell| {
            let ctype = cell.creative_type.as_str();
            let mut props = serde_json::Map::new();
            props.insert("creativeType".into(), json!({"const": ctype}));
            props.insert(
                "creativeSubtype".into(),
                json!({"const": cell.creative_subtype.as_str()}),
            );
            props.insert(
                "type".into(),
                json!({"type": "object", "required": ["mediaType"],
                       "properties": {"mediaType": one_of(cell.media_types, false)}}),
            );
            for (payload, owner) in PAYLOADS {
                if owner != ctype {
                    props.insert(payload.into(), json!({"type": "null"}));
                }
            }
            let mut required = vec![
                "creativeType".to_owned(),
                "creativeSubtype".to_owned(),
                "type".to_owned(),
            ];
            let mut nested: Vec<(&str, Vec<&str>)> = Vec::new();
            for path in cell.required {
                match path.split_once('.') {
                    None => {
                        required.push((*path).to_owned());
                        props.insert((*path).to_owned(), member(path));
                    }
                    Some((payload, sub)) => match nested.iter_mut().find(|(p, _)| *p == payload) {
                        Some((_, subs)) => subs.push(sub),
                        None => nested.push((payload, vec![sub])),
                    },
                }
            }
            for (payload, subs) in nested {
                required.push(payload.to_owned());
                let sub_props: serde_json::Map<String, Value> =
                    subs.iter().map(|s| ((*s).to_owned(), member(s))).collect();
                props.insert(
                    payload.to_owned(),
                    json!({"type": "object", "required": subs, "properties": sub_props}),
                );
            }
            json!({"required": required, "properties": props})
        })
        .collect()
}

/// Both client ids sent, neither blank (a blank one counts as not sent).
fn both_ids(a: &str, b: &str) -> Value {
    let id = json!({"type": "string", "pattern": not_blank()});
    json!({"required": [a, b], "properties": {a: id, b: id}})
}

/// Enum components written as catalogues (open enums are plain strings otherwise).
fn catalogues() -> Vec<(&'static str, Vec<Value>)> {
    vec![
        ("TimezoneName", names(&TimezoneName::ALL)),
        ("OptimizationGoal", names(OptimizationGoal::KNOWN)),
        ("GoalMode", names(GoalMode::KNOWN)),
        ("PacingMode", names(PacingMode::KNOWN)),
        ("TimePeriod", names(TimePeriod::KNOWN)),
        ("Objective", names(Objective::KNOWN)),
        ("BudgetType", names(BudgetType::KNOWN)),
        ("MediaType", names(MediaType::KNOWN)),
        ("DataType", names(DataType::KNOWN)),
        ("SiteListStrategy", names(SiteListStrategy::KNOWN)),
        ("SiteRuleType", names(SiteRuleType::KNOWN)),
    ]
}

/// Query and path parameters: the ranges the handlers accept.
fn parameters(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for op in item.values_mut() {
            let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) else {
                continue;
            };
            for p in params {
                let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
                let rule = match name {
                    "page" => Some(int(Some(1), None, false)),
                    "pageSize" => Some(int(Some(1), Some(crate::store::MAX_PAGE_SIZE), false)),
                    "id" | "campaign_id" | "order_id" | "cap_id" => Some(int(Some(1), None, false)),
                    "client_id" | "redirect_uri" => Some(required_text(None)),
                    "code_challenge" => Some(json!({"type": "string",
                        "pattern": "^[A-Za-z0-9._~-]*$",
                        "minLength": CODE_CHALLENGE_MIN, "maxLength": CODE_CHALLENGE_MAX})),
                    "code_challenge_method" => Some(json!({"enum": ["plain", "S256"]})),
                    "Content-Encoding" => Some(json!({"enum": ["gzip", "x-gzip", "identity"]})),
                    _ => None,
                };
                if let (Some(rule), Some(obj)) = (rule, p.as_object_mut()) {
                    obj.insert("schema".into(), rule);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use flightdeck_model::validate::{
        AD_ORDER_IGNORED_ON_UPDATE, ADVERTISER_IGNORED_ON_UPDATE, CAMPAIGN_IGNORED_ON_UPDATE,
        IgnoredOnUpdate,
    };

    use super::*;

    /// The value rules that hold on create only are exactly the model's ignored fields.
    #[test]
    fn create_only_rules_are_the_fields_an_update_ignores() {
        let all = rules();
        for (name, ignored) in [
            ("Advertiser", ADVERTISER_IGNORED_ON_UPDATE),
            ("Campaign", CAMPAIGN_IGNORED_ON_UPDATE),
            ("AdOrder", AD_ORDER_IGNORED_ON_UPDATE),
        ] {
            let (_, r) = all.iter().find(|(n, _)| *n == name).expect("component");
            let mut got: Vec<&str> = r.create_only.iter().map(|(m, _)| *m).collect();
            let mut want: Vec<&str> = ignored.iter().map(|i: &IgnoredOnUpdate| i.field).collect();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "{name}");
        }
    }
}
