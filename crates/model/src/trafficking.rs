//! The trafficking endpoints the interface document leaves out and the service's
//! reference documents: creative listings (per campaign, per ad order) and ad-order
//! status (`POST /v1/adorder/updateStatus`).
//!
//! A listed creative is not a [`crate::Creative`]: the listing carries the review
//! `status`, a `type` with the UI's type id and vendor name, and video facts
//! (`duration`, `bitRate`), and none of the type-specific payloads (`htmlAsset`,
//! `video`, `native` …). So it has a type of its own, decoded as leniently as the
//! rest: open enums, unknown members kept in `extra`.

use serde::{Deserialize, Serialize};

use crate::common::{Extra, Id};
use crate::creative::{CreativeStatus, MediaType, Size, VideoType};

open_enum! {
    /// A channel a listed creative serves on.
    pub enum CreativeChannel {
        MOBILE = "MOBILE",
        DESKTOP = "DESKTOP",
        CONNECTED_TV = "CONNECTED_TV",
    }
}

/// A creative as `GET /v1/campaign/{id}/creatives` and
/// `GET /v1/creative/getCreativesByAdOrder/{id}` list it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ListedCreative {
    #[allow(missing_docs)]
    #[serde(default)]
    pub id: Option<Id>,
    /// Review status: `INCOMPLETE`, `PENDING`, `APPROVED`, `DISABLED`, `VIOLATION`.
    #[serde(default)]
    pub status: Option<CreativeStatus>,
    #[allow(missing_docs)]
    #[serde(default)]
    pub name: Option<String>,
    /// The creative type as the service's UI shows it.
    #[serde(rename = "type", default)]
    pub type_: Option<ListedCreativeType>,
    /// The client's reference; the wire spells it with a lower-case `id`.
    #[serde(rename = "externalCreativeid", default)]
    pub external_creativeid: Option<String>,
    #[allow(missing_docs)]
    #[serde(default)]
    pub crawlable_url: Option<String>,
    #[allow(missing_docs)]
    #[serde(default)]
    pub landing_page_url: Option<String>,
    #[allow(missing_docs)]
    #[serde(rename = "impressionTrackingPixel_1", default)]
    pub impression_tracking_pixel_1: Option<String>,
    #[allow(missing_docs)]
    #[serde(rename = "impressionTrackingPixel_2", default)]
    pub impression_tracking_pixel_2: Option<String>,
    #[allow(missing_docs)]
    #[serde(rename = "impressionTrackingPixel_3", default)]
    pub impression_tracking_pixel_3: Option<String>,
    #[allow(missing_docs)]
    #[serde(rename = "impressionTrackingPixel_4", default)]
    pub impression_tracking_pixel_4: Option<String>,
    /// Width and height, where the type has one.
    #[serde(default)]
    pub size: Option<Size>,
    /// Channels the creative serves on.
    #[serde(default)]
    pub channels: Option<Vec<CreativeChannel>>,
    /// Ad-tag identifier; only on ad-tag creatives, and its form varies by vendor.
    #[serde(default)]
    pub ad_tag_id: Option<String>,
    /// Seconds; video creatives only.
    #[serde(default)]
    pub duration: Option<f64>,
    /// Video creatives only.
    #[serde(default)]
    pub bit_rate: Option<f64>,
    /// Fields this crate does not name.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

/// The `type` of a listed creative.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ListedCreativeType {
    /// The creative type id, as shown in the service's UI.
    #[serde(default)]
    pub id: Option<Id>,
    /// The type's vendor, as shown in the service's UI.
    #[serde(default)]
    pub vendor: Option<String>,
    #[allow(missing_docs)]
    #[serde(default)]
    pub media_type: Option<MediaType>,
    /// Null for non-video.
    #[serde(default)]
    pub video_type: Option<VideoType>,
    /// Fields this crate does not name.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

/// An ad order's status: an integer on the wire. Open, as the string enums are: a
/// value the service adds is kept as [`AdOrderStatus::Other`] and sent back as it came.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AdOrderStatus {
    /// `0`: created, not serving.
    Inactive,
    /// `1`: serving.
    Active,
    /// `2`: put away for good.
    Archived,
    /// `3`: stopped by the buyer, may be resumed.
    Paused,
    /// `4`: its end date has passed.
    Completed,
    /// A value this crate does not know.
    Other(i64),
}

