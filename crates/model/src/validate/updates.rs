//! What an update may change, and the body to send for one.
//!
//! The service silently drops some fields on update, and has no update at all for
//! creatives and audience segments. An edit that would be lost must be refused when the
//! buyer makes it, with the reason, not discovered after posting.

use super::codes;
use crate::{AdOrder, Campaign, ValidationErrors};

/// A field the service ignores on update, and what a buyer does instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IgnoredOnUpdate {
    /// Wire name.
    pub field: &'static str,
    /// Why it cannot change, and what to do instead.
    pub why: &'static str,
}

const SET_ON_CREATE: &str =
    "is set when the advertiser is created; the service ignores it on update";
const FLIGHT_ENDPOINT: &str = "changes after creation through the ad order's flight caps \
     (campaignflightcaps); the service ignores it on update";

/// Advertiser fields the spec marks "ignored on update". `category` is not here: the
/// spec's own update response reflects a changed category.
pub const ADVERTISER_IGNORED_ON_UPDATE: &[IgnoredOnUpdate] = &[
    IgnoredOnUpdate {
        field: "agencyId",
        why: SET_ON_CREATE,
    },
    IgnoredOnUpdate {
        field: "currency",
        why: SET_ON_CREATE,
    },
    IgnoredOnUpdate {
        field: "timezoneName",
        why: SET_ON_CREATE,
    },
];

/// Campaign fields an update cannot change.
pub const CAMPAIGN_IGNORED_ON_UPDATE: &[IgnoredOnUpdate] = &[IgnoredOnUpdate {
    field: "advertiserId",
    why: "a campaign cannot move to another advertiser; the service ignores it on update",
}];

/// Ad-order fields that move through the flight endpoint after creation.
pub const AD_ORDER_IGNORED_ON_UPDATE: &[IgnoredOnUpdate] = &[
    IgnoredOnUpdate {
        field: "campaignId",
        why: "an ad order cannot move to another campaign; the service ignores it on update",
    },
    IgnoredOnUpdate {
        field: "lifetimeBudget",
        why: FLIGHT_ENDPOINT,
    },
    IgnoredOnUpdate {
        field: "startDate",
        why: FLIGHT_ENDPOINT,
    },
    IgnoredOnUpdate {
        field: "endDate",
        why: FLIGHT_ENDPOINT,
    },
];

/// Advertiser fields required on insert that an update may change but not clear. Its
/// other required fields are either required on update too (`name`) or ignored there.
pub const ADVERTISER_KEPT_ON_UPDATE: &[&str] = &["category"];

/// Refuses an update request that clears (sends as null or blank) a field in `kept`:
/// the update merges into the stored entity, and an absent field keeps its value, but a
/// cleared one would leave an entity that could not have been created. `request` is the
/// update's body as sent (the typed form cannot tell null from absent).
pub fn cleared_on_update(
    kept: &[&str],
    request: &serde_json::Map<String, serde_json::Value>,
) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    for field in kept {
        let cleared = match request.get(*field) {
            Some(serde_json::Value::Null) => true,
            Some(serde_json::Value::String(s)) => s.trim().is_empty(),
            _ => false,
        };
        if cleared {
            e.push(
                *field,
                codes::REQUIRED,
                "is required: an update may change it but not clear it",
            );
        }
    }
    e.into_result()
}

/// Why posted creatives and segments are read-only.
pub const NO_UPDATE_ENDPOINT: &str =
    "the service has no update for this kind once it is posted; use \"Duplicate as new\"";

/// Refuses an update that changes a field the service would ignore. `base` and `edited`
/// are the entity's JSON before and after the edit; a field counts as changed when its
/// value differs, and being absent from `edited` keeps the stored value.
pub fn ignored_on_update(
    ignored: &[IgnoredOnUpdate],
    base: &serde_json::Value,
    edited: &serde_json::Value,
) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    for rule in ignored {
        let Some(new) = edited.get(rule.field) else {
            continue;
        };
        let old = base.get(rule.field).unwrap_or(&serde_json::Value::Null);
        if !same(old, new) {
            e.push(rule.field, codes::IGNORED_ON_UPDATE, rule.why);
        }
    }
    e.into_result()
}

/// Numbers compare by value (`5` and `5.0` are one budget), everything else exactly.
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The one client id to send of `ioNumber` and an external id: the one the buyer set.
/// `base_value` is the id the service returned last (both spellings carry it). When both
/// are present, the one that differs from `base_value` is the edit; when neither does,
/// the external id is kept. Both different from the base stays both, for the rule to
/// report.
fn one_identifier(
    io: &mut Option<String>,
    external: &mut Option<String>,
    base_value: Option<&str>,
) {
    let (Some(i), Some(x)) = (io.as_deref(), external.as_deref()) else {
        return;
    };
    if i == x || base_value == Some(i) {
        *io = None;
    } else if base_value == Some(x) {
        *external = None;
    }
}

