//! Property fuzzing of the tag-sheet readers: any bytes, and a real XLSX or CSV tag
//! sheet with bytes overwritten, go through `read_tag_sheet` without a panic, and every
//! error a row carries names a cell. CI runs proptest's default number of cases; the
//! long run is `scripts/fuzz.sh`.

#[path = "common/sheets.rs"]
mod sheets;

use flightdeck_workbench::tagsheet::{builtin_presets, read_tag_sheet};
use proptest::prelude::*;

fn no_panic(bytes: &[u8]) {
    if let Ok(sheet) = read_tag_sheet(bytes, None, &builtin_presets()) {
        for row in &sheet.rows {
            for e in &row.errors {
                assert!(
                    e.cell
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_uppercase()),
                    "{e:?}"
                );
            }
        }
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_the_readers(
        head in prop_oneof![
            Just(b"PK\x03\x04".to_vec()),
            Just(vec![0xD0, 0xCF, 0x11, 0xE0]),
            Just(Vec::new()),
        ],
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
    ) {
        let mut all = head;
        all.extend(bytes);
        no_panic(&all);
    }

    #[test]
    fn a_damaged_tag_sheet_never_panics_the_readers(
        xlsx in any::<bool>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16),
    ) {
        let sheet = sheets::cm360(4);
        let mut bytes = if xlsx { sheet.xlsx() } else { sheet.text(b',') };
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        no_panic(&bytes);
    }
}
