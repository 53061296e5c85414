//! Validation rules. Each function returns every broken rule at once.
//!
//! Conventions shared by every rule, so the app can place errors next to inputs:
//! - `field` is the wire path (`flights[1].startDate`, `native.imageIcon`, `[0].flightId`).
//! - Absent and null count alike as missing; a blank string counts as missing too.
//! - A pair rule (`startDate` before `endDate`, daily within lifetime, min within max)
//!   is reported on the field that is usually edited to fix it: `endDate`, the daily
//!   value, the minimum.
//! - A value is range-checked only when present; its absence is the `REQUIRED` error.

mod ad_orders;
mod advertisers;
mod audiences;
mod campaigns;
mod creatives;
mod depth;
mod helpers;
mod identifiers;
mod site_lists;
mod updates;

use crate::{CreativeSubtype, CreativeType, MediaType};

pub use ad_orders::{AD_ORDER_CHANNELS_V2, ad_order};
pub use advertisers::{advertiser, is_iab_category};
pub use audiences::{audience_data, audience_segment, bad_records};
pub use campaigns::{FlightGap, FlightLayout, campaign, flight_caps, flight_layout, flights};
pub use creatives::{creative, creative_matrix, is_http_url};
pub use depth::{nesting, path_depth, value_depth};
pub use helpers::{format_millis, format_millis_in, known as known_value};
pub use identifiers::{audience_identifier, code_challenge, external_advertiser_id};
pub use site_lists::site_list;
pub use updates::{
    AD_ORDER_IGNORED_ON_UPDATE, ADVERTISER_IGNORED_ON_UPDATE, ADVERTISER_KEPT_ON_UPDATE,
    CAMPAIGN_IGNORED_ON_UPDATE, IgnoredOnUpdate, NO_UPDATE_ENDPOINT, cleared_on_update,
    ignored_on_update,
};

/// Limits the rules check, named once here so that documents describing the rules (the
/// sandbox's OpenAPI schemas) state the same numbers.
pub mod limits {
    pub use super::audiences::DESCRIPTION_MAX as SEGMENT_DESCRIPTION_MAX;
    pub use super::creatives::{
        EXTERNAL_ID_MAX as CREATIVE_EXTERNAL_ID_MAX, NAME_MAX as CREATIVE_NAME_MAX,
        SIZE_MAX as CREATIVE_SIZE_MAX,
    };
    pub use super::depth::{NESTING_MAX, READABLE_NESTING_MAX};
    pub use super::identifiers::{
        CODE_CHALLENGE_MAX, CODE_CHALLENGE_MIN, EXTERNAL_ADVERTISER_ID_MAX,
    };
}

/// Machine-readable codes carried by [`crate::FieldError::code`].
pub mod codes {
    /// A required field is missing or null.
    pub const REQUIRED: &str = "REQUIRED";
    /// A value has the wrong form or is not allowed.
    pub const INVALID: &str = "INVALID";
    /// A number or length is outside its limits.
    pub const OUT_OF_RANGE: &str = "OUT_OF_RANGE";
    /// `ioNumber` and `externalAdOrderId` (or `externalCampaignId`) were both sent.
    pub const IDENTIFIER_CONFLICT: &str = "IDENTIFIER_CONFLICT";
    /// Two flights of one campaign overlap.
    pub const OVERLAP: &str = "OVERLAP";
    /// A new flight starts at or before the current time.
    pub const START_IN_PAST: &str = "START_IN_PAST";
    /// A field that only exists for another type or subtype was sent.
    pub const NOT_APPLICABLE: &str = "NOT_APPLICABLE";
    /// A reference points at something outside its allowed set.
    pub const BAD_REFERENCE: &str = "BAD_REFERENCE";
    /// An edit to a field the service ignores on update, or to a kind it cannot update.
    pub const IGNORED_ON_UPDATE: &str = "IGNORED_ON_UPDATE";
}

/// Whether a `save` creates or updates: some fields are required only on insert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `id` null or omitted.
    Create,
    /// `id` names an existing entity.
    Update,
}

/// Which site-list call a body is for; each requires different members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SiteListOp {
    /// `addNewSiteList`.
    Add,
    /// `appendToSiteList`.
    Append,
    /// `overwriteSiteList`.
    Overwrite,
    /// `removeSites`.
    Remove,
}

/// One cell of the creative type/subtype matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixCell {
    /// `creativeType`.
    pub creative_type: CreativeType,
    /// `creativeSubtype`.
    pub creative_subtype: CreativeSubtype,
    /// Wire paths of the type-specific required fields, such as `native.imageIcon`.
    pub required: &'static [&'static str],
    /// Wire paths of the optional type-specific fields, such as `audio.daast`.
    pub optional: &'static [&'static str],
    /// The observed `type.mediaType` for this cell.
    pub media_types: &'static [MediaType],
}

/// The matrix cell for a type and subtype, or `None` when the pair is not allowed.
pub fn matrix_cell(t: &CreativeType, s: &CreativeSubtype) -> Option<&'static MatrixCell> {
    creative_matrix()
        .iter()
        .find(|c| &c.creative_type == t && &c.creative_subtype == s)
}
