//! Bulk work on a downloaded account of 100,000 ad orders (issue 11's targets):
//! a bulk edit of 10,000 orders previewed then applied, its undo, a CSV export of every
//! order, the import of that file (parse, diff and preview; unchanged, then with every
//! row's bid changed), and a paste of 1,000 new rows.
//!
//! With `BENCH_PARTS=all`, the table's "select all" and an edit of every order's name,
//! previewed twice and kept for paging as the app does, then applied: each one's time,
//! and the process's resident memory before, at its peak and after.
//!
//! Run with `cargo bench -p flightdeck-offline --bench bulk`; `BENCH_AD_ORDERS` shrinks
//! the account, `BENCH_PARTS=edit,export,import,paste,all` picks parts, and
//! `BENCH_EDIT_AGAIN=N` repeats the edit's preview, apply and undo N more times and stops
//! there (for a profile).
//! Figures go in the issue notes, never in tests.

use std::time::Instant;

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_offline::bulk::ops::{Change, FieldEdit};
use flightdeck_offline::bulk::plan::Scope;
use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions};
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::{PullOptions, PullScope, Workspace};
use flightdeck_sandbox::testing;

/// The allocator the app and the CLI run bulk work with.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A line of `/proc/self/status` in MB (`VmRSS`, `VmHWM`); 0 where there is none.
fn status_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Resets the peak resident size (`VmHWM`) to the current one.
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Least, median and most of a run's figures.
fn spread(figures: &mut [f64]) -> String {
    figures.sort_by(f64::total_cmp);
    let at = |i: usize| figures.get(i).copied().unwrap_or(f64::NAN);
    format!(
        "least {:.0} ms, median {:.0} ms, most {:.0} ms",
        at(0),
        at(figures.len() / 2),
        at(figures.len().saturating_sub(1))
    )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let orders = env_or("BENCH_AD_ORDERS", 100_000);
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
    let options = PullOptions {
        flight_caps: false,
        audiences: false,
        creatives: false,
        ..PullOptions::default()
    };
    let mut ws = Workspace::open(dir.path().join("bulk.sqlite"))?;
    ws.pull_with(&client, PullScope::All, options, |_| {})
        .await?;
    running.stop().await?;
    let all = ws.targets(&Scope::Kind(Kind::AdOrder))?;
    println!("{} ad orders in the workspace", all.len());

    let parts = std::env::var("BENCH_PARTS").unwrap_or_else(|_| "edit,export,import,paste".into());
    let part = |p: &str| parts.split(',').any(|x| x == p);

    if part("all") {
        let edits = vec![FieldEdit {
            field: "name".into(),
            change: Change::Suffix(" (bench)".into()),
        }];
        for round in 1..=2 {
            let before = status_mb("VmRSS");
            reset_peak();
            let t = Instant::now();
            let mut preview = ws.bulk_edit(&all, &edits, false)?;
            ws.keep_rows(&mut preview, 50)?;
            let took = ms(t);
            let peak = status_mb("VmHWM");
            std::thread::sleep(std::time::Duration::from_millis(500));
            println!(
                "select all + preview a name edit of {} ad orders (round {round}): {took:.0} ms; \
                 resident {before:.0} MB before, {peak:.0} at the peak, {:.0} after ({} updates)",
                all.len(),
                status_mb("VmRSS"),
                preview.updates
            );
        }
        // Applied with nothing kept to replay (its writes were more than a preview
        // keeps), it is carried out afresh, on one thread.
        let before = status_mb("VmRSS");
        reset_peak();
        let t = Instant::now();
        let applied = ws.bulk_edit(&all, &edits, true)?;
        let took = ms(t);
        println!(
            "apply that edit: {took:.0} ms; resident {before:.0} MB before, {:.0} at the peak ({} updates)",
            status_mb("VmHWM"),
            applied.updates
        );
    }
    if parts == "all" {
        return Ok(());
    }
    if part("edit") {
        let ten_k: Vec<EntityRef> = all.iter().take(10_000).cloned().collect();
        let edits = vec![FieldEdit {
            field: "frequencyCap.limit".into(),
            change: Change::Add(1.0),
        }];
        let t = Instant::now();
        let preview = ws.bulk_edit(&ten_k, &edits, false)?;
        let previewed = ms(t);
        let t = Instant::now();
        let applied = ws.bulk_edit(&ten_k, &edits, true)?;
        let apply = ms(t);
        println!(
            "bulk edit of {} ad orders: preview {previewed:.0} ms + apply {apply:.0} ms = {:.0} ms ({} updated)",
            ten_k.len(),
            previewed + apply,
            applied.updates
        );
        assert_eq!(preview.updates, applied.updates);
        let t = Instant::now();
        ws.undo()?;
        println!("undo of that step: {:.0} ms", ms(t));
        let t = Instant::now();
        ws.redo()?;
        println!("redo of that step: {:.0} ms", ms(t));
        ws.undo()?;
        let again = env_or("BENCH_EDIT_AGAIN", 0);
        let (mut edit_ms, mut undo_ms) = (vec![previewed + apply], vec![]);
        for _ in 0..again {
            let t = Instant::now();
            ws.bulk_edit(&ten_k, &edits, false)?;
            ws.bulk_edit(&ten_k, &edits, true)?;
            edit_ms.push(ms(t));
            let t = Instant::now();
            ws.undo()?;
            undo_ms.push(ms(t));
        }
        if again > 0 {
            println!(
                "{} edits, preview + apply: {}",
                edit_ms.len(),
                spread(&mut edit_ms)
            );
            println!("{} undos: {}", undo_ms.len(), spread(&mut undo_ms));
        }
    }
    if std::env::var("BENCH_EDIT_AGAIN").is_ok() {
        return Ok(());
    }

    let t = Instant::now();
    let csv = ws.export_sheet(&all, Delimiter::Comma, false)?;
    println!(
        "CSV export of {} ad orders: {:.0} ms ({:.1} MB)",
        all.len(),
        ms(t),
        csv.len() as f64 / 1e6
    );

    let options = ImportOptions {
        delimiter: Delimiter::Comma,
        kind: Some(Kind::AdOrder),
        parent: None,
    };
    if part("import") {
        let t = Instant::now();
        let back = ws.import_sheet(&csv, &options, "Import", false)?;
        println!(
            "CSV import of the same file (parse, diff, preview): {:.0} ms ({} unchanged)",
            ms(t),
            back.unchanged
        );
        // Every row's frequency cap limit (3, in its own column) goes to 4.
        let edited = csv.replace(",3,", ",4,");
        let t = Instant::now();
        let changed = ws.import_sheet(&edited, &options, "Import", false)?;
        println!(
            "CSV import with a cell changed in every row (parse, diff, preview): {:.0} ms ({} updates, {} refused)",
            ms(t),
            changed.updates,
            changed.refused
        );
    }
    if !part("paste") {
        return Ok(());
    }

    let parent = EntityRef::new(Kind::Campaign, Key::Id(campaign));
    let mut tsv =
        String::from("name\toptimizationGoal\tstartDate\tendDate\tlifetimeBudget\tmax_bid\n");
    for i in 0..1_000 {
        tsv.push_str(&format!(
            "Pasted {i}\tCPM\t{}\t{}\t100\t2.5\n",
            now + 86_400_000,
            now + 20 * 86_400_000
        ));
    }
    let paste = ImportOptions {
        delimiter: Delimiter::Tab,
        kind: Some(Kind::AdOrder),
        parent: Some(parent),
    };
    let t = Instant::now();
    let p = ws.import_sheet(&tsv, &paste, "Paste", false)?;
    let previewed = ms(t);
    let t = Instant::now();
    ws.import_sheet(&tsv, &paste, "Paste", true)?;
    println!(
        "paste of 1,000 rows: preview {previewed:.0} ms, apply {:.0} ms ({} new)",
        ms(t),
        p.creates
    );
    Ok(())
}
