//! Ad orders, their audiences, and per-flight caps.

use flightdeck_model::validate::{self, Op, codes};
use flightdeck_model::{
    AdOrder, AdOrderAudience, Envelope, FlightCap, GoalMode, PacingMode, ValidationErrors,
};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::Value;

use super::campaigns::flight_ids;
use super::{
    Object, Table, account, dedup, errs, exists, fill_null, ignored_on_update, in_catalogue,
    load_or_404, merge, request_id, typed, typed_at, untyped,
};
use crate::error::{Error, Result};
use crate::extract;

/// Response-only keys `save` drops besides the model's ignored-on-update fields (dates
/// and budget move through the flight endpoints, an order does not change campaign).
const RESPONSE_ONLY: &[&str] = &["id", "costOptimizationEnabled"];

/// Members every ad-order response carries.
const SHAPE: &[&str] = &[
    "id",
    "name",
    "campaignId",
    "optimizationGoal",
    "startDate",
    "endDate",
    "lifetimeBudget",
    "frequencyCap",
    "channelsV2",
    "max_bid",
    "audienceWeightsEnabled",
    "goalMode",
    "hourlyPacingMode",
    "hourlyFrontload",
    "io_number",
    "externalAdOrderId",
    "audiences",
];

/// `max_bid` in USD CPM when none is sent (the spec only says defaults apply).
pub const DEFAULT_MAX_BID: f64 = 10.0;

/// Client-id members, in every spelling the wire uses.
const CLIENT_ID_KEYS: [&str; 3] = ["ioNumber", "io_number", "externalAdOrderId"];

/// `POST /v1/adorder/save`: creates when `id` is null or absent, else updates.
pub fn adorder_save(
    tx: &Transaction,
    account_id: i64,
    body: Value,
    _now: i64,
) -> Result<Envelope<Value>> {
    let mut request = extract::object(body)?;
    let id = request_id(&request, "")?;
    // Null or absent leaves audienceWeightsEnabled unchanged on update.
    if request.get("audienceWeightsEnabled") == Some(&Value::Null) {
        request.remove("audienceWeightsEnabled");
    }
    let (mut merged, ignored) = match id {
        None => (Object::new(), RESPONSE_ONLY.to_vec()),
        Some(id) => (
            load_or_404(tx, Table::AdOrders, account_id, id)?,
            ignored_on_update(validate::AD_ORDER_IGNORED_ON_UPDATE, RESPONSE_ONLY),
        ),
    };
    // The stored client id is set aside so that the request alone decides whether both
    // ioNumber and externalAdOrderId were sent.
    let stored_client_id = merged.get("externalAdOrderId").cloned();
    for key in CLIENT_ID_KEYS {
        merged.remove(key);
    }
    let stored_audiences = merged
        .get("audiences")
        .cloned()
        .map(|v| serde_json::from_value::<Vec<AdOrderAudience>>(v).unwrap_or_default())
        .unwrap_or_default();
    // Fields an update ignores still have to be of their type: checked before the merge
    // drops them.
    typed::<AdOrder>(&request)?;
    merge(&mut merged, &request, &ignored);

    let mut order: AdOrder = typed(&merged)?;
    let op = if id.is_some() { Op::Update } else { Op::Create };
    let campaign_id = order.campaign_id.unwrap_or_default();
    let tz = super::campaign_timezone(tx, account_id, campaign_id)?;
    let mut catalogue = ValidationErrors::default();
    if request.contains_key("optimizationGoal") {
        in_catalogue(
            &mut catalogue,
            "optimizationGoal",
            order.optimization_goal.as_ref(),
        );
    }
    // The model refuses unknown values of the fully listed enums only on create (a listed
    // order goes back as it came); the service knows its catalogue for what it is sent.
    if request.contains_key("goalMode") {
        in_catalogue(&mut catalogue, "goalMode", order.goal_mode.as_ref());
    }
    if request.contains_key("hourlyPacingMode") {
        in_catalogue(
            &mut catalogue,
            "hourlyPacingMode",
            order.hourly_pacing_mode.as_ref(),
        );
    }
    if let (true, Some(Some(cap))) = (request.contains_key("frequencyCap"), &order.frequency_cap) {
        in_catalogue(
            &mut catalogue,
            "frequencyCap.timePeriod",
            cap.time_period.as_ref(),
        );
    }
    dedup(vec![
        errs(validate::ad_order(&order, op, tz.as_ref())),
        catalogue,
    ])?;
    if id.is_none() && !exists(tx, Table::Campaigns, account_id, campaign_id)? {
        return Err(Error::field(
            "campaignId",
            codes::BAD_REFERENCE,
            format!("campaign {campaign_id} not found"),
        ));
    }
    check_site_lists(tx, account_id, &order)?;

    let client_id = if CLIENT_ID_KEYS.iter().any(|k| request.contains_key(*k)) {
        order
            .io_number
            .clone()
            .or_else(|| order.io_number_out.clone())
            .or_else(|| order.external_ad_order_id.clone())
            .map(Value::String)
    } else {
        stored_client_id
    };
    let acct = account(tx, account_id)?;
    apply_defaults(&mut order, acct.channel_version);
    order.cost_optimization_enabled = acct.cost_optimization.then_some(true);

    let order_id = match id {
        Some(id) => id,
        None => {
            tx.execute(
                "INSERT INTO ad_orders(account_id, campaign_id, body) VALUES (?1, ?2, '{}')",
                params![account_id, campaign_id],
            )?;
            tx.last_insert_rowid()
        }
    };
    order.id = Some(order_id);
    order.audiences = Some(assign_audience_ids(
        tx,
        order_id,
        order.audiences.take().unwrap_or_default(),
        &stored_audiences,
    )?);
    let mut body = untyped(&order)?;
    body.remove("ioNumber");
    let client_id = client_id.unwrap_or(Value::Null);
    body.insert("io_number".into(), client_id.clone());
    body.insert("externalAdOrderId".into(), client_id);
    fill_null(&mut body, SHAPE);
    super::update_body(tx, Table::AdOrders, order_id, &body)?;
    Ok(Envelope::new(Value::Object(body)))
}

