//! Where a table window's time goes on the Rust side, at 100,000 ad orders (or
//! `BENCH_AD_ORDERS`), for the three interactions the UI bench times: a filter keystroke,
//! a header click (sort) and a save until the table shows it. Each splits into the
//! index's selection (the window with no rows), decoding the window's rows (markers,
//! parent labels, statuses, the entity JSON) and writing the answer as the IPC carries it
//! (JSON: its bytes and the time to write them).
//!
//! Run with `cargo bench -p flightdeck-core --bench window`. `BENCH_RUNS` sets the runs
//! per figure (21); `BENCH_LIMIT` the rows a window asks for (50: the one page the UI's
//! ad-order table asks for a new filter, sort or refetch; it asked 100 before issue 25).

mod common;

use std::time::{Duration, Instant};

use flightdeck_core::query::{Row, SortBy, TableQuery, Tables, Window};
use flightdeck_model::AdOrder;
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{Draft, Workspace};

use common::stats;

fn q(filter: &str, sort: Option<&str>, limit: u32) -> TableQuery {
    TableQuery {
        parent: None,
        filter: filter.to_owned(),
        sort: sort.map(|c| SortBy {
            column: c.to_owned(),
            descending: false,
        }),
        offset: 0,
        limit,
        quick: false,
    }
}

/// The parts of one window: (selection, rows decoded, JSON written, JSON bytes).
type Parts = (Duration, Duration, Duration, usize);

/// Asks `query` with no rows (the index's selection, which the index then keeps as its
/// last result), then with its rows (so only the decoding is timed), then writes the
/// answer as the IPC carries it.
fn parts(
    tables: &Tables,
    ws: &Workspace,
    query: &TableQuery,
) -> Result<Parts, Box<dyn std::error::Error>> {
    let t = Instant::now();
    tables.window::<AdOrder>(
        ws,
        Kind::AdOrder,
        &TableQuery {
            limit: 0,
            ..query.clone()
        },
    )?;
    let select = t.elapsed();
    let t = Instant::now();
    let w: Window<Row<AdOrder>> = tables.window(ws, Kind::AdOrder, query)?;
    let decode = t.elapsed();
    let t = Instant::now();
    let json = serde_json::to_vec(&w)?;
    let write = t.elapsed();
    Ok((select, decode, write, json.len()))
}

fn report(label: &str, all: Vec<Parts>) {
    let bytes = all.iter().map(|p| p.3).max().unwrap_or(0);
    println!("{label}");
    stats(
        "  the whole command (selection + rows + JSON)",
        all.iter().map(|p| p.0 + p.1 + p.2).collect(),
    );
    stats(
        "  the index's selection (no rows)",
        all.iter().map(|p| p.0).collect(),
    );
    stats(
        "  decoding the rows (selection kept)",
        all.iter().map(|p| p.1).collect(),
    );
    stats(
        "  writing the answer's JSON",
        all.iter().map(|p| p.2).collect(),
    );
    println!(
        "  answer bytes (largest)                             {:.1} KB",
        bytes as f64 / 1e3
    );
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let orders = common::knob("BENCH_AD_ORDERS", 100_000);
    let runs = common::knob("BENCH_RUNS", 21).max(1);
    let limit = u32::try_from(common::knob("BENCH_LIMIT", 50)).unwrap_or(50);
    let dir = tempfile::tempdir()?;
    let (mut ws, _, _) = common::downloaded(dir.path(), orders).await?;
    println!("ad orders: {orders}; windows of {limit} rows");

    // As the app has it once the table is open: built, and every column presorted.
    let tables = Tables::default();
    tables.prebuild(&ws, &[Kind::AdOrder])?;
    tables.window::<AdOrder>(&ws, Kind::AdOrder, &q("", None, limit))?;

    // The bench's keystrokes, as scripts/bench-ui.sh types them: "o" … "order 12".
    let typed = [
        "o", "or", "ord", "orde", "order", "order ", "order 1", "order 12",
    ];
    let mut keys = Vec::new();
    let mut each: Vec<Vec<Duration>> = vec![Vec::new(); typed.len()];
    for _ in 0..runs.div_ceil(typed.len()).max(3) {
        for (k, text) in typed.iter().enumerate() {
            let p = parts(&tables, &ws, &q(text, None, limit))?;
            each[k].push(p.0);
            keys.push(p);
        }
        // The bench clears the filter between rounds.
        tables.window::<AdOrder>(&ws, Kind::AdOrder, &q("", None, limit))?;
    }
    report("filter keystroke", keys);
    println!("  the index's selection per keystroke");
    for (text, times) in typed.iter().zip(each) {
        stats(&format!("    {text:?}"), times);
    }

    let mut sorts = Vec::new();
    for i in 0..runs {
        let col = ["name", "budget", "start", "id"][i % 4];
        sorts.push(parts(&tables, &ws, &q("", Some(col), limit))?);
    }
    report("sort (a header click)", sorts);

    // A save of one row on screen, then the same window asked again (what the table asks
    // when the change names a row it shows).
    let mut saves = Vec::new();
    let mut touched = Vec::new();
    let mut saved = Vec::new();
    for i in 0..runs {
        let w: Window<Row<AdOrder>> = tables.window(&ws, Kind::AdOrder, &q("", None, limit))?;
        let row = &w.rows[i % w.rows.len()];
        let mut value = row.value.clone();
        value.name = Some(format!("Bench rename {i}"));
        let target: EntityRef = row.target.clone();
        let t = Instant::now();
        ws.save_draft(Some(&target), None, Draft::AdOrder { value })?;
        ws.pending_count()?;
        saved.push(t.elapsed());
        let t = Instant::now();
        tables.touched(&ws, std::slice::from_ref(&target))?;
        touched.push(t.elapsed());
        saves.push(parts(&tables, &ws, &q("", None, limit))?);
    }
    stats("save: the form's save (save_draft + pending count)", saved);
    stats("save: the index re-reads the saved row", touched);
    report("save: the same window again", saves);

    // One row read alone, as a form or pane asks for it.
    let first: Window<Row<AdOrder>> = tables.window(&ws, Kind::AdOrder, &q("", None, 1))?;
    let target = first.rows[0].target.clone();
    let mut one = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        flightdeck_core::query::row::<AdOrder>(&ws, &target)?;
        one.push(t.elapsed());
    }
    stats("one row (query::row)", one);

    Ok(())
}
