//! Tag-sheet import on fixtures in each ad server's shape (`tests/fixtures/tagsheets/`,
//! written by `examples/tagsheet_fixtures.rs`): the header found under the preamble,
//! the preset detected, every mapped field, and the rows a buyer must fix named by
//! their cell.

mod common;
#[path = "common/sheets.rs"]
mod sheets;

use flightdeck_model::{CreativeSubtype, CreativeType, MediaType, Size};
use flightdeck_workbench::tagsheet::{
    ColumnChoice, Field, MappedRow, Preset, SheetFormat, TagSheet, builtin_presets, read_tag_sheet,
};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/tagsheets/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn read(bytes: &[u8]) -> TagSheet {
    read_tag_sheet(bytes, None, &builtin_presets()).expect("the sheet reads")
}

fn size(w: i64, h: i64) -> Option<Size> {
    Some(Size {
        width: Some(w),
        height: Some(h),
    })
}

fn banner(row: &MappedRow) {
    let c = &row.creative;
    assert_eq!(c.creative_type, Some(CreativeType::BANNER), "{row:#?}");
    assert_eq!(c.creative_subtype, Some(CreativeSubtype::TAG));
    assert_eq!(
        c.type_.as_ref().and_then(|t| t.media_type.clone()),
        Some(MediaType::BANNER)
    );
}

#[test]
fn campaign_manager_360_header_is_found_under_its_preamble_and_every_field_maps() {
    let sheet = read(&fixture("cm360.xlsx"));
    assert_eq!(sheet.format, SheetFormat::Xlsx);
    assert_eq!(sheet.preset.as_deref(), Some("Campaign Manager 360"));
    assert_eq!(sheet.sheet.as_deref(), Some("Tags"));
    // Five preamble rows (one blank), then the header.
    assert_eq!(sheet.header_row, 6);
    assert_eq!(sheet.headers[0], "Placement ID");
    assert_eq!(sheet.rows.len(), 8);
    let first = &sheet.rows[0];
    assert_eq!(first.row, 7);
    assert!(first.errors.is_empty(), "{first:#?}");
    banner(first);
    let c = &first.creative;
    assert_eq!(c.name.as_deref(), Some("Spring_Display_300x250_0"));
    assert_eq!(c.size, size(300, 250));
    assert_eq!(
        c.html_asset.as_deref(),
        Some(sheets::js_tag(0, 300, 250).as_str())
    );
    assert_eq!(
        c.landing_page_url.as_deref(),
        Some("https://shop.example.com/spring?p=0")
    );
    // A number cell, read as the digits the buyer sees (not 380000100.0).
    assert_eq!(c.external_creativeid.as_deref(), Some("380000100"));
    // The clean tags raise no warning.
    assert!(
        first
            .findings
            .iter()
            .all(|f| f.level != flightdeck_workbench::Level::Warning),
        "{:#?}",
        first.findings
    );

    // Every fourth row is a video placement: its VAST tag makes a VIDEO+VASTURL.
    let video = &sheet.rows[3].creative;
    assert_eq!(video.creative_type, Some(CreativeType::VIDEO));
    assert_eq!(video.creative_subtype, Some(CreativeSubtype::VASTURL));
    assert_eq!(
        video.type_.as_ref().and_then(|t| t.media_type.clone()),
        Some(MediaType::VAST)
    );
    assert_eq!(
        video.video.as_ref().and_then(|v| v.vast_url.as_deref()),
        Some(sheets::vast_url(3).as_str())
    );
    assert_eq!(video.html_asset, None);
}

#[test]
fn flashtalking_sheet_maps_its_js_tag_and_spaced_sizes() {
    let sheet = read(&fixture("flashtalking.xlsx"));
    assert_eq!(sheet.preset.as_deref(), Some("Flashtalking"));
    assert_eq!(sheet.header_row, 6);
    assert_eq!(sheet.rows.len(), 6);
    let row = &sheet.rows[1];
    banner(row);
    let c = &row.creative;
    assert_eq!(c.name.as_deref(), Some("FT Spring 728x90 #1"));
    assert_eq!(c.size, size(728, 90), "`728 x 90` is a size");
    assert_eq!(
        c.html_asset.as_deref(),
        Some(sheets::js_tag(1, 728, 90).as_str())
    );
    assert_eq!(c.external_creativeid.as_deref(), Some("FT9101"));
    assert_eq!(
        c.landing_page_url.as_deref(),
        Some("https://shop.example.com/ft?p=1")
    );
}

#[test]
fn innovid_sheet_makes_vast_url_video_creatives() {
    let sheet = read(&fixture("innovid.xlsx"));
    assert_eq!(sheet.preset.as_deref(), Some("Innovid"));
    assert_eq!(sheet.rows.len(), 5);
    for (i, row) in sheet.rows.iter().enumerate() {
        let c = &row.creative;
        assert_eq!(c.creative_type, Some(CreativeType::VIDEO));
        assert_eq!(c.creative_subtype, Some(CreativeSubtype::VASTURL));
        assert_eq!(
            c.video.as_ref().and_then(|v| v.vast_url.as_deref()),
            Some(sheets::vast_url(i).as_str())
        );
        assert_eq!(c.size, size(1920, 1080));
        assert_eq!(c.external_creativeid, Some(format!("{}", 7_700_000 + i)));
    }
}

