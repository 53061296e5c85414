//! Admin routes around the trafficking endpoints: what the real service does by human
//! review or in its UI, and what no `/v1` endpoint shows.
//!
//! | Method and path | Body | Answer |
//! |---|---|---|
//! | `PUT /_sandbox/creatives/{id}/status` | `{"status": "APPROVED"}` (any known creative status) | the creative as listed |
//! | `POST /_sandbox/creative-ad-orders` | `{"creativeId": 1, "adOrderId": 2}` | the association |
//! | `GET /_sandbox/adorders/{id}/status` | | `{"id", "status"}` (the status `updateStatus` answers) |
//!
//! They work on any account's ids. An unknown id is `404 {"error"}`, any other refusal
//! `400 {"error"}`.

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde::Deserialize;
use serde_json::Value;

use super::{Admin, hidden, parse};
use crate::AppState;
use crate::error::Error;
use crate::store;

/// The routes of this module.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/_sandbox/creatives/{id}/status",
            hidden(put(creative_status)),
        )
        .route("/_sandbox/creative-ad-orders", hidden(post(associate)))
        .route(
            "/_sandbox/adorders/{id}/status",
            hidden(get(ad_order_status)),
        )
}

/// An admin refusal: 404 for an unknown id, 500 for a storage failure (logged, not
/// sent), 400 otherwise; always `{"error"}`.
struct Refused(Error);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        let (status, text) = match &self.0 {
            Error::NotFound(m) => (StatusCode::NOT_FOUND, m.clone()),
            e if e.is_internal() => {
                tracing::error!(error = %e, "admin route failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal error".to_owned(),
                )
            }
            e => (StatusCode::BAD_REQUEST, e.to_string()),
        };
        (status, Json(serde_json::json!({ "error": text }))).into_response()
    }
}

fn id_of(raw: &str) -> Result<i64, Refused> {
    raw.parse()
        .map_err(|_| Refused(Error::NotFound(format!("{raw} is not an id"))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusBody {
    status: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Association {
    creative_id: i64,
    ad_order_id: i64,
}

/// `PUT /_sandbox/creatives/{id}/status`.
async fn creative_status(
    _admin: Admin,
    State(s): State<AppState>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, Response> {
    let id = id_of(&id).map_err(IntoResponse::into_response)?;
    let StatusBody { status } = parse(&body).map_err(IntoResponse::into_response)?;
    s.db.tx(move |tx| store::admin_creative_status(tx, id, &status))
        .await
        .map(Json)
        .map_err(|e| Refused(e).into_response())
}

/// `POST /_sandbox/creative-ad-orders`.
async fn associate(
    _admin: Admin,
    State(s): State<AppState>,
    body: Bytes,
) -> Result<Json<Value>, Response> {
    let a: Association = parse(&body).map_err(IntoResponse::into_response)?;
    s.db.tx(move |tx| store::admin_associate(tx, a.creative_id, a.ad_order_id))
        .await
        .map(Json)
        .map_err(|e| Refused(e).into_response())
}

/// `GET /_sandbox/adorders/{id}/status`.
async fn ad_order_status(
    _admin: Admin,
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, Response> {
    let id = id_of(&id).map_err(IntoResponse::into_response)?;
    let now = s.clock.now_ms();
    s.db.tx(move |tx| store::admin_ad_order_status(tx, id, now))
        .await
        .map(Json)
        .map_err(|e| Refused(e).into_response())
}
