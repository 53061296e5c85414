//! Handlers of the audience-segment endpoints: JWT only, plain bodies, `{error}` failures.
//!
//! Each handler carries its `#[utoipa::path]` description; [`Operations`] collects
//! them for [`crate::openapi`], which cannot name this private module.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{FromRequest, Path, Query, Request, State};
use flightdeck_model::{
    AudienceData, AudienceDataResult, AudienceError, AudienceList, AudienceSegment,
};
use serde_json::Value;

use super::query_number;
use crate::AppState;
use crate::auth::JwtCaller;
use crate::error::{Error, Result};
use crate::extract::JsonBody;
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
    JwtCaller(c): JwtCaller,
    AudienceBody(b): AudienceBody,
) -> Result<Json<Value>> {
    let acct = c.account_id;
    let now = s.clock.now_ms();
    let out = async {
        c.require_write()?;
        s.db.tx(move |tx| store::audience_create(tx, acct, b, now))
            .await
    };
    out.await.map(Json).map_err(Error::into_audience)
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

/// Reads one audience segment.
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

/// Adds identifiers of the segment's `dataType` to an audience segment.
///
/// Malformed identifiers are counted as rejected. A segment holding enough identifiers
/// becomes `ACTIVE`.
#[utoipa::path(
    post,
    path = "/v1/audiences/{service_segment_id}/data",
    operation_id = "audience_add_data",
    tag = "Audiences",
    params(("service_segment_id" = String, Path, description = "The segment id the service assigned.")),
    request_body = AudienceData,
    responses(
        (status = 200, description = "Counts of the upload and the segment's status after it.", body = AudienceDataResult),
        (status = 400, description = "The body is malformed or too large.", body = AudienceError),
        (status = 401, description = "No valid access-token JWT.", body = AudienceError),
        (status = 403, description = "Read-only caller.", body = AudienceError),
        (status = 404, description = "No such segment in the account.", body = AudienceError),
        (status = 500, description = "Internal server error.", body = AudienceError),
    ),
    security(("bearer" = [])),
)]
pub async fn add_data(
    State(s): State<AppState>,
    JwtCaller(c): JwtCaller,
    Path(id): Path<String>,
    AudienceBody(b): AudienceBody,
) -> Result<Json<AudienceDataResult>> {
    let acct = c.account_id;
    let now = s.clock.now_ms();
    let out = async {
        c.require_write()?;
        s.db.tx(move |tx| store::audience_data(tx, acct, &id, b, now))
            .await
    };
    out.await.map(Json).map_err(Error::into_audience)
}
