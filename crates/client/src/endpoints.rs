//! One typed method per endpoint of the service interface, named after it.
//!
//! Business endpoints answer [`Reply`] (the entity and the `INFO`/`WARNING` messages);
//! audience endpoints answer their plain bodies. GETs are retried per the client's
//! [`crate::retry::RetryPolicy`]; changes never are (see [`crate::Error::OutcomeUnknown`]).
//!
//! # Read-modify-write
//!
//! The service returns fields that it refuses, or ignores, on input. The save methods
//! drop them, so an entity read from a listing, edited and saved back is accepted:
//!
//! * ad orders: the output-only `io_number` is never sent. When it is the only client id
//!   set, its value goes out as `externalAdOrderId`; `ioNumber` is dropped when it equals
//!   `externalAdOrderId` (the service rejects the pair even when equal). `costOptimizationEnabled`
//!   is not sent.
//! * campaigns: `ioNumber` is dropped when it equals `externalCampaignId` (listings return
//!   both); `hasFlights` and every flight's `status` are not sent.
//!
//! Different values in both client ids are sent as they are, and the service answers
//! [`crate::Error::IdentifierConflict`]: only the user can tell which one is right.

use std::collections::{HashSet, VecDeque};

use flightdeck_model::{
    AdOrder, Advertiser, AudienceData, AudienceDataResult, AudienceList, AudienceSegment, Campaign,
    CampaignFlight, Creative, FlightCap, Id, SiteList,
};
use futures_util::stream::{self, Stream};
use reqwest::Method;
use serde::de::DeserializeOwned;

use crate::client::{Call, Client, Family, Reply};
use crate::error::Result;

/// Most pages [`Client::audiences_stream`] fetches, so a service whose pagination
/// misbehaves in a way the other guards miss cannot keep the stream going forever.
const AUDIENCE_STREAM_MAX_PAGES: u32 = 10_000;

