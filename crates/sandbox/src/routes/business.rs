//! Handlers of the envelope endpoints.
//!
//! Each handler carries its `#[utoipa::path]` description; [`Operations`] collects
//! them for [`crate::openapi`], which cannot name this private module.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use flightdeck_model::Envelope;
use flightdeck_model::{
    AdOrder, Advertiser, Campaign, CampaignFlight, Creative, FlightCap, SiteList,
};
use rusqlite::Transaction;
use serde_json::Value;

use super::{path_id, query_number};
use crate::AppState;
use crate::auth::{Caller, User, Writer};
use crate::error::{Error, Result};
use crate::extract::JsonBody;
use crate::openapi::{
    EnvelopeBadRequest, EnvelopeForbidden, EnvelopeNotFound, EnvelopeUnauthorized,
};
use crate::store;

type Answer = Result<Json<Envelope<Value>>>;

/// The operations of this module, handed to [`crate::openapi`] through
/// [`crate::openapi::document`].
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    advertiser_save,
    advertisers,
    all_advertisers,
    campaign_save,
    campaigns_by_advertiser,
    flights_by_campaign,
    flight_caps_by_ad_order,
    flight_cap_delete,
    adorder_save,
    all_ad_orders,
    creative_save,
    site_list_add,
    site_list_append,
    site_list_overwrite,
    site_list_remove,
))]
pub(crate) struct Operations;

