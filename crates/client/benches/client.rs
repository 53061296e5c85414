//! What the client adds on top of HTTP: `all_ad_orders()` (fetch and decode into
//! `Vec<AdOrder>`) over 100,000 ad orders, against `curl` fetching the same listing and
//! throwing it away, on loopback from an in-process sandbox.
//!
//! Run with `cargo bench -p flightdeck-client`. Figures go in the issue notes, never in
//! tests. `BENCH_AD_ORDERS` and `BENCH_RUNS` shrink the workload for a quick look.

use std::process::Command;
use std::time::{Duration, Instant};

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_model::{AdOrder, Envelope};
use flightdeck_sandbox::testing;
use serde_json::Value;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let orders = env_or("BENCH_AD_ORDERS", 100_000);
    let runs = env_or("BENCH_RUNS", 7).max(1);

    let sandbox = testing::demo_sandbox()?;
    let now = sandbox.state().clock.now_ms();
    let campaign = testing::demo_campaign(&sandbox)?;
    let started = Instant::now();
    testing::load_ad_orders(&sandbox, campaign, orders, now)?;
    println!(
        "load: {orders} ad orders through store::adorder_save in {:.2} s",
        started.elapsed().as_secs_f64()
    );

    let running = sandbox.clone().spawn("127.0.0.1:0".parse()?).await?;
    let base = running.base_url();
    let url = format!("{base}/v1/adorder/getAllAdOrders");
    let client = Client::new(
        ClientConfig::new(&base)?,
        Credentials::basic("demo", "demo"),
    )?;

    // (a) The client: fetch and decode. One warm-up call (password check, caches).
    let expected = client.all_ad_orders().await?.entity.len();
    let mut client_times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let reply = client.all_ad_orders().await?;
        client_times.push(t.elapsed());
        if reply.entity.len() != expected {
            return Err(format!("listing changed: {} ad orders", reply.entity.len()).into());
        }
    }
    let client_median = median(&mut client_times);
    println!(
        "client.all_ad_orders(): {expected} ad orders; median {:.0} ms, min {:.0} ms, max {:.0} ms ({runs} runs)",
        ms(client_median),
        ms(client_times[0]),
        ms(client_times[client_times.len() - 1]),
    );

    // For reading the ratio: the same fetch through reqwest without decoding.
    let http = reqwest::Client::new();
    let mut raw_times = Vec::new();
    let mut bytes = Default::default();
    for _ in 0..runs {
        let t = Instant::now();
        let body = http
            .get(&url)
            .basic_auth("demo", Some("demo"))
            .send()
            .await?
            .bytes()
            .await?;
        raw_times.push(t.elapsed());
        bytes = body;
    }
    let raw_median = median(&mut raw_times);
    println!(
        "reqwest fetch only (no decode): {:.1} MB; median {:.0} ms",
        bytes.len() as f64 / 1e6,
        ms(raw_median)
    );
    // And the decode alone, typed and untyped, to see what the model types cost.
    let mut typed = Vec::new();
    let mut untyped = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let e: Envelope<Vec<AdOrder>> = serde_json::from_slice(&bytes)?;
        typed.push(t.elapsed());
        drop(e);
        let t = Instant::now();
        let v: Value = serde_json::from_slice(&bytes)?;
        untyped.push(t.elapsed());
        drop(v);
    }
    println!(
        "decode only: Envelope<Vec<AdOrder>> median {:.0} ms, serde_json::Value median {:.0} ms",
        ms(median(&mut typed)),
        ms(median(&mut untyped))
    );

    // (b) curl, when installed.
    if !curl_available() {
        println!("curl: not found on PATH; skipped the comparison");
        running.stop().await?;
        return Ok(());
    }
    curl(&url).await?;
    let mut curl_times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        curl(&url).await?;
        curl_times.push(t.elapsed());
    }
    let curl_median = median(&mut curl_times);
    println!(
        "curl -s -o /dev/null -u demo:demo: median {:.0} ms, min {:.0} ms, max {:.0} ms ({runs} runs, process start included)",
        ms(curl_median),
        ms(curl_times[0]),
        ms(curl_times[curl_times.len() - 1]),
    );
    println!(
        "ratio client / curl: {:.2} (decode adds {:.0} ms over the reqwest fetch)",
        client_median.as_secs_f64() / curl_median.as_secs_f64(),
        ms(client_median.saturating_sub(raw_median)),
    );
    running.stop().await?;
    Ok(())
}

fn curl_available() -> bool {
    Command::new("curl")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// One `curl` run, off the async threads so the in-process server keeps serving.
async fn curl(url: &str) -> Result<(), BoxError> {
    let url = url.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        Command::new("curl")
            .args([
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-u",
                "demo:demo",
            ])
            .arg(&url)
            .output()
    })
    .await??;
    let code = String::from_utf8_lossy(&out.stdout);
    if code != "200" {
        return Err(format!("curl got HTTP {code}").into());
    }
    Ok(())
}

/// Sorts `times` and returns the median.
fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