impl Client {
    async fn get<T: DeserializeOwned + Send + 'static>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Reply<T>> {
        let url = self.url(path, &[], query)?;
        self.call_business(Call {
            method: Method::GET,
            url,
            body: None,
            family: Family::Business,
        })
        .await
    }

    async fn post<B, T>(&self, path: &str, segments: &[&str], body: &B) -> Result<Reply<T>>
    where
        B: serde::Serialize + ?Sized,
        T: DeserializeOwned + Send + 'static,
    {
        let url = self.url(path, segments, &[])?;
        self.call_business(Call {
            method: Method::POST,
            url,
            body: Some(Self::json_body(body)?),
            family: Family::Business,
        })
        .await
    }

    // ---- Advertisers ----

    /// `POST /v1/advertiser/save`: creates (no `id`) or modifies an advertiser.
    #[deprecated(
        note = "the service marks /v1/advertiser/save deprecated and publishes no replacement; it remains callable"
    )]
    pub async fn advertiser_save(&self, advertiser: &Advertiser) -> Result<Reply<Advertiser>> {
        self.post("/v1/advertiser/save", &[], advertiser).await
    }

    /// `GET /v1/advertiser`: the account's advertisers, or those with this external id.
    pub async fn advertisers(
        &self,
        external_advertiser_id: Option<&str>,
    ) -> Result<Reply<Vec<Advertiser>>> {
        let query: Vec<(&str, String)> = external_advertiser_id
            .map(|id| ("externalAdvertiserId", id.to_owned()))
            .into_iter()
            .collect();
        self.get("/v1/advertiser", &query).await
    }

    /// `GET /v1/advertiser/getAllAdvertisers`: every advertiser of the account.
    #[deprecated(note = "use `advertisers(None)` (GET /v1/advertiser), which answers the same")]
    pub async fn all_advertisers(&self) -> Result<Reply<Vec<Advertiser>>> {
        self.get("/v1/advertiser/getAllAdvertisers", &[]).await
    }

    // ---- Campaigns and flights ----

    /// `POST /v1/campaign/save`: creates (no `id`) or modifies a campaign with its
    /// flights. Response-only fields are not sent (see the module notes).
    pub async fn campaign_save(&self, campaign: &Campaign) -> Result<Reply<Campaign>> {
        self.post("/v1/campaign/save", &[], &campaign_for_save(campaign))
            .await
    }

    /// `GET /v1/campaign/getCampaignsByAdvertiser`: an advertiser's campaigns with
    /// their flights.
    pub async fn campaigns_by_advertiser(&self, advertiser_id: Id) -> Result<Reply<Vec<Campaign>>> {
        self.get(
            "/v1/campaign/getCampaignsByAdvertiser",
            &[("id", advertiser_id.to_string())],
        )
        .await
    }

    /// `POST /v1/campaignflight/byCampaign/{campaign_id}`: creates and modifies flights;
    /// answers every flight of the campaign. Flight `status` is not sent.
    #[deprecated(
        note = "send the flights in `flights` of `campaign_save` (POST /v1/campaign/save) instead"
    )]
    pub async fn campaign_flights_save(
        &self,
        campaign_id: Id,
        flights: &[CampaignFlight],
    ) -> Result<Reply<Vec<CampaignFlight>>> {
        let flights: Vec<CampaignFlight> = flights.iter().map(flight_for_save).collect();
        self.post(
            "/v1/campaignflight/byCampaign",
            &[&campaign_id.to_string()],
            &flights,
        )
        .await
    }

    /// `POST /v1/campaignflightcaps/byAdOrder/{order_id}`: adds (no `id`) and modifies
    /// an ad order's per-flight caps; answers every cap of the ad order.
    pub async fn flight_caps_save(
        &self,
        order_id: Id,
        caps: &[FlightCap],
    ) -> Result<Reply<Vec<FlightCap>>> {
        self.post(
            "/v1/campaignflightcaps/byAdOrder",
            &[&order_id.to_string()],
            caps,
        )
        .await
    }

    /// `DELETE /v1/campaignflightcaps/{cap_id}`: removes a cap; answers the caps left on
    /// its ad order. The spec mentions this endpoint without showing it; the path is the
    /// sandbox's (see its DECISIONS.md).
    pub async fn flight_cap_delete(&self, cap_id: Id) -> Result<Reply<Vec<FlightCap>>> {
        let url = self.url("/v1/campaignflightcaps", &[&cap_id.to_string()], &[])?;
        self.call_business(Call {
            method: Method::DELETE,
            url,
            body: None,
            family: Family::Business,
        })
        .await
    }

    // ---- Ad orders ----

    /// `POST /v1/adorder/save`: creates (no `id`) or modifies an ad order. The output-only
    /// `io_number` is never sent (see the module notes).
    #[deprecated(
        note = "the service marks /v1/adorder/save deprecated and publishes no replacement; it remains callable"
    )]
    pub async fn ad_order_save(&self, order: &AdOrder) -> Result<Reply<AdOrder>> {
        self.post("/v1/adorder/save", &[], &ad_order_for_save(order))
            .await
    }

    /// `GET /v1/adorder/getAllAdOrders`: every ad order of the account.
    pub async fn all_ad_orders(&self) -> Result<Reply<Vec<AdOrder>>> {
        self.get("/v1/adorder/getAllAdOrders", &[]).await
    }

    // ---- Creatives ----

    /// `POST /v1/creative/save`: creates a creative of any type and subtype.
    pub async fn creative_save(&self, creative: &Creative) -> Result<Reply<Creative>> {
        self.post("/v1/creative/save", &[], creative).await
    }

    // ---- Site lists ----

    /// `POST /v1/site-list/addNewSiteList`: creates an id-based or rule-based list;
    /// `insertedCount` says how many sites or rules went in.
    pub async fn site_list_add(&self, list: &SiteList) -> Result<Reply<SiteList>> {
        self.post("/v1/site-list/addNewSiteList", &[], list).await
    }

    /// `POST /v1/site-list/appendToSiteList`: adds sites or rules to a list.
    pub async fn site_list_append(&self, list: &SiteList) -> Result<Reply<SiteList>> {
        self.post("/v1/site-list/appendToSiteList", &[], list).await
    }

    /// `POST /v1/site-list/overwriteSiteList`: replaces a list's sites or rules.
    pub async fn site_list_overwrite(&self, list: &SiteList) -> Result<Reply<SiteList>> {
        self.post("/v1/site-list/overwriteSiteList", &[], list)
            .await
    }

    /// `POST /v1/site-list/removeSites`: removes sites from an id-based list. The entity
    /// carries only `id` and `name`; what happened is in the `INFO` message.
    pub async fn site_list_remove_sites(&self, list: &SiteList) -> Result<Reply<SiteList>> {
        self.post("/v1/site-list/removeSites", &[], list).await
    }

    // ---- Audience segments (access token only; plain bodies) ----

    /// `POST /v1/audiences`: creates a segment. The answer is the short create shape
    /// (`name`, `externalAudienceId`, `serviceSegmentId`, `status`, `ttl`); other members
    /// are `None`.
    pub async fn audience_create(&self, segment: &AudienceSegment) -> Result<AudienceSegment> {
        let url = self.url("/v1/audiences", &[], &[])?;
        self.call_audience(Call {
            method: Method::POST,
            url,
            body: Some(Self::json_body(segment)?),
            family: Family::Audience,
        })
        .await
    }

    /// `GET /v1/audiences`: one page of the account's segments, oldest first. `None`
    /// leaves the page or its size to the service (the sandbox: page 1, 50 per page).
    pub async fn audiences(
        &self,
        page: Option<u32>,
        page_size: Option<u32>,
    ) -> Result<AudienceList> {
        let mut query = Vec::new();
        if let Some(page) = page {
            query.push(("page", page.to_string()));
        }
        if let Some(size) = page_size {
            query.push(("pageSize", size.to_string()));
        }
        let url = self.url("/v1/audiences", &[], &query)?;
        self.call_audience(Call {
            method: Method::GET,
            url,
            body: None,
            family: Family::Audience,
        })
        .await
    }

    /// `GET /v1/audiences/{serviceSegmentId}`: one segment.
    pub async fn audience(&self, service_segment_id: &str) -> Result<AudienceSegment> {
        let url = self.url("/v1/audiences", &[service_segment_id], &[])?;
        self.call_audience(Call {
            method: Method::GET,
            url,
            body: None,
            family: Family::Audience,
        })
        .await
    }

    /// `POST /v1/audiences/{serviceSegmentId}/data`: adds identifiers of the segment's
    /// data type; malformed ones are counted as rejected, not refused.
    pub async fn audience_add_data(
        &self,
        service_segment_id: &str,
        data: &AudienceData,
    ) -> Result<AudienceDataResult> {
        let url = self.url("/v1/audiences", &[service_segment_id, "data"], &[])?;
        self.call_audience(Call {
            method: Method::POST,
            url,
            body: Some(Self::json_body(data)?),
            family: Family::Audience,
        })
        .await
    }

    /// Every segment of the account, fetched `page_size` at a time as the stream is read.
    ///
    /// The pagination contract is not published, so the stream guards against a service
    /// that ignores it: it ends after an empty page, a short page, a page that answers
    /// another page number than asked, or one holding only segments already yielded, and
    /// after 10,000 pages in any case. An error is yielded once and
    /// ends the stream.
    pub fn audiences_stream(
        &self,
        page_size: u32,
    ) -> impl Stream<Item = Result<AudienceSegment>> + Send + 'static {
        let state = Pager {
            client: self.clone(),
            page_size,
            next_page: 1,
            seen: HashSet::new(),
            buffer: VecDeque::new(),
            done: false,
        };
        stream::unfold(state, |mut state| async move {
            loop {
                if let Some(item) = state.buffer.pop_front() {
                    return Some((Ok(item), state));
                }
                if state.done {
                    return None;
                }
                if let Err(e) = state.fetch().await {
                    state.done = true;
                    return Some((Err(e), state));
                }
            }
        })
    }
}

