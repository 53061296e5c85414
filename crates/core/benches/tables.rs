//! What a table view costs on the Rust side of the app, at 100,000 ad orders (or
//! `BENCH_AD_ORDERS`): the first window (building the kind's index), the index file
//! saved and a restart's first window from it (load against build), scrolling, a filter
//! keystroke, a click on any column's header as the app holds the index (columns of few
//! values apart), a save seen by the open view (the index, then the same window again),
//! a first sort, and a save until the open sorted view shows it; the bytes one
//! window sends over the IPC; and the index's memory: its bytes per row as
//! [`Tables::stats`] counts them (every capacity it holds), after the first window, after
//! every column is sorted ahead (what the app holds once `warm_tables` is done), and
//! their growth over the saves.
//!
//! Run with `cargo bench -p flightdeck-core --bench tables`. `BENCH_RUNS` sets the runs
//! per figure (21); `BENCH_AD_ORDERS=1000000` measures a million.

mod common;

use std::time::Instant;

use flightdeck_core::query::{Row, SortBy, TABLE_KINDS, TableQuery, Tables};
use flightdeck_model::AdOrder;
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::Workspace;

use common::{ms, stats};

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<f64>().ok())
        })
        .map_or(0.0, |pages| pages * 4096.0 / 1e6)
}

/// The ad-order index's bytes per row, as the index counts them.
fn per_row(tables: &Tables) -> (f64, u64) {
    tables
        .stats()
        .into_iter()
        .find(|s| s.kind == Kind::AdOrder.name())
        .map_or((0.0, 0), |s| {
            (s.bytes as f64 / f64::from(s.rows.max(1)), s.bytes)
        })
}

