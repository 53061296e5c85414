//! Import and export through files the buyer chose in a dialog.

use super::*;

#[test]
fn import_and_export_take_only_files_chosen_in_the_dialog() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = tempfile::tempdir().expect("a folder for the buyer's files");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let orders = h.query("query_ad_orders", Value::Null);
    let scope = json!({"type": "kind", "value": "ad_order"});
    let out = files.path().join("orders.csv");
    std::fs::write(&out, "an earlier file\n").expect("write the earlier file");
    let read = |p: &Path| std::fs::read_to_string(p).expect("read the file");

    // Paths from the page are refused, without quoting them, and nothing is written or read.
    let e = h.err(
        "export_file",
        json!({"file": out, "scope": scope, "format": "sheet"}),
    );
    assert_eq!(e["code"], "state", "{e}");
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains("Export…")),
        "{e}"
    );
    assert!(!e.to_string().contains("orders.csv"), "{e}");
    assert_eq!(read(&out), "an earlier file\n");
    let elsewhere = files.path().join("elsewhere.csv");
    std::fs::write(&elsewhere, "id,name\n").expect("write a file the buyer did not pick");
    let e = h.err(
        "import_file",
        json!({"file": elsewhere, "kind": "ad_order", "parent": null, "apply": false}),
    );
    assert_eq!(e["code"], "state", "{e}");
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains("Import…")),
        "{e}"
    );
    let e = h.err(
        "export_file",
        json!({"file": "0123456789abcdef0123456789abcdef", "scope": scope, "format": "sheet"}),
    );
    assert_eq!(e["code"], "state", "a made-up token: {e}");

    // The file chosen in the save dialog is written, with every ad order.
    let write = h.state().files().choose(out.clone(), FileUse::Write);
    let n = h.ok(
        "export_file",
        json!({"file": write, "scope": scope, "format": "sheet"}),
    );
    assert_eq!(n.as_u64(), Some(orders.len() as u64), "{n}");
    let text = read(&out);
    assert!(text.starts_with("id,"), "{text}");
    // The spreadsheet format: each campaign's name beside its id.
    assert!(
        text.lines()
            .next()
            .is_some_and(|h| h.contains(",campaignId,campaign,")),
        "{text}"
    );
    // It was chosen to be written: an import may not read it under that token.
    let e = h.err(
        "import_file",
        json!({"file": write, "kind": "ad_order", "parent": null, "apply": false}),
    );
    assert_eq!(e["code"], "state", "{e}");

    // Chosen in the open dialog, the edited file imports: one ad order renamed.
    let name = orders[0]["value"]["name"]
        .as_str()
        .expect("a name")
        .to_owned();
    std::fs::write(&out, text.replacen(&name, &format!("{name} (renamed)"), 1))
        .expect("edit the export");
    let open = h.state().files().choose(out.clone(), FileUse::Read);
    let preview = h.ok(
        "import_file",
        json!({"file": open, "kind": "ad_order", "parent": null, "apply": false}),
    );
    assert_eq!(preview["updates"], 1, "{preview}");
    let e = h.err(
        "export_file",
        json!({"file": open, "scope": scope, "format": "wire"}),
    );
    assert_eq!(
        e["code"], "state",
        "a file chosen to import is not overwritten: {e}"
    );
    h.ok(
        "import_file",
        json!({"file": open, "kind": "ad_order", "parent": null, "apply": true}),
    );
    assert_eq!(h.pending().len(), 1);
}

#[test]
fn an_export_replaces_its_file_whole_so_no_reader_sees_part_of_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = tempfile::tempdir().expect("a folder for the buyer's files");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let out = files.path().join("account.csv");
    let token = h.state().files().choose(out.clone(), FileUse::Write);
    let export = || {
        h.ok(
            "export_file",
            json!({"file": token, "scope": {"type": "account"}, "format": "wire"}),
        )
    };
    export();
    let whole = std::fs::read_to_string(&out).expect("the export");
    assert!(whole.lines().count() > 10, "{whole}");

    // Another program (a spreadsheet, a sync client) reads the file while it is exported
    // again and again: it only ever finds the whole file, never an empty or cut one.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (stop, out, whole) = (stop.clone(), out.clone(), whole.clone());
        std::thread::spawn(move || {
            let (mut reads, mut partial) = (0u32, 0u32);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let seen = std::fs::read_to_string(&out).expect("the file is always there");
                reads += 1;
                if seen != whole {
                    partial += 1;
                }
            }
            (reads, partial)
        })
    };
    for _ in 0..200 {
        export();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (reads, partial) = reader.join().expect("the reader ends");
    assert!(reads > 0);
    assert_eq!(
        partial, 0,
        "{partial} of {reads} reads found part of the file"
    );
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(files.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("account.csv")]);
}
