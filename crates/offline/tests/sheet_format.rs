//! The spreadsheet format of exports (`SheetFormat::Sheet`): dates in the advertiser's
//! timezone, money with two decimals, lists as `a; b; c`, parents' names beside their
//! ids. What a buyer reads in the file, what an edited cell does on import, and the
//! property that an export imported back changes nothing, over generated workspaces.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::snapshot;
use flightdeck_model::{AdOrder, Advertiser, Campaign, TimezoneName};
use flightdeck_offline::bulk::plan::Scope;
use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions, SheetFormat};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::Workspace;
use proptest::prelude::*;
use serde_json::{Value, json};

/// 2026-03-01T00:00:00-05:00, midnight in New York.
const MARCH_1_ET: i64 = 1_772_341_200_000;
const DAY: i64 = 86_400_000;

fn advertiser(ws: &mut Workspace, name: &str, tz: Option<&str>) -> EntityRef {
    let mut v = json!({"name": name, "agencyId": 1, "currency": "USD", "category": "IAB3"});
    if let Some(tz) = tz {
        v["timezoneName"] = json!(tz);
    }
    ws.create_advertiser(serde_json::from_value::<Advertiser>(v).unwrap())
        .unwrap()
}

fn campaign(ws: &mut Workspace, under: &EntityRef, v: Value) -> EntityRef {
    let mut base = json!({"name": "Spring", "domain": "x.example", "maxBudget": 1000.0,
        "startDate": MARCH_1_ET, "endDate": MARCH_1_ET + 30 * DAY, "iabCategory": ["IAB3"]});
    merge(&mut base, v);
    ws.create_campaign(under, serde_json::from_value::<Campaign>(base).unwrap())
        .unwrap()
}

fn ad_order(ws: &mut Workspace, under: &EntityRef, v: Value) -> EntityRef {
    let mut base = json!({"name": "Video", "optimizationGoal": "CPM",
        "startDate": MARCH_1_ET, "endDate": MARCH_1_ET + 20 * DAY, "lifetimeBudget": 100.0});
    merge(&mut base, v);
    ws.create_ad_order(under, serde_json::from_value::<AdOrder>(base).unwrap())
        .unwrap()
}

fn merge(base: &mut Value, v: Value) {
    for (k, v) in v.as_object().unwrap() {
        base[k] = v.clone();
    }
}

fn export(ws: &Workspace, kind: Kind) -> String {
    let targets = ws.targets(&Scope::Kind(kind)).unwrap();
    ws.export_sheet_as(&targets, Delimiter::Comma, false, SheetFormat::Sheet)
        .unwrap()
}

/// The sheet as (header, rows).
fn read(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(str::to_owned).collect();
    let rows = r
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    (header, rows)
}

fn cell<'a>(sheet: &'a (Vec<String>, Vec<Vec<String>>), row: usize, column: &str) -> &'a str {
    let at = sheet.0.iter().position(|h| h == column).unwrap_or_else(|| {
        panic!("no column {column} in {:?}", sheet.0);
    });
    sheet.1[row].get(at).map_or("", String::as_str)
}

/// The sheet with one cell changed.
fn with_cell(text: &str, row: usize, column: &str, to: &str) -> String {
    let (header, mut rows) = read(text);
    let at = header.iter().position(|h| h == column).unwrap();
    rows[row].resize(header.len(), String::new());
    rows[row][at] = to.to_owned();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header).unwrap();
    for r in rows {
        w.write_record(&r).unwrap();
    }
    String::from_utf8(w.into_inner().unwrap()).unwrap()
}

fn options(kind: Kind) -> ImportOptions {
    ImportOptions {
        delimiter: Delimiter::Comma,
        kind: Some(kind),
        parent: None,
    }
}

fn workspace(dir: &tempfile::TempDir) -> Workspace {
    Workspace::open(dir.path().join("ws.sqlite")).unwrap()
}

