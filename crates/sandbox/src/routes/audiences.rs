//! Handlers of the audience-segment endpoints: JWT only, plain bodies, `{error}` failures
//! (an upload refused for bad records answers the upload answer instead).
//!
//! Each handler carries its `#[utoipa::path]` description; [`Operations`] collects
//! them for [`crate::openapi`], which cannot name this private module.

use std::collections::HashMap;

use std::io::Read;

use axum::Json;
use axum::body::Body;
use axum::extract::{FromRequest, Path, Query, Request, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_ENCODING;
use flightdeck_model::{
    AUDIENCE_UPLOAD_MAX_BYTES, AudienceDataRecord, AudienceDataResult, AudienceError, AudienceList,
    AudienceSegment,
};
use futures_util::StreamExt;
use serde_json::Value;

use super::query_number;
use crate::AppState;
use crate::auth::{JwtCaller, JwtWriter};
use crate::error::{Error, Result};
use crate::extract::{self, JsonBody};
use crate::store;

/// The operations of this module, handed to [`crate::openapi`] through
/// [`crate::openapi::document`].
#[derive(utoipa::OpenApi)]
#[openapi(paths(create, list, get_one, add_data))]
pub(crate) struct Operations;

/// A JSON body whose rejection is already in the `{error}` shape.
pub struct AudienceBody(Value);

impl FromRequest<AppState> for AudienceBody {
    type Rejection = Error;

    async fn from_request(req: Request, state: &AppState) -> Result<Self> {
        JsonBody::from_request(req, state)
            .await
            .map(|JsonBody(v)| AudienceBody(v))
            .map_err(Error::into_audience)
    }
}

/// The 400 of a data upload: the upload answer when records are bad, `{error}` for every
/// other failure. Only documents the wire; the handler answers through [`Error`].
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum AudienceUploadRefusal {
    /// Refused for bad records: `published` 0, `bad_records` N.
    BadRecords(AudienceDataResult),
    /// Any other failure.
    Error(AudienceError),
}

/// Largest decompressed upload: ten times the largest request. An upload that inflates
/// beyond it is refused as too large (a zip bomb), without being inflated further.
pub const AUDIENCE_UPLOAD_MAX_INFLATED: usize = AUDIENCE_UPLOAD_MAX_BYTES * 10;

/// How much of an over-long request is read (and dropped) before the 413 is sent, so a
/// client still writing its body reads the answer instead of a reset connection.
const OVERSIZE_DRAIN_MAX: usize = AUDIENCE_UPLOAD_MAX_BYTES * 4;

/// The body of a data upload: at most [`AUDIENCE_UPLOAD_MAX_BYTES`] as sent, plain or
/// `Content-Encoding: gzip`, parsed as JSON. Every rejection is already `{error}`: 413
/// when too large (sent or inflated), 415 for another content encoding, 400 for a body
/// that is not gzip or not JSON.
pub struct UploadBody(Value);

impl FromRequest<AppState> for UploadBody {
    type Rejection = Error;

    async fn from_request(req: Request, _state: &AppState) -> Result<Self> {
        extract::require_json(req.headers()).map_err(Error::into_audience)?;
        let gzip = match req.headers().get(CONTENT_ENCODING) {
            None => false,
            Some(v) => match v.to_str().map(|s| s.trim().to_ascii_lowercase()) {
                Ok(s) if s.is_empty() || s == "identity" => false,
                Ok(s) if s == "gzip" || s == "x-gzip" => true,
                _ => {
                    return Err(audience_error(
                        StatusCode::UNSUPPORTED_MEDIA_TYPE,
                        "Content-Encoding: only gzip (or none) is accepted",
                    ));
                }
            },
        };
        let sent = read_capped(req.into_body()).await?;
        // Inflating and parsing up to 100 MB is CPU work: off the async workers.
        tokio::task::spawn_blocking(move || parse_upload(sent, gzip))
            .await
            .map_err(|e| Error::from(e).into_audience())?
    }
}

fn parse_upload(sent: Vec<u8>, gzip: bool) -> Result<UploadBody> {
    let bytes = if gzip { gunzip(&sent)? } else { sent };
    if bytes.is_empty() {
        return Err(audience_error(
            StatusCode::BAD_REQUEST,
            "body: a JSON array of records is required",
        ));
    }
    extract::parse_json(&bytes)
        .map(UploadBody)
        .map_err(Error::into_audience)
}

fn audience_error(status: StatusCode, message: impl Into<String>) -> Error {
    Error::Audience {
        status,
        message: message.into(),
    }
}

fn too_large(what: &str) -> Error {
    audience_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "{what} is larger than {AUDIENCE_UPLOAD_MAX_BYTES} bytes; split the upload into \
             several requests (uploads append)"
        ),
    )
}

