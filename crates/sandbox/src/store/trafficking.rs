//! The trafficking endpoints from the service's reference beyond the interface
//! document: creative listings (per campaign and per ad order), a campaign's ad orders,
//! and ad-order status. Also the admin operations tests need around them: a creative's
//! review status and creative-to-ad-order associations.

use flightdeck_model::validate::codes;
use flightdeck_model::{AdOrderStatus, CreativeStatus, Envelope};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::{Value, json};

use super::{Object, Table, exists, load_or_404, parse_body};
use crate::error::{Error, Result};
use crate::extract;

/// Each cell of the creative matrix as the service's UI names it: its type id and vendor.
/// The reference gives neither list; these are the sandbox's (DECISIONS.md).
const CELLS: &[(&str, &str, i64, &str)] = &[
    ("BANNER", "TAG", 1, "Third-party ad tag"),
    ("BANNER", "HOSTED", 2, "Hosted image"),
    ("VIDEO", "VASTURL", 3, "VAST URL"),
    ("VIDEO", "VASTXML", 4, "VAST XML"),
    ("VIDEO", "HOSTED", 5, "Hosted video"),
    ("AUDIO", "VASTURL", 6, "VAST URL"),
    ("AUDIO", "VASTXML", 7, "VAST XML"),
    ("AUDIO", "HOSTED", 8, "Hosted audio"),
    ("NATIVE", "IMAGE", 9, "Native image"),
    ("NATIVE", "VASTURL", 10, "VAST URL"),
    ("NATIVE", "VASTXML", 11, "VAST XML"),
    ("NATIVE", "HOSTED", 12, "Hosted native video"),
    ("DOOH", "IMAGE", 13, "DOOH image"),
    ("DOOH", "VIDEO", 14, "DOOH video"),
];

/// Members copied from the stored creative as they are (null when absent).
const COPIED: &[&str] = &[
    "name",
    "externalCreativeid",
    "crawlableUrl",
    "landingPageUrl",
    "impressionTrackingPixel_1",
    "impressionTrackingPixel_2",
    "impressionTrackingPixel_3",
    "impressionTrackingPixel_4",
    "size",
];

/// The listing shape of a stored creative (see DECISIONS.md, "Creative listings").
pub(crate) fn listed(id: i64, body: &Object) -> Value {
    let text = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or_default();
    let (kind, sub) = (text("creativeType"), text("creativeSubtype"));
    let cell = CELLS.iter().find(|(t, s, _, _)| *t == kind && *s == sub);
    let sent_type = body.get("type").and_then(Value::as_object);
    let sent = |k: &str| sent_type.and_then(|t| t.get(k)).cloned();
    let video = kind == "VIDEO" || (kind == "DOOH" && sub == "VIDEO");
    let payload = match kind {
        "DOOH" => body.get("dooh"),
        _ => body.get("video"),
    }
    .and_then(Value::as_object);
    let video_fact = |k: &str| match (video, payload.and_then(|p| p.get(k))) {
        (true, Some(v)) if v.is_number() => v.clone(),
        _ => Value::Null,
    };
    let video_type = match sent("videoType") {
        Some(v) if !v.is_null() => v,
        _ if video => inferred_video_type(payload),
        _ => Value::Null,
    };
    let channels = body.get("channels").cloned().unwrap_or_else(|| match kind {
        "VIDEO" => json!(["MOBILE", "DESKTOP", "CONNECTED_TV"]),
        "DOOH" => json!([]),
        _ => json!(["MOBILE", "DESKTOP"]),
    });
    let mut out = Object::new();
    out.insert("id".into(), json!(id));
    out.insert(
        "status".into(),
        body.get("status").cloned().unwrap_or(json!("PENDING")),
    );
    for key in COPIED {
        out.insert(
            (*key).into(),
            body.get(*key).cloned().unwrap_or(Value::Null),
        );
    }
    out.insert(
        "type".into(),
        json!({
            "id": sent("id").filter(|v| !v.is_null()).unwrap_or(json!(cell.map(|c| c.2))),
            "vendor": cell.map(|c| c.3),
            "mediaType": sent("mediaType").unwrap_or(Value::Null),
            "videoType": video_type,
        }),
    );
    out.insert("channels".into(), channels);
    let tag = kind == "BANNER" && sub == "TAG";
    out.insert("adTagId".into(), json!(tag.then(|| format!("tag-{id}"))));
    out.insert("duration".into(), video_fact("duration"));
    out.insert("bitRate".into(), video_fact("bitRate"));
    Value::Object(out)
}

