//! Prepares a sandbox database with the demo account plus `N` ad orders under its first
//! campaign, for benchmarks of the app on a large account (`scripts/bench-ui.sh`):
//!
//!     cargo run --release -p flightdeck-sandbox --example load_ad_orders -- DB N
//!
//! The app's embedded sandbox opens `$FLIGHTDECK_DATA_DIR/sandbox.db`; point DB there.

use flightdeck_sandbox::{Config, Sandbox, Seed, testing};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(db), Some(n)) = (args.next(), args.next()) else {
        return Err("usage: load_ad_orders DB N".into());
    };
    let n: usize = n.parse()?;
    let sandbox = Sandbox::open(&Config {
        data: Some(db.into()),
        seed: Seed::Demo,
        ..Config::default()
    })?;
    let now = sandbox.state().clock.now_ms();
    let campaign = testing::demo_campaign(&sandbox)?;
    // In transactions of 100,000: one disk sync each, and bounded memory.
    let mut left = n;
    while left > 0 {
        let chunk = left.min(100_000);
        testing::load_ad_orders(&sandbox, campaign, chunk, now)?;
        left -= chunk;
    }
    println!("{n} ad orders under campaign {campaign}");
    Ok(())
}
