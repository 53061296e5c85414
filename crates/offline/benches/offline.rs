//! (a) Download an account of 100,000 ad orders into a fresh workspace, then again with
//! their flight caps (one request per order, against the same requests made without a
//! workspace), (b) "Check changes" over 100,000 pending changes, (c) the row markers of
//! those 100,000 drafts.
//!
//! Run with `cargo bench -p flightdeck-offline --bench offline`. Figures go in the issue
//! notes, never in tests. `BENCH_AD_ORDERS` and `BENCH_CHANGES` shrink the workload for a
//! quick look; `BENCH_CAPS=0` skips the download with caps.

use std::time::Instant;

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::{Progress, PullOptions, PullScope, Workspace};
use flightdeck_sandbox::testing::{self, ad_order_body};
use futures_util::{StreamExt, TryStreamExt, stream};
use serde_json::Value;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let orders = env_or("BENCH_AD_ORDERS", 100_000);
    let changes = env_or("BENCH_CHANGES", 100_000);
    let dir = tempfile::tempdir()?;

    // (a) Download.
    let sandbox = testing::demo_sandbox()?;
    let now = sandbox.state().clock.now_ms();
    let campaign = testing::demo_campaign(&sandbox)?;
    testing::load_ad_orders(&sandbox, campaign, orders, now)?;
    let running = sandbox.clone().spawn("127.0.0.1:0".parse()?).await?;
    let client = Client::new(
        ClientConfig::new(&running.base_url())?,
        Credentials::basic("demo", "demo"),
    )?;
    // Every order sits under a campaign with flights, so caps would be one request per
    // order; HTTP Basic cannot read audiences; creatives are one request per campaign.
    // All are off: this measures the ad-order listing, as before creatives came in.
    let options = PullOptions {
        flight_caps: false,
        audiences: false,
        creatives: false,
        ..PullOptions::default()
    };

    let t = Instant::now();
    let listed = client.all_ad_orders().await?.entity.len();
    let fetch = t.elapsed();
    println!(
        "fetch only: getAllAdOrders, {listed} ad orders decoded in {:.0} ms",
        fetch.as_secs_f64() * 1000.0
    );

    let mut ws = Workspace::open(dir.path().join("pull.sqlite"))?;
    let before = peak_reset();
    let t = Instant::now();
    let report = ws
        .pull_with(&client, PullScope::All, options, |_| {})
        .await?;
    let first = t.elapsed();
    println!(
        "pull(All) into a fresh workspace: {} ad orders added in {:.0} ms; peak resident \
         memory {:.0} MB (from {:.0} MB before it, the sandbox's included)",
        report.of(Kind::AdOrder).added,
        first.as_secs_f64() * 1000.0,
        peak_mb().unwrap_or(f64::NAN),
        before.unwrap_or(f64::NAN),
    );
    let t = Instant::now();
    let report = ws
        .pull_with(&client, PullScope::All, options, |_| {})
        .await?;
    println!(
        "pull(All) again, nothing changed: {} unchanged in {:.0} ms",
        report.of(Kind::AdOrder).unchanged,
        t.elapsed().as_secs_f64() * 1000.0
    );
    drop(ws);

    if env_or("BENCH_CAPS", 1) != 0 {
        pull_with_caps(&client, &running.base_url(), dir.path()).await?;
    }
    running.stop().await?;

    // (b) Check changes.
    let mut ws = Workspace::open(dir.path().join("check.sqlite"))?;
    let parent = EntityRef::new(Kind::Campaign, Key::Id(campaign));
    let t = Instant::now();
    let mut batch = ws.batch()?;
    for i in 0..changes {
        let mut body = ad_order_body(campaign, i, now);
        if i % 10 == 0 {
            body["lifetimeBudget"] = Value::Null; // every tenth is invalid
        }
        batch.create_ad_order(&parent, serde_json::from_value(body)?)?;
    }
    batch.commit()?;
    println!(
        "{changes} create_ad_order drafts in one batch: {:.0} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
    let mut times = Vec::new();
    let mut broken = 0;
    for _ in 0..5 {
        let t = Instant::now();
        broken = ws.check()?.len();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "check() over {changes} pending changes ({broken} invalid): median {:.0} ms, min {:.0} ms, max {:.0} ms",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );

    // (c) Row markers.
    let mut times = Vec::new();
    let mut marked = 0;
    for _ in 0..5 {
        let t = Instant::now();
        marked = ws.markers(Kind::AdOrder)?.len();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "markers(AdOrder) over {marked} pending rows: median {:.0} ms, min {:.0} ms, max {:.0} ms",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );
    Ok(())
}

