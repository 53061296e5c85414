//! Property fuzzing of the spreadsheet importer (CSV and TSV, files and pastes): any text
//! goes through the parser, the plan and the preview without a panic, a preview leaves
//! the workspace exactly as it was, and an applied sheet never leaves it unreadable.
//!
//! The text is made from a real export of a small account with cells replaced by
//! generated ones (quotes, separators, line breaks, JSON, `[]`, numbers, ids of other
//! rows, formulas and the `'` that marks text), or wholly at random. CI runs proptest's
//! default number of cases; the long run is `scripts/fuzz.sh --cases 1000000`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Mutex, OnceLock};

use common::snapshot;
use flightdeck_model::{AdOrder, Advertiser, Campaign, Creative};
use flightdeck_offline::bulk::plan::Scope;
use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::Workspace;
use proptest::prelude::*;
use serde_json::json;

const NOW: i64 = 1_800_000_000_000;
const DAY: i64 = 86_400_000;

/// A small account of drafts, its file, and its export (comma and tab).
struct Account {
    ws: Workspace,
    path: std::path::PathBuf,
    campaign: EntityRef,
    csv: String,
    tsv: String,
    _dir: tempfile::TempDir,
}

fn account() -> &'static Mutex<Account> {
    static ACCOUNT: OnceLock<Mutex<Account>> = OnceLock::new();
    ACCOUNT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fuzz.sqlite");
        let mut ws = Workspace::open(&path).unwrap();
        let a: Advertiser = serde_json::from_value(json!({
            "name": "Acme, \"Outdoor\"", "agencyId": 1, "currency": "USD", "category": "IAB3"
        }))
        .unwrap();
        let a = ws.create_advertiser(a).unwrap();
        let c: Campaign = serde_json::from_value(json!({
            "name": "Spring\tsale", "domain": "x.example", "maxBudget": 1000.0,
            "startDate": NOW + DAY, "endDate": NOW + 30 * DAY, "iabCategory": ["IAB3"],
            "flights": [{"maxBudget": 1000.0, "startDate": NOW + DAY, "endDate": NOW + 30 * DAY}]
        }))
        .unwrap();
        let campaign = ws.create_campaign(&a, c).unwrap();
        // Names a spreadsheet would run: the export writes them behind a `'`.
        for (i, lead) in (0..3).zip(["=", "+", "@"]) {
            let o: AdOrder = serde_json::from_value(json!({
                "name": format!("{lead}Order {i}\nline two"), "optimizationGoal": "CPM",
                "startDate": NOW + DAY, "endDate": NOW + 20 * DAY, "lifetimeBudget": 100.0 + f64::from(i),
                "max_bid": 2.5, "frequencyCap": {"limit": 3, "duration": 1, "timePeriod": "DAY"},
                "channels": ["Display", "Video"]
            }))
            .unwrap();
            ws.create_ad_order(&campaign, o).unwrap();
        }
        let creative: Creative = serde_json::from_value(json!({
            "name": "Banner", "creativeType": "BANNER", "creativeSubtype": "HOSTED",
            "type": {"size": {"width": 300, "height": 250}},
            "landingPageUrl": "https://example.com/a,b", "imageUrl": "https://cdn.example.com/a.png"
        }))
        .unwrap();
        ws.create_creative(&a, creative).unwrap();
        let mut all = Vec::new();
        for kind in [Kind::Advertiser, Kind::Campaign, Kind::AdOrder, Kind::Creative] {
            all.extend(ws.targets(&Scope::Kind(kind)).unwrap());
        }
        let csv = ws.export_sheet(&all, Delimiter::Comma, true).unwrap();
        let tsv = ws.export_sheet(&all, Delimiter::Tab, true).unwrap();
        Mutex::new(Account {
            ws,
            path,
            campaign,
            csv,
            tsv,
            _dir: dir,
        })
    })
}

/// A cell's text: what buyers and spreadsheets put in cells, and what breaks parsers.
fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "\\PC{0,12}",
        2 => prop::sample::select(vec![
            "", "[]", "null", "\"", "\"\"", ",", "\t", "\n", "\r\n", "=1+1", "-0", "1e309",
            "NaN", "3", "2.555", "-4", "[1,2]", "{\"a\":1}", "{", "[", "CPM", "BANNER",
            "local:zzz", "id:1", "1800000000000", "https://new.example", "\u{feff}",
            "'", "''", "'=1+1", "'[]", "'-4", "@SUM(A1)", "+1", "\rx",
        ])
        .prop_map(str::to_owned),
        1 => "[0-9.,-]{1,8}",
        // JSON and dotted paths around the depth serde_json reads back (127).
        2 => prop_oneof![1 => 1usize..8, 3 => 120usize..140]
            .prop_map(|n| format!("{}{}", "[".repeat(n), "]".repeat(n))),
        1 => prop_oneof![1usize..8, 120usize..140].prop_map(|n| vec!["a"; n].join(".")),
    ]
}