#[test]
fn amazon_sizmek_csv_export_maps_its_script_tags() {
    let sheet = read(&fixture("sizmek.csv"));
    assert_eq!(sheet.format, SheetFormat::Csv);
    assert_eq!(sheet.preset.as_deref(), Some("Amazon/Sizmek"));
    assert_eq!(sheet.header_row, 6);
    assert_eq!(sheet.rows.len(), 6);
    let c = &sheet.rows[2].creative;
    assert_eq!(c.size, size(160, 600), "`160X600` is a size");
    assert_eq!(
        c.html_asset.as_deref(),
        Some(sheets::js_tag(2, 160, 600).as_str())
    );
    assert_eq!(
        c.landing_page_url.as_deref(),
        Some("https://shop.example.com/aas?p=2")
    );
    // The same sheet as TSV reads the same.
    let tsv = read(&sheets::sizmek(6).text(b'\t'));
    assert_eq!(tsv.format, SheetFormat::Tsv);
    assert_eq!(tsv.rows, sheet.rows);
}

#[test]
fn a_placement_id_past_26_characters_is_refused_naming_its_cell() {
    let mut sheet = sheets::cm360(3);
    sheet.rows[1][0] = "A".repeat(27);
    sheet.rows[2][0] = "B".repeat(26);
    let read = read(&sheet.xlsx());
    let refused = &read.rows[1];
    assert_eq!(refused.errors.len(), 1, "{refused:#?}");
    let e = &refused.errors[0];
    // Row 8: five preamble rows, the header, then the second placement; column A.
    assert_eq!(
        (e.cell.as_str(), e.field.as_str()),
        ("A8", "externalCreativeid")
    );
    assert!(e.message.contains("27 characters"), "{}", e.message);
    assert_eq!(refused.creative.external_creativeid, None);
    // 26 is the limit, and fits.
    assert!(read.rows[2].errors.is_empty());
    assert_eq!(
        read.rows[2].creative.external_creativeid,
        Some("B".repeat(26))
    );
}

#[test]
fn a_bad_size_or_a_row_with_no_tag_is_named_by_its_cell() {
    let mut sheet = sheets::cm360(2);
    sheet.rows[0][2] = "banner".into();
    sheet.rows[1][3].clear();
    sheet.rows[1][4].clear();
    let read = read(&sheet.text(b','));
    assert_eq!(read.rows[0].errors[0].cell, "C7");
    assert_eq!(read.rows[0].errors[0].field, "size");
    assert!(
        read.rows[0].errors[0]
            .message
            .contains("“banner” is not a size")
    );
    assert_eq!(read.rows[1].errors[0].field, "htmlAsset");
    assert!(
        read.rows[1].errors[0]
            .message
            .contains("no JavaScript, iframe or VAST tag")
    );
}

#[test]
fn findings_of_each_row_come_with_it() {
    let mut sheet = sheets::flashtalking(1);
    sheet.rows[0][3] = "<script src=\"http://insecure.example.com/ad.js\"></script>".into();
    let read = read(&sheet.xlsx());
    let findings = &read.rows[0].findings;
    assert!(
        findings
            .iter()
            .any(|f| f.rule == "tag.http-resource" && f.path == "htmlAsset"),
        "{findings:#?}"
    );
}

#[test]
fn an_unknown_layout_offers_its_header_and_maps_with_the_buyers_columns() {
    let sheet = sheets::Sheet {
        preamble: vec![
            vec!["Our house export".into()],
            vec!["Client".into(), "Acme".into()],
        ],
        header: ["Creative", "Ad Code", "WxH", "Destination", "Ref"]
            .map(String::from)
            .to_vec(),
        rows: vec![vec![
            "House 300x250".into(),
            sheets::js_tag(1, 300, 250),
            "300x250".into(),
            "https://shop.example.com/house".into(),
            "H-1".into(),
        ]],
    };
    let bytes = sheet.xlsx();
    // No preset knows it: the dialog is offered the header row.
    let unknown = read(&bytes);
    assert_eq!(unknown.preset, None);
    assert_eq!(unknown.header_row, 3);
    assert_eq!(unknown.headers, sheet.header);
    assert!(unknown.rows.is_empty());

    let mine = Preset {
        name: "House export".into(),
        columns: [
            (Field::Name, "Creative"),
            (Field::JsTag, "ad code"),
            (Field::Size, "WxH"),
            (Field::ClickThrough, "Destination"),
            (Field::PlacementId, "Ref"),
        ]
        .map(|(field, header)| ColumnChoice {
            field,
            header: header.into(),
        })
        .to_vec(),
    };
    let mapped = read_tag_sheet(&bytes, Some(&mine), &[]).expect("reads");
    assert_eq!(mapped.preset.as_deref(), Some("House export"));
    assert_eq!(mapped.rows.len(), 1);
    let c = &mapped.rows[0].creative;
    assert_eq!(c.name.as_deref(), Some("House 300x250"));
    assert_eq!(c.size, size(300, 250));
    assert_eq!(c.external_creativeid.as_deref(), Some("H-1"));
    // Saved, it is detected next time, ahead of the shipped presets.
    let mut presets = vec![mine];
    presets.extend(builtin_presets());
    let again = read_tag_sheet(&bytes, None, &presets).expect("reads");
    assert_eq!(again.preset.as_deref(), Some("House export"));
    assert_eq!(again.rows, mapped.rows);
}

#[test]
fn bytes_that_are_no_sheet_are_an_error_not_a_panic() {
    let broken = read_tag_sheet(b"PK\x03\x04 not a zip", None, &builtin_presets());
    assert!(broken.is_err(), "{broken:?}");
    let empty = read_tag_sheet(b"", None, &builtin_presets());
    assert!(empty.is_err(), "{empty:?}");
}
