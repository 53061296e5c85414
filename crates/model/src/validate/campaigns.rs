//! Campaigns, their flights (with the overlap rule) and per-ad-order flight caps.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use super::advertisers::is_iab_category;
use super::helpers::{
    at_least, dates_in_order, format_millis_in, known, non_blank, non_negative, non_negative_int,
    not_above, not_above_int, positive, require, require_str, value, value_ref, within,
};
use super::{Op, codes};
use crate::{
    BudgetType, Campaign, CampaignFlight, FieldError, FlightCap, Id, Millis, TimezoneName,
    ValidationErrors,
};

/// Campaign `save` body, including its own flights (paths `flights[i].…`).
///
/// The spec requires the same fields on create and update; `op` only decides whether
/// values outside the known ones are refused (on create).
pub fn campaign(c: &Campaign, op: Op, tz: Option<&TimezoneName>) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();

    require(&mut e, "advertiserId", c.advertiser_id.as_ref());
    require_str(&mut e, "name", c.name.as_ref());
    let domain = require_str(&mut e, "domain", c.domain.as_ref());
    if domain.is_some_and(|d| d.chars().any(char::is_whitespace) || !d.contains('.')) {
        e.push(
            "domain",
            codes::INVALID,
            "must be a domain such as example.com, without spaces",
        );
    }
    match &c.iab_category {
        None => e.push("iabCategory", codes::REQUIRED, "is required"),
        Some(cats) if cats.is_empty() => e.push(
            "iabCategory",
            codes::REQUIRED,
            "is required: list at least one IAB category",
        ),
        Some(cats) => {
            for (i, cat) in cats.iter().enumerate() {
                if !is_iab_category(cat) {
                    e.push(
                        format!("iabCategory[{i}]"),
                        codes::INVALID,
                        format!(
                            "must be an IAB category code such as IAB1 or IAB1-2 (got \"{cat}\")"
                        ),
                    );
                }
            }
        }
    }

    // With flights the service derives the campaign's budget and dates from them.
    let has_flights = c.flights.as_ref().is_some_and(|f| !f.is_empty());
    if !has_flights {
        for (field, missing) in [
            ("maxBudget", c.max_budget.is_none()),
            ("startDate", c.start_date.is_none()),
            ("endDate", c.end_date.is_none()),
        ] {
            if missing {
                e.push(
                    field,
                    codes::REQUIRED,
                    "is required unless the campaign has flights",
                );
            }
        }
    }
    if let Some(max) = c.max_budget {
        positive(&mut e, "maxBudget", max);
    }
    if let Some(daily) = value(&c.daily_budget) {
        positive(&mut e, "dailyBudget", daily);
        if let Some(max) = c.max_budget {
            not_above(&mut e, "dailyBudget", daily, "maxBudget", max);
        }
    }
    dates_in_order(&mut e, "endDate", c.start_date, c.end_date, tz);

    frequency_cap(&mut e, c);

    if let Some(rate) = value(&c.markup_rate) {
        non_negative(&mut e, "markupRate", rate);
    }
    for (field, cap) in [
        ("lifetimeImpressionCap", &c.lifetime_impression_cap),
        ("dailyImpressionCap", &c.daily_impression_cap),
        ("lifetimeClickCap", &c.lifetime_click_cap),
        ("dailyClickCap", &c.daily_click_cap),
    ] {
        if let Some(v) = value(cap) {
            non_negative_int(&mut e, field, v);
        }
    }

    // The same value in both is a listed campaign sent back (the service returns both).
    // Mutually exclusive on input, even with equal values; `Campaign::request_body`
    // keeps only the one the buyer set.
    let io = non_blank(c.io_number.as_ref());
    let external = non_blank(c.external_campaign_id.as_ref());
    if io.is_some() && external.is_some() {
        e.push(
            "externalCampaignId",
            codes::IDENTIFIER_CONFLICT,
            "send only one of ioNumber or externalCampaignId (the service refuses both, even when equal)",
        );
    }
    // On update the body is the listed campaign with the buyer's edit: a value the service
    // returned that this crate does not know goes back as it came, so it must not make
    // the campaign uneditable. The service judges the values it is sent.
    if op == Op::Create {
        known(
            &mut e,
            "frequencyCapTimePeriod",
            value_ref(&c.frequency_cap_time_period),
        );
        known(&mut e, "pacingMode", c.pacing_mode.as_ref());
        known(&mut e, "objective", c.objective.as_ref());
    }

    bid_multipliers(
        &mut e,
        value(&c.min_bid_multiplier),
        value(&c.max_bid_multiplier),
    );

    if let Some(pct) = c.intraday_frontload_pct {
        within(&mut e, "intradayFrontloadPct", pct, 0.0, 100.0);
    }

    if let Some(fl) = &c.flights {
        check_flights(&mut e, fl, &[], None, tz);
    }

    e.into_result()
}

