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

use flightdeck_model::validate::limits::{CODE_CHALLENGE_MAX, CODE_CHALLENGE_MIN};
use flightdeck_model::{
    AdOrderStatus, BudgetType, DataType, GoalMode, MediaType, Objective, OptimizationGoal,
    PacingMode, SITE_LIST_TYPE_ID_BASED, SITE_LIST_TYPE_RULE_BASED, SiteListStrategy, SiteRuleType,
    TimePeriod, TimezoneName,
};
use serde_json::{Value, json};

mod components;

use components::{apply_rules, int, names, one_of, required_text, rules};

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
        // Both members required (the reference), and a status the service knows.
        "/v1/adorder/updateStatus" => {
            let codes: Vec<i64> = AdOrderStatus::KNOWN.iter().map(|s| s.code()).collect();
            return Some(json!({"allOf": [
                {"$ref": "#/components/schemas/AdOrderStatusUpdate"},
                {"required": ["id", "status"],
                 "properties": {"id": id, "status": {"type": "integer", "enum": codes}}},
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
                    "id" | "campaign_id" | "order_id" | "ad_order_id" | "cap_id" => {
                        Some(int(Some(1), None, false))
                    }
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
