//! Creatives of every type and subtype.

use serde::{Deserialize, Serialize};

use crate::common::{Extra, Id, Nullable};
use crate::serde_util;

/// A creative, as sent to `creative/save` and returned by it.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Creative {
    /// Omitted on create; set in the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// Required; at most 400 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creative_type: Option<CreativeType>,
    /// Required; allowed values depend on `creativeType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creative_subtype: Option<CreativeSubtype>,
    /// Required; `mediaType` is its only required member.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<TypeObject>,
    /// One of `advertiserId` or `campaignId` is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advertiser_id: Option<Id>,
    /// When only this is sent, the advertiser is resolved from the campaign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign_id: Option<Id>,
    /// Required for tag-based display creatives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    /// Click-through URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landing_page_url: Option<String>,
    /// HTML/JS tag content for `BANNER`+`TAG`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html_asset: Option<String>,
    /// Image for `BANNER`+`HOSTED`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub video: Option<VideoAsset>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub audio: Option<AudioAsset>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub native: Option<NativeAsset>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub dooh: Option<DoohAsset>,
    /// For example `MOBILE`, `DESKTOP`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub crawlable_url: Option<String>,
    /// At most 26 characters. The wire spells it with a lower-case `id`.
    #[serde(
        rename = "externalCreativeid",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub external_creativeid: Option<String>,
    #[serde(
        rename = "impressionTrackingPixel_1",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[allow(missing_docs)]
    pub impression_tracking_pixel_1: Option<String>,
    #[serde(
        rename = "impressionTrackingPixel_2",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[allow(missing_docs)]
    pub impression_tracking_pixel_2: Option<String>,
    #[serde(
        rename = "impressionTrackingPixel_3",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[allow(missing_docs)]
    pub impression_tracking_pixel_3: Option<String>,
    #[serde(
        rename = "impressionTrackingPixel_4",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[allow(missing_docs)]
    pub impression_tracking_pixel_4: Option<String>,
    /// `display.htmlAsset` can supply the HTML of tag creatives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<DisplayAsset>,
    /// Normally omitted on create; set by review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CreativeStatus>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    Creative {
        id: "id",
        name: "name",
        creative_type: "creativeType",
        creative_subtype: "creativeSubtype",
        type_: "type",
        advertiser_id: "advertiserId",
        campaign_id: "campaignId",
        size: "size",
        landing_page_url: "landingPageUrl",
        html_asset: "htmlAsset",
        image_url: "imageUrl",
        video: "video",
        audio: "audio",
        native: "native",
        dooh: "dooh",
        channels: "channels",
        crawlable_url: "crawlableUrl",
        external_creativeid: "externalCreativeid",
        impression_tracking_pixel_1: "impressionTrackingPixel_1",
        impression_tracking_pixel_2: "impressionTrackingPixel_2",
        impression_tracking_pixel_3: "impressionTrackingPixel_3",
        impression_tracking_pixel_4: "impressionTrackingPixel_4",
        display: "display",
        status: "status",
    }
}

open_enum! {
    /// Creative type.
    pub enum CreativeType {
        BANNER = "BANNER",
        NATIVE = "NATIVE",
        AUDIO = "AUDIO",
        VIDEO = "VIDEO",
        DOOH = "DOOH",
    }
}

open_enum! {
    /// Creative subtype; which ones a type allows is in [`crate::validate::creative_matrix`].
    pub enum CreativeSubtype {
        TAG = "TAG",
        HOSTED = "HOSTED",
        VASTURL = "VASTURL",
        VASTXML = "VASTXML",
        IMAGE = "IMAGE",
        VIDEO = "VIDEO",
    }
}

open_enum! {
    /// Review status of a creative.
    pub enum CreativeStatus {
        INCOMPLETE = "INCOMPLETE",
        PENDING = "PENDING",
        APPROVED = "APPROVED",
        DISABLED = "DISABLED",
        VIOLATION = "VIOLATION",
    }
}

/// The creative's `type` object.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TypeObject {
    /// Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<MediaType>,
    /// Creative type id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// Vendor id; often needed for VIDEO with VASTURL or VASTXML.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor_id: Option<Id>,
    /// Null for non-video.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<VideoType>))]
    pub video_type: Nullable<VideoType>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    TypeObject {
        media_type: "mediaType",
        id: "id",
        vendor_id: "vendorId",
        video_type: "videoType" with serde_util::nullable_seed(),
    }
}

open_enum! {
    /// `type.mediaType`.
    pub enum MediaType {
        BANNER = "BANNER",
        VAST = "VAST",
        NATIVE = "NATIVE",
        MRAID = "MRAID",
        VPAID = "VPAID",
        VAST_WITH_VPAID = "VAST_WITH_VPAID",
        AUDIO = "AUDIO",
    }
}

open_enum! {
    /// `type.videoType`.
    pub enum VideoType {
        FLV = "FLV",
        MP4 = "MP4",
        WMV = "WMV",
        WEBM = "WEBM",
        JS = "JS",
    }
}

/// Width and height in pixels, 1 to 10239 each.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Size {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub width: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub height: Option<i64>,
}

/// `display` object of tag creatives.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DisplayAsset {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub html_asset: Option<String>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    DisplayAsset {
        html_asset: "htmlAsset",
    }
}

/// `video` object: a VAST URL, VAST XML or hosted media files.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct VideoAsset {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vast_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vast_xml: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_urls: Option<Vec<String>>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    VideoAsset {
        vast_url: "vastUrl",
        vast_xml: "vastXml",
        media_urls: "mediaUrls",
    }
}

/// `audio` object; `daast`'s structure is not published, so it is kept as sent.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct AudioAsset {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vast_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vast_xml: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_urls: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub daast: Option<serde_json::Value>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    AudioAsset {
        vast_url: "vastUrl",
        vast_xml: "vastXml",
        media_urls: "mediaUrls",
        daast: "daast",
    }
}

/// `native` object.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct NativeAsset {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sponsored_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_icon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vast_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vast_xml: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_urls: Option<Vec<String>>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    NativeAsset {
        headline: "headline",
        caption: "caption",
        sponsored_by: "sponsoredBy",
        image_url: "imageUrl",
        image_icon: "imageIcon",
        vast_url: "vastUrl",
        vast_xml: "vastXml",
        media_urls: "mediaUrls",
    }
}

/// `dooh` object.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct DoohAsset {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_urls: Option<Vec<String>>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    DoohAsset {
        image_url: "imageUrl",
        media_urls: "mediaUrls",
    }
}
