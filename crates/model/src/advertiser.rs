//! Advertisers.

use serde::Serialize;

use crate::common::{Extra, Id};
use crate::serde_util;

/// An advertiser, as sent to `advertiser/save` and returned by the advertiser listings.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Advertiser {
    /// Null or omitted to create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Required on insert, ignored on update. Arrives as a Number or a String.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<Id>))]
    pub agency_id: Option<Id>,
    /// Display currency for pricing. Required on insert, ignored on update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// IAB category code. Required on insert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The account timezone is used when omitted on insert; ignored on update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone_name: Option<TimezoneName>,
    /// Client reference: at most 128 letters, digits and ASCII punctuation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_advertiser_id: Option<String>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    Advertiser {
        id: "id",
        name: "name",
        agency_id: "agencyId" with serde_util::NumberOrStringSeed,
        currency: "currency",
        category: "category",
        timezone_name: "timezoneName",
        external_advertiser_id: "externalAdvertiserId",
    }
}

open_enum! {
    /// Advertiser timezones.
    pub enum TimezoneName {
        /// Alaska.
        AKT = "AKT",
        /// Central.
        CT = "CT",
        /// Eastern.
        ET = "ET",
        /// Greenwich.
        GMT = "GMT",
        /// Hawaii.
        HST = "HST",
        /// Mountain.
        MT = "MT",
        /// Newfoundland.
        N = "N",
        /// Pacific.
        PT = "PT",
    }
}

impl TimezoneName {
    /// Every value, in wire order.
    pub const ALL: [TimezoneName; 8] = [
        Self::AKT,
        Self::CT,
        Self::ET,
        Self::GMT,
        Self::HST,
        Self::MT,
        Self::N,
        Self::PT,
    ];
}

impl TimezoneName {
    /// The IANA zone the advertiser's dates are shown in, or `None` for a value the
    /// service added that this crate does not know (then dates are shown in UTC).
    pub fn iana(&self) -> Option<&'static str> {
        Some(match self {
            Self::AKT => "America/Anchorage",
            Self::CT => "America/Chicago",
            Self::ET => "America/New_York",
            Self::GMT => "Etc/GMT",
            Self::HST => "Pacific/Honolulu",
            Self::MT => "America/Denver",
            Self::N => "America/St_Johns",
            Self::PT => "America/Los_Angeles",
            Self::Other(_) => return None,
        })
    }

    /// What a buyer calls the zone.
    pub fn label(&self) -> &str {
        match self {
            Self::AKT => "Alaska",
            Self::CT => "Central",
            Self::ET => "Eastern",
            Self::GMT => "Greenwich",
            Self::HST => "Hawaii",
            Self::MT => "Mountain",
            Self::N => "Newfoundland",
            Self::PT => "Pacific",
            Self::Other(s) => s,
        }
    }
}
