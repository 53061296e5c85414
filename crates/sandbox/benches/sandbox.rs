//! Throughput of the sandbox on loopback: `getAllAdOrders` over 100,000 ad orders, and
//! `adorder/save` and `campaign/save` requests per second.
//!
//! Run with `cargo bench -p flightdeck-sandbox`. Figures go in the issue notes, never in
//! tests. `BENCH_AD_ORDERS` and `BENCH_SAVES` shrink the workload for a quick look.

use std::time::{Duration, Instant};

use flightdeck_sandbox::testing::{self, ad_order_body};
use serde_json::{Value, json};

const DAY: i64 = 86_400_000;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let orders = env_or("BENCH_AD_ORDERS", 100_000);
    let saves = env_or("BENCH_SAVES", 2_000);
    let concurrency = env_or("BENCH_CONCURRENCY", 8);

    let sandbox = testing::demo_sandbox()?;
    let now = sandbox.state().clock.now_ms();
    let campaign = testing::demo_campaign(&sandbox)?;

    let started = Instant::now();
    testing::load_ad_orders(&sandbox, campaign, orders, now)?;
    let load = started.elapsed();
    println!(
        "load: {orders} ad orders through store::adorder_save in {:.2} s ({:.0} /s)",
        load.as_secs_f64(),
        orders as f64 / load.as_secs_f64()
    );

    let running = sandbox.clone().spawn("127.0.0.1:0".parse()?).await?;
    let base = running.base_url();
    let http = reqwest::Client::new();
    let token: Value = http
        .post(format!("{base}/v1/oauth2/authenticate"))
        .basic_auth("demo", Some("demo"))
        .send()
        .await?
        .json()
        .await?;
    let token = token["access_token"]
        .as_str()
        .unwrap_or_default()
        .to_owned();

    // getAllAdOrders: a few full listings; report each and the median.
    let mut times = Vec::new();
    let mut bytes = 0;
    let mut count = 0;
    for _ in 0..7 {
        let t = Instant::now();
        let body = http
            .get(format!("{base}/v1/adorder/getAllAdOrders"))
            .bearer_auth(&token)
            .send()
            .await?
            .bytes()
            .await?;
        times.push(t.elapsed());
        bytes = body.len();
        let parsed: Value = serde_json::from_slice(&body)?;
        count = parsed["entity"].as_array().map_or(0, Vec::len);
    }
    times.sort();
    println!(
        "getAllAdOrders: {count} ad orders, {:.1} MB; median {:.0} ms, min {:.0} ms, max {:.0} ms (client receive included)",
        bytes as f64 / 1e6,
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
    );

    let adorder = rate(
        &http,
        &base,
        &token,
        "/v1/adorder/save",
        saves,
        concurrency,
        |i| ad_order_body(campaign, i, now),
    )
    .await?;
    println!("adorder/save: {saves} requests, {concurrency} in flight: {adorder:.0} req/s");

    let campaigns = rate(&http, &base, &token, "/v1/campaign/save", saves, concurrency, |i| {
        json!({
            "advertiserId": 1, "name": format!("Bench {i}"), "domain": "bench.example",
            "maxBudget": 1000.0, "startDate": now + DAY, "endDate": now + 30 * DAY,
            "iabCategory": ["IAB3"],
            "flights": [{"id": null, "maxBudget": 1000.0, "startDate": now + DAY, "endDate": now + 30 * DAY}]
        })
    })
    .await?;
    println!(
        "campaign/save (one flight): {saves} requests, {concurrency} in flight: {campaigns:.0} req/s"
    );
    running.stop().await?;
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Sends `total` POSTs with `concurrency` in flight; every answer must be 200.
async fn rate(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    path: &str,
    total: usize,
    concurrency: usize,
    body: impl Fn(usize) -> Value,
) -> Result<f64, Box<dyn std::error::Error>> {
    let bodies: Vec<Value> = (0..total).map(body).collect();
    let started = Instant::now();
    let mut chunks = bodies.chunks(total.div_ceil(concurrency.max(1)));
    let mut tasks = Vec::new();
    for chunk in chunks.by_ref() {
        let chunk = chunk.to_vec();
        let http = http.clone();
        let url = format!("{base}{path}");
        let token = token.to_owned();
        tasks.push(tokio::spawn(async move {
            for b in chunk {
                let status = http
                    .post(&url)
                    .bearer_auth(&token)
                    .json(&b)
                    .send()
                    .await?
                    .status();
                if !status.is_success() {
                    return Err(format!("{url} answered {status}").into());
                }
            }
            Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
        }));
    }
    for t in tasks {
        t.await?.map_err(|e| e.to_string())?;
    }
    Ok(total as f64 / started.elapsed().as_secs_f64())
}
