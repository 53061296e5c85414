//! Fields by their labels through the core, on a real data directory and workspace file:
//! bulk edit takes the grid's label ("Max bid") wherever a wire path goes, refuses a
//! name the kind does not have with the nearest names (instead of saving it as a new
//! member the next push would send), keeps editing a member the entity already holds,
//! and writes an unknown one only when forced. Required marks come from the model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{advertiser, campaign, working};

use flightdeck_core::bulk::BulkScope;
use flightdeck_core::fields::{self, UNKNOWN_FIELD};
use flightdeck_core::{Account, Core, Error, OpenOptions, Selection};
use flightdeck_model::{AdOrder, FlightCap};
use flightdeck_offline::bulk::ops::{Change, FieldEdit};
use flightdeck_offline::bulk::replace::Find;
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::Draft;
use serde_json::{Value, json};

fn set(field: &str, value: Value) -> FieldEdit {
    FieldEdit {
        field: field.to_owned(),
        change: Change::Set(value),
    }
}

/// An ad order draft under a campaign under an advertiser; the order holds a member
/// the model does not know, as one the service sent would.
fn ad_order(account: &Account) -> EntityRef {
    let advertiser = advertiser(account, None);
    let campaign = campaign(account, &advertiser);
    let order: AdOrder =
        serde_json::from_value(json!({"name": "Prospecting", "max_bid": 2.0, "serviceFlag": "a"}))
            .unwrap();
    account
        .save(None, Some(&campaign), Draft::AdOrder { value: order })
        .unwrap()
        .target
}

#[tokio::test]
async fn bulk_edit_takes_labels_and_refuses_unknown_names_with_the_nearest() {
    let dir = tempfile::tempdir().unwrap();
    let core = Core::open(dir.path(), Selection::Active, OpenOptions::default())
        .await
        .unwrap();
    let account = core.active().unwrap();
    let order = ad_order(&account);
    let scope = BulkScope::Ids(vec![order.clone()]);

    // The grid's header, in any case, stands for the wire path.
    let done = account
        .bulk_edit(&scope, &[set("max bid", json!(11.5))], true)
        .unwrap();
    assert_eq!(done.preview.updates, 1);
    let value = working(&account, &order);
    assert_eq!(value["max_bid"], json!(11.5));
    assert!(
        value.get("max bid").is_none() && value.get("Max bid").is_none(),
        "{value}"
    );

    // A typo is refused whole, naming the field it is nearest to; nothing is saved.
    let Err(Error::Invalid(e)) = account.bulk_edit(&scope, &[set("Maxx bid", json!(1))], true)
    else {
        panic!("an unknown field is refused");
    };
    assert_eq!(
        (e.code.as_str(), e.field.as_str()),
        (UNKNOWN_FIELD, "edits[0].field")
    );
    assert!(e.message.contains("“Max bid” (max_bid)"), "{}", e.message);
    assert!(
        e.message.contains("ad orders have no field “Maxx bid”"),
        "{}",
        e.message
    );
    assert!(working(&account, &order).get("Maxx bid").is_none());

    // A member the entity already holds (as the service sent it) stays editable.
    account
        .bulk_edit(&scope, &[set("serviceFlag", json!("b"))], true)
        .unwrap();
    assert_eq!(working(&account, &order)["serviceFlag"], json!("b"));

    // Forced on purpose, a new member is written as typed.
    account
        .bulk_edit_forced(
            &scope,
            &[set("newMember", json!(3))],
            &["newMember".into()],
            true,
        )
        .unwrap();
    assert_eq!(working(&account, &order)["newMember"], json!(3));

    // Flight caps have no name: their pending change is called by their ad order's.
    account
        .save(
            None,
            Some(&order),
            Draft::FlightCaps {
                value: vec![FlightCap {
                    max_budget: Some(5.0),
                    ..FlightCap::default()
                }],
                campaign_flight_ids: Vec::new(),
                flights: Vec::new(),
            },
        )
        .unwrap();
    let caps = EntityRef::new(Kind::FlightCaps, order.key.clone());
    let ws = account.workspace().unwrap();
    assert_eq!(
        flightdeck_core::pending::change_label(&ws, &caps).unwrap(),
        "flight caps of Prospecting"
    );
    drop(ws);

    // Find and replace takes labels too, and refuses unknown names.
    let find = |fields: Vec<String>| Find {
        find: "Prospect".into(),
        replace: "Retarget".into(),
        fields,
        ..Find::default()
    };
    let done = account
        .replace(&scope, &find(vec!["Name".into()]), true)
        .unwrap();
    assert_eq!(done.preview.updates, 1);
    assert_eq!(working(&account, &order)["name"], json!("Retargeting"));
    let Err(Error::Invalid(e)) = account.replace(&scope, &find(vec!["Nmae".into()]), false) else {
        panic!("an unknown field is refused");
    };
    assert!(e.message.contains("“Name” (name)"), "{}", e.message);
}

