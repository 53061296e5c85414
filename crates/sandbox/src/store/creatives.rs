//! Creatives.

use flightdeck_model::validate::{self, codes};
use flightdeck_model::{
    Creative, CreativeStatus, CreativeSubtype, CreativeType, Envelope, ValidationErrors,
};
use rusqlite::{Transaction, params};
use serde_json::Value;

use super::{Table, dedup, errs, exists, in_catalogue, load, typed, untyped};
use crate::error::{Error, Result};
use crate::extract;

/// `POST /v1/creative/save`: creates a creative. The service has no creative update: the
/// spec omits `id` from the request, so an `id` is refused rather than read as an update
/// (which the real service would not do) or ignored (which would make a second creative
/// the buyer thinks is an edit). `null` reads as omitted.
pub fn creative_save(
    tx: &Transaction,
    account_id: i64,
    body: Value,
    now: i64,
) -> Result<Envelope<Value>> {
    let mut request = extract::object(body)?;
    match request.remove("id") {
        None | Some(Value::Null) => {}
        Some(_) => {
            return Err(Error::field(
                "id",
                codes::INVALID,
                "must be omitted: the service has no creative update (creative/save only \
                 creates); save a new creative instead",
            ));
        }
    }
    let requested = request.remove("status").filter(|v| !v.is_null());
    let mut creative: Creative = typed(&request)?;
    let requested: Option<CreativeStatus> = requested
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| Error::Malformed(format!("status: {e}")))?;
    let mut catalogue = ValidationErrors::default();
    in_catalogue(&mut catalogue, "status", requested.as_ref());
    let video_type = creative
        .type_
        .as_ref()
        .and_then(|t| t.video_type.as_ref())
        .and_then(Option::as_ref);
    in_catalogue(&mut catalogue, "type.videoType", video_type);
    dedup(vec![errs(validate::creative(&creative)), catalogue])?;
    creative.advertiser_id = Some(resolve_advertiser(tx, account_id, &creative)?);
    creative.status = Some(status_after_save(&creative, requested.as_ref()));

    tx.execute(
        "INSERT INTO creatives(account_id, advertiser_id, created_at, body)
         VALUES (?1, ?2, ?3, '{}')",
        params![account_id, creative.advertiser_id, now],
    )?;
    let creative_id = tx.last_insert_rowid();
    creative.id = Some(creative_id);
    let body = untyped(&creative)?;
    tx.execute(
        "UPDATE creatives SET advertiser_id = ?1, body = ?2 WHERE id = ?3",
        params![creative.advertiser_id, super::to_text(&body)?, creative_id],
    )?;
    Ok(Envelope::new(Value::Object(body)))
}

/// The advertiser a creative belongs to: the one sent, or the campaign's. When both are
/// sent they must agree.
fn resolve_advertiser(tx: &Transaction, account_id: i64, c: &Creative) -> Result<i64> {
    if let Some(campaign_id) = c.campaign_id {
        let campaign = load(tx, Table::Campaigns, account_id, campaign_id)?.ok_or_else(|| {
            Error::field(
                "campaignId",
                codes::BAD_REFERENCE,
                format!("campaign {campaign_id} not found"),
            )
        })?;
        let owner = campaign
            .get("advertiserId")
            .and_then(Value::as_i64)
            .unwrap_or_default();
        return match c.advertiser_id {
            Some(a) if a != owner => Err(Error::field(
                "campaignId",
                codes::BAD_REFERENCE,
                format!("campaign {campaign_id} belongs to advertiser {owner}, not {a}"),
            )),
            _ => Ok(owner),
        };
    }
    let advertiser_id = c.advertiser_id.unwrap_or_default();
    if exists(tx, Table::Advertisers, account_id, advertiser_id)? {
        Ok(advertiser_id)
    } else {
        Err(Error::field(
            "advertiserId",
            codes::BAD_REFERENCE,
            format!("advertiser {advertiser_id} not found"),
        ))
    }
}

/// Every save goes to review (`PENDING`), unless the buyer disables the creative, or an
/// image creative has no size: the real service infers it by fetching the image, which
/// the offline sandbox cannot do, so it waits as `INCOMPLETE`.
fn status_after_save(c: &Creative, requested: Option<&CreativeStatus>) -> CreativeStatus {
    if requested == Some(&CreativeStatus::DISABLED) {
        return CreativeStatus::DISABLED;
    }
    let image_cell = matches!(
        (&c.creative_type, &c.creative_subtype),
        (Some(CreativeType::BANNER), Some(CreativeSubtype::HOSTED))
            | (Some(CreativeType::NATIVE), Some(CreativeSubtype::IMAGE))
            | (Some(CreativeType::DOOH), Some(CreativeSubtype::IMAGE))
    );
    if image_cell && c.size.is_none() {
        CreativeStatus::INCOMPLETE
    } else {
        CreativeStatus::PENDING
    }
}
