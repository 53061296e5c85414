//! One tag-sheet row as a creative: the type and subtype its tag calls for (a
//! JavaScript or iframe tag is BANNER+TAG, a VAST tag URL VIDEO+VASTURL, a VAST
//! document VIDEO+VASTXML, as `flightdeck_model::validate::creative_matrix` names
//! them), its fields, the cells that cannot be read, and the checks' findings.

use flightdeck_model::validate::limits::CREATIVE_EXTERNAL_ID_MAX as EXTERNAL_ID_MAX;
use flightdeck_model::{
    Creative, CreativeSubtype, CreativeType, MediaType, Size, TypeObject, VideoAsset,
};
use serde::{Deserialize, Serialize};

use super::presets::Field;
use super::read::Grid;
use crate::{Finding, check_creative};

/// A cell that cannot become its field: the row is shown with it, and not applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CellError {
    /// The cell as the spreadsheet names it (`D7`).
    pub cell: String,
    /// The creative field's wire path (`externalCreativeid`).
    pub field: String,
    /// What the buyer reads.
    pub message: String,
}

/// One row of the sheet as a creative.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct MappedRow {
    /// The row's number in the sheet (1-based, as the spreadsheet shows it).
    pub row: u32,
    /// The creative it makes (no parent yet: the import chooses one for all).
    pub creative: Creative,
    /// Cells that cannot be read; a row with any is not applied.
    pub errors: Vec<CellError>,
    /// What the creative checks find in it (`check_creative`).
    pub findings: Vec<Finding>,
}

/// The spreadsheet's name of a cell: column letters and a 1-based row (`AB12`).
pub fn cell_name(row: usize, col: usize) -> String {
    let mut letters = Vec::new();
    let mut n = col + 1;
    while n > 0 {
        let r = (n - 1) % 26;
        letters.push(char::from(b'A' + r as u8));
        n = (n - 1) / 26;
    }
    letters.iter().rev().collect::<String>() + &(row + 1).to_string()
}

/// `300x250`, `300 x 250`, `300X250` or `300×250`.
pub fn parse_size(text: &str) -> Option<Size> {
    let (w, h) = text.split_once(['x', 'X', '×', '*'])?;
    let w: i64 = w.trim().parse().ok()?;
    let h: i64 = h.trim().parse().ok()?;
    Some(Size {
        width: Some(w),
        height: Some(h),
    })
}

/// The rows under `header` (0-based) with `columns`, as creatives. Rows where every
/// mapped cell is blank are left out (spacers, footers).
pub fn map_rows(grid: &Grid, header: usize, columns: &[(Field, usize)]) -> Vec<MappedRow> {
    grid.rows
        .iter()
        .enumerate()
        .skip(header + 1)
        .filter_map(|(r, _)| map_row(grid, r, columns))
        .collect()
}

fn map_row(grid: &Grid, r: usize, columns: &[(Field, usize)]) -> Option<MappedRow> {
    let at = |field: Field| {
        columns
            .iter()
            .find(|(f, _)| *f == field)
            .map(|&(_, c)| (c, grid.cell(r, c).trim()))
            .filter(|(_, text)| !text.is_empty())
    };
    if Field::ALL.iter().all(|f| at(*f).is_none()) {
        return None;
    }
    let mut c = Creative::default();
    let mut errors = Vec::new();
    let mut error = |col: usize, field: Field, message: String| {
        errors.push(CellError {
            cell: cell_name(r, col),
            field: field.wire_path().to_owned(),
            message,
        })
    };
    if let Some((_, name)) = at(Field::Name) {
        c.name = Some(name.to_owned());
    }
    if let Some((col, text)) = at(Field::Size) {
        match parse_size(text) {
            Some(size) => c.size = Some(size),
            None => error(
                col,
                Field::Size,
                format!("“{text}” is not a size such as 300x250"),
            ),
        }
    }
    if let Some((_, url)) = at(Field::ClickThrough) {
        c.landing_page_url = Some(url.to_owned());
    }
    if let Some((col, id)) = at(Field::PlacementId) {
        let n = id.chars().count();
        if n > EXTERNAL_ID_MAX {
            error(
                col,
                Field::PlacementId,
                format!(
                    "the placement id is {n} characters; externalCreativeid takes at most {EXTERNAL_ID_MAX}"
                ),
            );
        } else {
            c.external_creativeid = Some(id.to_owned());
        }
    }
    let tag = at(Field::JsTag).or_else(|| at(Field::IframeTag));
    match (tag, at(Field::VastUrl)) {
        (Some((_, tag)), _) => {
            c.creative_type = Some(CreativeType::BANNER);
            c.creative_subtype = Some(CreativeSubtype::TAG);
            c.type_ = Some(media(MediaType::BANNER));
            c.html_asset = Some(tag.to_owned());
        }
        (None, Some((_, vast))) => {
            let document = vast.starts_with('<');
            c.creative_type = Some(CreativeType::VIDEO);
            c.creative_subtype = Some(if document {
                CreativeSubtype::VASTXML
            } else {
                CreativeSubtype::VASTURL
            });
            c.type_ = Some(media(MediaType::VAST));
            c.video = Some(VideoAsset {
                vast_url: (!document).then(|| vast.to_owned()),
                vast_xml: document.then(|| vast.to_owned()),
                ..VideoAsset::default()
            });
        }
        (None, None) => {
            let col = columns
                .iter()
                .find(|(f, _)| f.is_tag())
                .map_or(0, |&(_, c)| c);
            error(
                col,
                Field::JsTag,
                "the row has no JavaScript, iframe or VAST tag".to_owned(),
            );
        }
    }
    let findings = check_creative(&c);
    Some(MappedRow {
        row: u32::try_from(r + 1).unwrap_or(u32::MAX),
        creative: c,
        errors,
        findings,
    })
}

fn media(m: MediaType) -> TypeObject {
    TypeObject {
        media_type: Some(m),
        ..TypeObject::default()
    }
}
