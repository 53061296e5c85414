//! The table index kept on disk beside the workspace: after a restart the table opens
//! from it with the same rows, and a file that no longer fits the workspace (a change
//! made while the app was closed, damage, another format) is never trusted: the table
//! is built from the workspace and shows what it holds.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use flightdeck_core::query::{SortBy, TABLE_KINDS, TableQuery, Tables};
use flightdeck_model::AdOrder;
use flightdeck_offline::change::Kind;
use flightdeck_offline::workspace::Workspace;

const ORDERS: usize = 150;

async fn downloaded() -> (tempfile::TempDir, PathBuf) {
    let (dir, path, _) = common::downloaded(ORDERS).await;
    (dir, path)
}

fn query(filter: &str, sort: Option<(&str, bool)>) -> TableQuery {
    TableQuery {
        parent: None,
        filter: filter.to_owned(),
        sort: sort.map(|(c, d)| SortBy {
            column: c.to_owned(),
            descending: d,
        }),
        offset: 0,
        limit: 100_000,
        quick: false,
    }
}

/// What the buyer sees in a few views of the ad-order table: labels in order.
fn views(tables: &Tables, ws: &Workspace) -> Vec<Vec<String>> {
    [
        query("", None),
        query("order 1", None),
        query("", Some(("name", false))),
        query("", Some(("budget", true))),
        query("", Some(("start", false))),
        query("", Some(("status", true))),
    ]
    .iter()
    .map(|q| {
        tables
            .window::<AdOrder>(ws, Kind::AdOrder, q)
            .unwrap()
            .rows
            .into_iter()
            .map(|r| r.label)
            .collect()
    })
    .collect()
}

/// A session of the app: builds every table (as `warm_tables` does), optionally renames
/// the first ad order through the app, and saves the index as the app does on closing.
fn session(path: &Path, rename: Option<&str>) -> Vec<Vec<String>> {
    let mut ws = Workspace::open(path).unwrap();
    let tables = Tables::default();
    if !tables.load(&ws, path).unwrap() {
        tables.prebuild(&ws, &TABLE_KINDS).unwrap();
    }
    if let Some(name) = rename {
        rename_first(&mut ws, &tables, name);
    }
    let shown = views(&tables, &ws);
    tables.save(path).unwrap();
    shown
}

fn rename_first(ws: &mut Workspace, tables: &Tables, name: &str) {
    let first = tables
        .window::<AdOrder>(ws, Kind::AdOrder, &query("order", None))
        .unwrap()
        .rows
        .remove(0);
    let mut value = first.value.clone();
    value.name = Some(name.to_owned());
    let before = ws.change_stamp().ok();
    ws.update_ad_order(&first.target, value).unwrap();
    tables
        .touched_since(ws, std::slice::from_ref(&first.target), before)
        .unwrap();
}

fn index_file(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".index");
    PathBuf::from(s)
}

/// A restart: whether the index came from the file, and what the table shows.
fn restart(path: &Path) -> (bool, Vec<Vec<String>>) {
    let ws = Workspace::open(path).unwrap();
    let tables = Tables::default();
    let loaded = tables.load(&ws, path).unwrap();
    (loaded, views(&tables, &ws))
}

