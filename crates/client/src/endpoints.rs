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
//! * client ids: the service rejects `ioNumber` (or `io_number`) together with
//!   `externalAdOrderId`, and `ioNumber` together with `externalCampaignId`, even when the
//!   values are equal, yet listings return both with one value. The save methods send
//!   [`AdOrder::request_body`] / [`Campaign::request_body`] without a base, which drops
//!   the output-only `io_number` and one of two equal ids. Callers that know the entity
//!   as last read (the workspace) pass bodies built with that base, which also tells
//!   which of two different ids the buyer edited; this is the safety net for the rest.
//!   Two different ids that neither rule resolves are sent as they are, and the service
//!   answers [`crate::Error::IdentifierConflict`]: only the user can tell which is right.
//! * ad orders: `costOptimizationEnabled` is not sent.
//! * campaigns: `hasFlights` and every flight's `status` are not sent.

use std::collections::{HashSet, VecDeque};

use flightdeck_model::{
    AUDIENCE_UPLOAD_MAX_BYTES, AdOrder, AdOrderStatus, AdOrderStatusUpdate, Advertiser,
    AudienceData, AudienceDataResult, AudienceList, AudienceSegment, Campaign, CampaignFlight,
    Creative, FlightCap, Id, ListedCreative, SiteList,
};
use futures_util::stream::{self, Stream};
use reqwest::Method;
use serde::de::DeserializeOwned;

use crate::client::{Call, Client, Family, Reply};
use crate::error::{Error, Result};
use crate::upload;

/// Most pages [`Client::audiences_stream`] fetches, so a service whose pagination
/// misbehaves in a way the other guards miss cannot keep the stream going forever.
const AUDIENCE_STREAM_MAX_PAGES: u32 = 10_000;

