//! Properties of bulk work over generated workspaces (drafts in a real SQLite file):
//! a spreadsheet round trip changes nothing, undo after any sequence of edits restores
//! each earlier state exactly, and a bulk edit equals the same edit made row by row.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::snapshot;
use flightdeck_model::{AdOrder, Advertiser, Campaign};
use flightdeck_offline::bulk::ops::{Change, FieldEdit};
use flightdeck_offline::bulk::plan::Scope;
use flightdeck_offline::bulk::replace::Find;
use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::Workspace;
use proptest::prelude::*;
use serde_json::{Value, json};

const NOW: i64 = 1_800_000_000_000;
const DAY: i64 = 86_400_000;

#[derive(Debug, Clone)]
struct Order {
    name: String,
    budget: f64,
    bid: Option<f64>,
    cap: Option<i64>,
    channels: Option<Vec<String>>,
}

/// Names: plain text with separators and quotes, and text a spreadsheet would run as a
/// formula (which the export writes behind a `'`).
fn name_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[A-Za-z ,\"'\t]{0,12}",
        1 => "[=+\\-@\t\r'][A-Za-z0-9 ,\"'=+\\-@()\t\r]{0,10}",
        1 => prop::sample::select(vec![
            "=HYPERLINK(\"http://x\",\"y\")", "+1", "-x", "-5", "@SUM(A1)", "\tx", "\rx",
            "'quoted", "''", "'", "[]", " [] ",
        ])
        .prop_map(str::to_owned),
    ]
}

fn order_strategy() -> impl Strategy<Value = Order> {
    (
        name_strategy(),
        (1u32..100_000).prop_map(|c| f64::from(c) / 100.0),
        proptest::option::of((1u32..2_000).prop_map(|c| f64::from(c) / 100.0)),
        proptest::option::of(1i64..20),
        proptest::option::of(proptest::collection::vec("[a-z]{1,6}", 0..3)),
    )
        .prop_map(|(name, budget, bid, cap, channels)| Order {
            name,
            budget,
            bid,
            cap,
            channels,
        })
}

/// Draft advertisers, each with a campaign holding the generated orders.
fn build(path: &Path, groups: &[Vec<Order>]) -> Workspace {
    let mut ws = Workspace::open(path).unwrap();
    for (i, orders) in groups.iter().enumerate() {
        let a: Advertiser = serde_json::from_value(json!({
            "name": format!("Advertiser {i}"), "agencyId": 1, "currency": "USD", "category": "IAB3"
        }))
        .unwrap();
        let a = ws.create_advertiser(a).unwrap();
        let c: Campaign = serde_json::from_value(json!({
            "name": format!("Campaign {i}"), "domain": "x.example", "maxBudget": 1000.0,
            "startDate": NOW + DAY, "endDate": NOW + 30 * DAY, "iabCategory": ["IAB3"],
            "flights": [{"maxBudget": 1000.0, "startDate": NOW + DAY, "endDate": NOW + 30 * DAY}]
        }))
        .unwrap();
        let c = ws.create_campaign(&a, c).unwrap();
        for o in orders {
            let mut v = json!({
                "name": o.name, "optimizationGoal": "CPM", "startDate": NOW + DAY,
                "endDate": NOW + 20 * DAY, "lifetimeBudget": o.budget
            });
            if let Some(b) = o.bid {
                v["max_bid"] = json!(b);
            }
            if let Some(cap) = o.cap {
                v["frequencyCap"] = json!({"limit": cap, "duration": 1, "timePeriod": "DAY"});
            }
            if let Some(ch) = &o.channels {
                v["channels"] = json!(ch);
            }
            let order: AdOrder = serde_json::from_value(v).unwrap();
            ws.create_ad_order(&c, order).unwrap();
        }
    }
    ws
}

fn groups() -> impl Strategy<Value = Vec<Vec<Order>>> {
    proptest::collection::vec(proptest::collection::vec(order_strategy(), 0..6), 1..4)
}

#[derive(Debug, Clone)]
enum Step {
    Percent(Vec<usize>, i32),
    Clear(Vec<usize>),
    Suffix(Vec<usize>, String),
    Replace(String, String),
    Paste(String),
    DiscardFirst,
}

fn step_strategy() -> impl Strategy<Value = Step> {
    let picks = proptest::collection::vec(0usize..20, 1..5);
    prop_oneof![
        (picks.clone(), -50i32..50).prop_map(|(p, x)| Step::Percent(p, x)),
        picks.clone().prop_map(Step::Clear),
        (picks, "[a-z]{1,3}").prop_map(|(p, s)| Step::Suffix(p, s)),
        ("[a-e]", "[A-E]{0,2}").prop_map(|(f, r)| Step::Replace(f, r)),
        "[a-z]{1,8}".prop_map(Step::Paste),
        Just(Step::DiscardFirst),
    ]
}

fn pick(all: &[EntityRef], idx: &[usize]) -> Vec<EntityRef> {
    if all.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<EntityRef> = idx.iter().map(|i| all[i % all.len()].clone()).collect();
    out.dedup();
    out
}

/// Runs `step`, first as a preview when `preview_first` (the apply then replays what the
/// preview wrote, which must leave the same workspace as applying it outright).
fn run_step(ws: &mut Workspace, step: &Step, preview_first: bool) {
    let passes: &[bool] = if preview_first {
        &[false, true]
    } else {
        &[true]
    };
    for &apply in passes {
        run_once(ws, step, apply);
    }
}