impl AdOrder {
    /// The body to post for this order, read back from a listing and perhaps edited:
    /// the output-only `io_number` is dropped, and of `ioNumber` and `externalAdOrderId`
    /// only the one the buyer set is sent. `base` is the order as the service last
    /// returned it, when there is one.
    pub fn request_body(&self, base: Option<&AdOrder>) -> AdOrder {
        let mut o = self.clone();
        if o.io_number.is_none() {
            // A listed value edited through the output spelling is still the buyer's.
            o.io_number = o.io_number_out.take().filter(|v| {
                base.and_then(|b| {
                    b.io_number_out
                        .as_deref()
                        .or(b.external_ad_order_id.as_deref())
                }) != Some(v.as_str())
            });
        }
        o.io_number_out = None;
        let base_value = base.and_then(|b| {
            b.external_ad_order_id
                .as_deref()
                .or(b.io_number_out.as_deref())
                .or(b.io_number.as_deref())
        });
        one_identifier(&mut o.io_number, &mut o.external_ad_order_id, base_value);
        o
    }
}

impl Campaign {
    /// The body to post for this campaign: of `ioNumber` and `externalCampaignId` (both
    /// returned with one value) only the one the buyer set is sent. `base` is the campaign
    /// as the service last returned it, when there is one.
    pub fn request_body(&self, base: Option<&Campaign>) -> Campaign {
        let mut c = self.clone();
        let base_value =
            base.and_then(|b| b.external_campaign_id.as_deref().or(b.io_number.as_deref()));
        one_identifier(&mut c.io_number, &mut c.external_campaign_id, base_value);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn order(v: serde_json::Value) -> AdOrder {
        serde_json::from_value(v).expect("ad order")
    }

    #[test]
    fn a_listed_order_sent_back_carries_one_identifier() {
        let listed = order(json!({"id": 1, "io_number": "IO-1", "externalAdOrderId": "IO-1"}));
        let body = serde_json::to_value(listed.request_body(Some(&listed))).expect("json");
        assert_eq!(body, json!({"id": 1, "externalAdOrderId": "IO-1"}));
    }

    #[test]
    fn the_identifier_the_buyer_changed_is_the_one_sent() {
        let listed = order(json!({"id": 1, "io_number": "IO-1", "externalAdOrderId": "IO-1"}));
        let mut edited = listed.clone();
        edited.io_number = Some("IO-2".into());
        let body = serde_json::to_value(edited.request_body(Some(&listed))).expect("json");
        assert_eq!(body, json!({"id": 1, "ioNumber": "IO-2"}));

        let mut edited = listed.clone();
        edited.external_ad_order_id = Some("EXT-9".into());
        let body = serde_json::to_value(edited.request_body(Some(&listed))).expect("json");
        assert_eq!(body, json!({"id": 1, "externalAdOrderId": "EXT-9"}));
    }

    #[test]
    fn a_campaign_sent_back_carries_one_identifier() {
        let listed: Campaign = serde_json::from_value(
            json!({"id": 4, "ioNumber": "C-1", "externalCampaignId": "C-1"}),
        )
        .expect("campaign");
        let body = serde_json::to_value(listed.request_body(Some(&listed))).expect("json");
        assert_eq!(body, json!({"id": 4, "externalCampaignId": "C-1"}));
        let mut edited = listed.clone();
        edited.io_number = Some("C-2".into());
        let body = serde_json::to_value(edited.request_body(Some(&listed))).expect("json");
        assert_eq!(body, json!({"id": 4, "ioNumber": "C-2"}));
    }

    #[test]
    fn changing_an_ignored_field_is_refused_with_the_reason() {
        let base = json!({"id": 3, "lifetimeBudget": 500, "name": "A"});
        let err = ignored_on_update(
            AD_ORDER_IGNORED_ON_UPDATE,
            &base,
            &json!({"id": 3, "lifetimeBudget": 900, "name": "B"}),
        )
        .expect_err("refused");
        assert_eq!(err.0.len(), 1);
        assert_eq!(err.0[0].field, "lifetimeBudget");
        assert_eq!(err.0[0].code, codes::IGNORED_ON_UPDATE);
        assert!(err.0[0].message.contains("flight"), "{}", err.0[0].message);
        // Unchanged (5 and 5.0 alike) or absent is fine.
        ignored_on_update(
            AD_ORDER_IGNORED_ON_UPDATE,
            &base,
            &json!({"id": 3, "lifetimeBudget": 500.0, "name": "B"}),
        )
        .expect("unchanged value");
        ignored_on_update(
            ADVERTISER_IGNORED_ON_UPDATE,
            &json!({"currency": "USD"}),
            &json!({}),
        )
        .expect("absent keeps the stored value");
    }
}
