//! Table windows over a real workspace file, downloaded over HTTP from a sandbox on
//! loopback: what the buyer sees when scrolling, filtering, sorting and saving.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use flightdeck_core::query::{SortBy, TableQuery, Tables};
use flightdeck_model::AdOrder;
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::Workspace;
use flightdeck_sandbox::testing;

const ORDERS: usize = 120;

/// A workspace holding `ORDERS` downloaded ad orders ("Order 0" … "Order 119") under
/// the demo campaign, plus the demo account's own.
async fn downloaded() -> (tempfile::TempDir, Workspace, i64) {
    let (dir, path, campaign) = common::downloaded(ORDERS).await;
    (dir, Workspace::open(path).unwrap(), campaign)
}

fn query(filter: &str, sort: Option<(&str, bool)>, offset: u32, limit: u32) -> TableQuery {
    TableQuery {
        parent: None,
        filter: filter.to_owned(),
        sort: sort.map(|(c, d)| SortBy {
            column: c.to_owned(),
            descending: d,
        }),
        offset,
        limit,
        quick: false,
    }
}

fn ids(rows: &[flightdeck_core::query::Row<AdOrder>]) -> Vec<i64> {
    rows.iter().map(|r| r.value.id.unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windows_count_scroll_and_order_ids_as_numbers() {
    let (_dir, ws, _) = downloaded().await;
    let tables = Tables::default();
    let first = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("", None, 0, 20))
        .unwrap();
    let total = first.total as usize;
    assert!(total >= ORDERS, "{total}");
    assert_eq!(first.rows.len(), 20, "only the window is sent");
    assert_eq!(first.unfiltered, first.total);
    let firsts = ids(&first.rows);
    let mut sorted = firsts.clone();
    sorted.sort_unstable();
    assert_eq!(
        firsts, sorted,
        "ids ascend as numbers (9 before 10), not as text"
    );

    // Scrolling to the end: the last window is short, and nothing is skipped or repeated.
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let w = tables
            .window::<AdOrder>(&ws, Kind::AdOrder, &query("", None, offset, 50))
            .unwrap();
        if w.rows.is_empty() {
            break;
        }
        seen.extend(ids(&w.rows));
        offset += 50;
    }
    assert_eq!(seen.len(), total);
    let mut unique = seen.clone();
    unique.dedup();
    assert_eq!(unique.len(), total);
    let past = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("", None, 10_000, 50))
        .unwrap();
    assert!(past.rows.is_empty());
    assert_eq!(past.offset, past.total, "an offset past the end is clamped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filter_matches_every_word_in_any_column_and_case() {
    let (_dir, ws, _) = downloaded().await;
    let tables = Tables::default();
    // "Order 11", "Order 110" … "Order 119": every word must appear.
    let w = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("ORDER 11", None, 0, 100))
        .unwrap();
    let names: Vec<String> = w.rows.iter().map(|r| r.label.clone()).collect();
    assert_eq!(w.total as usize, names.len());
    assert!(names.iter().any(|n| n == "Order 11"), "{names:?}");
    // The words may be in any column: here the name, or the id.
    for r in &w.rows {
        let id = r.value.id.unwrap().to_string();
        assert!(
            r.label.contains("11") || id.contains("11"),
            "{} {id}",
            r.label
        );
    }
    assert!(w.unfiltered > w.total);
    // Another column: the goal.
    let cpm = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("cpm order", None, 0, 1))
        .unwrap();
    assert!(cpm.total as usize >= ORDERS);
    let none = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("order nosuchword", None, 0, 10))
        .unwrap();
    assert_eq!(none.total, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sorting_is_by_value_and_a_save_moves_the_row_into_place() {
    let (_dir, mut ws, campaign) = downloaded().await;
    let tables = Tables::default();
    let by_name = |tables: &Tables, ws: &Workspace, desc: bool| {
        tables
            .window::<AdOrder>(
                ws,
                Kind::AdOrder,
                &query("order", Some(("name", desc)), 0, 500),
            )
            .unwrap()
            .rows
            .into_iter()
            .map(|r| r.label)
            .collect::<Vec<_>>()
    };
    let asc = by_name(&tables, &ws, false);
    let mut expected = asc.clone();
    expected.sort_by_key(|n| n.to_lowercase());
    assert_eq!(asc, expected);
    let desc = by_name(&tables, &ws, true);
    assert_eq!(desc.first(), asc.last());

    // Rename the first ad order to sort last; the open sorted view shows it there after
    // the save, without a rebuild.
    let first = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("order", None, 0, 1))
        .unwrap()
        .rows
        .remove(0);
    let mut value = first.value.clone();
    value.name = Some("ZZZ renamed order".into());
    ws.update_ad_order(&first.target, value).unwrap();
    tables
        .touched(&ws, std::slice::from_ref(&first.target))
        .unwrap();
    let after = by_name(&tables, &ws, false);
    assert_eq!(after.last().map(String::as_str), Some("ZZZ renamed order"));
    assert_eq!(after.len(), asc.len());
    let row = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("zzz", None, 0, 5))
        .unwrap();
    assert_eq!(row.total, 1);
    assert!(
        row.rows[0].pending && row.rows[0].marker.is_some(),
        "the row shows it is changed"
    );

    // A new draft comes after every downloaded row in the default order.
    let parent = EntityRef::new(Kind::Campaign, Key::Id(campaign));
    let draft = ws
        .create_ad_order(
            &parent,
            serde_json::from_value(testing::ad_order_body(campaign, 999, 0)).unwrap(),
        )
        .unwrap();
    tables.touched(&ws, std::slice::from_ref(&draft)).unwrap();
    let all = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("", None, 0, 100_000))
        .unwrap();
    assert_eq!(all.rows.last().map(|r| &r.target), Some(&draft));
    assert!(
        all.rows
            .last()
            .and_then(|r| r.parent_label.clone())
            .is_some(),
        "the parent column has the campaign's name"
    );

    // Sorting by a number: empty cells last either way.
    let by_budget = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("", Some(("budget", true)), 0, 3))
        .unwrap();
    assert_eq!(by_budget.rows.len(), 3);
    let err = tables
        .window::<AdOrder>(
            &ws,
            Kind::AdOrder,
            &query("", Some(("nosuch", false)), 0, 3),
        )
        .unwrap_err();
    assert!(err.to_string().contains("sort.column"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_all_filtered_resolves_to_the_matching_rows() {
    let (_dir, ws, campaign) = downloaded().await;
    let tables = Tables::default();
    let q = TableQuery {
        parent: Some(EntityRef::new(Kind::Campaign, Key::Id(campaign))),
        ..query("order 117", None, 0, 1)
    };
    let q = TableQuery { limit: 1, ..q };
    let targets = tables.targets(&ws, Kind::AdOrder, &q).unwrap();
    let w = tables.window::<AdOrder>(&ws, Kind::AdOrder, &q).unwrap();
    assert_eq!(w.rows.len(), 1, "the window is one row");
    assert_eq!(
        targets.len(),
        w.total as usize,
        "select-all covers every match"
    );
    // "Order 117", and the order whose id is 117 (the words may be in any column).
    assert!(!targets.is_empty());
    assert!(targets.len() < ORDERS, "the filter narrowed the selection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_advertisers_view_lists_the_ad_orders_of_its_campaigns() {
    let (_dir, ws, campaign) = downloaded().await;
    let tables = Tables::default();
    let campaign = EntityRef::new(Kind::Campaign, Key::Id(campaign));
    let advertiser = ws
        .get(&campaign)
        .unwrap()
        .unwrap()
        .parent
        .expect("its advertiser");
    let of = |parent: &EntityRef| {
        tables
            .window::<AdOrder>(
                &ws,
                Kind::AdOrder,
                &TableQuery {
                    parent: Some(parent.clone()),
                    ..query("", None, 0, 5)
                },
            )
            .unwrap()
            .total
    };
    let (by_campaign, by_advertiser) = (of(&campaign), of(&advertiser));
    assert!(by_campaign as usize >= ORDERS);
    assert!(
        by_advertiser >= by_campaign,
        "{by_advertiser} < {by_campaign}"
    );
    let all = tables
        .window::<AdOrder>(&ws, Kind::AdOrder, &query("", None, 0, 1))
        .unwrap()
        .total;
    assert!(
        by_advertiser < all,
        "other advertisers' ad orders are left out"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_changes_come_in_windows_and_filter_by_name_kind_or_status() {
    let (_dir, mut ws, campaign) = downloaded().await;
    let parent = EntityRef::new(Kind::Campaign, Key::Id(campaign));
    for i in 0..30 {
        ws.create_ad_order(
            &parent,
            serde_json::from_value(testing::ad_order_body(campaign, 500 + i, 0)).unwrap(),
        )
        .unwrap();
    }
    let w = flightdeck_core::pending::window(&ws, &query("", None, 10, 5)).unwrap();
    assert_eq!((w.total, w.unfiltered, w.rows.len()), (30, 30, 5));
    assert!(w.rows.iter().all(|c| c.kind_label == "ad order"));
    let seqs: Vec<i64> = w.rows.iter().map(|c| c.seq).collect();
    assert!(
        seqs.windows(2).all(|p| p[0] < p[1]),
        "outbox order: {seqs:?}"
    );
    let newest =
        flightdeck_core::pending::window(&ws, &query("", Some(("seq", true)), 0, 1)).unwrap();
    assert!(newest.rows[0].seq > *seqs.last().unwrap());

    let named = flightdeck_core::pending::window(&ws, &query("order 517", None, 0, 10)).unwrap();
    assert_eq!(named.total, 1);
    assert_eq!(named.rows[0].label, "Order 517");
    assert_eq!(named.unfiltered, 30);
    let none = flightdeck_core::pending::window(&ws, &query("campaign", None, 0, 10)).unwrap();
    assert_eq!(none.total, 0, "only ad orders are pending");
}

/// A change left `Sending` (its request left, no answer recorded) says in its row what
/// the post waits for, and that the buyer need not press Post again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sending_change_says_what_the_post_waits_for() {
    let (_dir, mut ws, campaign) = downloaded().await;
    let parent = EntityRef::new(Kind::Campaign, Key::Id(campaign));
    let order = ws
        .create_ad_order(
            &parent,
            serde_json::from_value(testing::ad_order_body(campaign, 900, 0)).unwrap(),
        )
        .unwrap();
    let seq = ws
        .pending()
        .unwrap()
        .into_iter()
        .find(|c| c.target == order)
        .unwrap()
        .seq;
    let before = flightdeck_core::pending::window(&ws, &query("", None, 0, 10)).unwrap();
    assert!(before.rows[0].messages.is_empty(), "{:?}", before.rows[0]);

    ws.mark_sending(seq, Some("fd-00000000000000aa")).unwrap();
    let w = flightdeck_core::pending::window(&ws, &query("", None, 0, 10)).unwrap();
    let row = &w.rows[0];
    assert_eq!(row.seq, seq);
    let note = row
        .messages
        .iter()
        .find(|m| m.code == flightdeck_offline::sync::LOOKUP_WAIT_CODE)
        .unwrap_or_else(|| panic!("no note: {row:?}"));
    assert!(
        note.message
            .contains("checks whether the ad platform has it"),
        "{note:?}"
    );
    assert!(
        note.message.contains("no need to press Post again"),
        "{note:?}"
    );
}

/// An entity printed in its table's columns reads as the tables show it: one cell per
/// column, dates as dates, whole amounts without a fraction, the parent by what the host
/// knows of it, and blanks where the entity has nothing.
#[test]
fn cells_read_as_the_tables_show_them() {
    let order = serde_json::json!({
        "name": "Readers", "id": 7, "campaignId": 3, "optimizationGoal": "CPM",
        "startDate": 1_798_761_600_000_i64, "lifetimeBudget": 500.0, "max_bid": 2.5,
        "audiences": [{"id": 1}, {"id": 2}],
        "frequencyCap": {"limit": 3, "duration": 1, "timePeriod": "DAY"}
    })
    .to_string();
    let columns = flightdeck_core::query::columns(Kind::AdOrder);
    let cells = flightdeck_core::query::cells(Kind::AdOrder, &order, Some("Autumn Reads"));
    assert_eq!(cells.len(), columns.len());
    let cell = |id: &str| {
        let at = columns.iter().position(|c| c.id == id).unwrap();
        cells[at].as_str()
    };
    assert_eq!(cell("name"), "Readers");
    assert_eq!(cell("campaign"), "Autumn Reads");
    assert_eq!(cell("goal"), "CPM");
    assert_eq!(cell("start"), "1 Jan 2027");
    assert_eq!(cell("end"), "");
    assert_eq!(cell("budget"), "500");
    assert_eq!(cell("maxbid"), "2.5");
    assert_eq!(cell("audiences"), "2");
    assert_eq!(cell("freq"), "3 / 1 DAY");
    // The service's listings carry no status: unknown until set through Flightdeck.
    assert_eq!(cell("status"), "unknown");
    assert!(
        flightdeck_core::query::cells(Kind::AdOrder, "not json", None)
            .iter()
            .all(String::is_empty)
    );
}