fn apply_defaults(order: &mut AdOrder, channel_version: i64) {
    order.audience_weights_enabled.get_or_insert(false);
    order.goal_mode.get_or_insert(GoalMode::Performance);
    let pacing = order.hourly_pacing_mode.get_or_insert(PacingMode::Asap);
    if *pacing == PacingMode::Asap {
        order.hourly_frontload = Some(None);
    }
    order.max_bid.get_or_insert(DEFAULT_MAX_BID);
    order.frequency_cap.get_or_insert(None);
    order.channels_v2 = if channel_version >= 2 {
        match order.channels_v2.take().flatten() {
            Some(channels) if !channels.is_empty() => Some(Some(channels)),
            _ => Some(Some(vec!["Display".to_owned()])),
        }
    } else {
        Some(None)
    };
}

/// Keeps the ids of audiences that already belong to the order, numbers new ones, and
/// creates the default audience when there is none.
fn assign_audience_ids(
    tx: &Transaction,
    order_id: i64,
    sent: Vec<AdOrderAudience>,
    stored: &[AdOrderAudience],
) -> Result<Vec<AdOrderAudience>> {
    let mut audiences = sent;
    if audiences.is_empty() {
        audiences.push(AdOrderAudience {
            name: Some("Default audience".to_owned()),
            weight: Some(100),
            pmp_deals: Some(None),
            ..AdOrderAudience::default()
        });
    }
    for (i, audience) in audiences.iter_mut().enumerate() {
        match audience.id {
            Some(aid) if stored.iter().any(|s| s.id == Some(aid)) => {}
            Some(aid) => {
                return Err(Error::field(
                    format!("audiences[{i}].id"),
                    codes::BAD_REFERENCE,
                    format!("audience {aid} is not an audience of this ad order"),
                ));
            }
            None => {
                tx.execute("INSERT INTO audience_ids(order_id) VALUES (?1)", [order_id])?;
                audience.id = Some(tx.last_insert_rowid());
            }
        }
        audience.pmp_deals.get_or_insert(None);
    }
    Ok(audiences)
}

/// Site lists targeted by audiences must exist in the account.
fn check_site_lists(tx: &Transaction, account_id: i64, order: &AdOrder) -> Result<()> {
    let mut errors = flightdeck_model::ValidationErrors::default();
    for (i, audience) in order.audiences.iter().flatten().enumerate() {
        let Some(lists) = &audience.site_lists else {
            continue;
        };
        for (side, ids) in [("include", &lists.include), ("exclude", &lists.exclude)] {
            for (j, list_id) in ids.iter().flatten().enumerate() {
                let found = tx
                    .query_row(
                        "SELECT 1 FROM site_lists WHERE id = ?1 AND account_id = ?2",
                        params![list_id, account_id],
                        |_| Ok(()),
                    )
                    .optional()?
                    .is_some();
                if !found {
                    errors.push(
                        format!("audiences[{i}].siteLists.{side}[{j}]"),
                        codes::BAD_REFERENCE,
                        format!("site list {list_id} not found"),
                    );
                }
            }
        }
    }
    errors.into_result().map_err(Error::Invalid)
}