fn q(filter: &str, sort: Option<&str>, offset: u32) -> TableQuery {
    TableQuery {
        parent: None,
        filter: filter.to_owned(),
        sort: sort.map(|c| SortBy {
            column: c.to_owned(),
            descending: false,
        }),
        offset,
        limit: 60,
        quick: false,
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let orders = common::knob("BENCH_AD_ORDERS", 100_000);
    let runs = common::knob("BENCH_RUNS", 21).max(1);
    let dir = tempfile::tempdir()?;
    let (mut ws, campaign, now) = common::downloaded(dir.path(), orders).await?;
    // A tenth of the rows pending, as after a bulk edit: their markers are looked up too.
    let parent = EntityRef::new(Kind::Campaign, Key::Id(campaign));
    let mut batch = ws.batch()?;
    for i in 0..orders / 10 {
        batch.create_ad_order(
            &parent,
            serde_json::from_value(flightdeck_sandbox::testing::ad_order_body(campaign, i, now))?,
        )?;
    }
    batch.commit()?;
    println!("ad orders: {} downloaded + {} drafts", orders, orders / 10);

    let window = |t: &Tables, ws: &Workspace, query: &TableQuery| {
        t.window::<AdOrder>(ws, Kind::AdOrder, query)
    };

    // What reading the rows alone costs: the floor under building the index.
    let mut scan = Vec::new();
    for _ in 0..runs.min(7) {
        let t = Instant::now();
        let mut bytes = 0usize;
        ws.scan(Kind::AdOrder, |s| {
            bytes += s.json.len();
            Ok(())
        })?;
        scan.push(t.elapsed());
        std::hint::black_box(bytes);
    }
    stats("read every row's JSON from SQLite (floor)", scan);

    // Open: a fresh index each time (first open after start or a download).
    let mut open = Vec::new();
    let mut rss = 0.0;
    for _ in 0..runs.min(7) {
        let before = rss_mb();
        let tables = Tables::default();
        let t = Instant::now();
        window(&tables, &ws, &q("", None, 0))?;
        open.push(t.elapsed());
        rss = rss_mb() - before;
    }
    stats("open (build the index, first window)", open);
    println!("index memory (resident growth)               {rss:.0} MB");

    let tables = Tables::default();
    let first = window(&tables, &ws, &q("", None, 0))?;
    let (b, total) = per_row(&tables);
    println!(
        "index after the first window                 {b:.1} bytes/row ({:.1} MB)",
        total as f64 / 1e6
    );
    let t = Instant::now();
    tables.presort(Kind::AdOrder)?;
    println!(
        "presort every column                         {:.0} ms",
        ms(t.elapsed())
    );
    let (b, total) = per_row(&tables);
    println!(
        "index with every column sorted               {b:.1} bytes/row ({:.1} MB)",
        total as f64 / 1e6
    );

    // The index saved beside the workspace, and a restart's first open from it: what a
    // start pays instead of the build above.
    tables.prebuild(&ws, &TABLE_KINDS)?;
    let path = dir.path().join("bench.db");
    let t = Instant::now();
    tables.save(&path)?;
    let written = t.elapsed();
    let file = std::fs::metadata(dir.path().join("bench.db.index"))?.len();
    println!(
        "save the index file                          {:.0} ms ({:.1} MB, {:.1} bytes/row)",
        ms(written),
        file as f64 / 1e6,
        file as f64 / (orders + orders / 10) as f64
    );
    let mut loads = Vec::new();
    let mut reopened = Vec::new();
    for _ in 0..runs.min(7) {
        let fresh = Tables::default();
        let t = Instant::now();
        assert!(fresh.load(&ws, &path)?, "the index file is current");
        loads.push(t.elapsed());
        window(&fresh, &ws, &q("", None, 0))?;
        reopened.push(t.elapsed());
        let (b, _) = per_row(&fresh);
        std::hint::black_box(b);
    }
    stats("load the index file", loads);
    stats("open after a restart (load, first window)", reopened);
    {
        let fresh = Tables::default();
        fresh.load(&ws, &path)?;
        let (b, total) = per_row(&fresh);
        println!(
            "index loaded from the file                   {b:.1} bytes/row ({:.1} MB)",
            total as f64 / 1e6
        );
    }

    let bytes = serde_json::to_vec(&first)?.len();
    println!(
        "IPC bytes of a 60-row window                 {:.1} KB",
        bytes as f64 / 1e3
    );

    let mut scroll = Vec::new();
    for i in 0..runs {
        let offset = (i * 7919 % orders) as u32;
        let t = Instant::now();
        window(&tables, &ws, &q("", None, offset))?;
        scroll.push(t.elapsed());
    }
    stats("scroll (a window at another offset)", scroll);

    let typed = [
        "o",
        "or",
        "ord",
        "orde",
        "order",
        "order ",
        "order 1",
        "order 12",
        "order 123",
    ];
    let mut keys = Vec::new();
    for _ in 0..runs.div_ceil(typed.len()).max(3) {
        for text in typed {
            let t = Instant::now();
            window(&tables, &ws, &q(text, None, 0))?;
            keys.push(t.elapsed());
        }
    }
    stats("filter keystroke (\"o\" … \"order 123\")", keys);

    // A click on any column's header, either direction, with the index as the app holds
    // it (every column sorted ahead): columns of few values are sorted on each ask.
    let mut clicks = Vec::new();
    let mut few = Vec::new();
    let columns = flightdeck_core::query::column_ids(Kind::AdOrder);
    for round in 0..runs.div_ceil(columns.len()).max(2) {
        for (c, col) in columns.iter().enumerate() {
            let descending = (round + c) % 2 == 1;
            let query = TableQuery {
                sort: Some(SortBy {
                    column: (*col).to_owned(),
                    descending,
                }),
                ..q("", None, 0)
            };
            let t = Instant::now();
            window(&tables, &ws, &query)?;
            let took = t.elapsed();
            clicks.push(took);
            if ["campaign", "status", "goal", "pacing", "audiences", "freq"].contains(col) {
                few.push(took);
            }
        }
    }
    stats("sort click, any column (index as the app's)", clicks);
    stats("sort click, a column of few values", few);

    // A save seen by the open view, as the app does it: the row is taken into the index
    // and the view asks for its window again (the same query). Views sorted by a kept
    // order, by a column of few values, descending, and filtered.
    let mut refetch = Vec::new();
    let views = [
        ("", "name", false),
        ("", "status", true),
        ("", "budget", true),
        ("order", "name", false),
    ];
    for i in 0..runs.max(views.len()) {
        let (filter, col, descending) = views[i % views.len()];
        let query = TableQuery {
            sort: Some(SortBy {
                column: col.to_owned(),
                descending,
            }),
            ..q(filter, None, (i * 977 % 1000) as u32)
        };
        let w = window(&tables, &ws, &query)?;
        let row: &Row<AdOrder> = &w.rows[0];
        let mut value = row.value.clone();
        value.name = Some(format!("Order {i} saved"));
        let target = row.target.clone();
        ws.update_ad_order(&target, value)?;
        let t = Instant::now();
        tables.touched(&ws, std::slice::from_ref(&target))?;
        window(&tables, &ws, &query)?;
        refetch.push(t.elapsed());
    }
    stats("save: index, then the open view's window", refetch);

    let mut sorts = Vec::new();
    for i in 0..runs {
        let tables = Tables::default();
        window(&tables, &ws, &q("", None, 0))?;
        let col = ["name", "budget", "start"][i % 3];
        let t = Instant::now();
        window(&tables, &ws, &q("", Some(col), 0))?;
        sorts.push(t.elapsed());
    }
    stats("sort (first sort by a column)", sorts);

    let mut saves = Vec::new();
    let mut edit = Vec::new();
    // The sorted view the saves below show, so its growth is the saves' alone.
    window(&tables, &ws, &q("", Some("name"), 0))?;
    let (_, before_saves) = per_row(&tables);
    let rss_before_saves = rss_mb();
    for i in 0..runs {
        let w = window(
            &tables,
            &ws,
            &q("", Some("name"), (i * 131 % orders) as u32),
        )?;
        let row: &Row<AdOrder> = &w.rows[0];
        let mut value = row.value.clone();
        // Letters only, so no other row's id or number matches the filter below.
        let tag: String = i
            .to_string()
            .bytes()
            .map(|b| char::from(b'a' + (b - b'0')))
            .collect();
        value.name = Some(format!("Renamed q{tag}"));
        let target = row.target.clone();
        let t = Instant::now();
        ws.update_ad_order(&target, value)?;
        let saved = t.elapsed();
        tables.touched(&ws, std::slice::from_ref(&target))?;
        let w = window(
            &tables,
            &ws,
            &q(&format!("renamed q{tag}"), Some("name"), 0),
        )?;
        saves.push(t.elapsed());
        edit.push(saved);
        assert_eq!(w.rows.first().map(|r| &r.target), Some(&target));
    }
    stats("save (workspace write only)", edit);
    stats("save until the sorted view shows it", saves);
    let (_, after_saves) = per_row(&tables);
    println!(
        "index growth over {runs} saves                   {:+.2} MB (resident {:+.1} MB)",
        (after_saves as f64 - before_saves as f64) / 1e6,
        rss_mb() - rss_before_saves
    );
    Ok(())
}
