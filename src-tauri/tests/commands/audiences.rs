//! Audience uploads from files.

use super::*;

#[test]
fn a_file_upload_to_a_posted_segment_reports_its_counts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    let base = h.base_url();
    sandbox_create_segment(&base, "Upload Segment");
    h.sign_in_demo();
    h.refresh();
    let page = h.window("query_audience_segments", Value::Null, "", 0, 50);
    let segment = named(&rows(page["rows"].clone()), "Upload Segment").clone();
    assert_eq!(segment["target"]["key"]["type"], "segment", "{segment}");
    assert!(segment["readOnly"].is_string(), "{segment}");

    // The segment's own fields are read-only.
    let mut renamed = segment["value"].clone();
    renamed["name"] = json!("Renamed segment");
    let e = h.err(
        "save",
        json!({"target": segment["target"], "parent": null, "draft": {"kind": "audience_segment", "value": renamed}}),
    );
    assert_eq!(e["code"], "invalid", "{e}");
    assert!(h.pending().is_empty());

    // A CSV export with two identifier-like columns: the buyer picks one.
    let hashes: Vec<String> = (0..1200)
        .map(|i| sha256_hex(&format!("buyer{i}@example.com")))
        .collect();
    let mut csv = String::from("id,email\n");
    for (i, hash) in hashes.iter().enumerate() {
        csv.push_str(&format!("{i},{hash}\n"));
    }
    let file = h.ok("read_identifiers", json!({"text": csv, "column": null}));
    assert_eq!(file["columns"], json!(["id", "email"]), "{file}");
    assert_eq!(file["values"], json!([]));
    assert!(file["problem"].is_string(), "{file}");
    let file = h.ok("read_identifiers", json!({"text": csv, "column": "email"}));
    assert_eq!(file["problem"], Value::Null, "{file}");
    assert_eq!(file["values"], json!(hashes));

    // Live validation names the bad identifier and country at the form's paths.
    let errors = h.ok(
        "validate",
        json!({"target": null, "parent": segment["target"], "draft": {"kind": "audience_data", "value": {"countryCode": "USA", "values": [hashes[0], "not-a-hash"]}}}),
    );
    let fields: Vec<String> = field_errors(&errors).into_iter().map(|(f, _)| f).collect();
    assert!(
        fields.contains(&"countryCode".to_owned()) && fields.contains(&"values[1]".to_owned()),
        "{errors}"
    );

    let saved = h.ok(
        "save",
        json!({"target": null, "parent": segment["target"], "draft": {"kind": "audience_data", "value": {"countryCode": "US", "values": file["values"]}}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let uploads = rows(h.ok("audience_uploads", json!({"segment": segment["target"]})));
    assert_eq!(uploads.len(), 1, "{uploads:?}");
    assert_eq!(uploads[0]["status"], "pending");
    assert_eq!(uploads[0]["values"], 1200);
    assert_eq!(uploads[0]["countryCode"], "US");
    assert_eq!(uploads[0]["result"], Value::Null);

    let report = h.post_all();
    assert_eq!(report["applied"], 1, "{report}");
    let uploads = rows(h.ok("audience_uploads", json!({"segment": segment["target"]})));
    assert_eq!(uploads[0]["status"], "applied", "{uploads:?}");
    let result = &uploads[0]["result"];
    assert_eq!(
        result["message"], "Audience data payload processed.",
        "{result}"
    );
    assert_eq!(result["bad_records"], 0, "{result}");
    // `published` counts records: the whole file fits one request of one record.
    assert_eq!(result["published"], 1, "{result}");

    // The sandbox applies an upload at once: 1,200 identifiers activate the segment.
    h.refresh();
    let page = h.window("query_audience_segments", Value::Null, "", 0, 50);
    let segment_now = named(&rows(page["rows"].clone()), "Upload Segment").clone();
    assert_eq!(segment_now["value"]["dataCount"], 1200, "{segment_now}");
    assert_eq!(segment_now["value"]["status"], "ACTIVE", "{segment_now}");

    // A file with a bad identifier is refused at the form's path: it could never be
    // posted, so nothing is queued.
    let bad = h.err(
        "save",
        json!({"target": null, "parent": segment["target"], "draft": {"kind": "audience_data", "value": {"countryCode": "US", "values": ["not-a-hash"]}}}),
    );
    assert_eq!(bad["code"], "invalid", "{bad}");
    assert_eq!(
        field_errors(&bad["fieldErrors"])
            .into_iter()
            .map(|(f, _)| f)
            .collect::<Vec<_>>(),
        ["values[0]"],
        "{bad}"
    );
    assert!(
        !bad["message"].as_str().unwrap_or_default().contains("[0]."),
        "the sentence names the form's field: {bad}"
    );
    let bad_country = h.err(
        "save",
        json!({"target": null, "parent": segment["target"], "draft": {"kind": "audience_data", "value": {"countryCode": "USA", "values": [hashes[0]]}}}),
    );
    assert_eq!(
        field_errors(&bad_country["fieldErrors"])
            .into_iter()
            .map(|(f, _)| f)
            .collect::<Vec<_>>(),
        ["countryCode"],
        "{bad_country}"
    );
    let uploads = rows(h.ok("audience_uploads", json!({"segment": segment["target"]})));
    assert_eq!(uploads.len(), 1, "nothing queued: {uploads:?}");
    assert!(h.pending().is_empty());

    // The country code is normalised by the workspace, as for the CLI: " ca" goes as CA.
    let saved = h.ok(
        "save",
        json!({"target": null, "parent": segment["target"], "draft": {"kind": "audience_data", "value": {"countryCode": " ca", "values": [hashes[0]]}}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let uploads = rows(h.ok("audience_uploads", json!({"segment": segment["target"]})));
    assert_eq!(uploads.len(), 2, "{uploads:?}");
    assert_eq!(uploads[1]["countryCode"], "CA", "{uploads:?}");
    assert_eq!(uploads[1]["status"], "pending", "{uploads:?}");
    h.close();
}
