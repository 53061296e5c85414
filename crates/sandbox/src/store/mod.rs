//! The service's behaviour over SQLite, as synchronous functions on a transaction.
//! Handlers and the seed both call these, so seeded data is shaped exactly like data
//! created over HTTP.
//!
//! Entities are stored as the JSON the service returns, so fields the sandbox does not
//! model survive. A `save` with an id merges the request into the stored entity: a key
//! that is absent keeps its value, a key sent as null clears it (resetting it to its
//! default), and fields the spec says are ignored on update are dropped from the request.
//! The merged result is then validated whole with `flightdeck-model`'s rules. Creatives
//! have no update: `creative/save` with an id is refused (see DECISIONS.md).

mod adorders;
mod advertisers;
mod audiences;
mod campaigns;
mod creatives;
mod sitelists;
mod trafficking;

pub use adorders::{ad_orders_all, adorder_save, flight_cap_delete, flight_caps_by_ad_order};
pub use advertisers::{advertiser_save, advertisers_list};
pub use audiences::{MAX_PAGE_SIZE, audience_create, audience_data, audience_get, audiences_list};
pub use campaigns::{campaign_save, campaigns_by_advertiser, flights_by_campaign};
pub use creatives::creative_save;
pub use sitelists::{site_list_add, site_list_append, site_list_overwrite, site_list_remove};
pub(crate) use trafficking::set_ad_order_status;
pub use trafficking::{
    ad_orders_by_campaign, admin_ad_order_status, admin_associate, admin_creative_status,
    adorder_update_status, creatives_by_ad_order, creatives_by_campaign,
};

use flightdeck_model::validate;
use flightdeck_model::{OpenEnum, TimezoneName, ValidationErrors};
use rusqlite::{OptionalExtension, Transaction, params};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::extract;

/// A JSON object.
pub type Object = Map<String, Value>;

/// Tables whose rows are `(id, account_id, body)` JSON entities.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Table {
    Advertisers,
    Campaigns,
    Flights,
    AdOrders,
    FlightCaps,
}

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Advertisers => "advertisers",
            Table::Campaigns => "campaigns",
            Table::Flights => "flights",
            Table::AdOrders => "ad_orders",
            Table::FlightCaps => "flight_caps",
        }
    }

    /// Noun used in "not found" messages.
    fn noun(self) -> &'static str {
        match self {
            Table::Advertisers => "advertiser",
            Table::Campaigns => "campaign",
            Table::Flights => "campaign flight",
            Table::AdOrders => "ad order",
            Table::FlightCaps => "flight cap",
        }
    }
}

/// The stored body of `id`, if it exists in `account`. Other accounts' ids read as absent.
pub(crate) fn load(
    tx: &Transaction,
    table: Table,
    account: i64,
    id: i64,
) -> Result<Option<Object>> {
    let sql = format!(
        "SELECT body FROM {} WHERE id = ?1 AND account_id = ?2",
        table.name()
    );
    let body: Option<String> = tx
        .query_row(&sql, params![id, account], |r| r.get(0))
        .optional()?;
    body.map(|b| parse_body(&b)).transpose()
}

/// As [`load`], but a missing entity is a 404.
pub(crate) fn load_or_404(tx: &Transaction, table: Table, account: i64, id: i64) -> Result<Object> {
    load(tx, table, account, id)?.ok_or_else(|| not_found(table, id))
}

/// The 404 for `id` of `table`; worded the same whether the id is unknown or another account's.
pub(crate) fn not_found(table: Table, id: i64) -> Error {
    Error::NotFound(format!("{} {id} not found", table.noun()))
}

/// Whether `id` exists in `account`.
pub(crate) fn exists(tx: &Transaction, table: Table, account: i64, id: i64) -> Result<bool> {
    let sql = format!(
        "SELECT 1 FROM {} WHERE id = ?1 AND account_id = ?2",
        table.name()
    );
    Ok(tx
        .query_row(&sql, params![id, account], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Rewrites the stored body of `id`.
pub(crate) fn update_body(tx: &Transaction, table: Table, id: i64, body: &Object) -> Result<()> {
    let sql = format!("UPDATE {} SET body = ?1 WHERE id = ?2", table.name());
    tx.execute(&sql, params![to_text(body)?, id])?;
    Ok(())
}

pub(crate) fn parse_body(text: &str) -> Result<Object> {
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Error::Internal("stored body is not an object".into())),
        Err(e) => Err(Error::Json(e)),
    }
}

pub(crate) fn to_text(body: &Object) -> Result<String> {
    serde_json::to_string(body).map_err(Error::Json)
}

/// Copies every key of `request` into `stored`, except `ignored` ones.
/// The keys an update drops: the model's ignored-on-update fields (one list, shared with
/// the clients that refuse such edits) plus the sandbox's own response-only keys.
pub(crate) fn ignored_on_update(
    model: &[validate::IgnoredOnUpdate],
    response_only: &[&'static str],
) -> Vec<&'static str> {
    model
        .iter()
        .map(|rule| rule.field)
        .chain(response_only.iter().copied())
        .collect()
}

pub(crate) fn merge(stored: &mut Object, request: &Object, ignored: &[&str]) {
    for (key, value) in request {
        if !ignored.contains(&key.as_str()) {
            stored.insert(key.clone(), value.clone());
        }
    }
}

/// Parses a wire type out of an object, naming the field that does not fit.
pub(crate) fn typed<T: DeserializeOwned>(obj: &Object) -> Result<T> {
    typed_at(obj, "")
}

/// As [`typed`], with `prefix` before the field path (such as `flights[2]`).
pub(crate) fn typed_at<T: DeserializeOwned>(obj: &Object, prefix: &str) -> Result<T> {
    // Cloning into a Value keeps serde_path_to_error's paths; bodies are small.
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}.")
    };
    extract::typed_at(&Value::Object(obj.clone()), &prefix).map_err(|e| match e {
        Error::Malformed(m) => Error::Malformed(m.replacen(".: ", ": ", 1)),
        other => other,
    })
}

