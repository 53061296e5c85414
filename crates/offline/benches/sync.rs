//! Posting: 10,000 pending ad-order creates under one downloaded campaign, against the
//! sandbox with 20 ms injected latency, with requests in flight versus one at a time.
//! Each run gets a fresh sandbox and workspace, and ends by counting what the sandbox
//! holds: every change applied, zero duplicates.
//!
//! Run with `cargo bench -p flightdeck-offline --bench sync`. Knobs (environment):
//! `BENCH_POST_CHANGES` (10,000), `BENCH_SERIAL_CHANGES` (1,000: the serial run is
//! extrapolated to `BENCH_POST_CHANGES`, and says so; set it equal to post the whole set
//! one by one), `BENCH_LATENCY_MS` (20), `BENCH_CONCURRENCY` (comma list, "8,16").

use std::time::{Duration, Instant};

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::sync::{self, PushOptions};
use flightdeck_offline::workspace::Workspace;
use flightdeck_sandbox::faults::FaultSettings;
use flightdeck_sandbox::testing;
use serde_json::json;

const DAY: i64 = 86_400_000;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One timed push of `n` creates.
struct Run {
    n: usize,
    concurrency: usize,
    took: Duration,
}

async fn run(n: usize, concurrency: usize, latency_ms: u64) -> Result<Run, BoxError> {
    let dir = tempfile::tempdir()?;
    let sandbox = testing::demo_sandbox()?;
    let now = sandbox.state().clock.now_ms();
    let campaign: i64 = sandbox.state().db.blocking(|c| {
        Ok(c.query_row(
            "SELECT id FROM campaigns WHERE json_extract(body, '$.name') = 'Acme Always-On'",
            [],
            |r| r.get(0),
        )?)
    })?;
    let running = sandbox.clone().spawn("127.0.0.1:0".parse()?).await?;
    let client = Client::new(
        ClientConfig::new(&running.base_url())?,
        Credentials::basic("demo", "demo"),
    )?;

    let mut ws = Workspace::open(dir.path().join("push.sqlite"))?;
    let parent = EntityRef::new(Kind::Campaign, Key::Id(campaign));
    let mut batch = ws.batch()?;
    for i in 0..n {
        batch.create_ad_order(
            &parent,
            serde_json::from_value(json!({
                "name": format!("Bench order {i}"), "optimizationGoal": "CPM",
                "startDate": now + DAY, "endDate": now + 30 * DAY, "lifetimeBudget": 500.0
            }))?,
        )?;
    }
    batch.commit()?;

    sandbox
        .state()
        .faults
        .set(FaultSettings {
            latency_ms,
            ..FaultSettings::default()
        })
        .map_err(|e| format!("faults: {e}"))?;
    let options = PushOptions {
        concurrency,
        ..PushOptions::default()
    };
    let t = Instant::now();
    let report = sync::push(&mut ws, &client, &options, |_| {}).await?;
    let took = t.elapsed();
    sandbox.state().faults.reset();

    if report.applied.len() != n || !report.is_complete() {
        return Err(format!(
            "concurrency {concurrency}: {} of {n} applied; failed {}, unsent {}, held {}",
            report.applied.len(),
            report.failed.len(),
            report.unsent.len(),
            report.held.len()
        )
        .into());
    }
    let (rows, distinct): (i64, i64) = sandbox.state().db.blocking(|c| {
        Ok(c.query_row(
            "SELECT COUNT(*), COUNT(DISTINCT json_extract(body, '$.name')) FROM ad_orders \
             WHERE json_extract(body, '$.name') LIKE 'Bench order %'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    })?;
    let expected = i64::try_from(n)?;
    if rows != expected || distinct != expected {
        return Err(
            format!("expected {n} orders once each, found {rows} rows, {distinct} names").into(),
        );
    }
    if !ws.pending()?.is_empty() {
        return Err("changes left pending".into());
    }
    running.stop().await?;
    Ok(Run {
        n,
        concurrency,
        took,
    })
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let n = env_or("BENCH_POST_CHANGES", 10_000);
    let serial_n = env_or("BENCH_SERIAL_CHANGES", 1_000).min(n);
    let latency = u64::try_from(env_or("BENCH_LATENCY_MS", 20))?;
    let levels: Vec<usize> = std::env::var("BENCH_CONCURRENCY")
        .unwrap_or_else(|_| "8,16".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    println!("posting {n} pending ad-order creates, {latency} ms injected latency per request");

    let serial = run(serial_n, 1, latency).await?;
    let per = serial.took.as_secs_f64() / serial.n as f64;
    let serial_full = per * n as f64;
    let how = if serial.n == n {
        "measured".to_owned()
    } else {
        format!(
            "extrapolated from {} measured in {:.1} s",
            serial.n,
            serial.took.as_secs_f64()
        )
    };
    println!(
        "concurrency  1: {:.1} ms per change, {n} changes ≈ {serial_full:.1} s ({how}); zero duplicates",
        per * 1000.0
    );
    for c in levels {
        let r = run(n, c, latency).await?;
        let secs = r.took.as_secs_f64();
        println!(
            "concurrency {:>2}: {} changes in {secs:.1} s ({:.0} changes/s), {:.1}x faster than one by one; zero duplicates",
            r.concurrency,
            r.n,
            r.n as f64 / secs,
            serial_full / secs
        );
    }
    Ok(())
}