#[test]
fn dates_are_written_in_the_advertisers_timezone_with_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = workspace(&dir);
    let east = advertiser(&mut ws, "East", Some("ET"));
    let west = advertiser(&mut ws, "West", Some("PT"));
    let utc = advertiser(&mut ws, "Nowhere", None);
    campaign(
        &mut ws,
        &east,
        json!({"name": "E", "endDate": MARCH_1_ET + 10 * DAY + 1_234}),
    );
    campaign(&mut ws, &west, json!({"name": "W"}));
    campaign(&mut ws, &utc, json!({"name": "U"}));

    let sheet = read(&export(&ws, Kind::Campaign));
    assert_eq!(cell(&sheet, 0, "startDate"), "2026-03-01T00:00:00-05:00");
    // Daylight saving time began on 8 March; milliseconds only when there are some.
    assert_eq!(cell(&sheet, 0, "endDate"), "2026-03-11T01:00:01.234-04:00");
    assert_eq!(cell(&sheet, 1, "startDate"), "2026-02-28T21:00:00-08:00");
    assert_eq!(cell(&sheet, 2, "startDate"), "2026-03-01T05:00:00+00:00");
}

#[test]
fn a_changed_date_is_exactly_that_change_and_dates_without_offset_are_the_advertisers() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = workspace(&dir);
    let east = advertiser(&mut ws, "East", Some("ET"));
    let c = campaign(&mut ws, &east, json!({}));
    let o = ad_order(&mut ws, &c, json!({}));
    let text = export(&ws, Kind::AdOrder);

    let moved = with_cell(&text, 0, "endDate", "2026-03-31T23:59:00-04:00");
    let preview = ws
        .import_sheet(&moved, &options(Kind::AdOrder), "Import", false)
        .unwrap();
    assert_eq!((preview.updates, preview.refused), (1, 0), "{preview:?}");
    let diffs = &preview.rows[0].diffs;
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert_eq!(diffs[0].path, "endDate");
    assert_eq!(
        diffs[0].after,
        Some(json!(MARCH_1_ET + 31 * DAY - 60_000 - 3_600_000))
    );

    // A date and time without offset, and a day alone, are the advertiser's (ET).
    for (typed, at) in [
        (
            "2026-03-09 09:30",
            MARCH_1_ET + 8 * DAY + 9 * 3_600_000 + 30 * 60_000 - 3_600_000,
        ),
        ("2026-03-02", MARCH_1_ET + DAY),
        (&*(MARCH_1_ET + 2 * DAY).to_string(), MARCH_1_ET + 2 * DAY),
    ] {
        let text = with_cell(&text, 0, "startDate", typed);
        let p = ws
            .import_sheet(&text, &options(Kind::AdOrder), "Import", false)
            .unwrap();
        assert_eq!(p.updates, 1, "{typed}: {p:?}");
        assert_eq!(p.rows[0].diffs[0].after, Some(json!(at)), "{typed}");
    }

    // An end date given as a day ends at 23:59 of that day (EDT from March 8), as the
    // forms' day pickers end it: the next day's midnight start leaves no gap.
    let ends = with_cell(&text, 0, "endDate", "2026-03-31");
    let p = ws
        .import_sheet(&ends, &options(Kind::AdOrder), "Import", false)
        .unwrap();
    assert_eq!(
        p.rows[0].diffs[0].after,
        Some(json!(MARCH_1_ET + 31 * DAY - 60_000 - 3_600_000)),
        "{p:?}"
    );

    // Not a date: refused at its cell, on its line.
    let bad = with_cell(&text, 0, "startDate", "1st of March");
    let p = ws
        .import_sheet(&bad, &options(Kind::AdOrder), "Import", false)
        .unwrap();
    assert_eq!(p.refused, 1, "{p:?}");
    assert_eq!(p.rows[0].line, Some(1));
    assert_eq!(p.rows[0].errors[0].field, "startDate");
    assert!(p.rows[0].errors[0].message.contains("not a date"), "{p:?}");
    assert!(ws.working_of(&o).unwrap().is_some());
}

