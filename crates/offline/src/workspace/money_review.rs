//! The money review over the workspace: reads the entities the pending changes touch
//! and sums and checks them with the rules in [`crate::bulk::money`].

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::Workspace;
use crate::Result;
use crate::bulk::money::{
    BidChange, Budgets, CENT, GoingLive, MAX_BID, MoneyRow, MoneySummary, MoneyWarning,
    daily_short, flights_sum, goes_live, money, name_of, num,
};
use crate::change::{EntityRef, Kind, Op};

impl Workspace {
    /// What the pending changes do to money, at `now_ms`.
    pub fn money_summary(&self, now_ms: i64) -> Result<MoneySummary> {
        let mut touched: BTreeSet<EntityRef> = BTreeSet::new();
        let mut statuses: BTreeSet<EntityRef> = BTreeSet::new();
        for change in self.pending()? {
            if change.op == Op::SetStatus {
                // A status moves no budget; what it launches is listed apart.
                statuses.insert(change.target);
            } else if matches!(
                change.target.kind,
                Kind::Campaign | Kind::AdOrder | Kind::FlightCaps
            ) {
                touched.insert(change.target);
            }
        }
        let mut campaigns: BTreeMap<EntityRef, (Budgets, Budgets)> = BTreeMap::new();
        let mut bids = Vec::new();
        let mut warnings = Vec::new();
        let mut check_campaigns: BTreeSet<EntityRef> = BTreeSet::new();
        let mut check_orders: BTreeSet<EntityRef> = BTreeSet::new();
        for target in &touched {
            let order = match target.kind {
                Kind::FlightCaps => EntityRef::new(Kind::AdOrder, target.key.clone()),
                _ => target.clone(),
            };
            let Some(entity) = self.get(&order)? else {
                continue;
            };
            let base = entity.base.as_ref();
            let now = &entity.working;
            match order.kind {
                Kind::Campaign => {
                    campaigns.entry(order.clone()).or_default();
                    check_campaigns.insert(order.clone());
                }
                Kind::AdOrder => {
                    check_orders.insert(order.clone());
                    let Some(campaign) = entity.parent.clone() else {
                        continue;
                    };
                    check_campaigns.insert(campaign.clone());
                    if target.kind == Kind::FlightCaps {
                        continue;
                    }
                    let row = campaigns.entry(campaign.clone()).or_default();
                    row.0.order_lifetime += num(base, "lifetimeBudget");
                    row.0.order_daily += num(base, "dailyBudget");
                    row.1.order_lifetime += num(Some(now), "lifetimeBudget");
                    row.1.order_daily += num(Some(now), "dailyBudget");
                    let before = base.and_then(|b| b.get(MAX_BID)).and_then(Value::as_f64);
                    let after = now.get(MAX_BID).and_then(Value::as_f64);
                    if before != after {
                        let campaign_name = self
                            .working_of(&campaign)?
                            .map_or_else(String::new, |c| name_of(&c, &campaign));
                        bids.push(BidChange {
                            label: name_of(now, &order),
                            target: order.clone(),
                            campaign: campaign_name,
                            before,
                            after,
                        });
                    }
                }
                _ => {}
            }
        }

        let mut total = MoneyRow {
            target: None,
            label: "All pending changes".into(),
            advertiser: None,
            before: Budgets::default(),
            after: Budgets::default(),
        };
        let mut per_advertiser: BTreeMap<EntityRef, (Budgets, Budgets)> = BTreeMap::new();
        let mut campaign_rows = Vec::new();
        for (campaign, (mut before, mut after)) in campaigns {
            let entity = self.get(&campaign)?;
            // The campaign's own budgets, changed or not: the context of its orders'.
            if let Some(e) = &entity {
                let base = e.base.as_ref();
                before.lifetime = num(base, "maxBudget");
                before.daily = num(base, "dailyBudget");
                before.flights = flights_sum(base);
                after.lifetime = num(Some(&e.working), "maxBudget");
                after.daily = num(Some(&e.working), "dailyBudget");
                after.flights = flights_sum(Some(&e.working));
            }
            let label = entity.as_ref().map_or_else(
                || campaign.key.to_string(),
                |e| name_of(&e.working, &campaign),
            );
            let advertiser = entity.and_then(|e| e.parent);
            if let Some(a) = &advertiser {
                let row = per_advertiser.entry(a.clone()).or_default();
                row.0.add(&before);
                row.1.add(&after);
            }
            total.before.add(&before);
            total.after.add(&after);
            campaign_rows.push(MoneyRow {
                target: Some(campaign),
                label,
                advertiser,
                before: before.round(),
                after: after.round(),
            });
        }
        let mut advertisers = Vec::new();
        for (advertiser, (before, after)) in per_advertiser {
            let label = self
                .working_of(&advertiser)?
                .map_or_else(|| advertiser.key.to_string(), |v| name_of(&v, &advertiser));
            advertisers.push(MoneyRow {
                target: Some(advertiser),
                label,
                advertiser: None,
                before: before.round(),
                after: after.round(),
            });
        }
        total.before = total.before.round();
        total.after = total.after.round();

        for campaign in &check_campaigns {
            let Some(v) = self.working_of(campaign)? else {
                continue;
            };
            let label = name_of(&v, campaign);
            let flights = v.get("flights").and_then(Value::as_array);
            if let (Some(fs), Some(lifetime)) =
                (flights, v.get("maxBudget").and_then(Value::as_f64))
                && !fs.is_empty()
            {
                let sum = flights_sum(Some(&v));
                if (sum - lifetime).abs() > CENT {
                    warnings.push(MoneyWarning {
                        target: campaign.clone(),
                        label: label.clone(),
                        field: "flights".into(),
                        message: format!(
                            "the flight budgets add up to {}, the lifetime budget is {}",
                            money(sum),
                            money(lifetime)
                        ),
                    });
                }
            }
            if let Some(w) = daily_short(&v, "maxBudget", now_ms) {
                warnings.push(MoneyWarning {
                    target: campaign.clone(),
                    label,
                    field: "dailyBudget".into(),
                    message: w,
                });
            }
        }
        for order in &check_orders {
            let Some(v) = self.working_of(order)? else {
                continue;
            };
            let label = name_of(&v, order);
            if let Some(w) = daily_short(&v, "lifetimeBudget", now_ms) {
                warnings.push(MoneyWarning {
                    target: order.clone(),
                    label: label.clone(),
                    field: "dailyBudget".into(),
                    message: w,
                });
            }
            let caps = self
                .working_of(&EntityRef::new(Kind::FlightCaps, order.key.clone()))?
                .and_then(|c| c.as_array().cloned())
                .unwrap_or_default();
            if caps.is_empty() {
                continue;
            }
            let Some(campaign) = self.get(order)?.and_then(|e| e.parent) else {
                continue;
            };
            let flights = self
                .working_of(&campaign)?
                .and_then(|c| c.get("flights").and_then(Value::as_array).cloned())
                .unwrap_or_default();
            for (i, cap) in caps.iter().enumerate() {
                let (Some(flight_id), Some(cap_budget)) = (
                    cap.get("flightId").and_then(Value::as_i64),
                    cap.get("maxBudget").and_then(Value::as_f64),
                ) else {
                    continue;
                };
                let flight_budget = flights
                    .iter()
                    .find(|f| f.get("id").and_then(Value::as_i64) == Some(flight_id))
                    .and_then(|f| f.get("maxBudget").and_then(Value::as_f64));
                if let Some(fb) = flight_budget
                    && cap_budget > fb + CENT
                {
                    warnings.push(MoneyWarning {
                        target: EntityRef::new(Kind::FlightCaps, order.key.clone()),
                        label: label.clone(),
                        field: format!("[{i}].maxBudget"),
                        message: format!(
                            "the cap of {} on flight {flight_id} is more than the flight's budget of {}",
                            money(cap_budget),
                            money(fb)
                        ),
                    });
                }
            }
        }
        let mut going_live = Vec::new();
        for order in statuses {
            let status = self.ad_order_status(&order)?;
            if !goes_live(status) {
                continue;
            }
            let Some(entity) = self.get(&order)? else {
                continue;
            };
            let campaign = match &entity.parent {
                Some(c) => self
                    .working_of(c)?
                    .map_or_else(String::new, |v| name_of(&v, c)),
                None => String::new(),
            };
            going_live.push(GoingLive {
                label: name_of(&entity.working, &order),
                lifetime_budget: num(Some(&entity.working), "lifetimeBudget"),
                target: order,
                campaign,
                from: status.known,
            });
        }
        let sum: f64 = going_live.iter().map(|g| g.lifetime_budget).sum();
        Ok(MoneySummary {
            campaigns: campaign_rows,
            advertisers,
            total,
            bids,
            warnings,
            going_live,
            going_live_budget: (sum * 100.0).round() / 100.0,
        })
    }
}
