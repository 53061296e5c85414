//! Ad orders, their frequency cap, pacing, goals and audiences.

use std::collections::BTreeSet;

use super::campaigns::bid_multipliers;
use super::helpers::{
    at_least, dates_in_order, known, non_blank, non_negative_int, not_above, positive, positive_id,
    require, require_str, value, value_ref, within,
};
use super::{Op, codes};
use crate::{AdOrder, AdOrderAudience, IncludeExclude, PacingMode, TimezoneName, ValidationErrors};

/// Published `channelsV2` values. A further LTV variant exists whose name is not
/// published, so any value starting with `LTV` is accepted as well.
pub const AD_ORDER_CHANNELS_V2: [&str; 7] =
    ["Display", "Video", "Native", "Audio", "DOOH", "CTV", "LTV"];

/// Ad-order `save` body. The identifier conflict carries [`codes::IDENTIFIER_CONFLICT`].
pub fn ad_order(o: &AdOrder, op: Op, tz: Option<&TimezoneName>) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();

    require_str(&mut e, "name", o.name.as_ref());
    require(&mut e, "campaignId", o.campaign_id.as_ref());
    require(&mut e, "optimizationGoal", o.optimization_goal.as_ref());
    // After creation, dates and budget move through the flight endpoint instead.
    if op == Op::Create {
        require(&mut e, "startDate", o.start_date.as_ref());
        require(&mut e, "endDate", o.end_date.as_ref());
        require(&mut e, "lifetimeBudget", o.lifetime_budget.as_ref());
    }
    dates_in_order(&mut e, "endDate", o.start_date, o.end_date, tz);
    if let Some(v) = o.lifetime_budget {
        positive(&mut e, "lifetimeBudget", v);
    }
    if let Some(daily) = value(&o.daily_budget) {
        positive(&mut e, "dailyBudget", daily);
        if let Some(lifetime) = o.lifetime_budget {
            not_above(&mut e, "dailyBudget", daily, "lifetimeBudget", lifetime);
        }
    }

    if let Some(cap) = value_ref(&o.frequency_cap) {
        let because = "is required when frequencyCap is sent";
        match cap.limit {
            None => e.push("frequencyCap.limit", codes::REQUIRED, because),
            Some(v) => at_least(&mut e, "frequencyCap.limit", v, 1),
        }
        match cap.duration {
            None => e.push("frequencyCap.duration", codes::REQUIRED, because),
            Some(v) => at_least(&mut e, "frequencyCap.duration", v, 1),
        }
        if cap.time_period.is_none() {
            e.push("frequencyCap.timePeriod", codes::REQUIRED, because);
        }
    }

    let frontload = value(&o.hourly_frontload);
    if o.hourly_pacing_mode == Some(PacingMode::SpendEvenly) && frontload.is_none() {
        e.push(
            "hourlyFrontload",
            codes::REQUIRED,
            "is required when hourlyPacingMode is SPEND_EVENLY",
        );
    }
    if let Some(v) = frontload {
        within(&mut e, "hourlyFrontload", v, 0.0, 100.0);
    }

    // The errors table: sending both `io_number`/`ioNumber` and `externalAdOrderId` is a
    // 400, even with equal values. `AdOrder::request_body` drops the output spelling and
    // keeps one, so a listed order sent back through it is never refused.
    let io = non_blank(o.io_number.as_ref()).or(non_blank(o.io_number_out.as_ref()));
    let external = non_blank(o.external_ad_order_id.as_ref());
    if io.is_some() && external.is_some() {
        e.push(
            "externalAdOrderId",
            codes::IDENTIFIER_CONFLICT,
            "send only one of ioNumber or externalAdOrderId (the service refuses both, even when equal)",
        );
    }
    // As for campaigns: on update an unknown value the service returned goes back as is.
    if op == Op::Create {
        known(&mut e, "goalMode", o.goal_mode.as_ref());
        known(&mut e, "hourlyPacingMode", o.hourly_pacing_mode.as_ref());
        if let Some(cap) = value_ref(&o.frequency_cap) {
            known(&mut e, "frequencyCap.timePeriod", cap.time_period.as_ref());
        }
    }

    if let Some(channels) = value_ref(&o.channels_v2) {
        for (i, ch) in channels.iter().enumerate() {
            if !(AD_ORDER_CHANNELS_V2.contains(&ch.as_str()) || ch.starts_with("LTV")) {
                e.push(
                    format!("channelsV2[{i}]"),
                    codes::INVALID,
                    format!(
                        "must be one of {} (got \"{ch}\")",
                        AD_ORDER_CHANNELS_V2.join(", ")
                    ),
                );
            }
        }
    }

    if let Some(v) = o.max_bid {
        positive(&mut e, "max_bid", v);
    }
    if let Some(v) = value(&o.cpa_goal) {
        positive(&mut e, "cpaGoal", v);
    }
    if let Some(v) = value(&o.ctr_goal) {
        within(&mut e, "ctrGoal", v, 0.0, 1.0);
    }
    if let Some(v) = value(&o.vcr_goal) {
        within(&mut e, "vcrGoal", v, 0.0, 1.0);
    }
    bid_multipliers(
        &mut e,
        value(&o.min_bid_multiplier),
        value(&o.max_bid_multiplier),
    );
    if let Some(v) = value(&o.lifetime_impression_budget) {
        non_negative_int(&mut e, "lifetimeImpressionBudget", v);
    }
    if let Some(v) = value(&o.daily_impression_budget) {
        non_negative_int(&mut e, "dailyImpressionBudget", v);
    }

    for (i, a) in o.audiences.iter().flatten().enumerate() {
        audience(&mut e, &format!("audiences[{i}]"), a);
    }
    e.into_result()
}

fn audience(e: &mut ValidationErrors, at: &str, a: &AdOrderAudience) {
    if let Some(w) = a.weight
        && !(0..=100).contains(&w)
    {
        e.push(
            format!("{at}.weight"),
            codes::OUT_OF_RANGE,
            format!("must be between 0 and 100 (got {w})"),
        );
    }
    for (j, id) in value_ref(&a.pmp_deals).into_iter().flatten().enumerate() {
        positive_id(e, &format!("{at}.pmpDeals[{j}]"), *id);
    }
    if let Some(x) = &a.exchanges {
        include_exclude(e, &format!("{at}.exchanges"), x, "exchange");
    }
    if let Some(x) = &a.site_lists {
        include_exclude(e, &format!("{at}.siteLists"), x, "site list");
    }
}

fn include_exclude(e: &mut ValidationErrors, at: &str, x: &IncludeExclude, what: &str) {
    for (name, ids) in [("include", &x.include), ("exclude", &x.exclude)] {
        for (k, id) in ids.iter().flatten().enumerate() {
            positive_id(e, &format!("{at}.{name}[{k}]"), *id);
        }
    }
    let included: BTreeSet<i64> = x.include.iter().flatten().copied().collect();
    let both: BTreeSet<i64> = x
        .exclude
        .iter()
        .flatten()
        .copied()
        .filter(|id| included.contains(id))
        .collect();
    if !both.is_empty() {
        let ids: Vec<String> = both.iter().map(ToString::to_string).collect();
        let (noun, verb) = if ids.len() == 1 {
            ("", "is")
        } else {
            ("s", "are")
        };
        e.push(
            format!("{at}.exclude"),
            codes::INVALID,
            format!(
                "{what}{noun} {} {verb} both included and excluded",
                ids.join(", ")
            ),
        );
    }
}
