//! Cells typed or pasted into a table, as edits of their rows: what a cell's own control
//! produced (wire JSON), or text read as the spreadsheet export writes it (dates in the
//! advertiser's timezone, money with two decimals, lists as `a; b; c`). Pure: the
//! workspace reads each row's working copy and timezone (`workspace/bulk_plan.rs`,
//! [`crate::workspace::Workspace::edit_rows`]) and runs the plan as bulk edit does.

use flightdeck_model::validate::codes;
use flightdeck_model::{FieldError, TimezoneName};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ops::{self, Change, FieldEdit};
use super::sheet;
use crate::change::{EntityRef, Kind};

/// What one cell asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum CellInput {
    /// A wire value; `null` clears the field.
    Value(Value),
    /// Text typed or pasted; blank clears the field.
    Text(String),
}

/// One cell of a row: its field's wire path, the label the buyer reads (errors name the
/// cell by it), and what it asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellChange {
    /// The wire path (`max_bid`).
    pub path: String,
    /// The field's label ("Max bid").
    pub label: String,
    /// What the cell asks for.
    pub input: CellInput,
}

/// The cells of one row, merged into one change of it. `refused` holds the errors of
/// cells refused before reading the row (a read-only cell): the row is then refused
/// whole, as bulk edit refuses a row an edit cannot apply to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowCells {
    /// The entity.
    pub target: EntityRef,
    /// Its cells, in the order given; a later cell of the same field wins.
    pub cells: Vec<CellChange>,
    /// Errors of cells refused up front.
    pub refused: Vec<FieldError>,
}

impl RowCells {
    /// Whether a text cell of the row reads a date, so its advertiser's timezone is needed.
    pub(crate) fn needs_zone(&self) -> bool {
        self.cells.iter().any(|c| {
            matches!(&c.input, CellInput::Text(t)
                if sheet::needs_zone_at(self.target.kind, &c.path, t))
        })
    }
}

/// The edits `row`'s cells make to `now`, its working copy, reading dates without an
/// offset in `tz`; or each bad cell's error, at its wire path and naming its label.
pub(crate) fn row_edits(
    row: &RowCells,
    now: &Value,
    tz: Option<&TimezoneName>,
) -> Result<Vec<FieldEdit>, Vec<FieldError>> {
    let mut edits = Vec::with_capacity(row.cells.len());
    let mut errors = row.refused.clone();
    for cell in &row.cells {
        match change_of(row.target.kind, cell, ops::get(now, &cell.path), tz) {
            Ok(change) => edits.push(FieldEdit {
                field: cell.path.clone(),
                change,
            }),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(edits)
    } else {
        Err(errors)
    }
}

/// What one cell asks of its field, which now holds `now`.
fn change_of(
    kind: Kind,
    cell: &CellChange,
    now: Option<&Value>,
    tz: Option<&TimezoneName>,
) -> Result<Change, FieldError> {
    match &cell.input {
        CellInput::Value(Value::Null) => Ok(Change::Clear),
        CellInput::Value(v) => Ok(Change::Set(v.clone())),
        CellInput::Text(t) if t.trim().is_empty() => Ok(Change::Clear),
        CellInput::Text(t) => match sheet::read_cell(kind, &cell.path, t, now, tz) {
            Ok(Some(Change::Clear) | None) => Ok(Change::Clear),
            Ok(Some(change)) => Ok(change),
            Err(expected) => Err(FieldError::new(
                &cell.path,
                codes::INVALID,
                format!("{}: expected {expected}, got “{}”", cell.label, t.trim()),
            )),
        },
    }
}
