//! A tag-sheet import from the file's bytes to the preview's rows: a 1,000-row XLSX in
//! Campaign Manager 360's shape (a preamble, JavaScript and iframe tags, every fourth
//! row a VAST tag) through `read_tag_sheet` with preset detection, which reads the
//! workbook, finds the header, maps every row and runs `check_creative` on each. The
//! target is under 1 s in a release build.
//!
//! Beside it, the parts for scale: `calamine` reading the workbook alone (the floor),
//! and the same sheet as CSV.
//!
//! Run with `cargo bench -p flightdeck-workbench --bench tagsheet`. `BENCH_ROWS` and
//! `BENCH_RUNS` change the workload.

use std::hint::black_box;
use std::time::{Duration, Instant};

use flightdeck_workbench::tagsheet::{self, SheetFormat, builtin_presets, read_tag_sheet};

#[path = "../tests/common/sheets.rs"]
mod sheets;

/// The allocator the app and the CLI run imports with.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The best of `runs` timings (the least disturbed by other work on the machine).
fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let rows = env_or("BENCH_ROWS", 1_000);
    let runs = env_or("BENCH_RUNS", 5);
    let sheet = sheets::cm360(rows);
    let xlsx = sheet.xlsx();
    let csv = sheet.text(b',');
    let presets = builtin_presets();
    let read = read_tag_sheet(&xlsx, None, &presets).expect("the sheet reads");
    assert_eq!(read.rows.len(), rows, "every placement row maps");
    let findings: usize = read.rows.iter().map(|r| r.findings.len()).sum();
    println!(
        "tag sheet: {rows} rows, XLSX {} KB, CSV {} KB, preset {:?}, {findings} findings",
        xlsx.len() / 1024,
        csv.len() / 1024,
        read.preset
    );
    let full = best(runs, || {
        black_box(read_tag_sheet(black_box(&xlsx), None, &presets).ok());
    });
    println!("XLSX bytes to preview rows (detect, map, check): {full:?}");
    let floor = best(runs, || {
        black_box(tagsheet::read::grids(black_box(&xlsx), SheetFormat::Xlsx).ok());
    });
    println!("calamine reading the workbook alone: {floor:?}");
    let text = best(runs, || {
        black_box(read_tag_sheet(black_box(&csv), None, &presets).ok());
    });
    println!("CSV bytes to preview rows: {text:?}");
    let verdict = if full < Duration::from_secs(1) {
        "under"
    } else {
        "OVER"
    };
    println!("target: < 1 s for 1,000 rows; {verdict}");
}
