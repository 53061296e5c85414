//! A tag sheet's bytes as a grid of text cells: the first worksheets of an XLSX (or
//! XLS, ODS) through `calamine`, or CSV and TSV through `csv`. Cells keep their place
//! in the sheet, so an error can name `D7` as the buyer's spreadsheet shows it.

use std::io::Cursor;

use calamine::{Data, Reader};
use serde::{Deserialize, Serialize};

use super::Error;

/// Most worksheets of a workbook read: a tag sheet is one of the first few; a workbook
/// of hundreds of sheets is not one.
const SHEETS_MAX: usize = 16;

/// What a file was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum SheetFormat {
    /// A spreadsheet: XLSX, or XLS and ODS, which `calamine` reads the same way.
    Xlsx,
    /// Comma-separated text.
    Csv,
    /// Tab-separated text.
    Tsv,
}

/// One worksheet: its name (none for CSV) and its rows of text cells, row 0 being the
/// sheet's first row.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    /// The worksheet's name.
    pub name: Option<String>,
    /// Rows of cells, each as the buyer reads it.
    pub rows: Vec<Vec<String>>,
}

impl Grid {
    /// The text of a cell, empty where the sheet has none.
    pub fn cell(&self, row: usize, col: usize) -> &str {
        self.rows
            .get(row)
            .and_then(|r| r.get(col))
            .map_or("", String::as_str)
    }
}

/// What the bytes are, by their first bytes: a ZIP (XLSX, ODS) or an OLE file (XLS)
/// is a spreadsheet; text is TSV when its first lines hold more tabs than commas.
pub fn sniff(bytes: &[u8]) -> SheetFormat {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
        return SheetFormat::Xlsx;
    }
    let head = &bytes[..bytes.len().min(8 * 1024)];
    let tabs = head.iter().filter(|&&b| b == b'\t').count();
    let commas = head.iter().filter(|&&b| b == b',').count();
    if tabs > commas {
        SheetFormat::Tsv
    } else {
        SheetFormat::Csv
    }
}

/// Every worksheet (up to [`SHEETS_MAX`]) as grids; a CSV or TSV is one grid.
pub fn grids(bytes: &[u8], format: SheetFormat) -> Result<Vec<Grid>, Error> {
    match format {
        SheetFormat::Xlsx => guarded(bytes),
        SheetFormat::Csv => text(bytes, b',').map(|g| vec![g]),
        SheetFormat::Tsv => text(bytes, b'\t').map(|g| vec![g]),
    }
}

/// [`workbook`], with a panic inside `calamine` answered as an unreadable file: the
/// fuzz set finds damaged workbooks that overflow its cell-reference arithmetic (an
/// overflow check in debug builds), and a file the buyer picked must never take the
/// app down. Nothing is shared with the reader, so nothing is left half changed.
fn guarded(bytes: &[u8]) -> Result<Vec<Grid>, Error> {
    std::panic::catch_unwind(|| workbook(bytes)).unwrap_or_else(|_| {
        Err(Error::Unreadable {
            format: "spreadsheet",
            reason: "it is damaged".to_owned(),
        })
    })
}

fn workbook(bytes: &[u8]) -> Result<Vec<Grid>, Error> {
    let unreadable = |e: calamine::Error| Error::Unreadable {
        format: "spreadsheet",
        reason: e.to_string(),
    };
    let mut book = calamine::open_workbook_auto_from_rs(Cursor::new(bytes)).map_err(unreadable)?;
    let names: Vec<String> = book.sheet_names().into_iter().take(SHEETS_MAX).collect();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let range = book.worksheet_range(&name).map_err(unreadable)?;
        let (top, left) = range.start().unwrap_or((0, 0));
        let (top, left) = (top as usize, left as usize);
        let mut rows = vec![Vec::new(); top];
        for row in range.rows() {
            let mut cells = vec![String::new(); left];
            cells.extend(row.iter().map(cell_text));
            rows.push(cells);
        }
        out.push(Grid {
            name: Some(name),
            rows,
        });
    }
    Ok(out)
}

/// A cell as the buyer reads it: a whole number without `.0` (placement ids are
/// numbers in most exports), an error cell as nothing.
fn cell_text(d: &Data) -> String {
    match d {
        Data::Empty | Data::Error(_) => String::new(),
        Data::String(s) => s.clone(),
        Data::Int(i) => i.to_string(),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        Data::Float(f) => f.to_string(),
        Data::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_owned(),
        Data::DateTime(d) => d.as_f64().to_string(),
        Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
    }
}

fn text(bytes: &[u8], delimiter: u8) -> Result<Grid, Error> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(bytes);
    let mut rows = Vec::new();
    for record in reader.byte_records() {
        let record = record.map_err(|e| Error::Unreadable {
            format: if delimiter == b'\t' { "TSV" } else { "CSV" },
            reason: e.to_string(),
        })?;
        rows.push(
            record
                .iter()
                .map(|c| String::from_utf8_lossy(c).into_owned())
                .collect(),
        );
    }
    Ok(Grid { name: None, rows })
}
