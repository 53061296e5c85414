//! A paste of 1,000 cells into the ad-order table, from its preview to applied: 200
//! rows by five fields of text (a name, the goal by its label, the max bid with a `$`,
//! the pacing, and the daily budget by the label no column shows), read as the
//! spreadsheet export writes them, in a workspace that downloaded 100,000 ad orders (or
//! `BENCH_AD_ORDERS`). The target is under 300 ms for both steps together.
//!
//! Run with `cargo bench -p flightdeck-core --bench cells`. `BENCH_RUNS` sets the runs
//! (11); `BENCH_ROWS` the rows pasted (200).
//!
//! Last run (issue 26, two cores shared with other builds): preview median 18.8 ms, apply
//! after it 22.0 ms, preview to applied median 37.0 ms, p95 76.6 ms. Under a heavier load
//! the same paste took median 167 ms, p95 235 ms.

mod common;

use std::time::Instant;

use flightdeck_core::cells::{CellEdit, CellValue};
use flightdeck_core::{Core, OpenOptions, Selection};
use flightdeck_offline::bulk::plan::Scope;
use flightdeck_offline::change::{EntityRef, Kind};

use common::stats;

/// Run `run`'s block: every row's five cells, each row's text its own.
fn block(rows: &[EntityRef], run: usize) -> Vec<CellEdit> {
    const GOALS: [&str; 3] = ["CPM", "CPC", "CPA"];
    let mut cells = Vec::with_capacity(rows.len() * 5);
    for (i, row) in rows.iter().enumerate() {
        let text = |field: &str, text: String| CellEdit {
            target: row.clone(),
            field: field.to_owned(),
            value: CellValue::Text(text),
        };
        cells.push(text("name", format!("Pasted {run}-{i}")));
        cells.push(text("Goal", GOALS[(run + i) % GOALS.len()].to_owned()));
        cells.push(text("maxbid", format!("${}.{:02}", 1 + run, i % 100)));
        cells.push(text("Hourly pacing", "ASAP".to_owned()));
        cells.push(text("Daily budget", format!("{}.50", 100 + run * 10 + i)));
    }
    cells
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let orders = common::knob("BENCH_AD_ORDERS", 100_000);
    let runs = common::knob("BENCH_RUNS", 11);
    let take = common::knob("BENCH_ROWS", 200);
    let dir = tempfile::tempdir()?;
    let t = Instant::now();
    let (ws, _, _) = common::downloaded(dir.path(), orders).await?;
    let rows: Vec<EntityRef> = ws
        .targets(&Scope::Kind(Kind::AdOrder))?
        .into_iter()
        .take(take)
        .collect();
    drop(ws);
    println!(
        "{orders} ad orders downloaded in {:.1} s; pasting {} cells into {} rows",
        t.elapsed().as_secs_f64(),
        rows.len() * 5,
        rows.len()
    );
    let core = Core::open(
        &dir.path().join("data"),
        Selection::Active,
        OpenOptions {
            workspace: Some(dir.path().join("bench.db")),
            ..OpenOptions::default()
        },
    )
    .await?;
    let account = core.active()?;

    let (mut previews, mut applies, mut totals) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        let cells = block(&rows, run);
        let t = Instant::now();
        let preview = account.edit_cells(&cells, false)?.preview;
        let previewed = t.elapsed();
        let done = account.edit_cells(&cells, true)?;
        let total = t.elapsed();
        assert_eq!(
            (preview.updates, done.preview.updates, done.preview.refused),
            (rows.len() as u32, rows.len() as u32, 0),
            "every row changes"
        );
        previews.push(previewed);
        applies.push(total - previewed);
        totals.push(total);
    }
    stats("preview (apply: false)", previews);
    stats("apply after the preview", applies);
    stats("preview to applied (target < 300 ms)", totals);
    Ok(())
}