/// A real export with some cells (or whole lines) replaced, as the importer reads it.
fn edited_export() -> impl Strategy<Value = (String, Delimiter)> {
    let (csv, tsv) = {
        let a = account().lock().unwrap();
        (a.csv.clone(), a.tsv.clone())
    };
    (
        any::<bool>(),
        prop::collection::vec((0usize..64, 0usize..64, cell()), 1..8),
        prop::collection::vec((0usize..64, "\\PC{0,30}"), 0..2),
        prop::option::of((prop_oneof![Just("extraField".to_owned()), cell()], cell())),
    )
        .prop_map(move |(tab, cells, lines, column)| {
            let (text, sep) = if tab {
                (&tsv, Delimiter::Tab)
            } else {
                (&csv, Delimiter::Comma)
            };
            let d = if tab { '\t' } else { ',' };
            let mut rows: Vec<Vec<String>> = text
                .lines()
                .map(|l| l.split(d).map(str::to_owned).collect())
                .collect();
            // A column the export does not have, the same cell in every row.
            if let Some((name, value)) = column {
                for (i, row) in rows.iter_mut().enumerate() {
                    row.push(if i == 0 { name.clone() } else { value.clone() });
                }
            }
            for (r, c, v) in cells {
                let n = rows.len();
                let row = &mut rows[r % n];
                let m = row.len().max(1);
                if row.is_empty() {
                    row.push(v);
                } else {
                    row[c % m] = v;
                }
            }
            for (r, l) in lines {
                let n = rows.len();
                rows.insert(r % (n + 1), vec![l]);
            }
            let joined: Vec<String> = rows.iter().map(|r| r.join(&d.to_string())).collect();
            (joined.join("\n"), sep)
        })
}

fn any_text() -> impl Strategy<Value = (String, Delimiter)> {
    (
        "\\PC{0,200}|([a-zA-Z\",\t\n\\[\\]{}:0-9 ]{0,200})",
        any::<bool>(),
    )
        .prop_map(|(t, tab)| {
            (
                t,
                if tab {
                    Delimiter::Tab
                } else {
                    Delimiter::Comma
                },
            )
        })
}

fn kinds() -> impl Strategy<Value = Option<Kind>> {
    prop::option::of(prop::sample::select(vec![
        Kind::Advertiser,
        Kind::Campaign,
        Kind::AdOrder,
        Kind::Creative,
        Kind::SiteList,
        Kind::AudienceSegment,
        Kind::FlightCaps,
        Kind::Flight,
    ]))
}

proptest! {
    #[test]
    fn any_sheet_is_previewed_without_a_panic_and_changes_nothing(
        (text, delimiter) in prop_oneof![3 => edited_export(), 1 => any_text()],
        kind in kinds(),
        under_campaign in any::<bool>(),
    ) {
        let mut a = account().lock().unwrap_or_else(|p| p.into_inner());
        let before = snapshot(&a.path);
        let parent = under_campaign.then(|| a.campaign.clone());
        let options = ImportOptions { delimiter, kind, parent };
        // An error is an answer (a sheet that cannot be read says why); a panic is not.
        let _ = a.ws.plan_sheet(&text, &options);
        let _ = a.ws.import_sheet(&text, &options, "Fuzz", false);
        prop_assert_eq!(snapshot(&a.path), before, "a preview changed the workspace");
    }
}

proptest! {
    #[test]
    fn no_applied_sheet_leaves_the_workspace_unreadable(
        (text, delimiter) in prop_oneof![3 => edited_export(), 1 => any_text()],
        kind in kinds(),
        under_campaign in any::<bool>(),
    ) {
        let mut a = account().lock().unwrap_or_else(|p| p.into_inner());
        let parent = under_campaign.then(|| a.campaign.clone());
        let options = ImportOptions { delimiter, kind, parent };
        let Ok(applied) = a.ws.import_sheet(&text, &options, "Fuzz", true) else {
            return Ok(());
        };
        // What a row stored deeper than reads back fails: tables, pending changes (and
        // with them every push), the export.
        let reads = Kind::ALL.into_iter().all(|k| a.ws.list(k).is_ok())
            && a.ws.pending().is_ok()
            && a
                .ws
                .targets(&Scope::Account)
                .and_then(|all| a.ws.export_sheet(&all, Delimiter::Comma, true))
                .is_ok();
        // Taken back first, so the next case starts from the account.
        let undone = if applied.step.is_some() { a.ws.undo().map(|_| ()) } else { Ok(()) };
        prop_assert!(reads, "an applied sheet left the workspace unreadable");
        prop_assert!(undone.is_ok(), "{undone:?}");
    }
}