#[test]
fn money_has_two_decimals_and_reads_dollar_signs_and_thousands() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = workspace(&dir);
    let a = advertiser(&mut ws, "A", Some("ET"));
    let c = campaign(&mut ws, &a, json!({}));
    ad_order(
        &mut ws,
        &c,
        json!({"lifetimeBudget": 1250.0, "max_bid": 0.125}),
    );
    let text = export(&ws, Kind::AdOrder);
    let sheet = read(&text);
    assert_eq!(cell(&sheet, 0, "lifetimeBudget"), "1250.00");
    // A bid with more decimals keeps them: nothing is rounded away.
    assert_eq!(cell(&sheet, 0, "max_bid"), "0.125");

    let p = ws
        .import_sheet(
            &with_cell(&text, 0, "lifetimeBudget", "$1,300.50"),
            &options(Kind::AdOrder),
            "Import",
            false,
        )
        .unwrap();
    assert_eq!(p.rows[0].diffs[0].after, Some(json!(1300.5)), "{p:?}");

    // A decimal comma is refused rather than read as a hundred times the amount.
    let p = ws
        .import_sheet(
            &with_cell(&text, 0, "lifetimeBudget", "1,5"),
            &options(Kind::AdOrder),
            "Import",
            false,
        )
        .unwrap();
    assert_eq!(p.refused, 1, "{p:?}");
    assert_eq!(p.rows[0].errors[0].field, "lifetimeBudget");
}

#[test]
fn lists_are_written_a_b_c_and_json_only_when_an_item_would_not_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = workspace(&dir);
    let a = advertiser(&mut ws, "A", Some("ET"));
    campaign(
        &mut ws,
        &a,
        json!({"name": "Plain", "iabCategory": ["IAB1", "IAB2-3"]}),
    );
    campaign(
        &mut ws,
        &a,
        json!({"name": "Odd", "iabCategory": ["a;b", "c"]}),
    );
    let text = export(&ws, Kind::Campaign);
    let sheet = read(&text);
    assert_eq!(cell(&sheet, 0, "iabCategory"), "IAB1; IAB2-3");
    assert_eq!(cell(&sheet, 1, "iabCategory"), r#"["a;b","c"]"#);

    let p = ws
        .import_sheet(
            &with_cell(&text, 0, "iabCategory", "IAB1;IAB9 ; "),
            &options(Kind::Campaign),
            "Import",
            false,
        )
        .unwrap();
    assert_eq!(p.updates, 1, "{p:?}");
    assert_eq!(p.rows[0].diffs.len(), 1, "{p:?}");
    assert_eq!(p.rows[0].diffs[0].after, Some(json!(["IAB1", "IAB9"])));
}

#[test]
fn the_parents_name_sits_beside_its_id_and_is_only_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = workspace(&dir);
    let a = advertiser(&mut ws, "A", Some("ET"));
    let c = campaign(&mut ws, &a, json!({"name": "Spring, \"big\""}));
    ad_order(&mut ws, &c, json!({}));
    let text = export(&ws, Kind::AdOrder);
    let sheet = read(&text);
    let at = sheet.0.iter().position(|h| h == "campaignId").unwrap();
    assert_eq!(sheet.0[at + 1], "campaign");
    assert!(cell(&sheet, 0, "campaignId").starts_with("draft:"));
    assert_eq!(cell(&sheet, 0, "campaign"), "Spring, \"big\"");

    // The id says which campaign: a changed name there changes nothing.
    let p = ws
        .import_sheet(
            &with_cell(&text, 0, "campaign", "Summer"),
            &options(Kind::AdOrder),
            "Import",
            false,
        )
        .unwrap();
    assert_eq!((p.updates, p.refused, p.unchanged), (0, 0, 1), "{p:?}");
}