#[test]
fn fields_are_offered_by_label_with_their_wire_paths() {
    let list = fields::fields(Kind::AdOrder);
    let max_bid = list.iter().find(|f| f.path == "max_bid").unwrap();
    assert_eq!(max_bid.label, "Max bid");
    assert!(!max_bid.service_set);
    assert!(list.iter().any(|f| f.path == "frequencyCap.limit"));
    assert!(list.iter().find(|f| f.path == "id").unwrap().service_set);
    // A creative's review status is the service's.
    let creative = fields::fields(Kind::Creative);
    assert!(
        creative
            .iter()
            .find(|f| f.path == "status")
            .unwrap()
            .service_set
    );
    // The grid's header is the label; the form's other name is taken too.
    let campaign = fields::fields(Kind::Campaign);
    let budget = campaign.iter().find(|f| f.path == "maxBudget").unwrap();
    assert_eq!(budget.label, "Budget");
    assert_eq!(
        fields::resolve(Kind::Campaign, "Lifetime budget").as_deref(),
        Some("maxBudget")
    );

    // Wire paths as typed: indexes kept, paths inside an unlisted member accepted,
    // paths inside a listed one checked.
    assert_eq!(
        fields::resolve(Kind::Campaign, "flights[0].maxBudget").as_deref(),
        Some("flights[0].maxBudget")
    );
    assert!(fields::resolve(Kind::AdOrder, "audiences[0].name").is_some());
    assert!(fields::resolve(Kind::AdOrder, "frequencyCap.limt").is_none());
    assert_eq!(
        fields::resolve(Kind::FlightCaps, "[*].maxBudget").as_deref(),
        Some("[*].maxBudget")
    );
    // Every label names one field of its kind.
    for kind in Kind::ALL {
        let list = fields::fields(kind);
        for f in &list {
            assert_eq!(
                fields::resolve(kind, &f.label).as_deref(),
                Some(f.path.as_str()),
                "{kind:?} {f:?}"
            );
        }
    }
}

#[test]
fn required_marks_follow_the_models_rules() {
    let paths: Vec<String> = ["name", "maxBudget", "startDate", "endDate", "dailyBudget"]
        .map(String::from)
        .to_vec();
    let alone = json!({"name": "Spring", "maxBudget": 10.0, "startDate": 1, "endDate": 2});
    assert_eq!(
        fields::required(Kind::Campaign, &alone, true, &paths),
        ["name", "maxBudget", "startDate", "endDate"]
    );
    // With flights the service derives the budget and dates: not required.
    let with_flights =
        json!({"name": "Spring", "flights": [{"startDate": 1, "endDate": 2, "maxBudget": 5.0}]});
    assert_eq!(
        fields::required(Kind::Campaign, &with_flights, true, &paths),
        ["name"]
    );
    // An ad order's dates and budget are needed on create only.
    let order = json!({"name": "A", "startDate": 1, "endDate": 2, "lifetimeBudget": 3.0});
    let order_paths: Vec<String> = ["startDate", "lifetimeBudget", "max_bid"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        fields::required(Kind::AdOrder, &order, true, &order_paths),
        ["startDate", "lifetimeBudget"]
    );
    assert!(fields::required(Kind::AdOrder, &order, false, &order_paths).is_empty());
}

#[test]
fn site_lists_and_flight_caps_get_their_required_marks_from_the_model() {
    let list: Draft = serde_json::from_value(
        json!({"kind": "site_list", "op": "add", "value": {"name": "Blocked", "typeId": 5, "siteIds": [4]}}),
    )
    .unwrap();
    let paths: Vec<String> = ["name", "typeId", "strategy"].map(String::from).to_vec();
    // A new list needs its name and type; a strategy only when it is rule based (1).
    assert_eq!(fields::required_in(&list, true, &paths), ["name", "typeId"]);
    let rules: Draft = serde_json::from_value(json!({"kind": "site_list", "op": "add",
        "value": {"name": "News", "typeId": 1, "strategy": "precise", "rules": [{"name": "news.test", "type": "web"}]}}))
    .unwrap();
    assert_eq!(
        fields::required_in(&rules, true, &paths),
        ["name", "typeId", "strategy"]
    );
    let rename: Draft = serde_json::from_value(
        json!({"kind": "site_list", "op": "append", "value": {"id": 3, "name": "Blocked", "siteIds": [4]}}),
    )
    .unwrap();
    // Appending to a list names it too, but its type is the stored one's.
    assert_eq!(fields::required_in(&rename, false, &paths), ["name"]);

    let caps: Draft = serde_json::from_value(json!({
        "kind": "flight_caps",
        "value": [{"flightId": 7, "maxBudget": 10.0}, {"id": 70, "flightId": 8, "maxBudget": 5.0}],
        "campaignFlightIds": [7, 8]
    }))
    .unwrap();
    let cap_paths: Vec<String> = [
        "[0].flightId",
        "[0].maxBudget",
        "[0].dailyBudget",
        "[1].flightId",
        "[1].maxBudget",
    ]
    .map(String::from)
    .to_vec();
    // Every cap names its flight; a new cap needs its budget, a saved one keeps its own.
    assert_eq!(
        fields::required_in(&caps, false, &cap_paths),
        ["[0].flightId", "[0].maxBudget", "[1].flightId"]
    );
}

