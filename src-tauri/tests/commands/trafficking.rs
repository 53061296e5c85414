//! The trafficking listings through the app's commands, as the UI calls them: creatives
//! in the downloaded tables with their status, an ad order's creatives, the note on a
//! downloaded creative, and refreshing one campaign.

use super::*;

#[test]
fn downloaded_creatives_show_with_status_and_their_campaign_refreshes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    let sum = h.refresh();
    assert_eq!(sum["notices"], json!([]), "{sum}");

    // The creatives table shows the service's creatives with their review status.
    let creatives = h.query("query_creatives", Value::Null);
    let video = named(&creatives, "Acme Spring - 15s Video");
    assert_eq!(video["value"]["status"], "APPROVED");
    let note = h.ok("creative_note", json!({"target": video["target"]}));
    assert!(
        note.as_str()
            .is_some_and(|n| n.contains("not available from the service")),
        "{note}"
    );

    // One of the campaign's ad orders lists it among its creatives.
    let campaigns = h.query("query_campaigns", Value::Null);
    let spring = named(&campaigns, "Acme Spring Launch");
    let orders = h.query("query_ad_orders", spring["target"].clone());
    let listed: Vec<Value> = orders
        .iter()
        .map(|o| h.ok("ad_order_creatives", json!({"adOrderId": o["value"]["id"]})))
        .collect();
    let found = listed
        .iter()
        .flat_map(|l| l["creatives"].as_array().cloned().unwrap_or_default())
        .find(|c| c["name"] == "Acme Spring - 15s Video")
        .expect("an ad order lists the video creative");
    assert_eq!(found["status"], "APPROVED");
    assert!(listed.iter().all(|l| l["stale"].is_null()));

    // Refreshing the campaign finds nothing new on the service.
    let again = h.ok(
        "refresh_campaign",
        json!({"campaignId": spring["value"]["id"]}),
    );
    assert_eq!(
        (&again["added"], &again["changed"], &again["removed"]),
        (&json!(0), &json!(0), &json!(0)),
        "{again}"
    );
    h.close();
}