#[test]
fn the_wire_format_is_still_epoch_milliseconds_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = workspace(&dir);
    let a = advertiser(&mut ws, "A", Some("ET"));
    campaign(&mut ws, &a, json!({"iabCategory": ["IAB1", "IAB2"]}));
    let targets = ws.targets(&Scope::Kind(Kind::Campaign)).unwrap();
    let text = ws
        .export_sheet_as(&targets, Delimiter::Comma, false, SheetFormat::Wire)
        .unwrap();
    let sheet = read(&text);
    assert_eq!(cell(&sheet, 0, "startDate"), MARCH_1_ET.to_string());
    assert_eq!(cell(&sheet, 0, "iabCategory"), r#"["IAB1","IAB2"]"#);
    assert_eq!(cell(&sheet, 0, "maxBudget"), "1000.0");
    assert!(!sheet.0.iter().any(|h| h == "advertiser"), "{:?}", sheet.0);
    assert_eq!(
        text,
        ws.export_sheet(&targets, Delimiter::Comma, false).unwrap()
    );
}

// --- The round trip, over generated workspaces ---

/// Text with separators, quotes, formula starts and what looks like JSON or a list.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[A-Za-z ,;\"'\t]{0,12}",
        1 => "[=+\\-@\t\r'\\[][A-Za-z0-9 ,;\"'=+\\-@()\t\r]{0,10}",
        1 => prop::sample::select(vec!["[]", " [] ", "'", "1; 2", "2026-03-01", "$5"])
            .prop_map(str::to_owned),
    ]
}

/// List items: plain, and ones the `a; b` form cannot hold.
fn items() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        prop_oneof![
            4 => "[A-Z]{1,4}[0-9-]{0,3}",
            1 => prop::sample::select(vec!["a;b", " x", "y ", "", "[z", "-1", "=SUM(A1)", "'q"])
                .prop_map(str::to_owned),
        ],
        0..4,
    )
}

/// Any instant a date field may hold, seconds and milliseconds included, around
/// daylight-saving changes and far from now.
fn millis() -> impl Strategy<Value = i64> {
    prop_oneof![
        (0i64..400).prop_map(|d| MARCH_1_ET - 200 * DAY + d * DAY),
        (0i64..400, 0i64..DAY).prop_map(|(d, t)| MARCH_1_ET + d * DAY + t),
        -62_000_000_000_000i64..253_000_000_000_000,
    ]
}

/// Amounts: whole cents mostly, and some with more decimals or none.
fn money() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => (0u32..10_000_000).prop_map(|c| f64::from(c) / 100.0),
        1 => (0u32..1_000_000).prop_map(|m| f64::from(m) / 1000.0),
        1 => prop::sample::select(vec![0.0, 1e-7, 1e15, 0.1 + 0.2]),
    ]
}

#[derive(Debug, Clone)]
struct Order {
    name: String,
    dates: (i64, i64),
    budget: f64,
    bid: Option<f64>,
    channels: Option<Vec<String>>,
}

#[derive(Debug, Clone)]
struct Group {
    tz: Option<TimezoneName>,
    name: String,
    dates: (i64, i64),
    budget: f64,
    daily: Option<f64>,
    categories: Vec<String>,
    orders: Vec<Order>,
}

fn order() -> impl Strategy<Value = Order> {
    (
        text(),
        (millis(), millis()),
        money(),
        proptest::option::of(money()),
        proptest::option::of(items()),
    )
        .prop_map(|(name, dates, budget, bid, channels)| Order {
            name,
            dates,
            budget,
            bid,
            channels,
        })
}

fn group() -> impl Strategy<Value = Group> {
    (
        proptest::option::of(prop::sample::select(TimezoneName::ALL.to_vec())),
        text(),
        (millis(), millis()),
        money(),
        proptest::option::of(money()),
        items(),
        proptest::collection::vec(order(), 0..4),
    )
        .prop_map(
            |(tz, name, dates, budget, daily, categories, orders)| Group {
                tz,
                name,
                dates,
                budget,
                daily,
                categories,
                orders,
            },
        )
}