impl AdOrderStatus {
    /// The known values, in wire order.
    pub const KNOWN: &'static [AdOrderStatus] = &[
        AdOrderStatus::Inactive,
        AdOrderStatus::Active,
        AdOrderStatus::Archived,
        AdOrderStatus::Paused,
        AdOrderStatus::Completed,
    ];

    /// The value on the wire.
    pub fn code(self) -> i64 {
        match self {
            AdOrderStatus::Inactive => 0,
            AdOrderStatus::Active => 1,
            AdOrderStatus::Archived => 2,
            AdOrderStatus::Paused => 3,
            AdOrderStatus::Completed => 4,
            AdOrderStatus::Other(n) => n,
        }
    }

    /// The status with wire value `code`.
    pub fn from_code(code: i64) -> Self {
        match code {
            0 => AdOrderStatus::Inactive,
            1 => AdOrderStatus::Active,
            2 => AdOrderStatus::Archived,
            3 => AdOrderStatus::Paused,
            4 => AdOrderStatus::Completed,
            n => AdOrderStatus::Other(n),
        }
    }

    /// The reference's name of the value (`Active`), or `unknown` for another.
    pub fn label(self) -> &'static str {
        match self {
            AdOrderStatus::Inactive => "Inactive",
            AdOrderStatus::Active => "Active",
            AdOrderStatus::Archived => "Archived",
            AdOrderStatus::Paused => "Paused",
            AdOrderStatus::Completed => "Completed",
            AdOrderStatus::Other(_) => "unknown",
        }
    }

    /// Whether this is one of the reference's five values.
    pub fn is_known(self) -> bool {
        !matches!(self, AdOrderStatus::Other(_))
    }

    /// Why the service refuses to move an ad order from `self` to `to`, or `None` when
    /// it may. Setting the status it has is always accepted (so a resent change is
    /// harmless). Archived is final; Completed is reached only by the end date passing,
    /// never set; a completed ad order can only be archived.
    pub fn refusal(self, to: AdOrderStatus) -> Option<String> {
        if self == to {
            return None;
        }
        let shown = |s: AdOrderStatus| format!("{} ({})", s.code(), s.label());
        if !to.is_known() {
            let known: Vec<String> = Self::KNOWN.iter().map(|s| shown(*s)).collect();
            return Some(format!(
                "must be one of {} (got {})",
                known.join(", "),
                to.code()
            ));
        }
        match (self, to) {
            (AdOrderStatus::Archived, _) => Some(format!(
                "an archived ad order cannot change status (asked for {}); create a new ad \
                 order instead",
                shown(to)
            )),
            (_, AdOrderStatus::Completed) => Some(
                "cannot be set to 4 (Completed): an ad order completes when its end date \
                 passes"
                    .to_owned(),
            ),
            (AdOrderStatus::Completed, _) if to != AdOrderStatus::Archived => Some(format!(
                "the ad order has ended, so it can only be archived (asked for {}); move its \
                 end date first",
                shown(to)
            )),
            _ => None,
        }
    }
}

impl std::fmt::Display for AdOrderStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.code(), self.label())
    }
}

impl Serialize for AdOrderStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.code())
    }
}

impl<'de> Deserialize<'de> for AdOrderStatus {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        i64::deserialize(d).map(Self::from_code)
    }
}

#[cfg(feature = "specta")]
impl specta::Type for AdOrderStatus {
    fn definition(types: &mut specta::Types) -> specta::datatype::DataType {
        <i64 as specta::Type>::definition(types)
    }
}

#[cfg(feature = "openapi")]
impl utoipa::__dev::ComposeSchema for AdOrderStatus {
    fn compose(
        _: Vec<utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>>,
    ) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Int64,
            )))
            .description(Some(
                "0 Inactive, 1 Active, 2 Archived, 3 Paused, 4 Completed",
            ))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for AdOrderStatus {}

/// The body of `POST /v1/adorder/updateStatus`, and its answer's entity.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AdOrderStatusUpdate {
    /// The ad order; it must exist.
    #[serde(default)]
    pub id: Option<Id>,
    /// The status to set, or the status set.
    #[serde(default)]
    pub status: Option<AdOrderStatus>,
    /// Fields this crate does not name.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

impl AdOrderStatusUpdate {
    /// A request setting `status` on ad order `id`.
    pub fn new(id: Id, status: AdOrderStatus) -> Self {
        Self {
            id: Some(id),
            status: Some(status),
            extra: Extra::new(),
        }
    }
}