/// The three frequency-cap fields only mean something together.
fn frequency_cap(e: &mut ValidationErrors, c: &Campaign) {
    let limit = value(&c.daily_frequency_cap);
    let duration = value(&c.frequency_cap_duration);
    let fields = [
        ("dailyFrequencyCap", limit.is_some()),
        ("frequencyCapDuration", duration.is_some()),
        (
            "frequencyCapTimePeriod",
            value_ref(&c.frequency_cap_time_period).is_some(),
        ),
    ];
    let set: Vec<&str> = fields.iter().filter(|f| f.1).map(|f| f.0).collect();
    if !set.is_empty() {
        let because = match set.as_slice() {
            [one] => format!("is required when {one} is set"),
            many => format!("is required when {} are set", many.join(" and ")),
        };
        for (field, present) in fields {
            if !present {
                e.push(field, codes::REQUIRED, because.clone());
            }
        }
    }
    if let Some(v) = limit {
        at_least(e, "dailyFrequencyCap", v, 1);
    }
    if let Some(v) = duration {
        at_least(e, "frequencyCapDuration", v, 1);
    }
}

/// Shared by campaigns and ad orders: bid multipliers are non-negative and ordered.
pub(super) fn bid_multipliers(e: &mut ValidationErrors, min: Option<f64>, max: Option<f64>) {
    if let Some(v) = min {
        non_negative(e, "minBidMultiplier", v);
    }
    if let Some(v) = max {
        non_negative(e, "maxBidMultiplier", v);
    }
    if let (Some(lo), Some(hi)) = (min, max) {
        not_above(e, "minBidMultiplier", lo, "maxBidMultiplier", hi);
    }
}

/// Flights sent to a campaign: `sent` as `flights[i]` (updates already merged with the
/// stored flight), `others` the campaign's stored flights not in `sent`. With `now`,
/// a flight without an id must start after it.
pub fn flights(
    sent: &[CampaignFlight],
    others: &[CampaignFlight],
    now: Option<Millis>,
    tz: Option<&TimezoneName>,
) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    check_flights(&mut e, sent, others, now, tz);
    e.into_result()
}

fn check_flights(
    e: &mut ValidationErrors,
    sent: &[CampaignFlight],
    others: &[CampaignFlight],
    now: Option<Millis>,
    tz: Option<&TimezoneName>,
) {
    for (i, f) in sent.iter().enumerate() {
        flight(e, &format!("flights[{i}]"), f, now, tz);
    }
    overlaps(e, sent, others, tz);
}

