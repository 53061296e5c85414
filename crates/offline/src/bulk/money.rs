//! The money review before posting: what the pending changes do to budgets and bids,
//! per campaign and per advertiser, and the budget roll-ups that look wrong. Warnings
//! never block a post: the service decides what it accepts. The figures and the rules
//! are here; `workspace/money_review.rs` reads the changed entities they apply to.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use flightdeck_model::AdOrderStatus;

use crate::change::EntityRef;
use crate::workspace::StatusView;

pub(crate) const DAY_MS: i64 = 86_400_000;
/// The ad order's bid field. The service spells it in snake case, unlike its neighbours
/// (docs/service-interface.md, Ad order); a camel-case `maxBid` is an unknown field.
pub(crate) const MAX_BID: &str = "max_bid";
/// Half a cent: sums of budgets in cents compare equal within it.
pub(crate) const CENT: f64 = 0.005;

/// Budget sums on one side of the review.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Budgets {
    /// Campaign lifetime budgets (`maxBudget`).
    pub lifetime: f64,
    /// Campaign daily budgets (`dailyBudget`).
    pub daily: f64,
    /// Campaign flight budgets (`flights[*].maxBudget`).
    pub flights: f64,
    /// Ad-order lifetime budgets (`lifetimeBudget`).
    pub order_lifetime: f64,
    /// Ad-order daily budgets (`dailyBudget`).
    pub order_daily: f64,
}

impl Budgets {
    pub(crate) fn add(&mut self, o: &Budgets) {
        self.lifetime += o.lifetime;
        self.daily += o.daily;
        self.flights += o.flights;
        self.order_lifetime += o.order_lifetime;
        self.order_daily += o.order_daily;
    }

    pub(crate) fn round(mut self) -> Budgets {
        for v in [
            &mut self.lifetime,
            &mut self.daily,
            &mut self.flights,
            &mut self.order_lifetime,
            &mut self.order_daily,
        ] {
            *v = (*v * 100.0).round() / 100.0;
        }
        self
    }
}

/// Before and after for one campaign, one advertiser, or everything.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct MoneyRow {
    /// The campaign or advertiser (`None` for the total).
    pub target: Option<EntityRef>,
    /// Its name.
    pub label: String,
    /// The advertiser, on a campaign's row.
    pub advertiser: Option<EntityRef>,
    /// As the service has it.
    pub before: Budgets,
    /// Once the pending changes are posted.
    pub after: Budgets,
}

/// An ad order's `max_bid` that changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct BidChange {
    /// The ad order.
    pub target: EntityRef,
    /// Its name.
    pub label: String,
    /// Its campaign's name.
    pub campaign: String,
    /// As the service has it (`None`: a new order, or none set).
    pub before: Option<f64>,
    /// Once posted.
    pub after: Option<f64>,
}

/// A budget roll-up that looks wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct MoneyWarning {
    /// The entity.
    pub target: EntityRef,
    /// Its name.
    pub label: String,
    /// The field it is about.
    pub field: String,
    /// What looks wrong, in the buyer's words.
    pub message: String,
}

/// The review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct MoneySummary {
    /// Campaigns whose budgets (or whose ad orders' budgets) change.
    pub campaigns: Vec<MoneyRow>,
    /// The same, summed per advertiser.
    pub advertisers: Vec<MoneyRow>,
    /// Everything.
    pub total: MoneyRow,
    /// Bids that change.
    pub bids: Vec<BidChange>,
    /// Roll-ups that look wrong, at WARNING level.
    pub warnings: Vec<MoneyWarning>,
    /// Ad orders a pending status change launches ([`goes_live`]), each with its
    /// lifetime budget: money that starts to spend once posted.
    pub going_live: Vec<GoingLive>,
    /// The lifetime budgets of `going_live`, summed.
    pub going_live_budget: f64,
}

/// An ad order a pending status change launches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct GoingLive {
    /// The ad order.
    pub target: EntityRef,
    /// Its name.
    pub label: String,
    /// Its campaign's name.
    pub campaign: String,
    /// Its status before, as known (`None`: unknown, never set through Flightdeck).
    pub from: Option<AdOrderStatus>,
    /// Its lifetime budget (`lifetimeBudget`, 0 when it has none).
    pub lifetime_budget: f64,
}

/// Whether an ad order's pending status launches it: it becomes Active and is not known
/// to be Active already. Pausing, archiving or making inactive launches nothing.
pub fn goes_live(status: StatusView) -> bool {
    status.pending == Some(AdOrderStatus::Active) && status.known != Some(AdOrderStatus::Active)
}

pub(crate) fn num(v: Option<&Value>, field: &str) -> f64 {
    v.and_then(|v| v.get(field))
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
}

pub(crate) fn flights_sum(v: Option<&Value>) -> f64 {
    v.and_then(|v| v.get("flights"))
        .and_then(Value::as_array)
        .map_or(0.0, |fs| fs.iter().map(|f| num(Some(f), "maxBudget")).sum())
}

pub(crate) fn name_of(v: &Value, fallback: &EntityRef) -> String {
    v.get("name").and_then(Value::as_str).map_or_else(
        || format!("{} {}", fallback.kind.label(), fallback.key),
        str::to_owned,
    )
}

pub(crate) fn money(x: f64) -> String {
    format!("{x:.2}")
}

/// "A daily budget × the days left is less than the lifetime budget": the lifetime
/// budget cannot be spent.
pub(crate) fn daily_short(v: &Value, lifetime_field: &str, now_ms: i64) -> Option<String> {
    let daily = v.get("dailyBudget").and_then(Value::as_f64)?;
    let lifetime = v.get(lifetime_field).and_then(Value::as_f64)?;
    let end = v.get("endDate").and_then(Value::as_i64)?;
    let start = v
        .get("startDate")
        .and_then(Value::as_i64)
        .unwrap_or(now_ms)
        .max(now_ms);
    if end <= start {
        return None;
    }
    let days = (end - start + DAY_MS - 1) / DAY_MS;
    let reach = daily * days as f64;
    (reach + CENT < lifetime).then(|| {
        format!(
            "a daily budget of {} over the {days} days left spends at most {}, less than the lifetime budget of {}",
            money(daily),
            money(reach),
            money(lifetime)
        )
    })
}