/// What a fresh build from the workspace shows: the truth to compare with.
fn built(path: &Path) -> Vec<Vec<String>> {
    let ws = Workspace::open(path).unwrap();
    views(&Tables::default(), &ws)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_restart_the_table_opens_from_the_saved_index_with_the_same_rows() {
    let (_dir, path) = downloaded().await;
    let first = session(&path, None);
    assert!(index_file(&path).exists(), "the index is saved on closing");
    let (loaded, shown) = restart(&path);
    assert!(
        loaded,
        "the second start reads the index instead of building it"
    );
    assert_eq!(shown, first);

    // A save in the app is in the index saved on closing, and shows after a restart.
    let renamed = session(&path, Some("Zulu renamed in the app"));
    assert!(
        renamed[2]
            .last()
            .is_some_and(|n| n == "Zulu renamed in the app")
    );
    let (loaded, shown) = restart(&path);
    assert!(loaded, "the app's own save keeps the saved index current");
    assert_eq!(shown, renamed);
    assert_eq!(shown, built(&path));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_made_while_the_app_was_closed_shows_after_a_restart() {
    let (_dir, path) = downloaded().await;
    session(&path, None);
    // The CLI renames an ad order while the app is closed.
    {
        let mut cli = Workspace::open(&path).unwrap();
        let tables = Tables::default();
        let first = tables
            .window::<AdOrder>(&cli, Kind::AdOrder, &query("order", None))
            .unwrap()
            .rows
            .remove(0);
        let mut value = first.value.clone();
        value.name = Some("Renamed by the CLI".into());
        cli.update_ad_order(&first.target, value).unwrap();
    }
    let (loaded, shown) = restart(&path);
    assert!(!loaded, "the saved index misses the CLI's change: not used");
    assert!(shown[0].iter().any(|n| n == "Renamed by the CLI"));
    assert_eq!(shown, built(&path));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_set_while_the_app_was_closed_shows_after_a_restart() {
    let (_dir, path) = downloaded().await;
    session(&path, None);
    {
        let mut cli = Workspace::open(&path).unwrap();
        let first = Tables::default()
            .window::<AdOrder>(&cli, Kind::AdOrder, &query("order", None))
            .unwrap()
            .rows
            .remove(0);
        cli.set_status(
            std::slice::from_ref(&first.target),
            flightdeck_model::AdOrderStatus::Paused,
            true,
        )
        .unwrap();
    }
    let (loaded, shown) = restart(&path);
    assert!(!loaded, "the saved index misses the new status: not used");
    assert_eq!(shown, built(&path));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_not_known_to_be_the_only_change_leaves_the_file_stale() {
    let (_dir, path) = downloaded().await;
    session(&path, None);
    // A save taken in without the stamp before it: the index cannot tell it was the
    // only change, so the file is not stamped as holding it.
    let mut ws = Workspace::open(&path).unwrap();
    let tables = Tables::default();
    assert!(tables.load(&ws, &path).unwrap());
    let first = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("order", None))
        .unwrap()
        .rows
        .remove(0);
    let mut value = first.value.clone();
    value.name = Some("Renamed unannounced".into());
    ws.update_ad_order(&first.target, value).unwrap();
    tables
        .touched(&ws, std::slice::from_ref(&first.target))
        .unwrap();
    tables.save(&path).unwrap();
    drop(ws);
    let (loaded, shown) = restart(&path);
    assert!(!loaded);
    assert!(shown[0].iter().any(|n| n == "Renamed unannounced"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_missing_or_foreign_index_file_is_ignored_and_the_table_built() {
    let (_dir, path) = downloaded().await;
    let truth = session(&path, None);
    let file = index_file(&path);
    let good = std::fs::read(&file).unwrap();
    assert!(good.len() > 1000);

    let mut cases: Vec<(&str, Option<Vec<u8>>)> = vec![
        ("missing", None),
        ("empty", Some(Vec::new())),
        ("truncated", Some(good[..good.len() / 2].to_vec())),
        ("one byte short", Some(good[..good.len() - 1].to_vec())),
        ("not an index", Some(b"hello, this is no index".repeat(100))),
    ];
    let mut version = good.clone();
    version[8] = version[8].wrapping_add(1);
    cases.push(("another format version", Some(version)));
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x5a;
    cases.push(("a byte changed in place", Some(flipped)));
    let mut longer = good.clone();
    longer.extend_from_slice(&[0; 16]);
    cases.push(("longer than written", Some(longer)));

    for (what, bytes) in cases {
        match bytes {
            None => {
                let _ = std::fs::remove_file(&file);
            }
            Some(b) => std::fs::write(&file, b).unwrap(),
        }
        let (loaded, shown) = restart(&path);
        assert!(!loaded, "{what}: not used");
        assert_eq!(shown, truth, "{what}: the table shows the workspace's rows");
    }
    // The next close saves a good file again.
    std::fs::write(&file, b"junk").unwrap();
    session(&path, None);
    let (loaded, shown) = restart(&path);
    assert!(loaded);
    assert_eq!(shown, truth);
}

/// At the app's start the saved index loads only once the window's page asks for its
/// state (`host_started`), not while the window is created; a view then finds it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_start_the_saved_index_loads_once_the_page_is_up() {
    use flightdeck_core::{Core, OpenOptions, Selection};
    let (dir, path) = downloaded().await;
    let first = session(&path, None);
    let options = OpenOptions {
        warm_tables: true,
        workspace: Some(path.clone()),
        ..OpenOptions::default()
    };
    let core = Core::open(&dir.path().join("app"), Selection::Active, options)
        .await
        .unwrap();
    let account = core.active().unwrap();
    let ad_orders = |a: &flightdeck_core::Account| {
        a.tables
            .stats()
            .into_iter()
            .find(|s| s.kind == Kind::AdOrder.name())
            .map_or(0, |s| s.rows)
    };
    // Well inside the wait for the page (10 s), well past a load of 150 rows.
    std::thread::sleep(std::time::Duration::from_millis(400));
    assert_eq!(
        ad_orders(&account),
        0,
        "nothing loads before the page is up"
    );

    account.host_started();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while ad_orders(&account) == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(
        ad_orders(&account) as usize,
        first[0].len(),
        "loaded once the page is up"
    );
    let ws = account.workspace().unwrap();
    assert_eq!(views(&account.tables, &ws), first);
}
