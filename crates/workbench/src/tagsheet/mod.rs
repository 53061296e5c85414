//! Tag-sheet import, pure: an ad server's tag sheet (XLSX, CSV or TSV, as bytes) in,
//! one creative per placement row out, each with the cells that cannot be read and
//! its checks' findings. Reading the file the buyer chose, saving presets and making
//! drafts are the core's.
//!
//! - [`read`]: bytes to grids of text cells (`calamine` for spreadsheets, `csv` for
//!   text);
//! - [`presets`]: the fields a column can fill, the presets for Campaign Manager 360,
//!   Flashtalking, Innovid and Amazon/Sizmek, and the header row found under the
//!   sheet's preamble;
//! - [`map`]: a row as a creative (type and subtype from its tag).

pub mod map;
pub mod presets;
pub mod read;

use serde::Serialize;

pub use map::{CellError, MappedRow, cell_name, parse_size};
pub use presets::{ColumnChoice, Field, Preset, builtin_presets, normalize};
pub use read::{Grid, SheetFormat, sniff};

/// Why a tag sheet could not be read at all (a row's problems are [`CellError`]s).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The bytes are not the spreadsheet or text they look like.
    #[error("the {format} could not be read: {reason}")]
    Unreadable {
        /// What it was read as.
        format: &'static str,
        /// The reader's words.
        reason: String,
    },
    /// No worksheet holds a row.
    #[error("the file holds no rows")]
    Empty,
    /// A preset named that neither ships nor was saved.
    #[error("there is no tag-sheet preset named “{0}”")]
    NoPreset(String),
}

/// What reading a tag sheet found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct TagSheet {
    /// What the file was read as.
    pub format: SheetFormat,
    /// The worksheet the rows come from (none for CSV and TSV).
    pub sheet: Option<String>,
    /// The preset detected or chosen; `None` when no preset knows the sheet and no
    /// mapping was given: the buyer maps the columns.
    pub preset: Option<String>,
    /// The header row's number (1-based), or the row that most looks like one.
    pub header_row: u32,
    /// The header row's cells, which the mapping dialog offers for each field.
    pub headers: Vec<String>,
    /// The columns used, one per field found, by their header in this sheet.
    pub columns: Vec<ColumnChoice>,
    /// One creative per placement row (none until a mapping is known).
    pub rows: Vec<MappedRow>,
}

/// Reads a tag sheet: with `mapping`, its columns; without, the first of `presets`
/// (the buyer's saved ones first, then [`builtin_presets`]) that knows the sheet's
/// header. Of a workbook, the first worksheet the mapping knows is read (or, when
/// none is known, the first with rows).
pub fn read_tag_sheet(
    bytes: &[u8],
    mapping: Option<&Preset>,
    presets: &[Preset],
) -> Result<TagSheet, Error> {
    let format = sniff(bytes);
    let grids = read::grids(bytes, format)?;
    for grid in &grids {
        let found = match mapping {
            Some(m) => presets::header_for(m, grid).map(|(row, cols)| (m, row, cols)),
            None => presets::detect(presets, grid),
        };
        if let Some((preset, row, cols)) = found {
            return Ok(TagSheet {
                format,
                sheet: grid.name.clone(),
                preset: Some(preset.name.clone()),
                header_row: u32::try_from(row + 1).unwrap_or(u32::MAX),
                headers: grid.rows.get(row).cloned().unwrap_or_default(),
                columns: cols
                    .iter()
                    .map(|&(field, col)| ColumnChoice {
                        field,
                        header: grid.cell(row, col).to_owned(),
                    })
                    .collect(),
                rows: map::map_rows(grid, row, &cols),
            });
        }
    }
    // No mapping knows it: offer the likeliest header for the buyer to map.
    let (grid, row) = grids
        .iter()
        .find_map(|g| presets::guess_header(g).map(|r| (g, r)))
        .ok_or(Error::Empty)?;
    Ok(TagSheet {
        format,
        sheet: grid.name.clone(),
        preset: None,
        header_row: u32::try_from(row + 1).unwrap_or(u32::MAX),
        headers: grid.rows.get(row).cloned().unwrap_or_default(),
        columns: Vec::new(),
        rows: Vec::new(),
    })
}