/// Runs a write in one transaction; [`Writer`] has already refused read-only callers.
async fn write<F>(s: &AppState, c: &Caller, f: F) -> Answer
where
    F: FnOnce(&Transaction<'_>, i64, i64) -> Result<Envelope<Value>> + Send + 'static,
{
    let (account, now) = (c.account_id, s.clock.now_ms());
    Ok(Json(s.db.tx(move |tx| f(tx, account, now)).await?))
}

/// Runs a read in one transaction.
async fn read<F>(s: &AppState, c: &Caller, f: F) -> Answer
where
    F: FnOnce(&Transaction<'_>, i64, i64) -> Result<Envelope<Value>> + Send + 'static,
{
    let (account, now) = (c.account_id, s.clock.now_ms());
    Ok(Json(s.db.tx(move |tx| f(tx, account, now)).await?))
}

/// Creates or modifies an advertiser (deprecated).
///
/// `id` null or omitted creates; an existing `id` modifies. `agencyId`, `currency`,
/// `category` and `timezoneName` are required on insert and ignored on update.
#[utoipa::path(
    post,
    path = "/v1/advertiser/save",
    tag = "Advertisers",
    request_body = Advertiser,
    responses(
        (status = 200, description = "The saved advertiser.", body = Envelope<Advertiser>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn advertiser_save(
    State(s): State<AppState>,
    Writer(c): Writer,
    JsonBody(b): JsonBody,
) -> Answer {
    write(&s, &c, move |tx, acct, now| {
        store::advertiser_save(tx, acct, b, now)
    })
    .await
}

/// Lists the account's advertisers, optionally only the one with an external id.
#[utoipa::path(
    get,
    path = "/v1/advertiser",
    tag = "Advertisers",
    params(
        ("externalAdvertiserId" = Option<String>, Query,
            description = "Only the advertiser with this external advertiser id."),
    ),
    responses(
        (status = 200, description = "The advertisers.", body = Envelope<Vec<Advertiser>>),
        EnvelopeUnauthorized,
        EnvelopeForbidden,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn advertisers(
    State(s): State<AppState>,
    User(c): User,
    Query(q): Query<HashMap<String, String>>,
) -> Answer {
    let external = q.get("externalAdvertiserId").cloned();
    read(&s, &c, move |tx, acct, _now| {
        store::advertisers_list(tx, acct, external.as_deref())
    })
    .await
}

/// Lists all of the account's advertisers (deprecated).
#[utoipa::path(
    get,
    path = "/v1/advertiser/getAllAdvertisers",
    tag = "Advertisers",
    responses(
        (status = 200, description = "The advertisers.", body = Envelope<Vec<Advertiser>>),
        EnvelopeUnauthorized,
        EnvelopeForbidden,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn all_advertisers(State(s): State<AppState>, User(c): User) -> Answer {
    read(&s, &c, move |tx, acct, _now| {
        store::advertisers_list(tx, acct, None)
    })
    .await
}

/// Creates or modifies a campaign, optionally with campaign flights.
///
/// `id` omitted or null creates; a valid `id` modifies. The answer carries `hasFlights`
/// and the campaign's `flights`.
#[utoipa::path(
    post,
    path = "/v1/campaign/save",
    tag = "Campaigns",
    request_body = Campaign,
    responses(
        (status = 200, description = "The saved campaign.", body = Envelope<Campaign>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn campaign_save(
    State(s): State<AppState>,
    Writer(c): Writer,
    JsonBody(b): JsonBody,
) -> Answer {
    write(&s, &c, move |tx, acct, now| {
        store::campaign_save(tx, acct, b, now)
    })
    .await
}

/// Lists an advertiser's campaigns with their flights.
#[utoipa::path(
    get,
    path = "/v1/campaign/getCampaignsByAdvertiser",
    tag = "Campaigns",
    params(("id" = i64, Query, description = "The advertiser id.")),
    responses(
        (status = 200, description = "The advertiser's campaigns.", body = Envelope<Vec<Campaign>>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn campaigns_by_advertiser(
    State(s): State<AppState>,
    User(c): User,
    Query(q): Query<HashMap<String, String>>,
) -> Answer {
    let id = query_number(q.get("id").map(String::as_str), "id")?
        .ok_or_else(|| Error::Malformed("id: the advertiser id is required".into()))?;
    read(&s, &c, move |tx, acct, now| {
        store::campaigns_by_advertiser(tx, acct, id, now)
    })
    .await
}

/// Creates and modifies a campaign's flights (deprecated).
///
/// A flight with `id` null is created; an existing `id` is updated. A new flight must
/// start in the future, and no two flights of a campaign may overlap. The answer is every
/// flight of the campaign.
#[utoipa::path(
    post,
    path = "/v1/campaignflight/byCampaign/{campaign_id}",
    tag = "Campaign flights",
    params(("campaign_id" = i64, Path, description = "The campaign id.")),
    request_body = Vec<CampaignFlight>,
    responses(
        (status = 200, description = "All flights of the campaign.", body = Envelope<Vec<CampaignFlight>>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn flights_by_campaign(
    State(s): State<AppState>,
    Writer(c): Writer,
    Path(campaign): Path<String>,
    JsonBody(b): JsonBody,
) -> Answer {
    let id = path_id(&campaign, "campaign")?;
    write(&s, &c, move |tx, acct, now| {
        store::flights_by_campaign(tx, acct, id, b, now)
    })
    .await
}

/// Adds and modifies an ad order's per-flight caps.
///
/// A cap with `id` null is added; only the caps sent are modified. The answer is every
/// cap of the ad order.
#[utoipa::path(
    post,
    path = "/v1/campaignflightcaps/byAdOrder/{order_id}",
    tag = "Flight caps",
    params(("order_id" = i64, Path, description = "The ad order id.")),
    request_body = Vec<FlightCap>,
    responses(
        (status = 200, description = "All caps of the ad order.", body = Envelope<Vec<FlightCap>>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn flight_caps_by_ad_order(
    State(s): State<AppState>,
    Writer(c): Writer,
    Path(order): Path<String>,
    JsonBody(b): JsonBody,
) -> Answer {
    let id = path_id(&order, "ad order")?;
    write(&s, &c, move |tx, acct, _now| {
        store::flight_caps_by_ad_order(tx, acct, id, b)
    })
    .await
}

/// Removes a per-flight cap.
///
/// The delete endpoint the service mentions without showing. The answer is every cap
/// that remains on the ad order.
#[utoipa::path(
    delete,
    path = "/v1/campaignflightcaps/{cap_id}",
    tag = "Flight caps",
    params(("cap_id" = i64, Path, description = "The flight cap id.")),
    responses(
        (status = 200, description = "The caps left on the ad order.", body = Envelope<Vec<FlightCap>>),
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn flight_cap_delete(
    State(s): State<AppState>,
    Writer(c): Writer,
    Path(cap): Path<String>,
) -> Answer {
    let id = path_id(&cap, "flight cap")?;
    write(&s, &c, move |tx, acct, _now| {
        store::flight_cap_delete(tx, acct, id)
    })
    .await
}

/// Creates or modifies an ad order (deprecated).
///
/// Send at most one of `ioNumber` and `externalAdOrderId` (both is a 400); the answer
/// carries both `io_number` and `externalAdOrderId`. `frequencyCap` needs all three
/// members when present; `hourlyFrontload` is required with `SPEND_EVENLY` pacing.
#[utoipa::path(
    post,
    path = "/v1/adorder/save",
    tag = "Ad orders",
    request_body = AdOrder,
    responses(
        (status = 200, description = "The saved ad order.", body = Envelope<AdOrder>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn adorder_save(
    State(s): State<AppState>,
    Writer(c): Writer,
    JsonBody(b): JsonBody,
) -> Answer {
    write(&s, &c, move |tx, acct, now| {
        store::adorder_save(tx, acct, b, now)
    })
    .await
}

/// Lists every ad order of the account.
///
/// Answers the pre-rendered envelope, so 100,000 ad orders are not parsed to be listed.
#[utoipa::path(
    get,
    path = "/v1/adorder/getAllAdOrders",
    tag = "Ad orders",
    description = "Every ad order under the account, with all ad order response fields.",
    responses(
        (status = 200, description = "The account's ad orders.", body = Envelope<Vec<AdOrder>>),
        EnvelopeUnauthorized,
        EnvelopeForbidden,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn all_ad_orders(State(s): State<AppState>, User(c): User) -> Result<impl IntoResponse> {
    let acct = c.account_id;
    let body =
        s.db.call(move |conn| {
            let tx = conn.transaction()?;
            store::ad_orders_all(&tx, acct)
        })
        .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body))
}

/// Creates a creative.
///
/// `id` is omitted: the service has no creative update, so a request with an `id` is a
/// 400 (`INVALID` on `id`) and changes nothing; save a new creative instead. The common
/// fields plus the payload of the `creativeType` and `creativeSubtype` pair; validation
/// failures are reported in `messages`. The new creative is `PENDING` (review), or
/// `INCOMPLETE` for an image creative without `size`, or `DISABLED` when sent so.
#[utoipa::path(
    post,
    path = "/v1/creative/save",
    tag = "Creatives",
    request_body = Creative,
    responses(
        (status = 200, description = "The created creative.", body = Envelope<Creative>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn creative_save(
    State(s): State<AppState>,
    Writer(c): Writer,
    JsonBody(b): JsonBody,
) -> Answer {
    write(&s, &c, move |tx, acct, now| {
        store::creative_save(tx, acct, b, now)
    })
    .await
}

/// Creates a site list, id based (`siteIds`) or rule based (`strategy` and `rules`).
#[utoipa::path(
    post,
    path = "/v1/site-list/addNewSiteList",
    tag = "Site lists",
    request_body = SiteList,
    responses(
        (status = 200, description = "The new list; `insertedCount` is the number of sites or rules added.",
            body = Envelope<SiteList>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn site_list_add(
    State(s): State<AppState>,
    Writer(c): Writer,
    JsonBody(b): JsonBody,
) -> Answer {
    write(&s, &c, move |tx, acct, _now| {
        store::site_list_add(tx, acct, b)
    })
    .await
}

/// Appends sites or rules to an existing site list.
#[utoipa::path(
    post,
    path = "/v1/site-list/appendToSiteList",
    tag = "Site lists",
    request_body = SiteList,
    responses(
        (status = 200, description = "The list; `insertedCount` is the number appended.", body = Envelope<SiteList>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn site_list_append(
    State(s): State<AppState>,
    Writer(c): Writer,
    JsonBody(b): JsonBody,
) -> Answer {
    write(&s, &c, move |tx, acct, _now| {
        store::site_list_append(tx, acct, b)
    })
    .await
}

/// Replaces the sites or rules of an existing site list.
#[utoipa::path(
    post,
    path = "/v1/site-list/overwriteSiteList",
    tag = "Site lists",
    request_body = SiteList,
    responses(
        (status = 200, description = "The list; `insertedCount` is the number written.", body = Envelope<SiteList>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn site_list_overwrite(
    State(s): State<AppState>,
    Writer(c): Writer,
    JsonBody(b): JsonBody,
) -> Answer {
    write(&s, &c, move |tx, acct, _now| {
        store::site_list_overwrite(tx, acct, b)
    })
    .await
}

/// Removes sites from an id-based site list.
///
/// The answer's entity carries only `id` and `name`; `messages` carries an `INFO` entry.
#[utoipa::path(
    post,
    path = "/v1/site-list/removeSites",
    tag = "Site lists",
    request_body = SiteList,
    responses(
        (status = 200, description = "The list's `id` and `name`, other members null.", body = Envelope<SiteList>),
        EnvelopeBadRequest,
        EnvelopeUnauthorized,
        EnvelopeForbidden,
        EnvelopeNotFound,
    ),
    security(("bearer" = []), ("basic" = [])),
)]
pub async fn site_list_remove(
    State(s): State<AppState>,
    Writer(c): Writer,
    JsonBody(b): JsonBody,
) -> Answer {
    write(&s, &c, move |tx, acct, _now| {
        store::site_list_remove(tx, acct, b)
    })
    .await
}
