//! Validation rules. Each function returns every broken rule at once.
//!
//! PLACEHOLDER BODIES: being implemented (see issue 2). Signatures are the contract.

use crate::{
    AdOrder, Advertiser, AudienceSegment, Campaign, CampaignFlight, Creative, CreativeSubtype,
    CreativeType, DataType, FlightCap, Id, MediaType, Millis, SiteList, ValidationErrors,
};

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// The 14 cells of the creative matrix, in the spec's order.
pub fn creative_matrix() -> &'static [MatrixCell] {
    &[]
}

/// The matrix cell for a type and subtype, or `None` when the pair is not allowed.
pub fn matrix_cell(t: CreativeType, s: CreativeSubtype) -> Option<&'static MatrixCell> {
    creative_matrix()
        .iter()
        .find(|c| c.creative_type == t && c.creative_subtype == s)
}

/// Advertiser `save` body.
pub fn advertiser(_a: &Advertiser, _op: Op) -> Result<(), ValidationErrors> {
    Ok(())
}

/// `externalAdvertiserId`: at most 128 characters, letters, digits and ASCII punctuation only.
pub fn external_advertiser_id(_field: &str, _value: &str) -> Result<(), ValidationErrors> {
    Ok(())
}

/// Campaign `save` body, including its own flights (paths `flights[i].…`).
pub fn campaign(_c: &Campaign, _op: Op) -> Result<(), ValidationErrors> {
    Ok(())
}

/// Flights sent to a campaign: `sent` as `flights[i]` (updates already merged with the
/// stored flight), `others` the campaign's stored flights not in `sent`. With `now`,
/// a flight without an id must start after it.
pub fn flights(
    _sent: &[CampaignFlight],
    _others: &[CampaignFlight],
    _now: Option<Millis>,
) -> Result<(), ValidationErrors> {
    Ok(())
}

/// Flight caps sent for an ad order, as `[i]`; each must point at one of `campaign_flight_ids`.
pub fn flight_caps(
    _caps: &[FlightCap],
    _campaign_flight_ids: &[Id],
) -> Result<(), ValidationErrors> {
    Ok(())
}

/// Ad-order `save` body. The identifier conflict carries [`codes::IDENTIFIER_CONFLICT`].
pub fn ad_order(_o: &AdOrder, _op: Op) -> Result<(), ValidationErrors> {
    Ok(())
}

/// Creative `save` body: common fields, limits, and the matrix cell's required fields.
pub fn creative(_c: &Creative) -> Result<(), ValidationErrors> {
    Ok(())
}

/// Site-list body for one of the four calls. `stored_type_id` is the list's type when it exists.
pub fn site_list(
    _s: &SiteList,
    _op: SiteListOp,
    _stored_type_id: Option<i64>,
) -> Result<(), ValidationErrors> {
    Ok(())
}

/// Audience-segment create body.
pub fn audience_segment(_a: &AudienceSegment) -> Result<(), ValidationErrors> {
    Ok(())
}

/// Whether one uploaded identifier has the form its segment's `dataType` expects.
pub fn audience_identifier(_data_type: DataType, _value: &str) -> bool {
    true
}

/// PKCE `code_challenge`: 43 to 128 characters of the unreserved set.
pub fn code_challenge(_value: &str) -> Result<(), ValidationErrors> {
    Ok(())
}