fn flight(
    e: &mut ValidationErrors,
    at: &str,
    f: &CampaignFlight,
    now: Option<Millis>,
    tz: Option<&TimezoneName>,
) {
    let start_field = format!("{at}.startDate");
    let start = require(e, &start_field, f.start_date.as_ref()).copied();
    let end = require(e, &format!("{at}.endDate"), f.end_date.as_ref()).copied();
    dates_in_order(e, &format!("{at}.endDate"), start, end, tz);
    if let (Some(now), Some(start), None) = (now, start, f.id)
        && start <= now
    {
        e.push(
            start_field,
            codes::START_IN_PAST,
            format!(
                "must be in the future for a new flight (it is {}, now is {})",
                format_millis_in(start, tz),
                format_millis_in(now, tz)
            ),
        );
    }

    let max = require(e, &format!("{at}.maxBudget"), f.max_budget.as_ref()).copied();
    if let Some(max) = max {
        positive(e, &format!("{at}.maxBudget"), max);
    }
    let daily_field = format!("{at}.dailyBudget");
    let daily = value(&f.daily_budget);
    if let Some(daily) = daily {
        positive(e, &daily_field, daily);
        if let Some(max) = max {
            not_above(e, &daily_field, daily, "maxBudget", max);
        }
    } else if f.budget_type == Some(BudgetType::FixedBudget) {
        e.push(
            daily_field,
            codes::REQUIRED,
            "is required when budgetType is FIXED_BUDGET",
        );
    }
    if let Some(pct) = f.daily_frontload {
        within(e, &format!("{at}.dailyFrontload"), pct, 0.0, 100.0);
    }
    let daily_imp = value(&f.daily_imp_cap);
    let lifetime_imp = value(&f.lifetime_imp_cap);
    if let Some(v) = daily_imp {
        non_negative_int(e, &format!("{at}.dailyImpCap"), v);
    }
    if let Some(v) = lifetime_imp {
        non_negative_int(e, &format!("{at}.lifetimeImpCap"), v);
    }
    if let (Some(d), Some(l)) = (daily_imp, lifetime_imp) {
        not_above_int(e, &format!("{at}.dailyImpCap"), d, "lifetimeImpCap", l);
    }
}

/// Where a dated flight came from: `flights[i]` of the request or the i-th stored one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Who {
    Sent(usize),
    Stored(usize),
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: Millis,
    end: Millis,
    who: Who,
}

/// Reports every overlapping pair that involves a sent flight.
///
/// Flights are half-open `[startDate, endDate)`, so back-to-back flights do not overlap.
/// Flights without both dates, or with `endDate` not after `startDate`, are skipped: they
/// already carry a date error and an inverted range would flag unrelated flights.
///
/// Sweep in start order keeping the still-open flights in two heaps by end (sent and
/// stored); every flight left open when a new one starts overlaps it. Stored flights
/// are never compared with each other, so the cost is O(n log n + reported pairs) even
/// when stored data already overlaps.
fn overlaps(
    e: &mut ValidationErrors,
    sent: &[CampaignFlight],
    others: &[CampaignFlight],
    tz: Option<&TimezoneName>,
) {
    let mut found: Vec<(usize, Who, FieldError)> = overlapping_spans(sent, others)
        .into_iter()
        .filter_map(|(a, b)| overlap_error(a, b, others, tz))
        .collect();
    found.sort_by_key(|(i, other, _)| (*i, *other));
    e.0.extend(found.into_iter().map(|(_, _, err)| err));
}

/// The sweep behind [`overlaps`]: every overlapping pair that involves a sent flight.
fn overlapping_spans(sent: &[CampaignFlight], others: &[CampaignFlight]) -> Vec<(Span, Span)> {
    let dated = |f: &CampaignFlight| match (f.start_date, f.end_date) {
        (Some(start), Some(end)) if start < end => Some((start, end)),
        _ => None,
    };
    let mut spans: Vec<Span> = sent
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            dated(f).map(|(start, end)| Span {
                start,
                end,
                who: Who::Sent(i),
            })
        })
        .chain(others.iter().enumerate().filter_map(|(i, f)| {
            dated(f).map(|(start, end)| Span {
                start,
                end,
                who: Who::Stored(i),
            })
        }))
        .collect();
    spans.sort_by_key(|s| (s.start, s.end, s.who));

    // Heap entries are (end, index into spans), smallest end on top.
    let mut open_sent: BinaryHeap<Reverse<(Millis, usize)>> = BinaryHeap::new();
    let mut open_stored: BinaryHeap<Reverse<(Millis, usize)>> = BinaryHeap::new();
    let mut pairs: Vec<(Span, Span)> = Vec::new();
    for (k, span) in spans.iter().enumerate() {
        for heap in [&mut open_sent, &mut open_stored] {
            while heap
                .peek()
                .is_some_and(|Reverse((end, _))| *end <= span.start)
            {
                heap.pop();
            }
        }
        pairs.extend(open_sent.iter().map(|Reverse((_, j))| (spans[*j], *span)));
        match span.who {
            Who::Sent(_) => {
                pairs.extend(open_stored.iter().map(|Reverse((_, j))| (spans[*j], *span)));
                open_sent.push(Reverse((span.end, k)));
            }
            Who::Stored(_) => open_stored.push(Reverse((span.end, k))),
        }
    }

    pairs
}