/// State of [`Client::audiences_stream`].
struct Pager {
    client: Client,
    page_size: u32,
    next_page: u32,
    seen: HashSet<String>,
    buffer: VecDeque<AudienceSegment>,
    done: bool,
}

impl Pager {
    /// Fetches the next page into the buffer, deciding whether it is the last.
    async fn fetch(&mut self) -> Result<()> {
        if self.next_page > AUDIENCE_STREAM_MAX_PAGES {
            self.done = true;
            return Ok(());
        }
        let page = self.next_page;
        let list = self
            .client
            .audiences(Some(page), Some(self.page_size))
            .await?;
        let count = list.audiences.len();
        let answered_other_page = list.pagination.page != i64::from(page);
        let all_seen = list.audiences.iter().all(|s| {
            s.service_segment_id
                .as_ref()
                .is_some_and(|id| self.seen.contains(id))
        });
        if count == 0 || answered_other_page || all_seen {
            self.done = true;
            return Ok(());
        }
        // The service may cap the size it was asked for; a page is short against the
        // size it says it used.
        let size = if list.pagination.page_size > 0 {
            list.pagination.page_size
        } else {
            i64::from(self.page_size)
        };
        if i64::try_from(count).unwrap_or(i64::MAX) < size {
            self.done = true;
        }
        for segment in list.audiences {
            if let Some(id) = &segment.service_segment_id
                && !self.seen.insert(id.clone())
            {
                continue;
            }
            self.buffer.push_back(segment);
        }
        self.next_page = page.saturating_add(1);
        Ok(())
    }
}

