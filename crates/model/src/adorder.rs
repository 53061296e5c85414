//! Ad orders, their audiences and frequency caps.

use serde::Serialize;

use crate::common::{Extra, Id, Millis, Nullable, PacingMode, TimePeriod};
use crate::serde_util;

/// An ad order, as sent to `adorder/save` and returned by it and `getAllAdOrders`.
///
/// `ioNumber` is the input spelling of the client id and `io_number` the output one;
/// both are kept so that one type serves requests and responses.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AdOrder {
    /// Null or omitted to create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign_id: Option<Id>,
    /// Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimization_goal: Option<OptimizationGoal>,
    /// Required on creation; afterwards changed through the flight endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_date: Option<Millis>,
    /// Required on creation; afterwards changed through the flight endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date: Option<Millis>,
    /// USD. Required on creation (campaigns here are budgeted in money).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_budget: Option<f64>,
    /// Null when absent; all three members are required when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<FrequencyCap>))]
    pub frequency_cap: Nullable<FrequencyCap>,
    /// Array for channel-version-2 accounts, null for version 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<Vec<String>>))]
    pub channels_v2: Nullable<Vec<String>>,
    /// Default values apply when absent.
    #[serde(rename = "max_bid", default, skip_serializing_if = "Option::is_none")]
    pub max_bid: Option<f64>,
    /// Null or absent: false on create, unchanged on update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience_weights_enabled: Option<bool>,
    /// `PERFORMANCE` by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_mode: Option<GoalMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub hourly_pacing_mode: Option<PacingMode>,
    /// Percentage 0–100; required with `SPEND_EVENLY`, null with `ASAP`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub hourly_frontload: Nullable<f64>,
    /// Client id, input spelling. Exclusive with `externalAdOrderId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_number: Option<String>,
    /// Client id, output spelling; equals `externalAdOrderId`.
    #[serde(rename = "io_number", default, skip_serializing_if = "Option::is_none")]
    pub io_number_out: Option<String>,
    /// Client id. Exclusive with `ioNumber` on input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_ad_order_id: Option<String>,
    /// Response only; present when the feature is enabled on the account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_optimization_enabled: Option<bool>,
    /// Audiences with their targeting. A default one is created when none is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audiences: Option<Vec<AdOrderAudience>>,
    /// Daily budget limit in USD (current creation form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub daily_budget: Nullable<f64>,
    /// Lifetime impressions budget (current form; IMPRESSIONS campaigns only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub lifetime_impression_budget: Nullable<i64>,
    /// Daily impressions budget (current form; IMPRESSIONS campaigns only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub daily_impression_budget: Nullable<i64>,
    /// CPA goal in USD, for optimization goal `CPA`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub cpa_goal: Nullable<f64>,
    /// CTR goal as a fraction (0.002), for optimization goal `CPC`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub ctr_goal: Nullable<f64>,
    /// Video completion rate goal, 0.0–1.0; preserved on update when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub vcr_goal: Nullable<f64>,
    /// Bid-matrix multiplier; preserved on update when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub min_bid_multiplier: Nullable<f64>,
    /// Bid-matrix multiplier; preserved on update when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub max_bid_multiplier: Nullable<f64>,
    /// Channels of the current creation form; allowed values are not published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<String>>,
    /// Day-parting entries; item shape is not published, so they are kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<Object>>))]
    pub day_parts: Option<Vec<serde_json::Value>>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    AdOrder {
        id: "id",
        name: "name",
        campaign_id: "campaignId",
        optimization_goal: "optimizationGoal",
        start_date: "startDate",
        end_date: "endDate",
        lifetime_budget: "lifetimeBudget",
        frequency_cap: "frequencyCap" with serde_util::nullable_seed(),
        channels_v2: "channelsV2" with serde_util::nullable_seed(),
        max_bid: "max_bid",
        audience_weights_enabled: "audienceWeightsEnabled",
        goal_mode: "goalMode",
        hourly_pacing_mode: "hourlyPacingMode",
        hourly_frontload: "hourlyFrontload" with serde_util::nullable_seed(),
        io_number: "ioNumber",
        io_number_out: "io_number",
        external_ad_order_id: "externalAdOrderId",
        cost_optimization_enabled: "costOptimizationEnabled",
        audiences: "audiences",
        daily_budget: "dailyBudget" with serde_util::nullable_seed(),
        lifetime_impression_budget: "lifetimeImpressionBudget" with serde_util::nullable_seed(),
        daily_impression_budget: "dailyImpressionBudget" with serde_util::nullable_seed(),
        cpa_goal: "cpaGoal" with serde_util::nullable_seed(),
        ctr_goal: "ctrGoal" with serde_util::nullable_seed(),
        vcr_goal: "vcrGoal" with serde_util::nullable_seed(),
        min_bid_multiplier: "minBidMultiplier" with serde_util::nullable_seed(),
        max_bid_multiplier: "maxBidMultiplier" with serde_util::nullable_seed(),
        channels: "channels",
        day_parts: "dayParts",
    }
}

open_enum! {
    /// What the ad order optimises for.
    pub enum OptimizationGoal {
        /// Cost per mille.
        Cpm = "CPM",
        /// Cost per click.
        Cpc = "CPC",
        /// Cost per action.
        Cpa = "CPA",
        /// Video completion rate; `VCR` is accepted on input in any case.
        VideoCompletionRate = "VIDEO_COMPLETION_RATE",
    }
    aliases { "VCR" => VideoCompletionRate }
}

open_enum! {
    /// Whether the order optimises for performance or for spend.
    pub enum GoalMode {
        /// The default.
        Performance = "PERFORMANCE",
        /// Spend the budget.
        Spend = "SPEND",
    }
}

/// Ad-order frequency cap; every member is required when the object is present.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FrequencyCap {
    /// Impressions per user per period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// Number of periods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<i64>,
    /// Period unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_period: Option<TimePeriod>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    FrequencyCap {
        limit: "limit",
        duration: "duration",
        time_period: "timePeriod",
    }
}

/// An audience of an ad order, with its targeting.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AdOrderAudience {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub id: Option<Id>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub weight: Option<i64>,
    /// Internal ids of targeted PMP deals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<Vec<i64>>))]
    pub pmp_deals: Nullable<Vec<i64>>,
    /// Absent: the audience does not modify exchange targeting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchanges: Option<IncludeExclude>,
    /// Absent: the audience does not modify site-list targeting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_lists: Option<IncludeExclude>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    AdOrderAudience {
        id: "id",
        name: "name",
        weight: "weight",
        pmp_deals: "pmpDeals" with serde_util::nullable_seed(),
        exchanges: "exchanges",
        site_lists: "siteLists",
    }
}

/// Include and exclude lists of ids. A list that is absent is left absent on the way
/// back, so a round trip does not invent an empty one.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IncludeExclude {
    /// Ids to target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<i64>>,
    /// Ids to keep away from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<Vec<i64>>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    IncludeExclude {
        include: "include",
        exclude: "exclude",
    }
}