/// A workspace with one draft ad order (bid 2.00) of an advertiser in New York's
/// timezone (ET): the core, its account and the order.
async fn order_in_new_york(dir: &std::path::Path) -> (Core, std::sync::Arc<Account>, EntityRef) {
    let core = Core::open(dir, Selection::Active, OpenOptions::default())
        .await
        .unwrap();
    let account = core.active().unwrap();
    let advertiser = advertiser(&account, Some(flightdeck_model::TimezoneName::ET));
    let campaign = campaign(&account, &advertiser);
    let order: AdOrder =
        serde_json::from_value(json!({"name": "Prospecting", "max_bid": 2.0})).unwrap();
    let order = account
        .save(None, Some(&campaign), Draft::AdOrder { value: order })
        .unwrap()
        .target;
    (core, account, order)
}

/// A preview shows dates, money and lists as the spreadsheet format writes them, with
/// the row's advertiser's timezone, not as the wire's epoch milliseconds: on its first
/// page and on the pages asked after it.
#[tokio::test]
async fn previews_show_dates_in_the_advertisers_timezone_and_money_with_cents() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account, order) = order_in_new_york(dir.path()).await;
    // 2026-03-01 14:00 UTC is 09:00 in New York (EST, before the clocks change).
    let start = 1_772_373_600_000_i64;
    let done = account
        .bulk_edit(
            &BulkScope::Ids(vec![order.clone()]),
            &[set("startDate", json!(start)), set("max_bid", json!(2.5))],
            false,
        )
        .unwrap();
    let diffs = &done.preview.rows[0].diffs;
    let of = |path: &str| diffs.iter().find(|d| d.path == path).unwrap();
    let date = of("startDate");
    assert_eq!(date.after, Some(json!(start)), "the value stays the wire's");
    assert_eq!(
        date.after_text.as_deref(),
        Some("2026-03-01T09:00:00-05:00")
    );
    assert_eq!(date.before_text, None, "no start date before");
    let bid = of("max_bid");
    assert_eq!(
        (bid.before_text.as_deref(), bid.after_text.as_deref()),
        (Some("2.00"), Some("2.50"))
    );
    assert_eq!(of("startDate").path, "startDate");

    // A later page of the kept rows reads the same.
    let rows_id = done.preview.rows_id.unwrap();
    let page = account.preview_rows(rows_id, 0, 10).unwrap();
    let again = page.rows[0]
        .diffs
        .iter()
        .find(|d| d.path == "startDate")
        .unwrap();
    assert_eq!(
        again.after_text.as_deref(),
        Some("2026-03-01T09:00:00-05:00")
    );
}

/// The review of pending changes reads as the previews do: a new order's start date in
/// its advertiser's timezone and its bid with cents, beside the wire's values.
#[tokio::test]
async fn pending_changes_show_dates_in_the_advertisers_timezone_and_money_with_cents() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account, order) = order_in_new_york(dir.path()).await;
    // 2026-03-01 14:00 UTC is 09:00 in New York (EST).
    let start = 1_772_373_600_000_i64;
    account
        .bulk_edit(
            &BulkScope::Ids(vec![order.clone()]),
            &[set("startDate", json!(start)), set("max_bid", json!(2.5))],
            true,
        )
        .unwrap();
    let window = account
        .pending_window(&flightdeck_core::query::TableQuery::all())
        .unwrap();
    let change = window
        .rows
        .iter()
        .find(|c| c.target == order)
        .expect("the order's pending change");
    let of = |path: &str| change.diff.iter().find(|d| d.path == path).unwrap();
    assert_eq!(
        of("startDate").after,
        Some(json!(start)),
        "the value stays the wire's"
    );
    assert_eq!(
        of("startDate").after_text.as_deref(),
        Some("2026-03-01T09:00:00-05:00")
    );
    assert_eq!(of("max_bid").after_text.as_deref(), Some("2.50"));
    assert_eq!(of("name").after_text, None, "a name reads as itself");
}