/// The ad order as it may be sent back (see the module notes).
fn ad_order_for_save(order: &AdOrder) -> AdOrder {
    let mut out = order.clone();
    let read_back = out.io_number_out.take();
    out.cost_optimization_enabled = None;
    if out.io_number.is_some() && out.io_number == out.external_ad_order_id {
        out.io_number = None;
    }
    if out.io_number.is_none() && out.external_ad_order_id.is_none() {
        out.external_ad_order_id = read_back;
    }
    out
}

/// The campaign as it may be sent back (see the module notes).
fn campaign_for_save(campaign: &Campaign) -> Campaign {
    let mut out = campaign.clone();
    out.has_flights = None;
    if out.io_number.is_some() && out.io_number == out.external_campaign_id {
        out.io_number = None;
    }
    if let Some(flights) = &mut out.flights {
        for flight in flights {
            flight.status = None;
        }
    }
    out
}

/// The flight as it may be sent: `status` is derived by the service.
fn flight_for_save(flight: &CampaignFlight) -> CampaignFlight {
    CampaignFlight {
        status: None,
        ..flight.clone()
    }
}

#[cfg(test)]
mod tests {
    use flightdeck_model::FlightStatus;
    use serde_json::json;

    use super::*;

    #[test]
    fn ad_order_read_back_sends_one_client_id() {
        let read = AdOrder {
            io_number_out: Some("IO-1".into()),
            external_ad_order_id: Some("IO-1".into()),
            cost_optimization_enabled: Some(true),
            ..AdOrder::default()
        };
        let out = serde_json::to_value(ad_order_for_save(&read)).unwrap_or_default();
        assert_eq!(out, json!({"externalAdOrderId": "IO-1"}));

        let only_output = AdOrder {
            io_number_out: Some("IO-2".into()),
            ..AdOrder::default()
        };
        let out = serde_json::to_value(ad_order_for_save(&only_output)).unwrap_or_default();
        assert_eq!(out, json!({"externalAdOrderId": "IO-2"}));

        let user_set_input = AdOrder {
            io_number: Some("NEW".into()),
            io_number_out: Some("OLD".into()),
            ..AdOrder::default()
        };
        let out = serde_json::to_value(ad_order_for_save(&user_set_input)).unwrap_or_default();
        assert_eq!(out, json!({"ioNumber": "NEW"}));

        let conflict = AdOrder {
            io_number: Some("A".into()),
            external_ad_order_id: Some("B".into()),
            ..AdOrder::default()
        };
        let out = serde_json::to_value(ad_order_for_save(&conflict)).unwrap_or_default();
        assert_eq!(out, json!({"ioNumber": "A", "externalAdOrderId": "B"}));
    }

    #[test]
    fn campaign_read_back_drops_response_only_fields() {
        let read = Campaign {
            io_number: Some("C-1".into()),
            external_campaign_id: Some("C-1".into()),
            has_flights: Some(true),
            flights: Some(vec![CampaignFlight {
                id: Some(4),
                status: Some(Some(FlightStatus::Active)),
                ..CampaignFlight::default()
            }]),
            ..Campaign::default()
        };
        let out = serde_json::to_value(campaign_for_save(&read)).unwrap_or_default();
        assert_eq!(
            out,
            json!({"externalCampaignId": "C-1", "flights": [{"id": 4}]})
        );
    }
}