/// The download with flight caps against its floor: the same `byAdOrder` requests, as
/// many at once, with nothing written.
async fn pull_with_caps(
    client: &Client,
    base: &str,
    dir: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let options = PullOptions {
        audiences: false,
        ..PullOptions::default()
    };
    let t = Instant::now();
    let ids: Vec<i64> = client
        .all_ad_orders()
        .await?
        .entity
        .iter()
        .filter_map(|o| o.id)
        .collect();
    let fetched: Vec<usize> = stream::iter(ids.iter().copied())
        .map(|id| async move {
            Ok::<_, flightdeck_client::Error>(client.flight_caps_save(id, &[]).await?.entity.len())
        })
        .buffer_unordered(options.caps_concurrency)
        .try_collect()
        .await?;
    let floor = t.elapsed();
    println!(
        "fetch only: getAllAdOrders once and {} byAdOrder calls, {} at once: {:.0} ms",
        fetched.len(),
        options.caps_concurrency,
        floor.as_secs_f64() * 1000.0
    );

    let curl_took = curl_caps(base, &ids).await?;

    let mut ws = Workspace::open(dir.join("caps.sqlite"))?;
    let mut ticks = 0usize;
    let mut last: Option<Progress> = None;
    let t = Instant::now();
    let report = ws
        .pull_with(client, PullScope::All, options, |p| {
            ticks += 1;
            last = Some(p);
        })
        .await?;
    let took = t.elapsed();
    println!(
        "pull(All) with flight caps into a fresh workspace: {} ad orders and {} caps lists \
         added in {:.0} ms ({:.2}x the fetch-only floor); {} progress reports, the last {:?}",
        report.of(Kind::AdOrder).added,
        report.of(Kind::FlightCaps).added,
        took.as_secs_f64() * 1000.0,
        took.as_secs_f64() / floor.as_secs_f64(),
        ticks,
        last
    );
    if let Some(curl) = curl_took {
        println!(
            "  against curl of the same calls: {:.2}x",
            took.as_secs_f64() / curl.as_secs_f64()
        );
    }
    Ok(())
}

/// The floor of scripts/bench-ui.sh's download figure: curl making the listing call
/// and the same `byAdOrder` calls, 8 at once on kept-alive connections
/// (`--parallel-max 8`), the ids as runs of URL globs. `None` without curl.
async fn curl_caps(
    base: &str,
    ids: &[i64],
) -> Result<Option<std::time::Duration>, Box<dyn std::error::Error>> {
    let available = std::process::Command::new("curl")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        println!("curl: not found on PATH; no curl floor");
        return Ok(None);
    }
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for id in sorted {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == id => *last = id,
            _ => runs.push((id, id)),
        }
    }
    let urls: Vec<String> = runs
        .iter()
        .map(|(a, b)| format!("{base}/v1/campaignflightcaps/byAdOrder/[{a}-{b}]"))
        .collect();
    let listing = format!("{base}/v1/adorder/getAllAdOrders");
    let t = Instant::now();
    // Off the async threads, so the in-process sandbox keeps serving.
    let statuses = tokio::task::spawn_blocking(move || {
        let listed = std::process::Command::new("curl")
            .args(["-sf", "-o", "/dev/null", "-u", "demo:demo", &listing])
            .status()?;
        let mut caps = std::process::Command::new("curl");
        caps.args([
            "-sf",
            "-Z",
            "--parallel-max",
            "8",
            "-u",
            "demo:demo",
            "-X",
            "POST",
        ])
        .args(["-H", "Content-Type: application/json", "--data", "[]"])
        .args(&urls)
        .stdout(std::process::Stdio::null())
        // Its parallel mode draws a progress meter despite -s.
        .stderr(std::process::Stdio::null());
        Ok::<_, std::io::Error>((listed, caps.status()?))
    })
    .await??;
    let took = t.elapsed();
    if !statuses.0.success() || !statuses.1.success() {
        return Err(format!("curl failed: {statuses:?}").into());
    }
    println!(
        "curl, getAllAdOrders once and {} byAdOrder calls, 8 at once: {:.0} ms",
        ids.len(),
        took.as_secs_f64() * 1000.0
    );
    Ok(Some(took))
}

/// Resets the process's peak resident memory to what it holds now (Linux:
/// `/proc/self/clear_refs`), returning that in MB.
fn peak_reset() -> Option<f64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    status_mb("VmRSS:")
}

/// Peak resident memory since the last [`peak_reset`], in MB.
fn peak_mb() -> Option<f64> {
    status_mb("VmHWM:")
}

fn status_mb(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
