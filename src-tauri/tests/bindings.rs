//! The committed TypeScript bindings match the commands and events. When this fails,
//! run `cargo run -p flightdeck-app --example export-bindings` and commit `ui/src/bindings.ts`.

#[test]
fn bindings_are_current() {
    let committed_path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts");
    let committed =
        std::fs::read_to_string(&committed_path).expect("ui/src/bindings.ts is committed");
    let dir = tempfile::tempdir().expect("temp dir");
    let fresh_path = dir.path().join("bindings.ts");
    flightdeck_app::export_bindings(&fresh_path).expect("export bindings");
    let fresh = std::fs::read_to_string(&fresh_path).expect("read fresh bindings");
    assert!(
        committed == fresh,
        "ui/src/bindings.ts is stale: run `cargo run -p flightdeck-app --example export-bindings` and commit it"
    );
}