/// How a campaign's flights lie in time, for drawing them: which pairs overlap (by the
/// same rule as [`flights`]) and where the gaps between consecutive flights are.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FlightLayout {
    /// Index pairs `(a, b)`, `a < b`, of flights that overlap.
    pub overlaps: Vec<(usize, usize)>,
    /// Stretches no flight covers, between the earliest start and the latest end.
    pub gaps: Vec<FlightGap>,
}

/// A stretch of time no flight covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlightGap {
    /// The flight that ends where the gap starts.
    pub after_index: usize,
    /// Gap start (that flight's `endDate`).
    pub from: Millis,
    /// Gap end (the next flight's `startDate`).
    pub to: Millis,
}

/// The longest stretch between one flight's end and the next one's start that is not a
/// gap: a flight ending at a day's last minute (23:59, as the service's examples end
/// them) and the next starting at the following midnight run on consecutive days.
pub const CONSECUTIVE_MS: Millis = 60_000;

/// Overlaps and gaps of `flights`; flights without both dates, or with the end not after
/// the start, take part in neither. A stretch of [`CONSECUTIVE_MS`] or less is no gap.
pub fn flight_layout(flights: &[CampaignFlight]) -> FlightLayout {
    let mut overlaps: Vec<(usize, usize)> = overlapping_spans(flights, &[])
        .into_iter()
        .filter_map(|(a, b)| match (a.who, b.who) {
            (Who::Sent(i), Who::Sent(j)) => Some((i.min(j), i.max(j))),
            _ => None,
        })
        .collect();
    overlaps.sort_unstable();
    overlaps.dedup();

    let mut dated: Vec<(Millis, Millis, usize)> = flights
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match (f.start_date, f.end_date) {
            (Some(s), Some(e)) if s < e => Some((s, e, i)),
            _ => None,
        })
        .collect();
    dated.sort_unstable();
    let mut gaps = Vec::new();
    let mut covered: Option<(Millis, usize)> = None;
    for (start, end, i) in dated {
        match covered {
            Some((until, last)) if start > until.saturating_add(CONSECUTIVE_MS) => {
                gaps.push(FlightGap {
                    after_index: last,
                    from: until,
                    to: start,
                });
                covered = Some((end, i));
            }
            Some((until, _)) if end <= until => {}
            _ => covered = Some((end, i)),
        }
    }
    FlightLayout { overlaps, gaps }
}

/// The error for one overlapping pair: on the later sent index, naming the other flight.
fn overlap_error(
    a: Span,
    b: Span,
    others: &[CampaignFlight],
    tz: Option<&TimezoneName>,
) -> Option<(usize, Who, FieldError)> {
    let (at, other) = match (a.who, b.who) {
        (Who::Sent(i), Who::Sent(j)) if i > j => (i, b),
        (Who::Sent(_), Who::Sent(j)) => (j, a),
        (Who::Sent(i), Who::Stored(_)) => (i, b),
        (Who::Stored(_), Who::Sent(j)) => (j, a),
        (Who::Stored(_), Who::Stored(_)) => return None,
    };
    let name = match other.who {
        Who::Sent(j) => format!("flights[{j}]"),
        Who::Stored(k) => others.get(k).and_then(|f| f.id).map_or_else(
            || "another flight of this campaign".to_owned(),
            |id| format!("flight {id}"),
        ),
    };
    let err = FieldError::new(
        format!("flights[{at}].startDate"),
        codes::OVERLAP,
        format!(
            "overlaps {name} ({} – {})",
            format_millis_in(other.start, tz),
            format_millis_in(other.end, tz)
        ),
    );
    Some((at, other.who, err))
}

