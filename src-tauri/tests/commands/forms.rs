//! Forms: live validation and saving drafts of every kind.

use super::*;

#[test]
fn forms_save_drafts_and_report_broken_rules() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());

    // A draft without a name is saved anyway, with the rule it breaks.
    let mut value = json!({"agencyId": 1, "currency": "USD", "category": "IAB3"});
    let saved = h.ok(
        "save",
        json!({"target": null, "parent": null, "draft": {"kind": "advertiser", "value": value}}),
    );
    assert_eq!(saved["target"]["kind"], "advertiser");
    assert_eq!(saved["target"]["key"]["type"], "local");
    assert_eq!(
        field_errors(&saved["errors"]),
        [("name".to_owned(), "REQUIRED".to_owned())]
    );
    let advertisers = h.advertisers();
    let row = advertisers
        .iter()
        .find(|r| r["target"] == saved["target"])
        .expect("the draft is listed");
    assert_eq!(row["marker"], "invalid");
    assert_eq!(row["pending"], true);
    assert_eq!(h.snapshot()["pendingCount"], 1);
    let pending = h.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["status"], "invalid");

    value["name"] = json!("Draft Co");
    let fixed = h.ok(
        "save",
        json!({"target": saved["target"], "parent": null, "draft": {"kind": "advertiser", "value": value}}),
    );
    assert_eq!(fixed["target"], saved["target"]);
    assert_eq!(fixed["errors"], json!([]));
    let advertisers = h.advertisers();
    let row = named(&advertisers, "Draft Co");
    assert_eq!(row["marker"], "new");
    assert_eq!(row["target"], saved["target"]);
    assert_eq!(h.snapshot()["pendingCount"], 1, "still one change");

    // Two flights that overlap: the later one is flagged, nothing else.
    let start = now_ms() + 10 * DAY;
    let flights = json!([
        {"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": start + 20 * DAY},
        {"budgetType": "AUTO_BUDGET", "maxBudget": 500.0, "startDate": start + 10 * DAY, "endDate": start + 30 * DAY},
    ]);
    let campaign = json!({
        "advertiserId": 1, "name": "Overlapping", "domain": "overlap.example",
        "iabCategory": ["IAB3"], "flights": flights,
    });
    let errors = h.ok(
        "validate",
        json!({"target": null, "parent": null, "draft": {"kind": "campaign", "value": campaign}}),
    );
    assert_eq!(
        field_errors(&errors),
        [("flights[1].startDate".to_owned(), "OVERLAP".to_owned())],
        "{errors}"
    );
    // Without the overlap the same campaign is valid.
    let mut apart = campaign.clone();
    apart["flights"][1]["startDate"] = json!(start + 20 * DAY);
    let errors = h.ok(
        "validate",
        json!({"target": null, "parent": null, "draft": {"kind": "campaign", "value": apart}}),
    );
    assert_eq!(errors, json!([]));

    let timeline = h.ok("flight_timeline", json!({"flights": flights}));
    assert_eq!(timeline["overlaps"], json!([{"a": 0, "b": 1}]));
    assert_eq!(timeline["bars"].as_array().map(Vec::len), Some(2));
    assert_eq!(timeline["gaps"], json!([]));
    assert!(
        field_errors(&timeline["errors"])
            .contains(&("flights[1].startDate".to_owned(), "OVERLAP".to_owned())),
        "{timeline}"
    );

    let matrix = rows(h.ok("creative_matrix", json!({})));
    assert_eq!(matrix.len(), 14);
    let mut cells: Vec<(String, String)> = matrix
        .iter()
        .map(|c| {
            (
                c["creativeType"].as_str().unwrap_or_default().to_owned(),
                c["creativeSubtype"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    cells.sort();
    cells.dedup();
    assert_eq!(cells.len(), 14, "14 distinct type/subtype cells");
    h.close();
}

#[test]
fn overlap_messages_read_in_the_advertisers_timezone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let acme = named(&h.advertisers(), "Acme Outdoor").clone();
    assert_eq!(acme["value"]["timezoneName"], "ET", "{acme}");

    // Noon UTC is morning in New York: the dates in the message say which zone they are in.
    let start = (now_ms() / DAY + 10) * DAY + 12 * 3_600_000;
    let flights = json!([
        {"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": start + 20 * DAY},
        {"budgetType": "AUTO_BUDGET", "maxBudget": 500.0, "startDate": start + 10 * DAY, "endDate": start + 30 * DAY},
    ]);
    let campaign = json!({
        "name": "Overlapping", "domain": "overlap.example", "iabCategory": ["IAB3"], "flights": flights,
    });
    let in_et = h.ok(
        "validate",
        json!({"target": null, "parent": acme["target"], "draft": {"kind": "campaign", "value": campaign}}),
    );
    let et = messages_of(&in_et, "flights[1].startDate");
    assert_eq!(et.len(), 1, "{in_et}");
    assert!(et[0].contains(" ET") && !et[0].contains("UTC"), "{et:?}");

    let in_utc = h.ok(
        "validate",
        json!({"target": null, "parent": null, "draft": {"kind": "campaign", "value": campaign}}),
    );
    let utc = messages_of(&in_utc, "flights[1].startDate");
    assert!(utc.len() == 1 && utc[0].contains("UTC"), "{in_utc}");

    let timeline = h.ok(
        "flight_timeline",
        json!({"flights": flights, "timezone": "ET"}),
    );
    let on_timeline = messages_of(&timeline["errors"], "flights[1].startDate");
    assert_eq!(on_timeline, et, "the timeline says what the form says");
    h.close();
}

#[test]
fn edits_the_service_would_ignore_are_refused_with_the_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();

    let orders = h.query("query_ad_orders", json!(null));
    let order = orders
        .iter()
        .find(|o| o["target"]["key"]["type"] == "id")
        .expect("a downloaded ad order")
        .clone();
    assert_eq!(order["readOnly"], Value::Null, "ad orders can be edited");
    let mut value = order["value"].clone();
    let budget = value["lifetimeBudget"].as_f64().unwrap_or(0.0);
    value["lifetimeBudget"] = json!(budget + 500.0);
    let e = h.err(
        "save",
        json!({"target": order["target"], "parent": order["parent"], "draft": {"kind": "ad_order", "value": value}}),
    );
    assert_eq!(e["code"], "invalid", "{e}");
    assert_eq!(
        field_errors(&e["fieldErrors"]),
        [("lifetimeBudget".to_owned(), "IGNORED_ON_UPDATE".to_owned())],
        "{e}"
    );
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("lifetimeBudget:")),
        "the message names the field: {e}"
    );
    assert!(h.pending().is_empty(), "nothing was saved");

    // An advertiser's timezone is ignored on update too.
    let acme = named(&h.advertisers(), "Acme Outdoor").clone();
    let mut adv = acme["value"].clone();
    adv["timezoneName"] = json!("PT");
    let e = h.err(
        "save",
        json!({"target": acme["target"], "parent": null, "draft": {"kind": "advertiser", "value": adv}}),
    );
    assert_eq!(
        field_errors(&e["fieldErrors"]),
        [("timezoneName".to_owned(), "IGNORED_ON_UPDATE".to_owned())],
        "{e}"
    );
    assert!(h.pending().is_empty(), "nothing was saved");

    // A field the service does take is saved as before.
    let mut renamed = order["value"].clone();
    renamed["name"] = json!("Renamed order");
    let saved = h.ok(
        "save",
        json!({"target": order["target"], "parent": order["parent"], "draft": {"kind": "ad_order", "value": renamed}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    assert_eq!(h.pending().len(), 1);
    h.close();
}

#[test]
fn a_posted_creative_is_read_only_and_duplicates_as_a_new_draft() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let acme = named(&h.advertisers(), "Acme Outdoor").clone();

    // A creative that names only a draft campaign (no advertiser) is valid and posts.
    let start = now_ms() + 2 * DAY;
    let end = start + 28 * DAY;
    let camp = h.ok(
        "save",
        json!({"target": null, "parent": acme["target"], "draft": {"kind": "campaign", "value": {
                "name": "Creative campaign", "domain": "acme.example", "maxBudget": 1000.0,
                "startDate": start, "endDate": end, "iabCategory": ["IAB3"],
                "flights": [{"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": end}],
            }}}),
    );
    assert_eq!(camp["errors"], json!([]), "{camp}");
    let creative = json!({
        "name": "Hero banner", "creativeType": "BANNER", "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/hero.png",
        "landingPageUrl": "https://acme.example/", "size": {"width": 300, "height": 250},
    });
    let errors = h.ok(
        "validate",
        json!({"target": null, "parent": camp["target"], "draft": {"kind": "creative", "value": creative}}),
    );
    assert_eq!(
        errors,
        json!([]),
        "a draft campaign counts as the creative's owner"
    );
    let saved = h.ok(
        "save",
        json!({"target": null, "parent": camp["target"], "draft": {"kind": "creative", "value": creative}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let report = h.post_all();
    assert_eq!(
        report["applied"], 2,
        "the campaign, then the creative: {report}"
    );

    let campaigns = h.query("query_campaigns", acme["target"].clone());
    let campaign_id = named(&campaigns, "Creative campaign")["value"]["id"].clone();
    assert!(campaign_id.is_i64(), "{campaigns:?}");
    let creatives = h.query("query_creatives", json!(null));
    let posted = named(&creatives, "Hero banner").clone();
    assert_eq!(posted["target"]["key"]["type"], "id", "{posted}");
    assert_eq!(posted["value"]["campaignId"], campaign_id, "{posted}");
    assert_eq!(
        posted["value"]["size"],
        json!({"width": 300, "height": 250})
    );
    assert!(
        posted["readOnly"].as_str().is_some_and(|r| !r.is_empty()),
        "a posted creative says why it is read-only: {posted}"
    );

    // Editing it is refused: it would post a second creative.
    let mut edited = posted["value"].clone();
    edited["name"] = json!("Hero banner v2");
    let e = h.err(
        "save",
        json!({"target": posted["target"], "parent": camp["target"], "draft": {"kind": "creative", "value": edited}}),
    );
    assert_eq!(e["code"], "invalid", "{e}");
    assert!(
        !e["fieldErrors"].as_array().is_none_or(Vec::is_empty),
        "{e}"
    );
    assert!(h.pending().is_empty(), "nothing was saved");

    // "Duplicate as new" makes an editable draft with the same content.
    let copy = h.ok("duplicate_as_new", json!({"target": posted["target"]}));
    assert_eq!(copy["kind"], "creative", "{copy}");
    let row = &copy["row"];
    assert_eq!(row["target"]["key"]["type"], "local", "{copy}");
    assert_eq!(row["readOnly"], Value::Null, "{copy}");
    assert_eq!(row["marker"], "new", "{copy}");
    assert_eq!(row["value"].get("id"), None, "{copy}");
    assert_eq!(row["value"]["imageUrl"], posted["value"]["imageUrl"]);
    assert_eq!(row["value"]["size"], posted["value"]["size"]);
    let mut changed = row["value"].clone();
    changed["name"] = json!("Hero banner v2");
    let saved = h.ok(
        "save",
        json!({"target": row["target"], "parent": row["parent"], "draft": {"kind": "creative", "value": changed}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let report = h.post_all();
    assert_eq!(report["applied"], 1, "{report}");
    let creatives = h.query("query_creatives", json!(null));
    let first = named(&creatives, "Hero banner")["value"]["id"].clone();
    let second = named(&creatives, "Hero banner v2")["value"]["id"].clone();
    assert!(
        first.is_i64() && second.is_i64() && first != second,
        "{creatives:?}"
    );
    h.close();
}

#[test]
fn site_list_calls_follow_the_stored_type_and_keep_the_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();

    let list = json!({"name": "Premium sites", "typeId": 5, "siteIds": [11, 12, 13]});
    let saved = h.ok(
        "save",
        json!({"target": null, "parent": null, "draft": {"kind": "site_list", "op": "add", "value": list}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let target = saved["target"].clone();

    // Appending rules to an id-based list is caught while typing: the stored type is known.
    let rules =
        json!({"name": "Premium sites", "rules": [{"name": "news.example", "type": "web"}]});
    let errors = h.ok(
        "validate",
        json!({"target": target, "parent": null, "draft": {"kind": "site_list", "op": "append", "value": rules}}),
    );
    assert!(
        field_errors(&errors).contains(&("rules".to_owned(), "NOT_APPLICABLE".to_owned())),
        "{errors}"
    );
    // A draft list's missing id is not an error: it gets one when it lands.
    assert!(
        !field_errors(&errors).iter().any(|(f, _)| f == "id"),
        "{errors}"
    );

    // removeSites carries the list's name, and the service renames the list with it.
    let removed = h.ok(
        "save",
        json!({"target": target, "parent": null, "draft": {"kind": "site_list", "op": "remove", "value": {"name": "Premium sites 2027", "siteIds": [12]}}}),
    );
    assert_eq!(removed["errors"], json!([]), "{removed}");

    // The table shows what the list holds now, under its new name.
    let lists = h.query("query_site_lists", Value::Null);
    let row = named(&lists, "Premium sites 2027");
    assert_eq!(row["value"]["siteIds"], json!([11, 13]), "{row}");

    let report = h.post_all();
    assert_eq!(report["applied"], 2, "add, then remove: {report}");
    h.close();
}

#[test]
fn a_cap_on_a_new_flight_of_a_draft_campaign_posts_in_one_push() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let base = h.base_url();
    let acme = named(&h.advertisers(), "Acme Outdoor").clone();
    assert_eq!(acme["value"]["timezoneName"], "ET", "{acme}");

    // Noon UTC: the form names the flight by its start in New York time.
    let start = (now_ms() / DAY + 10) * DAY + 12 * 3_600_000;
    let end = start + 20 * DAY;
    let camp = h.ok(
        "save",
        json!({"target": null, "parent": acme["target"], "draft": {"kind": "campaign", "value": {
                "name": "Capped campaign", "domain": "capped.example", "iabCategory": ["IAB3"],
                "flights": [{"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": end}],
            }}}),
    );
    assert_eq!(camp["errors"], json!([]), "{camp}");
    let order = h.ok(
        "save",
        json!({"target": null, "parent": camp["target"], "draft": {"kind": "ad_order", "value": {
            "name": "Capped order", "optimizationGoal": "CPM",
            "startDate": start, "endDate": end, "lifetimeBudget": 500.0,
        }}}),
    );
    assert_eq!(order["errors"], json!([]), "{order}");

    // The form offers the new flight, by its start date in the advertiser's timezone.
    let choices = h.ok("flight_cap_choices", json!({"adOrder": order["target"]}));
    assert_eq!(choices["campaign"], camp["target"], "{choices}");
    let flights = choices["flights"].as_array().expect("flights");
    assert_eq!(flights.len(), 1, "{choices}");
    let new_flight = flights[0]["flight"].clone();
    assert_eq!(new_flight["kind"], "flight", "{choices}");
    assert_eq!(new_flight["key"]["type"], "local", "{choices}");
    assert_eq!(flights[0]["id"], Value::Null);
    let when = flightdeck_model::validate::format_millis_in(
        start,
        Some(&flightdeck_model::TimezoneName::ET),
    );
    assert!(when.ends_with(" ET"), "{when}");
    assert_eq!(
        flights[0]["label"],
        format!("new flight starting {when}"),
        "{choices}"
    );
    assert_eq!(choices["caps"], json!([]));

    // Live validation: a cap naming the new flight is valid; one naming no flight is not.
    let cap = json!({"maxBudget": 200.0, "dailyBudget": 20.0});
    let errors = h.ok(
        "validate",
        json!({"target": null, "parent": order["target"], "draft": {"kind": "flight_caps", "value": [cap], "campaignFlightIds": [], "flights": [new_flight]}}),
    );
    assert_eq!(errors, json!([]), "{errors}");
    let errors = h.ok(
        "validate",
        json!({"target": null, "parent": order["target"], "draft": {"kind": "flight_caps", "value": [cap], "campaignFlightIds": [], "flights": [null]}}),
    );
    assert_eq!(
        field_errors(&errors),
        [("[0].flightId".to_owned(), "REQUIRED".to_owned())],
        "{errors}"
    );

    let saved = h.ok(
        "save",
        json!({"target": null, "parent": order["target"], "draft": {"kind": "flight_caps", "value": [cap], "campaignFlightIds": [], "flights": [new_flight]}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    // Opened again, the form shows the cap on the new flight.
    let choices = h.ok("flight_cap_choices", json!({"adOrder": order["target"]}));
    assert_eq!(choices["caps"], json!([new_flight]), "{choices}");
    let pending = h.pending();
    assert_eq!(pending.len(), 3, "{pending:?}");
    assert!(
        pending.iter().all(|c| c["status"] == "pending"),
        "{pending:?}"
    );

    // One push: campaign, ad order, then the cap with the flight's new id.
    let report = h.post_all();
    assert_eq!(report["applied"], 3, "{report}");
    for k in ["failed", "needsReview", "conflicts", "held", "unsent"] {
        assert_eq!(report[k], 0, "{k}: {report}");
    }
    assert!(h.pending().is_empty());

    let campaign = named(
        &h.query("query_campaigns", acme["target"].clone()),
        "Capped campaign",
    )
    .clone();
    let flight_id = campaign["value"]["flights"][0]["id"].clone();
    assert!(flight_id.is_i64(), "{campaign}");
    let order_row = named(
        &h.query("query_ad_orders", json!(campaign["target"])),
        "Capped order",
    )
    .clone();
    let order_id = order_row["target"]["key"]["value"].clone();
    assert!(order_id.is_i64(), "{order_row}");

    // The service has the cap on that flight (an empty body modifies nothing and answers
    // every cap of the order).
    let caps = sandbox_post(
        &base,
        &format!("v1/campaignflightcaps/byAdOrder/{order_id}"),
        &json!([]),
    );
    let caps = caps["entity"].as_array().expect("the order's caps");
    assert_eq!(caps.len(), 1, "{caps:?}");
    assert_eq!(caps[0]["flightId"], flight_id, "{caps:?}");
    assert_eq!(caps[0]["orderId"], order_id, "{caps:?}");
    assert_eq!(caps[0]["maxBudget"], 200.0, "{caps:?}");
    assert_eq!(caps[0]["dailyBudget"], 20.0, "{caps:?}");

    // Now the flight is offered by its id.
    let choices = h.ok(
        "flight_cap_choices",
        json!({"adOrder": order_row["target"]}),
    );
    let posted = json!({"kind": "flight", "key": {"type": "id", "value": flight_id}});
    assert_eq!(choices["flights"][0]["flight"], posted, "{choices}");
    assert!(
        choices["flights"][0]["label"]
            .as_str()
            .is_some_and(|l| l.starts_with(&format!("#{flight_id}: {when}"))),
        "{choices}"
    );
    h.close();
}

#[test]
fn a_form_with_no_parent_is_refused_at_its_picker() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    let order = json!({"kind": "ad_order", "value": {"name": "Orphan order"}});
    let e = h.err(
        "save",
        json!({"target": null, "parent": null, "draft": order}),
    );
    assert_eq!(e["code"], "invalid", "{e}");
    let fields = field_errors(&e["fieldErrors"]);
    assert_eq!(
        fields[0],
        ("parent.campaign".to_owned(), "REQUIRED".to_owned()),
        "{e}"
    );
    // Live validation shows the same errors, and nothing was saved.
    let live = h.ok(
        "validate",
        json!({"target": null, "parent": null, "draft": order}),
    );
    assert_eq!(field_errors(&live), fields);
    assert!(h.pending().is_empty());
    h.close();
}

/// Fields by their labels, as the UI's pickers and forms ask for them: the kind's list
/// whatever rows are selected, a bulk edit by the grid's label, a typo refused naming
/// the nearest field, and "required" marks by the model's rules.
#[test]
fn fields_are_offered_and_taken_by_label() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();

    let fields = h.ok("edit_fields", json!({"kind": "ad_order"}));
    let max_bid = fields
        .as_array()
        .expect("a list")
        .iter()
        .find(|f| f["path"] == "max_bid")
        .expect("max_bid is offered");
    assert_eq!(max_bid["label"], "Max bid");
    assert_eq!(max_bid["serviceSet"], false);

    let orders = h.query("query_ad_orders", Value::Null);
    let one = json!({"type": "ids", "value": [orders[0]["target"].clone()]});
    let by_label = json!([{"field": "Max bid", "change": {"type": "set", "value": 11.5}}]);
    let preview = h.ok(
        "bulk_edit",
        json!({"scope": one, "edits": by_label, "apply": false}),
    );
    assert_eq!(
        preview["rows"][0]["diffs"][0]["path"], "max_bid",
        "{preview}"
    );
    let typo = json!([{"field": "Maxx bid", "change": {"type": "set", "value": 1}}]);
    let e = h.err(
        "bulk_edit",
        json!({"scope": one, "edits": typo, "apply": false}),
    );
    assert!(e.to_string().contains("“Max bid” (max_bid)"), "{e}");

    // A campaign with flights needs no budget or dates of its own.
    let draft = json!({"kind": "campaign", "value": {
        "name": "Spring",
        "flights": [{"startDate": 1, "endDate": 2, "maxBudget": 5.0}],
    }});
    let required = h.ok(
        "required_fields",
        json!({"draft": draft, "create": true, "paths": ["name", "maxBudget", "startDate", "endDate"]}),
    );
    assert_eq!(required, json!(["name"]));
    h.close();
}
