//! Cells typed or pasted into a table, as edits of their rows: what a cell's own control
//! produced (wire JSON), or text read as the spreadsheet export writes it (dates in the
//! advertiser's timezone, money with two decimals, lists as `a; b; c`). Pure: the
//! workspace reads each row's working copy and timezone (`workspace/bulk_plan.rs`,
//! [`crate::workspace::Workspace::edit_rows`]) and runs the plan as bulk edit does.
//! An ad order's Status cell is a status change of its own ([`STATUS_PATH`]), in the
//! same undo step, as a sheet's `status` column is.

use flightdeck_model::validate::codes;
use flightdeck_model::{AdOrderStatus, FieldError, TimezoneName};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ops::{self, Change, FieldEdit};
use super::sheet;
use crate::change::{EntityRef, Kind};
use crate::workspace::{parse_status_word, status_words};

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

/// An ad order's Status cell: its status, kept apart from its JSON (see
/// `workspace/status.rs`), set as a status change of its own in the same step.
pub const STATUS_PATH: &str = "status";

/// What a row's cells do: edits of its working copy, and an ad order's status to set.
pub(crate) type RowEdits = (Vec<FieldEdit>, Option<AdOrderStatus>);

/// The edits `row`'s cells make to `now`, its working copy, reading dates without an
/// offset in `tz`; or each bad cell's error, at its wire path and naming its label.
pub(crate) fn row_edits(
    row: &RowCells,
    now: &Value,
    tz: Option<&TimezoneName>,
) -> Result<RowEdits, Vec<FieldError>> {
    let mut edits = Vec::with_capacity(row.cells.len());
    let mut status = None;
    let mut errors = row.refused.clone();
    for cell in &row.cells {
        if row.target.kind == Kind::AdOrder && cell.path == STATUS_PATH {
            match status_of(cell) {
                Ok(s) => status = Some(s),
                Err(e) => errors.push(e),
            }
            continue;
        }
        match change_of(row.target.kind, cell, ops::get(now, &cell.path), tz) {
            Ok(change) => edits.push(FieldEdit {
                field: cell.path.clone(),
                change,
            }),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok((edits, status))
    } else {
        Err(errors)
    }
}

/// The status an ad order's Status cell asks for: a word (`paused`, any case) or a wire
/// code; a status cannot be cleared.
fn status_of(cell: &CellChange) -> Result<AdOrderStatus, FieldError> {
    let typed = match &cell.input {
        CellInput::Value(Value::String(s)) | CellInput::Text(s) => s.clone(),
        CellInput::Value(Value::Null) => String::new(),
        CellInput::Value(other) => other.to_string(),
    };
    parse_status_word(&typed).ok_or_else(|| {
        FieldError::new(
            &cell.path,
            codes::INVALID,
            format!(
                "{}: expected one of {}, got “{}”",
                cell.label,
                status_words(),
                typed.trim()
            ),
        )
    })
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