/// Reads the body as sent, up to [`AUDIENCE_UPLOAD_MAX_BYTES`]. Past the limit the rest
/// is read and dropped (up to [`OVERSIZE_DRAIN_MAX`]) and the answer is 413.
async fn read_capped(body: Body) -> Result<Vec<u8>> {
    let mut stream = body.into_data_stream();
    let mut out = Vec::new();
    let mut total = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|e| audience_error(StatusCode::BAD_REQUEST, format!("body: {e}")))?;
        total = total.saturating_add(chunk.len());
        if total > OVERSIZE_DRAIN_MAX {
            break;
        }
        if total <= AUDIENCE_UPLOAD_MAX_BYTES {
            out.extend_from_slice(&chunk);
        }
    }
    if total > AUDIENCE_UPLOAD_MAX_BYTES {
        return Err(too_large("the request"));
    }
    Ok(out)
}

/// Inflates a gzip body, refusing one that inflates past [`AUDIENCE_UPLOAD_MAX_INFLATED`].
fn gunzip(sent: &[u8]) -> Result<Vec<u8>> {
    let cap = u64::try_from(AUDIENCE_UPLOAD_MAX_INFLATED).unwrap_or(u64::MAX);
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(sent)
        .take(cap + 1)
        .read_to_end(&mut out)
        .map_err(|e| {
            audience_error(
                StatusCode::BAD_REQUEST,
                format!("body: Content-Encoding is gzip but the body is not valid gzip ({e})"),
            )
        })?;
    if out.len() > AUDIENCE_UPLOAD_MAX_INFLATED {
        return Err(audience_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the upload inflates to more than {AUDIENCE_UPLOAD_MAX_INFLATED} bytes; split it \
                 into several requests (uploads append)"
            ),
        ));
    }
    Ok(out)
}

/// Creates an audience segment.
///
/// The segment starts `INACTIVE` and empty. `accountId` must be the caller's account.
#[utoipa::path(
    post,
    path = "/v1/audiences",
    operation_id = "audience_create",
    tag = "Audiences",
    request_body = AudienceSegment,
    responses(
        (status = 200, description = "The new segment, with its `serviceSegmentId`.", body = AudienceSegment),
        (status = 400, description = "The body is malformed or breaks a rule.", body = AudienceError),
        (status = 401, description = "No valid access-token JWT.", body = AudienceError),
        (status = 403, description = "Read-only caller, or `accountId` is another account.", body = AudienceError),
        (status = 500, description = "Internal server error.", body = AudienceError),
    ),
    security(("bearer" = [])),
)]
pub async fn create(
    State(s): State<AppState>,
    JwtWriter(c): JwtWriter,
    AudienceBody(b): AudienceBody,
) -> Result<Json<Value>> {
    let acct = c.account_id;
    let now = s.clock.now_ms();
    s.db.tx(move |tx| store::audience_create(tx, acct, b, now))
        .await
        .map(Json)
        .map_err(Error::into_audience)
}

