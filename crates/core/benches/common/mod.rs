//! What the table benches share: their knobs, and a workspace that downloaded N ad
//! orders from a sandbox on loopback, as the app's would.

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_offline::workspace::{PullOptions, PullScope, Workspace};
use flightdeck_sandbox::testing;

/// A `BENCH_*` knob, or `default`.
pub fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A workspace in `dir` that downloaded the demo account with `orders` ad orders under
/// one campaign (without flight caps, audiences or creatives), that campaign's id and the
/// sandbox's clock when they were loaded (for more bodies like theirs).
pub async fn downloaded(
    dir: &std::path::Path,
    orders: usize,
) -> Result<(Workspace, i64, i64), Box<dyn std::error::Error>> {
    let sandbox = testing::demo_sandbox()?;
    let now = sandbox.state().clock.now_ms();
    let campaign = testing::demo_campaign(&sandbox)?;
    testing::load_ad_orders(&sandbox, campaign, orders, now)?;
    let running = sandbox.clone().spawn("127.0.0.1:0".parse()?).await?;
    let client = Client::new(
        ClientConfig::new(&running.base_url())?,
        Credentials::basic("demo", "demo"),
    )?;
    let mut ws = Workspace::open(dir.join("bench.db"))?;
    let options = PullOptions {
        flight_caps: false,
        audiences: false,
        creatives: false,
        ..PullOptions::default()
    };
    ws.pull_with(&client, PullScope::All, options, |_| {})
        .await?;
    running.stop().await?;
    Ok((ws, campaign, now))
}

/// Milliseconds of `d`.
pub fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// One figure's line: median, p95 and max of `v`.
pub fn stats(label: &str, mut v: Vec<std::time::Duration>) {
    v.sort();
    let p = |q: f64| ms(v[((v.len() - 1) as f64 * q).round() as usize]);
    println!(
        "{label:<44} median {:>8.2} ms   p95 {:>8.2} ms   max {:>8.2} ms   ({} runs)",
        p(0.5),
        p(0.95),
        p(1.0),
        v.len()
    );
}
