//! First-party audience segments. Their endpoints answer plain objects and `{error}`,
//! not the envelope; handlers re-shape errors with `Error::into_audience`.

use flightdeck_model::validate::{self, codes};
use flightdeck_model::{
    ACTIVATION_THRESHOLD, AUDIENCE_DATA_PROCESSED, AudienceData, AudienceDataResult, AudienceList,
    AudienceSegment, DataType, Pagination, SegmentStatus, TTL_MAX_SECS,
};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::Value;

use super::{Table, exists, typed, untyped};
use crate::error::{Error, Result};
use crate::extract;

/// How every segment id the sandbox issues begins, as the service's do.
pub const SEGMENT_ID_PREFIX: &str = "fpsegm";

/// Page size when the caller sends none.
pub const DEFAULT_PAGE_SIZE: i64 = 50;
/// Largest page size accepted.
pub const MAX_PAGE_SIZE: i64 = 500;

/// `POST /v1/audiences`: creates an empty, `INACTIVE` segment.
pub fn audience_create(tx: &Transaction, account_id: i64, body: Value, now: i64) -> Result<Value> {
    let mut segment: AudienceSegment = typed(&extract::object(body)?)?;
    validate::audience_segment(&segment)?;
    if segment.account_id != Some(account_id) {
        return Err(Error::Forbidden(
            "accountId is not the account you are signed in to".into(),
        ));
    }
    for (i, adv) in segment.advertiser_ids.iter().flatten().enumerate() {
        if !exists(tx, Table::Advertisers, account_id, *adv)? {
            return Err(Error::field(
                format!("advertiserIds[{i}]"),
                codes::BAD_REFERENCE,
                format!("advertiser {adv} not found"),
            ));
        }
    }
    let external = segment.external_audience_id.clone().unwrap_or_default();
    let taken: Option<String> = tx
        .query_row(
            "SELECT service_segment_id FROM segments WHERE account_id = ?1 AND external_id = ?2",
            params![account_id, external],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(existing) = taken {
        return Err(Error::field(
            "externalAudienceId",
            codes::INVALID,
            format!("is already used by segment {existing}"),
        ));
    }
    let service_id = new_segment_id();
    segment.service_segment_id = Some(service_id.clone());
    segment.ttl.get_or_insert(TTL_MAX_SECS);
    segment.status = Some(SegmentStatus::Inactive);
    segment.data_count = Some(0);
    segment.description.get_or_insert_with(String::new);
    let body = untyped(&segment)?;
    tx.execute(
        "INSERT INTO segments(account_id, service_segment_id, external_id, refreshed_at, body)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            account_id,
            service_id,
            external,
            now,
            super::to_text(&body)?
        ],
    )?;
    Ok(serde_json::json!({
        "name": segment.name,
        "externalAudienceId": segment.external_audience_id,
        "serviceSegmentId": service_id,
        "status": SegmentStatus::Inactive,
        "ttl": segment.ttl,
    }))
}

/// `GET /v1/audiences?page=&pageSize=`: 1-based pages, oldest segment first.
pub fn audiences_list(
    tx: &Transaction,
    account_id: i64,
    page: Option<i64>,
    page_size: Option<i64>,
    now: i64,
) -> Result<AudienceList> {
    let page = page.unwrap_or(1);
    let page_size = page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if page < 1 {
        return Err(Error::field(
            "page",
            codes::OUT_OF_RANGE,
            "must be 1 or more",
        ));
    }
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(Error::field(
            "pageSize",
            codes::OUT_OF_RANGE,
            format!("must be between 1 and {MAX_PAGE_SIZE}"),
        ));
    }
    let mut stmt = tx.prepare_cached(
        "SELECT body, refreshed_at FROM segments WHERE account_id = ?1
         ORDER BY id LIMIT ?2 OFFSET ?3",
    )?;
    let rows = stmt
        .query_map(
            params![account_id, page_size, (page - 1).saturating_mul(page_size)],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let audiences = rows
        .into_iter()
        .map(|(body, refreshed)| segment_out(&body, refreshed, now))
        .collect::<Result<_>>()?;
    Ok(AudienceList {
        audiences,
        pagination: Pagination { page, page_size },
    })
}

/// `GET /v1/audiences/{serviceSegmentId}`.
pub fn audience_get(
    tx: &Transaction,
    account_id: i64,
    service_id: &str,
    now: i64,
) -> Result<AudienceSegment> {
    let (_, body, refreshed) = find(tx, account_id, service_id)?;
    let mut segment = segment_out(&body, refreshed, now)?;
    segment.message = Some(status_message(&segment));
    Ok(segment)
}

/// The `message` of `GET /v1/audiences/{serviceSegmentId}`: what the status means for the
/// buyer. The real service's wording is not known; only the field is *(known)*.
fn status_message(segment: &AudienceSegment) -> String {
    let count = segment.data_count.unwrap_or(0);
    match segment.status.as_ref() {
        Some(SegmentStatus::Active) => {
            format!("Segment is active: {count} matched identifiers.")
        }
        Some(SegmentStatus::Archived) => {
            "Segment is archived: its ttl ran out; it takes no more data.".to_owned()
        }
        _ => format!(
            "Segment is inactive: {count} of {ACTIVATION_THRESHOLD} matched identifiers needed \
             to activate."
        ),
    }
}

