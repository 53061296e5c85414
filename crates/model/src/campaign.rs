//! Campaigns and their flights.

use serde::Serialize;

use crate::common::{Extra, Id, Millis, Nullable, PacingMode, TimePeriod};
use crate::serde_util;

/// A campaign, as sent to `campaign/save` and returned with its flights.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Campaign {
    /// Null or omitted to create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advertiser_id: Option<Id>,
    /// Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Advertiser domain of the campaign. Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Lifetime budget in USD. Required, unless flights supply it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_budget: Option<f64>,
    /// Maximum daily spend in USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub daily_budget: Nullable<f64>,
    /// Impressions per user per cap period (not necessarily daily, despite the name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub daily_frequency_cap: Nullable<i64>,
    /// Number of cap periods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub frequency_cap_duration: Nullable<i64>,
    /// Cap period unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<TimePeriod>))]
    pub frequency_cap_time_period: Nullable<TimePeriod>,
    /// Required, unless flights supply it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_date: Option<Millis>,
    /// Required, unless flights supply it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date: Option<Millis>,
    /// IAB category codes. Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iab_category: Option<Vec<String>>,
    /// Decimal: 0.10 means 10 percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub markup_rate: Nullable<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub lifetime_impression_cap: Nullable<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub daily_impression_cap: Nullable<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub lifetime_click_cap: Nullable<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub daily_click_cap: Nullable<i64>,
    /// Client id; exclusive with `externalCampaignId` on input, equal to it on output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_number: Option<String>,
    /// Client campaign id; equals `ioNumber` on output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_campaign_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub min_bid_multiplier: Nullable<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub max_bid_multiplier: Nullable<f64>,
    /// Campaign flights; required for campaigns that use them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flights: Option<Vec<CampaignFlight>>,
    /// The service's automated advertising feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_advertising: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub pacing_mode: Option<PacingMode>,
    /// Raises the hourly budget to spend more early in the day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intraday_frontload_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub objective: Option<Objective>,
    /// Deprecated; generally `MOBILE_COMPUTER_CTV`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_group: Option<String>,
    /// Read-only: true when the campaign has campaign flights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_flights: Option<bool>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    Campaign {
        id: "id",
        advertiser_id: "advertiserId",
        name: "name",
        domain: "domain",
        max_budget: "maxBudget",
        daily_budget: "dailyBudget" with serde_util::nullable_seed(),
        daily_frequency_cap: "dailyFrequencyCap" with serde_util::nullable_seed(),
        frequency_cap_duration: "frequencyCapDuration" with serde_util::nullable_seed(),
        frequency_cap_time_period: "frequencyCapTimePeriod" with serde_util::nullable_seed(),
        start_date: "startDate",
        end_date: "endDate",
        iab_category: "iabCategory",
        markup_rate: "markupRate" with serde_util::nullable_seed(),
        lifetime_impression_cap: "lifetimeImpressionCap" with serde_util::nullable_seed(),
        daily_impression_cap: "dailyImpressionCap" with serde_util::nullable_seed(),
        lifetime_click_cap: "lifetimeClickCap" with serde_util::nullable_seed(),
        daily_click_cap: "dailyClickCap" with serde_util::nullable_seed(),
        io_number: "ioNumber",
        external_campaign_id: "externalCampaignId",
        min_bid_multiplier: "minBidMultiplier" with serde_util::nullable_seed(),
        max_bid_multiplier: "maxBidMultiplier" with serde_util::nullable_seed(),
        flights: "flights",
        auto_advertising: "autoAdvertising",
        pacing_mode: "pacingMode",
        intraday_frontload_pct: "intradayFrontloadPct",
        objective: "objective",
        channel_group: "channelGroup",
        has_flights: "hasFlights",
    }
}

open_enum! {
    /// Campaign objective.
    pub enum Objective {
        Awareness = "AWARENESS",
        Engagement = "ENGAGEMENT",
        Conversion = "CONVERSION",
    }
}

/// A campaign flight: a dated slice of a campaign with its own budget.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CampaignFlight {
    /// Null to create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// Null on create; derived from the dates by the service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<FlightStatus>))]
    pub status: Nullable<FlightStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub budget_type: Option<BudgetType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub daily_budget: Nullable<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub daily_frontload: Option<f64>,
    /// Flight budget in USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_budget: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub remaining_budget: Nullable<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub daily_imp_cap: Nullable<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub lifetime_imp_cap: Nullable<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub start_date: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub end_date: Option<Millis>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    CampaignFlight {
        id: "id",
        status: "status" with serde_util::nullable_seed(),
        budget_type: "budgetType",
        daily_budget: "dailyBudget" with serde_util::nullable_seed(),
        daily_frontload: "dailyFrontload",
        max_budget: "maxBudget",
        remaining_budget: "remainingBudget" with serde_util::nullable_seed(),
        daily_imp_cap: "dailyImpCap" with serde_util::nullable_seed(),
        lifetime_imp_cap: "lifetimeImpCap" with serde_util::nullable_seed(),
        start_date: "startDate",
        end_date: "endDate",
    }
}

open_enum! {
    /// Flight status, derived from the flight's dates and the current time.
    pub enum FlightStatus {
        /// Running now.
        Active = "ACTIVE",
        /// Starts in the future.
        Pending = "PENDING",
        /// Ended.
        Completed = "COMPLETED",
    }
}

open_enum! {
    /// Flight budget type.
    pub enum BudgetType {
        /// The service spreads the budget itself.
        AutoBudget = "AUTO_BUDGET",
        /// The daily budget is fixed by the buyer.
        FixedBudget = "FIXED_BUDGET",
    }
}

/// A per-flight cap on one ad order.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FlightCap {
    /// Null to add a new cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// Ad order id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<Id>,
    /// Campaign flight id; must be a flight of the ad order's campaign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flight_id: Option<Id>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub max_budget: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub daily_budget: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub lifetime_impressions: Nullable<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    #[cfg_attr(feature = "specta", specta(type = Option<i64>))]
    pub daily_impressions: Nullable<i64>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

wire_deserialize! {
    FlightCap {
        id: "id",
        order_id: "orderId",
        flight_id: "flightId",
        max_budget: "maxBudget",
        daily_budget: "dailyBudget",
        lifetime_impressions: "lifetimeImpressions" with serde_util::nullable_seed(),
        daily_impressions: "dailyImpressions" with serde_util::nullable_seed(),
    }
}

impl FlightStatus {
    /// Status of a flight running over the half-open interval `[start, end)` at `now`.
    pub fn at(start: Millis, end: Millis, now: Millis) -> Self {
        if now < start {
            Self::Pending
        } else if now < end {
            Self::Active
        } else {
            Self::Completed
        }
    }
}