/// Flight caps sent for an ad order, as `[i]`; each must point at one of `campaign_flight_ids`.
pub fn flight_caps(caps: &[FlightCap], campaign_flight_ids: &[Id]) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    let known: HashSet<Id> = campaign_flight_ids.iter().copied().collect();
    let mut first_for_flight: HashMap<Id, usize> = HashMap::new();

    for (i, cap) in caps.iter().enumerate() {
        let flight_field = format!("[{i}].flightId");
        if let Some(&flight) = require(&mut e, &flight_field, cap.flight_id.as_ref()) {
            if !known.contains(&flight) {
                e.push(
                    flight_field.clone(),
                    codes::BAD_REFERENCE,
                    "is not a flight of this ad order's campaign",
                );
            }
            if let Some(first) = first_for_flight.get(&flight) {
                e.push(
                    flight_field,
                    codes::INVALID,
                    format!("flight {flight} already has a cap in this request ([{first}])"),
                );
            } else {
                first_for_flight.insert(flight, i);
            }
        }

        let max_field = format!("[{i}].maxBudget");
        let max = if cap.id.is_none() {
            require(&mut e, &max_field, cap.max_budget.as_ref()).copied()
        } else {
            cap.max_budget
        };
        if let Some(max) = max {
            positive(&mut e, &max_field, max);
        }
        if let Some(daily) = cap.daily_budget {
            let field = format!("[{i}].dailyBudget");
            positive(&mut e, &field, daily);
            if let Some(max) = max {
                not_above(&mut e, &field, daily, "maxBudget", max);
            }
        }

        let lifetime = value(&cap.lifetime_impressions);
        let daily = value(&cap.daily_impressions);
        if let Some(v) = lifetime {
            non_negative_int(&mut e, &format!("[{i}].lifetimeImpressions"), v);
        }
        if let Some(v) = daily {
            non_negative_int(&mut e, &format!("[{i}].dailyImpressions"), v);
        }
        if let (Some(d), Some(l)) = (daily, lifetime) {
            not_above_int(
                &mut e,
                &format!("[{i}].dailyImpressions"),
                d,
                "lifetimeImpressions",
                l,
            );
        }
    }
    e.into_result()
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    fn flight(start: Millis, end: Millis) -> CampaignFlight {
        CampaignFlight {
            start_date: Some(start),
            end_date: Some(end),
            ..CampaignFlight::default()
        }
    }

    #[test]
    fn layout_marks_overlapping_pairs_and_the_gaps_between_flights() {
        // In minutes: a stretch of one minute or less is no gap.
        const M: i64 = 60_000;
        let flights = [
            flight(100 * M, 200 * M),
            flight(150 * M, 250 * M),     // overlaps 0
            flight(300 * M, 400 * M),     // gap 250..300 after 1
            flight(400 * M, 500 * M),     // back to back: no overlap, no gap
            flight(500 * M + M, 600 * M), // a minute later: consecutive, no gap
        ];
        let layout = flight_layout(&flights);
        assert_eq!(layout.overlaps, vec![(0, 1)]);
        assert_eq!(
            layout.gaps,
            vec![FlightGap {
                after_index: 1,
                from: 250 * M,
                to: 300 * M
            }]
        );
    }

    #[test]
    fn layout_agrees_with_the_overlap_rule() {
        let flights = [flight(0, 10), flight(5, 20), flight(8, 9)];
        let layout = flight_layout(&flights);
        let rule = super::flights(&flights, &[], None, None)
            .err()
            .map(|e| e.0)
            .unwrap_or_default();
        let flagged: Vec<&str> = rule.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(layout.overlaps, vec![(0, 1), (0, 2), (1, 2)]);
        assert!(flagged.contains(&"flights[1].startDate"));
        assert!(flagged.contains(&"flights[2].startDate"));
    }
}