/// Lists the account's audience segments, a page at a time.
#[utoipa::path(
    get,
    path = "/v1/audiences",
    operation_id = "audience_list",
    tag = "Audiences",
    params(
        ("page" = Option<i64>, Query, description = "1-based page number."),
        ("pageSize" = Option<i64>, Query, description = "Segments per page."),
    ),
    responses(
        (status = 200, description = "A page of segments.", body = AudienceList),
        (status = 400, description = "`page` or `pageSize` is not a whole number or is out of range.", body = AudienceError),
        (status = 401, description = "No valid access-token JWT.", body = AudienceError),
        (status = 500, description = "Internal server error.", body = AudienceError),
    ),
    security(("bearer" = [])),
)]
pub async fn list(
    State(s): State<AppState>,
    JwtCaller(c): JwtCaller,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<AudienceList>> {
    let acct = c.account_id;
    let now = s.clock.now_ms();
    let out = async {
        let page = query_number(q.get("page").map(String::as_str), "page")?;
        let size = query_number(q.get("pageSize").map(String::as_str), "pageSize")?;
        s.db.tx(move |tx| store::audiences_list(tx, acct, page, size, now))
            .await
    };
    out.await.map(Json).map_err(Error::into_audience)
}

/// Reads one audience segment, with a `message` saying what its status means (how many
/// identifiers it still needs to activate, or that it is archived).
#[utoipa::path(
    get,
    path = "/v1/audiences/{service_segment_id}",
    operation_id = "audience_get",
    tag = "Audiences",
    params(("service_segment_id" = String, Path, description = "The segment id the service assigned.")),
    responses(
        (status = 200, description = "The segment.", body = AudienceSegment),
        (status = 401, description = "No valid access-token JWT.", body = AudienceError),
        (status = 404, description = "No such segment in the account.", body = AudienceError),
        (status = 500, description = "Internal server error.", body = AudienceError),
    ),
    security(("bearer" = [])),
)]
pub async fn get_one(
    State(s): State<AppState>,
    JwtCaller(c): JwtCaller,
    Path(id): Path<String>,
) -> Result<Json<AudienceSegment>> {
    let acct = c.account_id;
    let now = s.clock.now_ms();
    s.db.tx(move |tx| store::audience_get(tx, acct, &id, now))
        .await
        .map(Json)
        .map_err(Error::into_audience)
}

/// Appends identifiers to an audience segment.
///
/// The body is a JSON array of `{serviceSegmentId, countryCode, values}` records; every
/// `serviceSegmentId` must be the one in the path, `countryCode` an ISO 3166-1 alpha-2
/// code, and `values` identifiers of the segment's `dataType`. It may be sent with
/// `Content-Encoding: gzip`; a request may be at most 10,000,000 bytes as sent, and may
/// inflate to at most ten times that. Uploads append: an identifier already in the
/// segment is counted once. One bad record refuses the whole payload (400 with the
/// upload answer: `published` 0, `bad_records` N, `bad_records_details` naming each
/// fault); every other failure is `{error}`. The sandbox applies an upload at once (the
/// service processes uploads about every 10 minutes); a segment with 1,000 matched
/// identifiers is `ACTIVE`. An `ARCHIVED` segment takes no data.
#[utoipa::path(
    post,
    path = "/v1/audiences/{service_segment_id}/data",
    operation_id = "audience_add_data",
    tag = "Audiences",
    params(
        ("service_segment_id" = String, Path, description = "The segment id the service assigned."),
        ("Content-Encoding" = Option<String>, Header, description = "`gzip` for a compressed body; omitted (or `identity`) for plain JSON."),
    ),
    request_body = Vec<AudienceDataRecord>,
    responses(
        (status = 200, description = "Processed: `message` is `Audience data payload processed.`, `published` the number of records.", body = AudienceDataResult),
        (status = 400, description = "Bad records (the upload answer, `message` `invalid payload: N bad record(s)`, nothing stored), or `{error}`: not a JSON array, malformed JSON or gzip, no records, or the segment is `ARCHIVED`.", body = AudienceUploadRefusal),
        (status = 401, description = "No valid access-token JWT.", body = AudienceError),
        (status = 403, description = "Read-only caller.", body = AudienceError),
        (status = 404, description = "No such segment in the account.", body = AudienceError),
        (status = 413, description = "The request is over 10,000,000 bytes as sent, or inflates to over ten times that.", body = AudienceError),
        (status = 415, description = "A `Content-Encoding` other than `gzip`.", body = AudienceError),
        (status = 500, description = "Internal server error.", body = AudienceError),
    ),
    security(("bearer" = [])),
)]
pub async fn add_data(
    State(s): State<AppState>,
    JwtWriter(c): JwtWriter,
    Path(id): Path<String>,
    UploadBody(b): UploadBody,
) -> Result<Json<AudienceDataResult>> {
    let acct = c.account_id;
    let now = s.clock.now_ms();
    s.db.tx(move |tx| store::audience_data(tx, acct, &id, b, now))
        .await
        .map(Json)
        .map_err(Error::into_audience)
}
