//! What a table costs on the Rust side at 100,000 rows: `list_ad_orders` reads the
//! workspace, decodes and marks every row, and serialises the answer for the webview.
//! The sorting, filtering and scrolling that follow are the UI's (see the vitest suite).
//!
//! Run with `cargo bench -p flightdeck-app`. `BENCH_AD_ORDERS` shrinks the workload.

use std::time::{Duration, Instant};

use flightdeck_app::commands::tables::{named, rows_of};
use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_model::AdOrder;
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::{PullOptions, PullScope, Workspace};
use flightdeck_sandbox::testing;

const RUNS: usize = 7;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let orders: usize = std::env::var("BENCH_AD_ORDERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir()?;
    let sandbox = testing::demo_sandbox()?;
    let now = sandbox.state().clock.now_ms();
    let campaign = testing::demo_campaign(&sandbox)?;
    testing::load_ad_orders(&sandbox, campaign, orders, now)?;
    let running = sandbox.clone().spawn("127.0.0.1:0".parse()?).await?;
    let client = Client::new(
        ClientConfig::new(&running.base_url())?,
        Credentials::basic("demo", "demo"),
    )?;
    let mut ws = Workspace::open(dir.path().join("bench.db"))?;
    let options = PullOptions {
        flight_caps: false,
        audiences: false,
        ..PullOptions::default()
    };
    ws.pull_with(&client, PullScope::All, options, |_| {})
        .await?;
    running.stop().await?;
    // A tenth of the rows pending, as after a bulk edit: their markers are looked up too.
    let parent = EntityRef::new(Kind::Campaign, Key::Id(campaign));
    let mut batch = ws.batch()?;
    for i in 0..orders / 10 {
        batch.create_ad_order(
            &parent,
            serde_json::from_value(testing::ad_order_body(campaign, i, now))?,
        )?;
    }
    batch.commit()?;

    let mut build = Vec::new();
    let mut encode = Vec::new();
    let mut bytes = 0;
    let mut count = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let rows = rows_of(&ws, Kind::AdOrder, None, |o: &AdOrder, e| {
            named(o.name.as_deref(), e)
        })?;
        build.push(t.elapsed());
        let t = Instant::now();
        let json = serde_json::to_vec(&rows)?;
        encode.push(t.elapsed());
        bytes = json.len();
        count = rows.len();
    }
    build.sort();
    encode.sort();
    let median = |v: &[Duration]| ms(v[v.len() / 2]);
    println!(
        "list_ad_orders over {count} rows ({} pending): read+decode+mark median {:.0} ms (min {:.0}, max {:.0}); \
         JSON for the webview {:.1} MB in median {:.0} ms",
        orders / 10,
        median(&build),
        ms(build[0]),
        ms(build[RUNS - 1]),
        bytes as f64 / 1e6,
        median(&encode),
    );
    Ok(())
}
