//! A locked or missing OS keyring: the app still opens on the account's workspace with
//! every pending change, says why nobody is signed in, refuses a sign-in in plain words,
//! and is signed in again on the next start once the keyring works.
//!
//! Run inside `scripts/with-keyring.sh`; the part without a keyring runs in a child
//! process whose D-Bus session leads nowhere.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use flightdeck_core::{Core, OpenOptions, Selection};
use flightdeck_model::Advertiser;
use flightdeck_sandbox::testing;
use serde_json::json;

const CHILD: &str = "FLIGHTDECK_KEYRING_CHILD";

fn advertiser() -> Advertiser {
    serde_json::from_value(json!({
        "name": "Drafted before the keyring went away", "agencyId": 1,
        "currency": "USD", "category": "IAB3"
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_keyring_the_app_keeps_pending_changes_says_why_and_recovers_next_start() {
    if let Ok(spec) = std::env::var(CHILD) {
        let (dir, url) = spec.split_once('|').unwrap();
        return without_keyring(dir, url).await;
    }
    let sandbox = testing::demo_sandbox().unwrap();
    let running = sandbox.spawn("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let url = running.base_url();
    let dir = tempfile::tempdir().unwrap();
    let selection = || Selection::Url(url.clone());

    let core = Core::open(dir.path(), selection(), OpenOptions::default())
        .await
        .unwrap();
    core.sign_in_user("demo", "demo".into()).await.unwrap();
    let account = core.active().unwrap();
    account
        .workspace()
        .unwrap()
        .create_advertiser(advertiser())
        .unwrap();
    assert_eq!(account.pending_count().unwrap(), 1);
    drop(account);
    drop(core);

    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "without_a_keyring_the_app_keeps_pending_changes_says_why_and_recovers_next_start",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD, format!("{}|{url}", dir.path().display()))
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("keyring child ok"),
        "{text}"
    );

    // The keyring is back: the next start is signed in, with the change still pending.
    let core = Core::open(dir.path(), selection(), OpenOptions::default())
        .await
        .unwrap();
    let account = core.active().unwrap();
    assert_eq!(
        account.signed().map(|s| s.session.account().to_owned()),
        Some("demo".to_owned())
    );
    assert_eq!(account.restore_problem(), None);
    assert_eq!(account.pending_count().unwrap(), 1);
    running.stop().await.unwrap();
}

async fn without_keyring(dir: &str, url: &str) {
    let core = Core::open(
        std::path::Path::new(dir),
        Selection::Url(url.to_owned()),
        OpenOptions::default(),
    )
    .await
    .expect("the app opens without a keyring");
    let account = core.active().unwrap();
    assert!(account.signed().is_none());
    let why = account
        .restore_problem()
        .expect("it says why nobody is signed in");
    assert!(
        why.contains("demo") && why.contains("keyring") && why.contains("pending changes are kept"),
        "{why}"
    );
    // The account's own workspace is open, with its pending change.
    assert_eq!(account.pending_count().unwrap(), 1);
    let refused = core
        .sign_in_user("demo", "demo".into())
        .await
        .expect_err("no keyring to keep the session in");
    assert!(refused.to_string().contains("keyring"), "{refused}");
    assert!(!refused.to_string().contains("demo\""), "{refused}");
    assert_eq!(account.pending_count().unwrap(), 1);
    println!("keyring child ok");
}
