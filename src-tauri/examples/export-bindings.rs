//! Writes `ui/src/bindings.ts` from the commands and events (run after changing them;
//! the `bindings_are_current` test fails while the committed file is stale). An example,
//! not a binary, so the installers do not ship it.

fn main() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts");
    if let Err(e) = flightdeck_app::export_bindings(&path) {
        eprintln!("exporting the bindings failed: {e}");
        std::process::exit(1);
    }
    println!("wrote {}", path.display());
}