/// `GET /v1/adorder/getAllAdOrders`, pre-rendered: stored bodies are already the response
/// shape, so they are spliced into the envelope without being parsed (the listing of a
/// large account is the sandbox's hottest path).
pub fn ad_orders_all(tx: &Transaction, account_id: i64) -> Result<String> {
    let mut stmt =
        tx.prepare_cached("SELECT body FROM ad_orders WHERE account_id = ?1 ORDER BY id")?;
    let mut rows = stmt.query([account_id])?;
    let mut out = String::from(r#"{"messages":[],"entity":["#);
    let mut first = true;
    while let Some(row) = rows.next()? {
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(row.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?);
    }
    out.push_str("]}");
    Ok(out)
}

/// Members every flight-cap response carries.
const CAP_SHAPE: &[&str] = &[
    "id",
    "orderId",
    "flightId",
    "maxBudget",
    "dailyBudget",
    "lifetimeImpressions",
    "dailyImpressions",
];

/// `POST /v1/campaignflightcaps/byAdOrder/{order_id}`: adds and modifies the caps sent,
/// answers every cap of the ad order.
pub fn flight_caps_by_ad_order(
    tx: &Transaction,
    account_id: i64,
    order_id: i64,
    body: Value,
) -> Result<Envelope<Value>> {
    let order = load_or_404(tx, Table::AdOrders, account_id, order_id)?;
    let campaign_id = order
        .get("campaignId")
        .and_then(Value::as_i64)
        .unwrap_or_default();
    let flights = flight_ids(tx, campaign_id)?;
    let stored = stored_caps(tx, order_id)?;
    let mut caps = Vec::new();
    for (i, item) in extract::array(body)?.into_iter().enumerate() {
        let prefix = format!("[{i}]");
        let obj = extract::object(item)
            .map_err(|_| Error::Malformed(format!("{prefix}: expected an object")))?;
        let cap: FlightCap = match request_id(&obj, &format!("{prefix}."))? {
            None => typed_at(&obj, &prefix)?,
            Some(cid) => {
                let Some((_, base)) = stored.iter().find(|(id, _)| *id == cid) else {
                    return Err(Error::field(
                        format!("{prefix}.id"),
                        codes::BAD_REFERENCE,
                        format!("cap {cid} is not a cap of ad order {order_id}"),
                    ));
                };
                let mut merged = base.clone();
                merge(&mut merged, &obj, &["id", "orderId"]);
                typed_at(&merged, &prefix)?
            }
        };
        caps.push(cap);
    }
    validate::flight_caps(&caps, &flights)?;
    // One cap per flight: a new cap may not shadow a stored one the request leaves alone.
    let mut errors = flightdeck_model::ValidationErrors::default();
    for (i, cap) in caps.iter().enumerate() {
        if cap.id.is_some() {
            continue;
        }
        for (sid, body) in &stored {
            let same_flight = body.get("flightId").and_then(Value::as_i64) == cap.flight_id;
            if same_flight && !caps.iter().any(|c| c.id == Some(*sid)) {
                errors.push(
                    format!("[{i}].flightId"),
                    codes::INVALID,
                    format!("this flight already has cap {sid}; send its id to change it"),
                );
            }
        }
    }
    errors.into_result()?;
    for mut cap in caps {
        cap.order_id = Some(order_id);
        let cap_id = match cap.id {
            Some(id) => id,
            None => {
                tx.execute(
                    "INSERT INTO flight_caps(account_id, order_id, flight_id, body)
                     VALUES (?1, ?2, ?3, '{}')",
                    params![account_id, order_id, cap.flight_id],
                )?;
                tx.last_insert_rowid()
            }
        };
        cap.id = Some(cap_id);
        cap.lifetime_impressions.get_or_insert(None);
        cap.daily_impressions.get_or_insert(None);
        let mut body = untyped(&cap)?;
        fill_null(&mut body, CAP_SHAPE);
        tx.execute(
            "UPDATE flight_caps SET flight_id = ?1, body = ?2 WHERE id = ?3",
            params![cap.flight_id, super::to_text(&body)?, cap_id],
        )?;
    }
    caps_out(tx, order_id)
}

/// `DELETE /v1/campaignflightcaps/{cap_id}`: the delete endpoint the spec mentions but does
/// not show. Answers the remaining caps of the ad order.
pub fn flight_cap_delete(
    tx: &Transaction,
    account_id: i64,
    cap_id: i64,
) -> Result<Envelope<Value>> {
    let order_id: i64 = tx
        .query_row(
            "SELECT order_id FROM flight_caps WHERE id = ?1 AND account_id = ?2",
            params![cap_id, account_id],
            |r| r.get(0),
        )
        .optional()?
        .ok_or_else(|| super::not_found(Table::FlightCaps, cap_id))?;
    tx.execute("DELETE FROM flight_caps WHERE id = ?1", [cap_id])?;
    caps_out(tx, order_id)
}

fn stored_caps(tx: &Transaction, order_id: i64) -> Result<Vec<(i64, Object)>> {
    let mut stmt =
        tx.prepare_cached("SELECT id, body FROM flight_caps WHERE order_id = ?1 ORDER BY id")?;
    let rows = stmt
        .query_map([order_id], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|(id, b)| Ok((id, super::parse_body(&b)?)))
        .collect()
}

fn caps_out(tx: &Transaction, order_id: i64) -> Result<Envelope<Value>> {
    let caps = stored_caps(tx, order_id)?
        .into_iter()
        .map(|(_, b)| Value::Object(b))
        .collect();
    Ok(Envelope::new(Value::Array(caps)))
}
