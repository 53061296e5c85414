//! Site lists, id based or rule based.

use serde::{Deserialize, Serialize};

use crate::common::Id;

/// `typeId` of an id-based list (a list of site ids).
pub const SITE_LIST_TYPE_ID_BASED: i64 = 5;
/// `typeId` of a rule-based list (domain and app rules).
pub const SITE_LIST_TYPE_RULE_BASED: i64 = 1;

/// A site list. One shape serves all four site-list calls; members a call does not use
/// are null, which is how the service answers too (`siteIds` and `rules` are returned as null).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SiteList {
    /// Required for append, overwrite and remove.
    #[serde(default)]
    pub id: Option<Id>,
    /// Required.
    #[serde(default)]
    pub name: Option<String>,
    /// 5 for id based, 1 for rule based.
    #[serde(default)]
    pub type_id: Option<i64>,
    /// `precise` or `broad`; required when creating a rule-based list.
    #[serde(default)]
    pub strategy: Option<SiteListStrategy>,
    /// Input for id-based lists; returned as null.
    #[serde(default)]
    pub site_ids: Option<Vec<i64>>,
    /// Input for rule-based lists; returned as null.
    #[serde(default)]
    pub rules: Option<Vec<SiteRule>>,
    /// How many sites or rules were added, appended or overwritten.
    #[serde(default)]
    pub inserted_count: Option<i64>,
}

impl SiteList {
    /// The members a site list has on the wire, as `WIRE_MEMBERS` of the types decoded
    /// by `wire_deserialize!` (this one derives its decoding: it keeps no unknown members).
    pub const WIRE_MEMBERS: &'static [&'static str] = &[
        "id",
        "name",
        "typeId",
        "strategy",
        "siteIds",
        "rules",
        "insertedCount",
    ];
}

open_enum! {
    /// Matching strategy of a rule-based list.
    pub enum SiteListStrategy {
        /// Exact match.
        Precise = "precise",
        /// Broad match.
        Broad = "broad",
    }
}

/// One rule of a rule-based list.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SiteRule {
    /// Domain or app bundle. Required.
    #[serde(default)]
    pub name: Option<String>,
    /// Required.
    #[serde(rename = "type", default)]
    pub type_: Option<SiteRuleType>,
}

open_enum! {
    /// Whether a rule names a web domain or an app.
    pub enum SiteRuleType {
        /// A web domain.
        Web = "web",
        /// An app.
        App = "app",
    }
}