/// Serialises a wire type back into an object.
pub(crate) fn untyped<T: Serialize>(value: &T) -> Result<Object> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Error::Internal(
            "entity did not serialise to an object".into(),
        )),
        Err(e) => Err(Error::Json(e)),
    }
}

/// Adds `key: null` for each listed key that is missing, so responses carry every
/// field of the spec's shape.
pub(crate) fn fill_null(obj: &mut Object, keys: &[&str]) {
    for key in keys {
        obj.entry(*key).or_insert(Value::Null);
    }
}

/// The `id` member of a request object: absent or null creates.
pub(crate) fn request_id(obj: &Object, prefix: &str) -> Result<Option<i64>> {
    match obj.get("id") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| {
            Error::Malformed(format!(
                "{prefix}id: expected a whole number or null (got {})",
                crate::extract::shown(&v.to_string())
            ))
        }),
    }
}

/// Drops exact duplicates from errors gathered by overlapping rule sets.
pub(crate) fn dedup(errors: Vec<ValidationErrors>) -> Result<()> {
    let mut out = ValidationErrors::default();
    for e in errors.into_iter().flat_map(|v| v.0) {
        if !out.0.contains(&e) {
            out.0.push(e);
        }
    }
    out.into_result().map_err(Error::Invalid)
}

/// The error of a rule result, if any, for gathering several rule sets.
pub(crate) fn errs(r: std::result::Result<(), ValidationErrors>) -> ValidationErrors {
    r.err().unwrap_or_default()
}

/// Refuses an input value of an enum the spec keeps open (`optimizationGoal`,
/// `budgetType`, creative `status`, `type.videoType`) that is not in the sandbox's
/// catalogue. The model accepts such values, so that a client never refuses what the
/// real service may have added; the sandbox *is* the service, knows every value it
/// supports, and refuses the rest. Callers check only values the request sends, so an
/// unknown value already stored (seeded or injected) does not block other edits.
pub(crate) fn in_catalogue<T: OpenEnum>(e: &mut ValidationErrors, field: &str, v: Option<&T>) {
    validate::known_value(e, field, v);
}

/// The timezone of `advertiser_id`, for date texts in messages (the model's rules word
/// dates in the advertiser's timezone, as the app's forms show them). `None` when the
/// advertiser is unknown or names no timezone: messages then read in UTC.
pub(crate) fn advertiser_timezone(
    tx: &Transaction,
    account_id: i64,
    advertiser_id: i64,
) -> Result<Option<TimezoneName>> {
    let Some(body) = load(tx, Table::Advertisers, account_id, advertiser_id)? else {
        return Ok(None);
    };
    Ok(body
        .get("timezoneName")
        .and_then(Value::as_str)
        .map(TimezoneName::from_wire))
}

/// The timezone of the advertiser that owns `campaign_id`, as [`advertiser_timezone`].
pub(crate) fn campaign_timezone(
    tx: &Transaction,
    account_id: i64,
    campaign_id: i64,
) -> Result<Option<TimezoneName>> {
    let Some(campaign) = load(tx, Table::Campaigns, account_id, campaign_id)? else {
        return Ok(None);
    };
    match campaign.get("advertiserId").and_then(Value::as_i64) {
        Some(advertiser_id) => advertiser_timezone(tx, account_id, advertiser_id),
        None => Ok(None),
    }
}

/// Account settings that shape responses.
pub(crate) struct Account {
    pub timezone: String,
    pub channel_version: i64,
    pub cost_optimization: bool,
}

pub(crate) fn account(tx: &Transaction, id: i64) -> Result<Account> {
    Ok(tx.query_row(
        "SELECT timezone, channel_version, cost_optimization FROM accounts WHERE id = ?1",
        [id],
        |r| {
            Ok(Account {
                timezone: r.get(0)?,
                channel_version: r.get(1)?,
                cost_optimization: r.get::<_, i64>(2)? != 0,
            })
        },
    )?)
}
