//! Writes the tag-sheet fixtures in `tests/fixtures/tagsheets/` from the sheets in
//! `tests/common/sheets.rs` (made with `rust_xlsxwriter`; no vendor's file is copied):
//!
//!     cargo run -p flightdeck-workbench --example tagsheet_fixtures
//!
//! The core, CLI and end-to-end tests import `tags20.xlsx`, 20 Campaign Manager 360
//! rows.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/sheets.rs"]
mod sheets;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tagsheets");
    std::fs::create_dir_all(&dir).expect("fixture directory");
    let write = |name: &str, bytes: Vec<u8>| {
        std::fs::write(dir.join(name), bytes).expect("write fixture");
        println!("wrote {name}");
    };
    write("cm360.xlsx", sheets::cm360(8).xlsx());
    write("flashtalking.xlsx", sheets::flashtalking(6).xlsx());
    write("innovid.xlsx", sheets::innovid(5).xlsx());
    write("sizmek.csv", sheets::sizmek(6).text(b','));
    write("tags20.xlsx", sheets::cm360(20).xlsx());
}
