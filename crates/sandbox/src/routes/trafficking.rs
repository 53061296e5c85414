//! Handlers of the trafficking endpoints from the service's reference beyond the
//! interface document: creative listings, a campaign's ad orders, ad-order status.
//!
//! Each handler carries its `#[utoipa::path]` description; [`Operations`] collects
//! them for [`crate::openapi`].

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use flightdeck_model::{AdOrder, AdOrderStatusUpdate, Envelope, ListedCreative};
use serde_json::Value;

use super::{path_id, query_number};
use crate::AppState;
use crate::auth::{User, Writer};
use crate::error::{Error, Result};
use crate::extract::JsonBody;
use crate::openapi::{
    EnvelopeBadRequest, EnvelopeForbidden, EnvelopeNotFound, EnvelopeUnauthorized,
};
use crate::store;

type Answer = Result<Json<Envelope<Value>>>;

/// The operations of this module, handed to [`crate::openapi`].
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    creatives_by_campaign,
    creatives_by_ad_order,
    adorder_update_status,
    ad_orders_by_campaign,
))]
pub(crate) struct Operations;

/// Lists a campaign's creatives: those saved with it and those associated with one of
/// its ad orders.
#[utoipa::path(
    get,
    path = "/v1/campaign/{campaign_id}/creatives",
    tag = "Creatives",
    params(("campaign_id" = i64, Path, description = "The campaign id.")),
    responses(
        (status = 200, description = "The campaign's creatives.", body = Envelope<Vec<ListedCreative>>),
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn creatives_by_campaign(
    State(s): State<AppState>,
    User(c): User,
    Path(campaign): Path<String>,
) -> Answer {
    let id = path_id(&campaign, "campaign")?;
    let acct = c.account_id;
    Ok(Json(
        s.db.tx(move |tx| store::creatives_by_campaign(tx, acct, id))
            .await?,
    ))
}

/// Lists the creatives associated with an ad order.
#[utoipa::path(
    get,
    path = "/v1/creative/getCreativesByAdOrder/{ad_order_id}",
    tag = "Creatives",
    params(("ad_order_id" = i64, Path, description = "The ad order id.")),
    responses(
        (status = 200, description = "The ad order's creatives.", body = Envelope<Vec<ListedCreative>>),
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn creatives_by_ad_order(
    State(s): State<AppState>,
    User(c): User,
    Path(order): Path<String>,
) -> Answer {
    let id = path_id(&order, "ad order")?;
    let acct = c.account_id;
    Ok(Json(
        s.db.tx(move |tx| store::creatives_by_ad_order(tx, acct, id))
            .await?,
    ))
}

/// Sets an ad order's status: 0 Inactive, 1 Active, 2 Archived, 3 Paused, 4 Completed.
///
/// Setting the status the ad order has changes nothing and succeeds. Nothing leaves
/// Archived; Completed is never set (the end date passing makes it), and a completed ad
/// order can only be archived: these are 400s on `status`.
#[utoipa::path(
    post,
    path = "/v1/adorder/updateStatus",
    tag = "Ad orders",
    request_body = AdOrderStatusUpdate,
    responses(
        (status = 200, description = "The ad order's id and new status.", body = Envelope<AdOrderStatusUpdate>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn adorder_update_status(
    State(s): State<AppState>,
    Writer(c): Writer,
    JsonBody(b): JsonBody,
) -> Answer {
    let (acct, now) = (c.account_id, s.clock.now_ms());
    Ok(Json(
        s.db.tx(move |tx| store::adorder_update_status(tx, acct, b, now))
            .await?,
    ))
}

/// Lists a campaign's ad orders, with the fields of `getAllAdOrders`.
#[utoipa::path(
    get,
    path = "/v1/adorder/getAdOrdersByCampaign",
    tag = "Ad orders",
    params(("id" = i64, Query, description = "The campaign id.")),
    responses(
        (status = 200, description = "The campaign's ad orders.", body = Envelope<Vec<AdOrder>>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn ad_orders_by_campaign(
    State(s): State<AppState>,
    User(c): User,
    Query(q): Query<HashMap<String, String>>,
) -> Result<impl IntoResponse> {
    let id = query_number(q.get("id").map(String::as_str), "id")?
        .ok_or_else(|| Error::Malformed("id: the campaign id is required".into()))?;
    let acct = c.account_id;
    let body =
        s.db.tx(move |tx| store::ad_orders_by_campaign(tx, acct, id))
            .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body))
}