/// A hosted video's type, from its first media file's extension; null when unknown.
fn inferred_video_type(payload: Option<&Object>) -> Value {
    let url = payload
        .and_then(|p| p.get("mediaUrls"))
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str)
        .unwrap_or_default();
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("mp4") => json!("MP4"),
        Some("webm") => json!("WEBM"),
        Some("flv") => json!("FLV"),
        Some("wmv") => json!("WMV"),
        _ => Value::Null,
    }
}

/// Lists creatives by a query over `(id, body)` rows.
fn creatives_where(
    tx: &Transaction,
    sql: &str,
    args: impl rusqlite::Params,
) -> Result<Envelope<Value>> {
    let mut stmt = tx.prepare_cached(sql)?;
    let rows = stmt
        .query_map(args, |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, body) in rows {
        out.push(listed(id, &parse_body(&body)?));
    }
    Ok(Envelope::new(Value::Array(out)))
}

/// `GET /v1/campaign/{campaignId}/creatives`: creatives saved with the campaign, and
/// creatives associated with one of its ad orders.
pub fn creatives_by_campaign(
    tx: &Transaction,
    account_id: i64,
    campaign_id: i64,
) -> Result<Envelope<Value>> {
    if !exists(tx, Table::Campaigns, account_id, campaign_id)? {
        return Err(super::not_found(Table::Campaigns, campaign_id));
    }
    creatives_where(
        tx,
        "SELECT id, body FROM creatives WHERE account_id = ?1 AND (
             json_extract(body, '$.campaignId') = ?2
             OR id IN (SELECT a.creative_id FROM creative_ad_orders a
                       JOIN ad_orders o ON o.id = a.order_id WHERE o.campaign_id = ?2))
         ORDER BY id",
        params![account_id, campaign_id],
    )
}

/// `GET /v1/creative/getCreativesByAdOrder/{adOrderId}`: the creatives associated with
/// the ad order.
pub fn creatives_by_ad_order(
    tx: &Transaction,
    account_id: i64,
    order_id: i64,
) -> Result<Envelope<Value>> {
    if !exists(tx, Table::AdOrders, account_id, order_id)? {
        return Err(super::not_found(Table::AdOrders, order_id));
    }
    creatives_where(
        tx,
        "SELECT c.id, c.body FROM creatives c
         JOIN creative_ad_orders a ON a.creative_id = c.id
         WHERE a.order_id = ?1 AND c.account_id = ?2 ORDER BY c.id",
        params![order_id, account_id],
    )
}