/// Draft advertisers (each in its timezone), a campaign each, and its ad orders.
fn build(path: &Path, groups: &[Group]) -> Workspace {
    let mut ws = Workspace::open(path).unwrap();
    for (i, g) in groups.iter().enumerate() {
        let tz = g.tz.as_ref().map(|t| serde_json::to_value(t).unwrap());
        let a = advertiser(
            &mut ws,
            &format!("Advertiser {i}"),
            tz.as_ref().and_then(Value::as_str),
        );
        let mut c = json!({"name": g.name, "startDate": g.dates.0, "endDate": g.dates.1,
            "maxBudget": g.budget, "iabCategory": g.categories});
        if let Some(d) = g.daily {
            c["dailyBudget"] = json!(d);
        }
        let c = campaign(&mut ws, &a, c);
        for o in &g.orders {
            let mut v = json!({"name": o.name, "startDate": o.dates.0, "endDate": o.dates.1,
                "lifetimeBudget": o.budget});
            if let Some(b) = o.bid {
                v["max_bid"] = json!(b);
            }
            if let Some(ch) = &o.channels {
                v["channels"] = json!(ch);
                v["channelsV2"] = json!(ch);
            }
            ad_order(&mut ws, &c, v);
        }
    }
    ws
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn a_spreadsheet_export_imports_back_with_no_change(
        groups in proptest::collection::vec(group(), 1..4),
        tab in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ws.sqlite");
        let mut ws = build(&path, &groups);
        let before = snapshot(&path);
        let delimiter = if tab { Delimiter::Tab } else { Delimiter::Comma };
        let all = ws.targets(&Scope::Account).unwrap();
        let text = ws.export_sheet_as(&all, delimiter, true, SheetFormat::Sheet).unwrap();
        let options = ImportOptions { delimiter, kind: None, parent: None };
        let back = ws.import_sheet(&text, &options, "Import", true).unwrap();
        prop_assert_eq!((back.creates, back.updates, back.refused), (0, 0, 0), "{:?}\n{}", back, text);
        prop_assert_eq!(back.unchanged as usize, all.len());
        prop_assert_eq!(snapshot(&path), before);
    }
}

/// A preview's diffs read as the spreadsheet writes them: a flight's date in the
/// advertiser's timezone, its budget with cents; a member the format writes as JSON
/// (a whole new flight) gets no text.
#[test]
fn a_previews_diffs_read_as_the_sheet_writes_them_flights_included() {
    use flightdeck_offline::diff::FieldDiff;
    use flightdeck_offline::workspace::{RowOutcome, RowPreview};
    let dir = tempfile::tempdir().unwrap();
    let mut ws = workspace(&dir);
    let adv = advertiser(&mut ws, "Acme", Some("ET"));
    let camp = campaign(&mut ws, &adv, json!({}));
    let mut rows = vec![RowPreview {
        target: Some(camp),
        kind: Kind::Campaign,
        label: "Spring".into(),
        line: None,
        outcome: RowOutcome::Update,
        diffs: vec![
            FieldDiff::new(
                "flights[1].endDate",
                Some(json!(MARCH_1_ET)),
                Some(json!(MARCH_1_ET + DAY)),
            ),
            FieldDiff::new("flights[1].maxBudget", None, Some(json!(250))),
            FieldDiff::new("flights[2]", None, Some(json!({"startDate": MARCH_1_ET}))),
            FieldDiff::new("name", Some(json!("Spring")), Some(json!("Summer"))),
        ],
        errors: vec![],
    }];
    ws.readable_diffs(&mut rows);
    let texts: Vec<(Option<&str>, Option<&str>)> = rows[0]
        .diffs
        .iter()
        .map(|d| (d.before_text.as_deref(), d.after_text.as_deref()))
        .collect();
    assert_eq!(
        texts,
        vec![
            (
                Some("2026-03-01T00:00:00-05:00"),
                Some("2026-03-02T00:00:00-05:00")
            ),
            (None, Some("250.00")),
            (None, None),
            (None, None),
        ]
    );
}
