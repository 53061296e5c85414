//! Tag-sheet import through the core, on a real data directory and workspace file: the
//! 20-row XLSX fixture (`crates/workbench/tests/fixtures/tagsheets/tags20.xlsx`, in
//! Campaign Manager 360's shape) previewed a window at a time, applied as 20 drafts in
//! one undo step, and a mapping saved as a preset that the next import detects.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::advertiser;

use flightdeck_core::tagsheet::{self, TagMapping, Thumbnail};
use flightdeck_core::{Core, OpenOptions, Selection};
use flightdeck_offline::change::Kind;
use flightdeck_workbench::tagsheet::{ColumnChoice, Field};

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../workbench/tests/fixtures/tagsheets")
        .join(name)
}

#[tokio::test]
async fn a_20_row_xlsx_previews_then_lands_as_20_drafts_in_one_undo_step() {
    let dir = tempfile::tempdir().unwrap();
    let core = Core::open(dir.path(), Selection::Active, OpenOptions::default())
        .await
        .unwrap();
    let account = core.active().unwrap();
    let advertiser = advertiser(&account, None);
    let before = account.pending_count().unwrap();

    // The preview: the preset detected, counts, and a window of rows; nothing saved.
    let path = fixture("tags20.xlsx");
    let presets = tagsheet::presets(dir.path()).unwrap();
    let sheet = tagsheet::read_sheet(
        &tagsheet::read_file(&path).unwrap(),
        &TagMapping::Detect,
        &presets,
    )
    .unwrap();
    let preview = tagsheet::preview(&sheet, &presets, 15, 50);
    assert_eq!(preview.preset.as_deref(), Some("Campaign Manager 360"));
    assert_eq!((preview.total, preview.refused), (20, 0));
    assert_eq!((preview.offset, preview.rows.len()), (15, 5));
    let row = &preview.rows[0];
    assert_eq!(row.row, 22, "row 16 of the placements, under 6 rows");
    assert_eq!(row.name.as_deref(), Some("Spring_Display_320x50_15"));
    assert_eq!(row.size.as_deref(), Some("640x360"));
    assert_eq!(row.creative_type, "VIDEO+VASTURL");
    assert_eq!(row.thumbnail, Thumbnail::Video);
    assert_eq!(preview.rows[1].creative_type, "BANNER+TAG");
    // Each row names the rules of its findings: a clean tag's weight, an info.
    assert_eq!((preview.rows[1].findings, preview.rows[1].warnings), (1, 0));
    assert_eq!(preview.rows[1].rules, ["tag.weight"]);
    assert_eq!(preview.rows[1].thumbnail, Thumbnail::Tag);
    assert_eq!(account.pending_count().unwrap(), before);

    // Applied: 20 drafts under the advertiser, one step named after the file.
    let done = account
        .import_tags(&path, &TagMapping::Detect, &presets, &advertiser)
        .unwrap();
    assert_eq!((done.made.len(), done.refused), (20, 0));
    assert!(done.changed.added_or_removed);
    assert!(done.made.iter().all(|t| t.kind == Kind::Creative));
    assert_eq!(account.pending_count().unwrap(), before + 20);
    let history = account.history(5).unwrap();
    assert_eq!(history[0].label, "Import tags tags20.xlsx");
    assert_eq!(Some(history[0].id), done.step);
    let ws = account.workspace().unwrap();
    let first = ws.get(&done.made[0]).unwrap().unwrap();
    assert_eq!(first.parent, Some(advertiser.clone()));
    assert_eq!(first.working["creativeType"], "BANNER");
    assert_eq!(first.working["externalCreativeid"], "380000100");
    drop(ws);

    // One undo takes all 20 back.
    let undone = account.undo().unwrap().expect("the import to undo");
    assert!(undone.added_or_removed);
    assert_eq!(account.pending_count().unwrap(), before);
}

#[tokio::test]
async fn a_saved_mapping_is_a_preset_the_next_import_detects() {
    let dir = tempfile::tempdir().unwrap();
    let columns = vec![
        ColumnChoice {
            field: Field::Name,
            header: "Placement Name".into(),
        },
        ColumnChoice {
            field: Field::JsTag,
            header: "JavaScript Tag".into(),
        },
        ColumnChoice {
            field: Field::Size,
            header: "Dimensions".into(),
        },
        ColumnChoice {
            field: Field::ClickThrough,
            header: "Click-through URL".into(),
        },
    ];
    // A shipped preset's name, or no tag column, is refused.
    let taken = tagsheet::save_preset(dir.path(), "Innovid", columns.clone()).unwrap_err();
    assert!(taken.to_string().contains("ships"), "{taken}");
    let no_tag = tagsheet::save_preset(dir.path(), "Mine", columns[..1].to_vec()).unwrap_err();
    assert!(no_tag.to_string().contains("tag"), "{no_tag}");

    tagsheet::save_preset(dir.path(), "Agency CM export", columns).unwrap();
    let presets = tagsheet::presets(dir.path()).unwrap();
    assert_eq!(presets[0].name, "Agency CM export", "saved ones come first");
    let bytes = tagsheet::read_file(&fixture("cm360.xlsx")).unwrap();
    // The shipped preset finds more columns in this sheet, so it still wins detection;
    // named, the saved one maps it.
    let named = tagsheet::read_sheet(
        &bytes,
        &TagMapping::Preset {
            name: "agency cm export".into(),
        },
        &presets,
    )
    .unwrap();
    assert_eq!(named.preset.as_deref(), Some("Agency CM export"));
    assert_eq!(named.rows.len(), 8);
    assert_eq!(
        named.rows[0].creative.external_creativeid, None,
        "not mapped"
    );
    let missing = tagsheet::read_sheet(
        &bytes,
        &TagMapping::Preset {
            name: "Nobody's".into(),
        },
        &presets,
    )
    .unwrap_err();
    assert!(
        missing.to_string().contains("no tag-sheet preset"),
        "{missing}"
    );
}