/// `POST /v1/audiences/{serviceSegmentId}/data`: appends the identifiers of an array of
/// `{serviceSegmentId, countryCode, values}` records to the segment.
///
/// The upload is all or nothing, as the service's: one bad record (per
/// [`validate::audience_data`]) refuses the whole payload with
/// [`Error::BadRecords`] and stores nothing. An accepted upload is applied at once
/// (the real service processes uploads about every 10 minutes; see DECISIONS.md):
/// identifiers already in the segment are counted once, reaching
/// [`flightdeck_model::ACTIVATION_THRESHOLD`] distinct identifiers activates the
/// segment, and the ttl restarts. An `ARCHIVED` segment takes no more data.
pub fn audience_data(
    tx: &Transaction,
    account_id: i64,
    service_id: &str,
    body: Value,
    now: i64,
) -> Result<AudienceDataResult> {
    let (id, body_text, refreshed) = find(tx, account_id, service_id)?;
    let segment = segment_out(&body_text, refreshed, now)?;
    if segment.status == Some(SegmentStatus::Archived) {
        return Err(Error::Malformed(format!(
            "segment {service_id} is archived (its ttl ran out) and takes no more data; \
             create a new segment"
        )));
    }
    if !body.is_array() {
        return Err(Error::Malformed(
            "body: expected a JSON array of {serviceSegmentId, countryCode, values} records".into(),
        ));
    }
    let records: AudienceData = extract::typed(&body)?;
    let data_type = segment.data_type.as_ref();
    if let Err(errors) = validate::audience_data(service_id, data_type, &records) {
        let bad = validate::bad_records(&errors);
        if bad == 0 {
            // Not about any one record (an empty array): a plain validation failure.
            return Err(Error::Invalid(errors));
        }
        let bad = i64::try_from(bad).unwrap_or(i64::MAX);
        return Err(Error::BadRecords(Box::new(AudienceDataResult {
            message: format!("invalid payload: {bad} bad record(s)"),
            published: 0,
            failed_publishes: 0,
            bad_records: bad,
            bad_records_details: errors.to_string(),
            ..AudienceDataResult::default()
        })));
    }
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO segment_data(segment_id, identifier) VALUES (?1, ?2)",
    )?;
    for value in records.iter().flat_map(|r| r.values.iter()) {
        stmt.execute(params![id, normal_identifier(data_type, value)])?;
    }
    let count: i64 = tx.query_row(
        "SELECT COUNT(*) FROM segment_data WHERE segment_id = ?1",
        [id],
        |r| r.get(0),
    )?;
    let mut stored: AudienceSegment = typed(&super::parse_body(&body_text)?)?;
    stored.data_count = Some(count);
    stored.status = None;
    tx.execute(
        "UPDATE segments SET body = ?1, refreshed_at = ?2 WHERE id = ?3",
        params![super::to_text(&untyped(&stored)?)?, now, id],
    )?;
    Ok(AudienceDataResult {
        message: AUDIENCE_DATA_PROCESSED.to_owned(),
        published: i64::try_from(records.len()).unwrap_or(i64::MAX),
        failed_publishes: 0,
        bad_records: 0,
        bad_records_details: String::new(),
        ..AudienceDataResult::default()
    })
}

/// The stored spelling of an identifier: hex digests and mobile ids are
/// case-insensitive, so each is counted once whatever its case.
fn normal_identifier(data_type: Option<&DataType>, value: &str) -> String {
    match data_type {
        Some(DataType::Cookie | DataType::Ip | DataType::Other(_)) | None => value.to_owned(),
        Some(_) => value.to_ascii_lowercase(),
    }
}

/// Characters after the prefix of a new segment id.
const SEGMENT_ID_LEN: usize = 20;

/// A new segment id in the service's form: `fpsegm` then letters and digits (lower-case
/// here; ids are compared exactly, so earlier databases' 16-hex ids still resolve).
fn new_segment_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut id = String::from(SEGMENT_ID_PREFIX);
    for _ in 0..SEGMENT_ID_LEN {
        let i = rand::random_range(0..ALPHABET.len());
        id.push(char::from(ALPHABET[i]));
    }
    id
}

fn find(tx: &Transaction, account_id: i64, service_id: &str) -> Result<(i64, String, i64)> {
    tx.query_row(
        "SELECT id, body, refreshed_at FROM segments
         WHERE account_id = ?1 AND service_segment_id = ?2",
        params![account_id, service_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("audience segment {service_id} not found")))
}

fn status_of(segment: &AudienceSegment, refreshed: i64, now: i64) -> SegmentStatus {
    let ttl_ms = segment.ttl.unwrap_or(TTL_MAX_SECS).saturating_mul(1000);
    SegmentStatus::at(
        segment.data_count.unwrap_or(0),
        refreshed.saturating_add(ttl_ms),
        now,
    )
}

fn segment_out(body: &str, refreshed: i64, now: i64) -> Result<AudienceSegment> {
    let mut segment: AudienceSegment = typed(&super::parse_body(body)?)?;
    segment.status = Some(status_of(&segment, refreshed, now));
    // Only the single read carries a message (the listing's shape has none).
    segment.message = None;
    Ok(segment)
}