/// `GET /v1/adorder/getAdOrdersByCampaign?id=`, pre-rendered as `getAllAdOrders` is:
/// the same fields, so no status (the reference lists none).
pub fn ad_orders_by_campaign(
    tx: &Transaction,
    account_id: i64,
    campaign_id: i64,
) -> Result<String> {
    if !exists(tx, Table::Campaigns, account_id, campaign_id)? {
        return Err(super::not_found(Table::Campaigns, campaign_id));
    }
    let mut stmt = tx.prepare_cached(
        "SELECT body FROM ad_orders WHERE account_id = ?1 AND campaign_id = ?2 ORDER BY id",
    )?;
    let mut rows = stmt.query(params![account_id, campaign_id])?;
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

/// The status an ad order has now: the stored one, except that an ad order whose end
/// date has passed is `Completed` unless it was archived.
fn effective_status(stored: i64, body: &Object, now: i64) -> AdOrderStatus {
    let status = AdOrderStatus::from_code(stored);
    let ended = body
        .get("endDate")
        .and_then(Value::as_i64)
        .is_some_and(|end| end <= now);
    if ended && status != AdOrderStatus::Archived {
        AdOrderStatus::Completed
    } else {
        status
    }
}

/// The stored status column of ad order `id`.
fn stored_status(tx: &Transaction, id: i64) -> Result<i64> {
    Ok(
        tx.query_row("SELECT status FROM ad_orders WHERE id = ?1", [id], |r| {
            r.get(0)
        })?,
    )
}

/// A required whole number of the body, named by its field on failure.
fn required_number(body: &Object, field: &str) -> Result<i64> {
    match body.get(field) {
        None | Some(Value::Null) => Err(Error::field(field, codes::REQUIRED, "is required")),
        Some(v) => v.as_i64().ok_or_else(|| {
            Error::Malformed(format!(
                "{field}: expected a whole number (got {})",
                extract::shown(&v.to_string())
            ))
        }),
    }
}

/// `POST /v1/adorder/updateStatus`: sets an ad order's status. Setting the status it has
/// succeeds and changes nothing, so a resent request is harmless. Refused moves are a
/// 400 on `status` ([`AdOrderStatus::refusal`]).
pub fn adorder_update_status(
    tx: &Transaction,
    account_id: i64,
    body: Value,
    now: i64,
) -> Result<Envelope<Value>> {
    let body = extract::object(body)?;
    let id = required_number(&body, "id");
    let status = required_number(&body, "status");
    let (id, status) = match (id, status) {
        (Ok(id), Ok(status)) => (id, AdOrderStatus::from_code(status)),
        (Err(Error::Invalid(mut a)), Err(Error::Invalid(b))) => {
            a.0.extend(b.0);
            return Err(Error::Invalid(a));
        }
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let order = load_or_404(tx, Table::AdOrders, account_id, id)?;
    let current = effective_status(stored_status(tx, id)?, &order, now);
    if let Some(why) = current.refusal(status) {
        return Err(Error::field("status", codes::INVALID, why));
    }
    if current != status {
        tx.execute(
            "UPDATE ad_orders SET status = ?1 WHERE id = ?2",
            params![status.code(), id],
        )?;
    }
    Ok(Envelope::new(json!({"id": id, "status": status.code()})))
}

/// Sets a stored status without the transition rules, for the seed.
pub(crate) fn set_ad_order_status(tx: &Transaction, id: i64, status: AdOrderStatus) -> Result<()> {
    tx.execute(
        "UPDATE ad_orders SET status = ?1 WHERE id = ?2",
        params![status.code(), id],
    )?;
    Ok(())
}

/// `GET /_sandbox/adorders/{id}/status`: any account's ad order, `{id, status}`.
pub fn admin_ad_order_status(tx: &Transaction, id: i64, now: i64) -> Result<Value> {
    let row: Option<(i64, String)> = tx
        .query_row(
            "SELECT status, body FROM ad_orders WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (stored, body) = row.ok_or_else(|| super::not_found(Table::AdOrders, id))?;
    let status = effective_status(stored, &parse_body(&body)?, now);
    Ok(json!({"id": id, "status": status.code()}))
}

/// `PUT /_sandbox/creatives/{id}/status`: what review does on the real service. Any known
/// status; answers the creative as listed.
pub fn admin_creative_status(tx: &Transaction, id: i64, status: &str) -> Result<Value> {
    let status = CreativeStatus::from_wire(status);
    if !status.is_known() {
        return Err(Error::Malformed(format!(
            "status: must be one of {} (got \"{status}\")",
            CreativeStatus::known_names().join(", ")
        )));
    }
    let body: Option<String> = tx
        .query_row("SELECT body FROM creatives WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .optional()?;
    let mut body =
        parse_body(&body.ok_or_else(|| Error::NotFound(format!("creative {id} not found")))?)?;
    body.insert("status".into(), json!(status.as_str()));
    tx.execute(
        "UPDATE creatives SET body = ?1 WHERE id = ?2",
        params![super::to_text(&body)?, id],
    )?;
    Ok(listed(id, &body))
}

/// `POST /_sandbox/creative-ad-orders`: associates a creative with an ad order of the
/// same account and advertiser. Associating twice is accepted and changes nothing.
pub fn admin_associate(tx: &Transaction, creative_id: i64, order_id: i64) -> Result<Value> {
    let creative: Option<(i64, i64)> = tx
        .query_row(
            "SELECT account_id, advertiser_id FROM creatives WHERE id = ?1",
            [creative_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (account, advertiser) =
        creative.ok_or_else(|| Error::NotFound(format!("creative {creative_id} not found")))?;
    let order: Option<(i64, i64)> = tx
        .query_row(
            "SELECT o.account_id, c.advertiser_id FROM ad_orders o
             JOIN campaigns c ON c.id = o.campaign_id WHERE o.id = ?1",
            [order_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (order_account, order_advertiser) =
        order.ok_or_else(|| super::not_found(Table::AdOrders, order_id))?;
    if order_account != account || order_advertiser != advertiser {
        return Err(Error::Malformed(format!(
            "creative {creative_id} belongs to advertiser {advertiser} and ad order \
             {order_id} to advertiser {order_advertiser}: only creatives of the ad order's \
             advertiser can be associated with it"
        )));
    }
    tx.execute(
        "INSERT OR IGNORE INTO creative_ad_orders (creative_id, order_id) VALUES (?1, ?2)",
        params![creative_id, order_id],
    )?;
    Ok(json!({"creativeId": creative_id, "adOrderId": order_id}))
}
