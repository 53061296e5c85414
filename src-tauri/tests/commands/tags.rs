//! Tag-sheet import as the Import tag sheet… dialog calls it: a preview of the file
//! chosen in the dialog, the drafts applied in one step with a precise change event,
//! and a mapping saved as a preset.

use super::tables::workspace_changed;
use super::*;

fn tag_sheet() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/workbench/tests/fixtures/tagsheets/tags20.xlsx")
}

#[test]
fn a_tag_sheet_chosen_in_the_dialog_previews_and_applies_as_20_drafts_in_one_step() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let campaign = h.query("query_campaigns", Value::Null)[0]["target"].clone();
    let detect = json!({"by": "detect"});

    // A path from the page is no token: refused, and not quoted.
    let e = h.err(
        "preview_tag_sheet",
        json!({"file": tag_sheet(), "mapping": detect, "offset": 0, "limit": 10}),
    );
    assert_eq!(e["code"], "state", "{e}");
    assert!(!e.to_string().contains("tags20"), "{e}");

    let file = h.state().files().choose(tag_sheet(), FileUse::Read);
    let preview = h.ok(
        "preview_tag_sheet",
        json!({"file": file, "mapping": detect, "offset": 0, "limit": 5}),
    );
    assert_eq!(preview["preset"], "Campaign Manager 360", "{preview}");
    assert_eq!(
        (preview["total"].clone(), preview["refused"].clone()),
        (json!(20), json!(0))
    );
    assert_eq!(preview["headerRow"], 6);
    assert_eq!(preview["rows"].as_array().map(Vec::len), Some(5));
    assert_eq!(preview["rows"][0]["name"], "Spring_Display_300x250_0");
    assert_eq!(preview["rows"][0]["size"], "300x250");
    assert_eq!(preview["rows"][0]["creativeType"], "BANNER+TAG");
    assert_eq!(preview["rows"][0]["thumbnail"], "tag");
    assert_eq!(preview["fields"].as_array().map(Vec::len), Some(7));
    assert!(h.pending().is_empty(), "a preview saves nothing");

    let events = workspace_changed(&h);
    let applied = h.ok(
        "apply_tag_sheet",
        json!({"file": file, "mapping": detect, "parent": campaign}),
    );
    assert_eq!(
        (applied["made"].clone(), applied["refused"].clone()),
        (json!(20), json!(0))
    );
    assert_eq!(h.pending().len(), 20);
    let event = events
        .recv_timeout(Duration::from_secs(10))
        .expect("a workspace-changed event");
    assert_eq!(event["kinds"], json!(["creative"]), "{event}");
    assert_eq!(event["addedOrRemoved"], true, "{event}");
    assert_eq!(event["ids"].as_array().map(Vec::len), Some(20), "{event}");
    let history = h.ok("edit_history", json!({}));
    assert_eq!(history[0]["label"], "Import tags tags20.xlsx", "{history}");

    // The dialog's columns saved as a preset come first; one undo takes the import back.
    let names = h.ok(
        "save_tag_preset",
        json!({"name": "Agency export", "columns": [
            {"field": "name", "header": "Placement Name"},
            {"field": "jsTag", "header": "JavaScript Tag"},
        ]}),
    );
    assert_eq!(names[0], "Agency export", "{names}");
    assert_eq!(names.as_array().map(Vec::len), Some(5));
    h.ok("undo", json!({}));
    assert!(h.pending().is_empty());
}
