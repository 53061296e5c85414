//! What a bulk operation reaches ([`Scope`]) and how copies are made
//! ([`DuplicateOptions`]). The plans of multi-row edit, find and replace, revert and
//! duplicate are made over the workspace in `workspace/bulk_plan.rs`.

use serde::{Deserialize, Serialize};

use crate::change::{EntityRef, Kind};

/// Which entities an operation reaches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", content = "value", rename_all = "camelCase")]
pub enum Scope {
    /// The rows the buyer selected.
    Selection(Vec<EntityRef>),
    /// Every entity of one kind.
    Kind(Kind),
    /// Every entity of the account.
    Account,
}

/// Kinds a whole-account operation reaches, parents first: flights are edited inside
/// their campaigns.
pub const EDITABLE_KINDS: [Kind; 7] = [
    Kind::Advertiser,
    Kind::Campaign,
    Kind::AdOrder,
    Kind::FlightCaps,
    Kind::Creative,
    Kind::SiteList,
    Kind::AudienceSegment,
];

/// "ad orders", "flight caps" ([`Kind::plural`], kept for callers of this name).
pub fn plural(kind: Kind) -> String {
    kind.plural().to_owned()
}

/// How to duplicate.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct DuplicateOptions {
    /// Where the copies go: an advertiser (campaigns, creatives) or a campaign (ad
    /// orders, creatives). `None`: beside each source.
    pub into: Option<EntityRef>,
    /// Days to move every date by (`None`: none).
    #[serde(default)]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub shift_days: Option<i64>,
}