impl Client {
    /// Every GET of a business endpoint answers a list, decoded while it downloads.
    async fn get<E: DeserializeOwned + Send + 'static>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Reply<Vec<E>>> {
        let url = self.url(path, &[], query)?;
        self.call_listing(Call {
            method: Method::GET,
            url,
            body: None,
            gzip: false,
            family: Family::Business,
        })
        .await
    }

    /// As [`Client::get`], for a listing whose path carries ids (`segments`, encoded).
    async fn get_at<E: DeserializeOwned + Send + 'static>(
        &self,
        path: &str,
        segments: &[&str],
    ) -> Result<Reply<Vec<E>>> {
        let url = self.url(path, segments, &[])?;
        self.call_listing(Call {
            method: Method::GET,
            url,
            body: None,
            gzip: false,
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
            gzip: false,
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
    /// flights. At most one client id and no response-only field is sent (see the module
    /// notes).
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
            gzip: false,
            family: Family::Business,
        })
        .await
    }

    // ---- Ad orders ----

    /// `POST /v1/adorder/save`: creates (no `id`) or modifies an ad order. At most one
    /// client id and no output-only field is sent (see the module notes).
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

    /// `GET /v1/adorder/getAdOrdersByCampaign?id=`: a campaign's ad orders, with the
    /// fields of [`Client::all_ad_orders`] (no status). From the service's reference,
    /// beyond the interface document.
    pub async fn ad_orders_by_campaign(&self, campaign_id: Id) -> Result<Reply<Vec<AdOrder>>> {
        self.get(
            "/v1/adorder/getAdOrdersByCampaign",
            &[("id", campaign_id.to_string())],
        )
        .await
    }

    /// `POST /v1/adorder/updateStatus`: sets an ad order's status; answers its id and
    /// status. Never retried, like every change; the service treats setting the status an
    /// ad order already has as a success, so a caller whose answer was lost may send it
    /// again. `messages` may come as plain strings (the reference types them so): they
    /// are read as `INFO` texts. From the service's reference.
    pub async fn ad_order_update_status(
        &self,
        ad_order_id: Id,
        status: AdOrderStatus,
    ) -> Result<Reply<AdOrderStatusUpdate>> {
        let body = AdOrderStatusUpdate::new(ad_order_id, status);
        self.post("/v1/adorder/updateStatus", &[], &body).await
    }

    // ---- Creatives ----

    /// `GET /v1/campaign/{campaignId}/creatives`: a campaign's creatives as the service
    /// lists them (status, type, size, channels, URLs and pixels; no type-specific
    /// payload). From the service's reference.
    pub async fn campaign_creatives(&self, campaign_id: Id) -> Result<Reply<Vec<ListedCreative>>> {
        self.get_at("/v1/campaign", &[&campaign_id.to_string(), "creatives"])
            .await
    }

    /// `GET /v1/creative/getCreativesByAdOrder/{adOrderId}`: the creatives associated
    /// with an ad order, as [`Client::campaign_creatives`] lists them. From the
    /// service's reference.
    pub async fn creatives_by_ad_order(
        &self,
        ad_order_id: Id,
    ) -> Result<Reply<Vec<ListedCreative>>> {
        self.get_at(
            "/v1/creative/getCreativesByAdOrder",
            &[&ad_order_id.to_string()],
        )
        .await
    }

    /// `POST /v1/creative/save`: creates a creative of any type and subtype. The service
    /// has no creative update: the request omits `id`. A creative with an `id` is sent as
    /// it is (the sandbox refuses it; the real service may make a second creative), so
    /// callers keep posted creatives read-only and duplicate them as new instead.
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
            gzip: false,
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
            gzip: false,
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
            gzip: false,
            family: Family::Audience,
        })
        .await
    }

    /// `POST /v1/audiences/{serviceSegmentId}/data`: appends the records' identifiers to
    /// the segment. The answer adds up every request the upload took.
    ///
    /// * **Size.** A request may be at most [`AUDIENCE_UPLOAD_MAX_BYTES`]. The records are
    ///   sent in as many requests as that takes, whole and in order where they fit; a
    ///   record too large for one request is cut into records that keep its
    ///   `serviceSegmentId` and `countryCode`. Each request's JSON is kept within the limit
    ///   before compression, so it holds however the service measures it. A value that
    ///   cannot fit in any request is [`Error::Invalid`] naming it (`[i].values[j]`), and
    ///   nothing is sent. Records already split with [`crate::upload::split`] at the same
    ///   limit are sent as exactly one request, so a caller that keeps one change per
    ///   request (as the offline queue does) knows which requests applied.
    /// * **Compression.** A body over [`crate::AUDIENCE_GZIP_MIN_BYTES`] goes gzipped
    ///   (`Content-Encoding: gzip`).
    /// * **Answer.** `published`, `failed_publishes` and `bad_records` are summed;
    ///   `message` is the last answer's; non-empty `bad_records_details` are joined with
    ///   `; `, each prefixed with `request K of N: ` when there were several, since the
    ///   record positions in them count from the start of that request. The service
    ///   processes uploads later (about every 10 minutes): read the segment for its
    ///   `dataCount` and `status`.
    /// * **Bad records.** A refusal for bad records is [`Error::AudienceBadRecords`] and
    ///   ends the upload: the refused request stored nothing, later ones are not sent, and
    ///   the error's `result` counts what earlier requests published. Other refusals are
    ///   [`Error::Audience`] (or `Unauthenticated`, `Forbidden`, `NotFound`).
    /// * **No retries.** Like every change, an upload is not retried: a lost answer is
    ///   [`Error::OutcomeUnknown`] (naming which request when there were several), and an
    ///   error on a later request leaves the earlier ones applied. Repeating the whole
    ///   upload is safe for the segment, which holds distinct identifiers, so resending
    ///   ones already stored only adds them again to the repeat's `published` count; the
    ///   caller decides whether to, as with any unknown outcome.
    pub async fn audience_add_data(
        &self,
        service_segment_id: &str,
        data: &AudienceData,
    ) -> Result<AudienceDataResult> {
        let url = self.url("/v1/audiences", &[service_segment_id, "data"], &[])?;
        let requests = upload::plan(data, AUDIENCE_UPLOAD_MAX_BYTES)?;
        let count = requests.len();
        let mut total = AudienceDataResult::default();
        for (k, pieces) in requests.iter().enumerate() {
            let body = upload::body(data, pieces);
            // Serializing and compressing 10 MB takes long enough to stall other requests
            // sharing the async worker.
            let encoded = tokio::task::spawn_blocking(move || upload::encode(&body))
                .await
                .map_err(|e| Error::Invalid {
                    field: upload::UPLOAD_FIELD.to_owned(),
                    message: format!("the upload could not be prepared: {e}"),
                })??;
            let answer = self
                .call_audience::<AudienceDataResult>(Call {
                    method: Method::POST,
                    url: url.clone(),
                    body: Some(encoded.bytes),
                    gzip: encoded.gzip,
                    family: Family::Audience,
                })
                .await;
            match answer {
                Ok(answer) => {
                    // A refusal answered with a success status is still a refusal.
                    let refused = answer.refused();
                    upload::add(&mut total, answer, k, count);
                    if refused {
                        return Err(Error::AudienceBadRecords {
                            status: 200,
                            result: Box::new(total),
                        });
                    }
                }
                Err(Error::AudienceBadRecords { status, result }) => {
                    upload::add(&mut total, *result, k, count);
                    return Err(Error::AudienceBadRecords {
                        status,
                        result: Box::new(total),
                    });
                }
                Err(Error::OutcomeUnknown { request, detail }) if count > 1 => {
                    return Err(Error::OutcomeUnknown {
                        request: format!("{request} (request {} of {count})", k + 1),
                        detail,
                    });
                }
                Err(e) => return Err(e),
            }
        }
        Ok(total)
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
pub(crate) fn ad_order_for_save(order: &AdOrder) -> AdOrder {
    let mut out = order.request_body(None);
    out.cost_optimization_enabled = None;
    out
}

/// The campaign as it may be sent back (see the module notes).
pub(crate) fn campaign_for_save(campaign: &Campaign) -> Campaign {
    let mut out = campaign.request_body(None);
    out.has_flights = None;
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
        assert_eq!(out, json!({"ioNumber": "IO-2"}));

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
