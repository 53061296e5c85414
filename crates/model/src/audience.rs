//! First-party audience segments.

use serde::{Deserialize, Serialize};

use crate::common::{Extra, Id};
use crate::serde_util;

/// Smallest `ttl` in seconds (two days).
pub const TTL_MIN_SECS: i64 = 172_800;
/// Largest `ttl` in seconds, also the default (about a year).
pub const TTL_MAX_SECS: i64 = 32_000_000;
/// Matched identifiers at which a segment turns `ACTIVE`.
pub const ACTIVATION_THRESHOLD: i64 = 1000;

/// A first-party audience segment.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AudienceSegment {
    /// Required on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub description: Option<String>,
    /// Kind of identifiers the segment holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_type: Option<DataType>,
    /// Required on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_id: Option<Id>,
    /// Advertisers sharing the audience. Required on create. Accepts a single number too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<Vec<Id>>))]
    pub advertiser_ids: Option<Vec<Id>>,
    /// Custom reference id. Required on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_audience_id: Option<String>,
    /// Assigned by the service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_segment_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub status: Option<SegmentStatus>,
    /// Lifetime in seconds, from [`TTL_MIN_SECS`] to [`TTL_MAX_SECS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<i64>,
    /// Identifiers matched so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_count: Option<i64>,
    /// Status text that `GET /v1/audiences/{serviceSegmentId}` carries beside the segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    AudienceSegment {
        name: "name",
        description: "description",
        data_type: "dataType",
        account_id: "accountId",
        advertiser_ids: "advertiserIds" with serde_util::OneOrManySeed,
        external_audience_id: "externalAudienceId",
        service_segment_id: "serviceSegmentId",
        status: "status",
        ttl: "ttl",
        data_count: "dataCount",
        message: "message",
    }
}

open_enum! {
    /// Kind of identifiers in a segment.
    pub enum DataType {
        /// SHA-256 of a normalised phone number.
        PhonenumberSha256 = "phonenumber_sha256",
        /// SHA-256 of a normalised e-mail address.
        EmailSha256 = "email_sha256",
        /// SHA-256 of a normalised postal address.
        AddressSha256 = "address_sha256",
        /// Unhashed IPv4 address.
        Ip = "ip",
        /// The service's cookie ids.
        Cookie = "cookie",
        /// Mobile advertising ids.
        MobileId = "mobile_id",
    }
}

open_enum! {
    /// Segment status.
    pub enum SegmentStatus {
        /// Below the activation threshold.
        Inactive = "INACTIVE",
        /// Usable for targeting.
        Active = "ACTIVE",
        /// Expired by its ttl; takes no more data.
        Archived = "ARCHIVED",
    }
}

/// `GET /v1/audiences` response.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AudienceList {
    /// This page of segments.
    pub audiences: Vec<AudienceSegment>,
    /// Which page this is.
    pub pagination: Pagination,
}

/// Page position of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    /// 1-based page number.
    pub page: i64,
    /// Items per page.
    pub page_size: i64,
}

/// Largest request the upload endpoint takes, in bytes, as sent (compressed or not).
pub const AUDIENCE_UPLOAD_MAX_BYTES: usize = 10_000_000;

/// One record of `POST /v1/audiences/{serviceSegmentId}/data`. The body is a JSON array of
/// these; every record names the segment of the URL, so a record can never land in
/// another segment by mistake.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AudienceDataRecord {
    /// Must equal the segment id in the URL.
    #[serde(default)]
    pub service_segment_id: String,
    /// ISO 3166-1 alpha-2 country the identifiers belong to, such as `US`.
    #[serde(default)]
    pub country_code: String,
    /// Identifiers of the segment's `dataType`.
    #[serde(default)]
    pub values: Vec<String>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    AudienceDataRecord {
        service_segment_id: "serviceSegmentId",
        country_code: "countryCode",
        values: "values",
    }
}

/// The whole upload body: a JSON array of records.
pub type AudienceData = Vec<AudienceDataRecord>;

/// Answer to a data upload, accepted or refused for bad records. Other failures answer
/// [`AudienceError`] instead.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AudienceDataResult {
    /// `Audience data payload processed.`, or `invalid payload: N bad record(s)`.
    #[serde(default)]
    pub message: String,
    /// Records accepted for processing (0 when any record is bad).
    #[serde(default)]
    pub published: i64,
    /// Records the service accepted but could not queue.
    #[serde(default)]
    pub failed_publishes: i64,
    /// Records refused; any bad record refuses the whole payload.
    #[serde(default)]
    pub bad_records: i64,
    /// What was wrong with the bad records; empty when there were none.
    #[serde(default)]
    pub bad_records_details: String,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    AudienceDataResult {
        message: "message",
        published: "published",
        failed_publishes: "failed_publishes",
        bad_records: "bad_records",
        bad_records_details: "bad_records_details",
    }
}

/// The success `message` of an upload.
pub const AUDIENCE_DATA_PROCESSED: &str = "Audience data payload processed.";

impl AudienceDataResult {
    /// Whether the payload was refused for bad records.
    pub fn refused(&self) -> bool {
        self.bad_records > 0 && self.published == 0
    }
}

/// `{error}` body of the audience endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AudienceError {
    /// What went wrong.
    pub error: String,
}

impl SegmentStatus {
    /// Status of a segment holding `data_count` identifiers whose ttl runs out at `expires_at`.
    pub fn at(data_count: i64, expires_at_ms: i64, now_ms: i64) -> Self {
        if now_ms >= expires_at_ms {
            Self::Archived
        } else if data_count >= ACTIVATION_THRESHOLD {
            Self::Active
        } else {
            Self::Inactive
        }
    }
}
