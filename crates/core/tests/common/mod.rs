//! What the core's integration tests share: a workspace downloaded over HTTP from a
//! sandbox on loopback, and the drafts most tests start from. Each test binary uses only
//! some of it.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_core::Account;
use flightdeck_model::{Advertiser, Campaign, TimezoneName};
use flightdeck_offline::change::EntityRef;
use flightdeck_offline::workspace::{Draft, PullOptions, PullScope, Workspace};
use flightdeck_sandbox::testing;
use serde_json::Value;

/// A workspace file (`w.db` in the returned directory) that downloaded the demo account
/// plus `orders` ad orders ("Order 0" …) under the demo campaign, whose id comes back
/// too; flight caps and audiences are not downloaded.
pub async fn downloaded(orders: usize) -> (tempfile::TempDir, PathBuf, i64) {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = testing::demo_sandbox().unwrap();
    let now = sandbox.state().clock.now_ms();
    let campaign = testing::demo_campaign(&sandbox).unwrap();
    testing::load_ad_orders(&sandbox, campaign, orders, now).unwrap();
    let running = sandbox
        .clone()
        .spawn("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let client = Client::new(
        ClientConfig::new(&running.base_url()).unwrap(),
        Credentials::basic("demo", "demo"),
    )
    .unwrap();
    let path = dir.path().join("w.db");
    let mut ws = Workspace::open(&path).unwrap();
    let options = PullOptions {
        flight_caps: false,
        audiences: false,
        ..PullOptions::default()
    };
    ws.pull_with(&client, PullScope::All, options, |_| {})
        .await
        .unwrap();
    running.stop().await.unwrap();
    (dir, path, campaign)
}

/// An advertiser draft "Acme Outdoor", in `timezone` when given.
pub fn advertiser(account: &Account, timezone: Option<TimezoneName>) -> EntityRef {
    account
        .save(
            None,
            None,
            Draft::Advertiser {
                value: Advertiser {
                    name: Some("Acme Outdoor".into()),
                    timezone_name: timezone,
                    ..Advertiser::default()
                },
            },
        )
        .unwrap()
        .target
}

/// A campaign draft "Spring sale" under `advertiser`.
pub fn campaign(account: &Account, advertiser: &EntityRef) -> EntityRef {
    account
        .save(
            None,
            Some(advertiser),
            Draft::Campaign {
                value: Campaign {
                    name: Some("Spring sale".into()),
                    ..Campaign::default()
                },
            },
        )
        .unwrap()
        .target
}

/// The working value of `target` in the account's workspace.
pub fn working(account: &Account, target: &EntityRef) -> Value {
    account
        .workspace()
        .unwrap()
        .get(target)
        .unwrap()
        .expect("the entity")
        .working
}
