//! `/v1` business and audience endpoints. Handlers only translate HTTP: they take the
//! caller and body, run a [`crate::store`] function in one transaction, and return its
//! result. A rejected request commits nothing.

pub(crate) mod audiences;
pub(crate) mod business;
pub(crate) mod trafficking;

use axum::Router;
use axum::routing::{delete, get, post};

use crate::AppState;
use crate::error::{Error, Result};

/// Every business and audience route.
pub fn router() -> Router<AppState> {
    use business::*;
    Router::new()
        .route("/v1/advertiser/save", post(advertiser_save))
        .route("/v1/advertiser", get(advertisers))
        .route("/v1/advertiser/getAllAdvertisers", get(all_advertisers))
        .route("/v1/campaign/save", post(campaign_save))
        .route(
            "/v1/campaign/getCampaignsByAdvertiser",
            get(campaigns_by_advertiser),
        )
        .route(
            "/v1/campaignflight/byCampaign/{campaign_id}",
            post(flights_by_campaign),
        )
        .route(
            "/v1/campaignflightcaps/byAdOrder/{order_id}",
            post(flight_caps_by_ad_order),
        )
        .route("/v1/campaignflightcaps/{cap_id}", delete(flight_cap_delete))
        .route("/v1/adorder/save", post(adorder_save))
        .route("/v1/adorder/getAllAdOrders", get(all_ad_orders))
        .route("/v1/creative/save", post(creative_save))
        .route(
            "/v1/campaign/{campaign_id}/creatives",
            get(trafficking::creatives_by_campaign),
        )
        .route(
            "/v1/creative/getCreativesByAdOrder/{ad_order_id}",
            get(trafficking::creatives_by_ad_order),
        )
        .route(
            "/v1/adorder/updateStatus",
            post(trafficking::adorder_update_status),
        )
        .route(
            "/v1/adorder/getAdOrdersByCampaign",
            get(trafficking::ad_orders_by_campaign),
        )
        .route("/v1/site-list/addNewSiteList", post(site_list_add))
        .route("/v1/site-list/appendToSiteList", post(site_list_append))
        .route("/v1/site-list/overwriteSiteList", post(site_list_overwrite))
        .route("/v1/site-list/removeSites", post(site_list_remove))
        .route(
            "/v1/audiences",
            post(audiences::create).get(audiences::list),
        )
        .route(
            "/v1/audiences/{service_segment_id}",
            get(audiences::get_one),
        )
        .route(
            "/v1/audiences/{service_segment_id}/data",
            post(audiences::add_data),
        )
}

/// A numeric id from the path; anything else names no entity, so it is a 404.
fn path_id(raw: &str, what: &str) -> Result<i64> {
    raw.parse()
        .map_err(|_| Error::NotFound(format!("{what} {raw} not found")))
}

/// An optional numeric query parameter; a malformed one is a 400 naming it.
fn query_number(raw: Option<&str>, name: &str) -> Result<Option<i64>> {
    raw.map(|v| {
        v.trim()
            .parse()
            .map_err(|_| Error::Malformed(format!("{name}: expected a whole number, got \"{v}\"")))
    })
    .transpose()
}
