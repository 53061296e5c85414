//! Decoding a listing into the wire types, the part of `all_ad_orders()` that is the
//! model's: 100,000 ad orders shaped like the sandbox's `getAllAdOrders` answer, decoded
//! as `Envelope<Vec<AdOrder>>`, beside `serde_json::Value` and `IgnoredAny` (the parser
//! alone) for scale. A second listing carries unknown members at every nesting level,
//! which is the path that keeps them in `extra`.
//!
//! Run with `cargo bench -p flightdeck-model`. `BENCH_AD_ORDERS` and `BENCH_RUNS` shrink
//! the workload for a quick look.

use std::hint::black_box;
use std::time::{Duration, Instant};

use flightdeck_model::{AdOrder, Campaign, Envelope};
use serde::de::IgnoredAny;
use serde_json::{Value, json};

type BoxError = Box<dyn std::error::Error>;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One ad order as the sandbox lists it (every member of its response shape).
fn ad_order(i: usize, unknown: bool) -> Value {
    let start = 1_798_761_600_000_i64 + i as i64;
    let mut audience = json!({
        "id": 2 * i + 1, "name": "A", "weight": 100, "pmpDeals": null,
        "exchanges": {"include": [1, 2], "exclude": []}
    });
    let mut order = json!({
        "id": i + 1, "name": format!("Order {i}"), "campaignId": 7,
        "optimizationGoal": "CPM", "startDate": start, "endDate": start + 2_592_000_000_i64,
        "lifetimeBudget": 500.0,
        "frequencyCap": {"limit": 3, "duration": 1, "timePeriod": "DAY"},
        "channelsV2": null, "max_bid": 10.0, "audienceWeightsEnabled": false,
        "goalMode": "PERFORMANCE", "hourlyPacingMode": "ASAP", "hourlyFrontload": null,
        "io_number": format!("IO-{i}"), "externalAdOrderId": format!("IO-{i}"),
        "audiences": []
    });
    if unknown {
        audience["geoTargeting"] = json!({"countries": ["US", "CA"]});
        audience["exchanges"]["mode"] = json!("strict");
        order["frequencyCap"]["resetAt"] = json!("midnight");
        order["status"] = json!("RUNNING");
        order["metrics"] = json!({"spend": 12.5, "impressions": 1000});
    }
    order["audiences"] = json!([audience]);
    order
}

fn listing(orders: usize, unknown: bool) -> Result<Vec<u8>, BoxError> {
    let entity: Vec<Value> = (0..orders).map(|i| ad_order(i, unknown)).collect();
    Ok(serde_json::to_vec(
        &json!({"messages": [], "entity": entity}),
    )?)
}

fn campaigns(count: usize) -> Result<Vec<u8>, BoxError> {
    let entity: Vec<Value> = (0..count)
        .map(|i| {
            json!({
                "id": i + 1, "advertiserId": 3, "name": format!("Campaign {i}"),
                "domain": "example.com", "maxBudget": 1000.0, "dailyBudget": null,
                "dailyFrequencyCap": 3, "frequencyCapDuration": 1, "frequencyCapTimePeriod": "DAY",
                "startDate": 1_798_761_600_000_i64, "endDate": 1_801_440_000_000_i64,
                "iabCategory": ["IAB1"], "markupRate": 0.1, "ioNumber": format!("C-{i}"),
                "externalCampaignId": format!("C-{i}"), "pacingMode": "ASAP",
                "objective": "AWARENESS", "channelGroup": "MOBILE_COMPUTER_CTV", "hasFlights": true,
                "flights": [
                    {"id": 3 * i, "status": "ACTIVE", "budgetType": "AUTO_BUDGET", "dailyBudget": null,
                     "maxBudget": 500.0, "remainingBudget": 250.0, "startDate": 1_798_761_600_000_i64,
                     "endDate": 1_800_000_000_000_i64},
                    {"id": 3 * i + 1, "status": "PENDING", "budgetType": "FIXED_BUDGET", "dailyBudget": 20.0,
                     "maxBudget": 500.0, "remainingBudget": null, "startDate": 1_800_000_000_000_i64,
                     "endDate": 1_801_440_000_000_i64}
                ]
            })
        })
        .collect();
    Ok(serde_json::to_vec(
        &json!({"messages": [], "entity": entity}),
    )?)
}

/// Median of `runs` timed calls of `f`.
fn time<T>(runs: usize, mut f: impl FnMut() -> Result<T, BoxError>) -> Result<Duration, BoxError> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let out = f()?;
        times.push(t.elapsed());
        drop(black_box(out));
    }
    times.sort();
    Ok(times[times.len() / 2])
}

fn report(what: &str, bytes: usize, d: Duration) {
    let ms = d.as_secs_f64() * 1000.0;
    let mbps = bytes as f64 / 1e6 / d.as_secs_f64();
    println!("{what}: median {ms:.0} ms ({mbps:.0} MB/s)");
}

fn main() -> Result<(), BoxError> {
    let orders = env_or("BENCH_AD_ORDERS", 100_000);
    let runs = env_or("BENCH_RUNS", 7).max(1);

    let plain = listing(orders, false)?;
    let unknown = listing(orders, true)?;
    let camps = campaigns(orders / 10)?;
    println!(
        "{orders} ad orders: {:.1} MB as listed, {:.1} MB with unknown members; {} campaigns: {:.1} MB ({runs} runs each)",
        plain.len() as f64 / 1e6,
        unknown.len() as f64 / 1e6,
        orders / 10,
        camps.len() as f64 / 1e6,
    );

    let d = time(runs, || Ok(serde_json::from_slice::<IgnoredAny>(&plain)?))?;
    report("parse only (IgnoredAny)", plain.len(), d);
    let d = time(runs, || Ok(serde_json::from_slice::<Value>(&plain)?))?;
    report("serde_json::Value", plain.len(), d);
    let d = time(runs, || {
        Ok(serde_json::from_slice::<Envelope<Vec<AdOrder>>>(&plain)?)
    })?;
    report("Envelope<Vec<AdOrder>>", plain.len(), d);
    let d = time(runs, || {
        Ok(serde_json::from_slice::<Envelope<Vec<AdOrder>>>(&unknown)?)
    })?;
    report("Envelope<Vec<AdOrder>>, unknown members", unknown.len(), d);
    let d = time(runs, || {
        Ok(serde_json::from_slice::<Envelope<Vec<Campaign>>>(&camps)?)
    })?;
    report("Envelope<Vec<Campaign>>", camps.len(), d);
    Ok(())
}