fn run_once(ws: &mut Workspace, step: &Step, apply: bool) {
    let orders = ws.targets(&Scope::Kind(Kind::AdOrder)).unwrap();
    let edit = |field: &str, change: Change| {
        vec![FieldEdit {
            field: field.into(),
            change,
        }]
    };
    match step {
        Step::Percent(p, x) => {
            ws.bulk_edit(
                &pick(&orders, p),
                &edit("lifetimeBudget", Change::Percent(f64::from(*x))),
                apply,
            )
            .unwrap();
        }
        Step::Clear(p) => {
            ws.bulk_edit(&pick(&orders, p), &edit("max_bid", Change::Clear), apply)
                .unwrap();
        }
        Step::Suffix(p, s) => {
            ws.bulk_edit(
                &pick(&orders, p),
                &edit("name", Change::Suffix(s.clone())),
                apply,
            )
            .unwrap();
        }
        Step::Replace(f, r) => {
            let find = Find {
                find: f.clone(),
                replace: r.clone(),
                ..Find::default()
            };
            ws.replace(&Scope::Account, &find, apply).unwrap();
        }
        Step::Paste(name) => {
            let campaigns = ws.targets(&Scope::Kind(Kind::Campaign)).unwrap();
            let tsv = format!(
                "name\toptimizationGoal\tstartDate\tendDate\tlifetimeBudget\n{name}\tCPM\t{}\t{}\t10\n",
                NOW + DAY,
                NOW + 5 * DAY
            );
            let options = ImportOptions {
                delimiter: Delimiter::Tab,
                kind: Some(Kind::AdOrder),
                parent: campaigns.first().cloned(),
            };
            ws.import_sheet(&tsv, &options, "Paste", apply).unwrap();
        }
        Step::DiscardFirst => {
            if apply && let Some(c) = ws.pending().unwrap().last() {
                ws.discard(c.seq).unwrap();
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn an_exported_workspace_imports_back_with_no_change(groups in groups(), tab in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ws.sqlite");
        let mut ws = build(&path, &groups);
        let before = snapshot(&path);
        let delimiter = if tab { Delimiter::Tab } else { Delimiter::Comma };
        let all = ws.targets(&Scope::Account).unwrap();
        let text = ws.export_sheet(&all, delimiter, true).unwrap();
        // No cell runs as a formula in a spreadsheet; numbers stay numbers.
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(if tab { b'\t' } else { b',' })
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes());
        for record in reader.records() {
            for cell in record.unwrap().iter() {
                prop_assert!(
                    !cell.starts_with(['=', '+', '-', '@', '\t', '\r']) || cell.parse::<f64>().is_ok(),
                    "{:?} would run in a spreadsheet", cell
                );
            }
        }
        let options = ImportOptions { delimiter, kind: None, parent: None };
        let back = ws.import_sheet(&text, &options, "Import", true).unwrap();
        prop_assert_eq!((back.creates, back.updates, back.refused), (0, 0, 0), "{:?}", back);
        prop_assert_eq!(snapshot(&path), before);
    }

    #[test]
    fn undo_after_any_sequence_of_edits_restores_each_earlier_state(
        groups in groups(),
        steps in proptest::collection::vec((step_strategy(), any::<bool>()), 1..8),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ws.sqlite");
        let mut ws = build(&path, &groups);
        let mut states = vec![snapshot(&path)];
        let start = ws.history(usize::MAX).unwrap().len();
        for (step, preview_first) in &steps {
            run_step(&mut ws, step, *preview_first);
            let now = snapshot(&path);
            // A step that changed nothing records nothing.
            if ws.history(usize::MAX).unwrap().len() - start == states.len() {
                states.push(now);
            } else {
                prop_assert_eq!(&now, states.last().unwrap());
            }
        }
        let last = states.pop().unwrap();
        while let Some(expected) = states.pop() {
            prop_assert!(ws.undo().unwrap().is_some());
            prop_assert_eq!(snapshot(&path), expected);
        }
        // And forward again.
        while ws.redo().unwrap().is_some() {}
        prop_assert_eq!(snapshot(&path), last);
    }

    #[test]
    fn a_bulk_edit_equals_the_same_edit_row_by_row(groups in groups(), pct in -40i32..40, suffix in "[a-z]{0,3}") {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ws.sqlite");
        let mut ws = build(&path, &groups);
        let orders = ws.targets(&Scope::Kind(Kind::AdOrder)).unwrap();
        let edits = vec![
            FieldEdit { field: "lifetimeBudget".into(), change: Change::Percent(f64::from(pct)) },
            FieldEdit { field: "name".into(), change: Change::Suffix(suffix.clone()) },
        ];
        let working = |ws: &Workspace| -> Vec<Option<Value>> {
            orders.iter().map(|t| ws.working_of(t).unwrap()).collect()
        };
        let payloads = |ws: &Workspace| -> Vec<(String, Value)> {
            ws.pending().unwrap().into_iter().map(|c| (format!("{:?}", c.target), c.payload)).collect()
        };
        // Previewed first: the apply replays the preview's writes, and must still equal
        // the edits made one by one.
        let preview = ws.bulk_edit(&orders, &edits, false).unwrap();
        let bulk = ws.bulk_edit(&orders, &edits, true).unwrap();
        prop_assert_eq!(&bulk.rows, &preview.rows);
        let (bulk_working, bulk_payloads) = (working(&ws), payloads(&ws));
        if bulk.step.is_some() {
            ws.undo().unwrap();
        }
        for t in &orders {
            ws.bulk_edit(std::slice::from_ref(t), &edits, true).unwrap();
        }
        prop_assert_eq!(working(&ws), bulk_working);
        prop_assert_eq!(payloads(&ws), bulk_payloads);
    }
}
