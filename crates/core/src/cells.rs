//! Cell editing in every table, one code path for every kind: what each column's cell
//! edits with ([`cell_facts`]: its wire path, label, control, and why it cannot be typed
//! in), and cells typed, filled down or pasted as edits of the workspace
//! ([`Account::edit_cells`]).
//!
//! The cells of one row merge into one change of that row, and all of them are one undo
//! step, run as bulk edit runs: previewed with `apply: false`, the same validation as
//! the forms (a row whose result breaks a rule is saved and held back from posting; a
//! row with a bad or read-only cell is refused, nothing saved for it). A cell's error is
//! at its field's wire path in the row's errors, its message led by the field's label
//! ("Start: expected a date like 2026-03-01 …"), and the row names the entity. An ad
//! order's Status cell sets its status (`updateStatus`), a change of its own after the
//! row's, in the same step.

use flightdeck_model::validate::{self, codes};
use flightdeck_model::{
    AdOrderStatus, CreativeStatus, CreativeSubtype, CreativeType, DataType, FieldError, MediaType,
    Objective, OpenEnum, OptimizationGoal, PacingMode, SegmentStatus, SiteListStrategy,
    TimezoneName,
};
use flightdeck_offline::bulk::cells::{CellChange, CellInput, RowCells, STATUS_PATH};
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::{Preview, StatusChoice, Workspace, status_word};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::bulk::BulkDone;
use crate::query::columns;
use crate::{Account, Result, fields};

/// The code of a cell refused because it is read-only (service-set or derived).
pub const READ_ONLY: &str = "READ_ONLY";

/// One cell typed, filled or pasted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CellEdit {
    /// The row's entity.
    pub target: EntityRef,
    /// The cell's field: the grid's column id (`maxbid`), a wire path (`max_bid`) or a
    /// label ("Max bid").
    pub field: String,
    /// What the cell now holds.
    pub value: CellValue,
}

/// What a cell holds after an edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", content = "value", rename_all = "camelCase")]
pub enum CellValue {
    /// What a cell's own control produced (wire JSON); `null` clears the field.
    Value(Value),
    /// Text typed or pasted, read as the spreadsheet export writes it; blank clears it.
    Text(String),
}

/// What one column's cells edit, and with what.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CellFact {
    /// The grid's column id ([`crate::query::columns`]).
    pub column: String,
    /// The wire path the cell edits (empty for a column that shows no one field).
    pub path: String,
    /// The column's header, which errors name the cell by.
    pub label: String,
    /// The control that edits it.
    pub editor: CellEditor,
    /// Why the cell cannot be typed in (set by the service, ignored on update, derived
    /// from other fields); `None` when it can.
    pub read_only: Option<String>,
    /// `read_only` holds only once the row is posted (the service ignores the field on
    /// update, or has no update): a draft's cell can be typed in.
    pub once_posted: bool,
}

/// The control a cell is edited with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum CellEditor {
    /// Free text.
    Text,
    /// A number.
    Number,
    /// Dollars, two decimals.
    Money,
    /// A date and time in the advertiser's timezone (Unix milliseconds on the wire).
    Date,
    /// One of a list of values.
    Enum {
        /// The values, in the model's order.
        choices: Vec<CellChoice>,
    },
    /// Another entity, by name or id.
    Entity {
        /// Its kind.
        kind: Kind,
    },
    /// A list (`a; b; c` as text).
    List,
    /// True or false.
    Bool,
}

/// One value an enum cell offers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CellChoice {
    /// The wire value.
    pub value: Value,
    /// What the buyer reads.
    pub label: String,
}

/// Why a column that sums up several fields cannot be typed in.
const DERIVED: &str = "sums up other fields; edit them in the form";
/// Why a count cannot be typed in.
const COUNTED: &str = "is a count; edit the list in the form";

/// Why a row's parent column cannot be typed in: a draft hangs where it was made (the
/// workspace keeps its parent's id), and the service ignores the field on update.
const PARENT: &str =
    "a row stays under the parent it was made in; Duplicate copies it under another";

/// Columns that show something other than one field as it is: (column id, path, why).
fn derived(kind: Kind, column: &str) -> Option<(&'static str, &'static str)> {
    Some(match (kind, column) {
        (Kind::Campaign, "advertiser") => ("advertiserId", PARENT),
        (Kind::AdOrder, "campaign") => ("campaignId", PARENT),
        (Kind::Campaign, "flights") => ("flights", COUNTED),
        (Kind::AdOrder, "audiences") => ("audiences", COUNTED),
        (Kind::AdOrder, "freq") => ("frequencyCap", DERIVED),
        (Kind::Creative, "size") => ("size", DERIVED),
        (Kind::SiteList, "count") => ("", COUNTED),
        (Kind::SiteList, "contents") => ("", DERIVED),
        _ => return None,
    })
}

/// `SPEND_EVENLY` as "Spend evenly"; a short word in capitals (`ASAP`, `CPM`) and a
/// value not in capitals stay as they are.
fn choice_label(wire: &str) -> String {
    let capitals = wire
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if !capitals || (wire.len() <= 4 && !wire.contains('_')) {
        return wire.to_owned();
    }
    let words = wire.replace('_', " ").to_lowercase();
    let mut chars = words.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// An enum control offering the model's known values of `T`.
fn words<T: OpenEnum>() -> CellEditor {
    CellEditor::Enum {
        choices: T::known_wire()
            .into_iter()
            .map(|w| CellChoice {
                value: Value::from(w),
                label: choice_label(w),
            })
            .collect(),
    }
}

/// The control for `path` of `kind`.
fn editor(kind: Kind, path: &str) -> CellEditor {
    match (kind, path) {
        (_, "startDate" | "endDate") => CellEditor::Date,
        (_, "maxBudget" | "dailyBudget" | "lifetimeBudget" | "max_bid" | "cpaGoal") => {
            CellEditor::Money
        }
        (_, "id" | "agencyId" | "insertedCount" | "dataCount") => CellEditor::Number,
        (_, "advertiserId") => CellEditor::Entity {
            kind: Kind::Advertiser,
        },
        (_, "campaignId") => CellEditor::Entity {
            kind: Kind::Campaign,
        },
        (_, "flights" | "audiences" | "iabCategory" | "siteIds") => CellEditor::List,
        (_, "objective") => words::<Objective>(),
        (_, "pacingMode" | "hourlyPacingMode") => words::<PacingMode>(),
        (_, "optimizationGoal") => words::<OptimizationGoal>(),
        (_, "creativeType") => words::<CreativeType>(),
        (_, "creativeSubtype") => words::<CreativeSubtype>(),
        (_, "type.mediaType") => words::<MediaType>(),
        (_, "dataType") => words::<DataType>(),
        (_, "strategy") => words::<SiteListStrategy>(),
        (Kind::AdOrder, STATUS_PATH) => CellEditor::Enum {
            choices: StatusChoice::ALL
                .into_iter()
                .map(|c| {
                    let status = AdOrderStatus::from(c);
                    CellChoice {
                        value: Value::from(status_word(status)),
                        label: status.label().to_owned(),
                    }
                })
                .collect(),
        },
        (Kind::Creative, "status") => words::<CreativeStatus>(),
        (Kind::AudienceSegment, "status") => words::<SegmentStatus>(),
        (_, "timezoneName") => CellEditor::Enum {
            choices: TimezoneName::KNOWN
                .iter()
                .map(|t| CellChoice {
                    value: Value::from(t.as_str()),
                    label: t.label().to_owned(),
                })
                .collect(),
        },
        (Kind::SiteList, "typeId") => CellEditor::Enum {
            choices: [
                (flightdeck_model::SITE_LIST_TYPE_ID_BASED, "Id based"),
                (flightdeck_model::SITE_LIST_TYPE_RULE_BASED, "Rule based"),
            ]
            .into_iter()
            .map(|(v, l)| CellChoice {
                value: Value::from(v),
                label: l.to_owned(),
            })
            .collect(),
        },
        _ => CellEditor::Text,
    }
}

/// What each column of `kind`'s table edits: one fact per column of
/// [`crate::query::columns`], in its order.
pub fn cell_facts(kind: Kind) -> Vec<CellFact> {
    let paths = fields::column_paths(kind);
    let infos = fields::fields(kind);
    columns(kind)
        .into_iter()
        .map(|c| {
            let (path, mut read_only) = match derived(kind, &c.id) {
                Some((path, why)) => (path.to_owned(), Some(why.to_owned())),
                // An ad order's status is kept apart from its JSON, so no field lists it.
                None if kind == Kind::AdOrder && c.id == STATUS_PATH => {
                    (STATUS_PATH.to_owned(), None)
                }
                None => (
                    paths
                        .iter()
                        .find(|(_, id)| *id == c.id)
                        .map_or_else(String::new, |(p, _)| (*p).to_owned()),
                    None,
                ),
            };
            if read_only.is_none() && infos.iter().any(|f| f.path == path && f.service_set) {
                read_only = Some("is set by the service".to_owned());
            }
            let mut once_posted = false;
            if read_only.is_none() {
                if let Some(rule) = kind.ignored_on_update().iter().find(|r| r.field == path) {
                    read_only = Some(rule.why.to_owned());
                    once_posted = true;
                } else if !kind.has_update() {
                    read_only = Some(validate::NO_UPDATE_ENDPOINT.to_owned());
                    once_posted = true;
                }
            }
            CellFact {
                editor: editor(kind, &path),
                column: c.id,
                path,
                label: c.header,
                read_only,
                once_posted,
            }
        })
        .collect()
}

/// A cell's field as a wire path, its label, and why it cannot be typed in (`None`
/// when it can in this row). `None` when the kind has no such field.
fn field_of(
    facts: &[CellFact],
    target: &EntityRef,
    field: &str,
) -> Option<(String, String, Option<String>)> {
    let posted = !target.key.is_local();
    let blocked = |f: &CellFact| f.read_only.clone().filter(|_| posted || !f.once_posted);
    let name = field.trim();
    if let Some(f) = facts
        .iter()
        .find(|f| f.column == name || f.label.eq_ignore_ascii_case(name))
    {
        return Some((f.path.clone(), f.label.clone(), blocked(f)));
    }
    let path = fields::resolve(target.kind, name)?;
    if let Some(f) = facts.iter().find(|f| !f.path.is_empty() && f.path == path) {
        return Some((path, f.label.clone(), blocked(f)));
    }
    let info = fields::fields(target.kind)
        .into_iter()
        .find(|f| f.path == path);
    let label = info
        .as_ref()
        .map_or_else(|| path.clone(), |f| f.label.clone());
    let why = info
        .filter(|f| f.service_set)
        .map(|_| "is set by the service".to_owned());
    Some((path, label, why))
}

/// `cells` as rows: each row's cells together, rows in the order first named; a field
/// no column or field of the kind has is refused whole, naming the nearest.
fn rows_of(ws: &Workspace, cells: &[CellEdit]) -> Result<Vec<RowCells>> {
    let mut rows: Vec<RowCells> = Vec::new();
    let mut index: std::collections::HashMap<EntityRef, usize> = Default::default();
    let mut facts: Vec<(Kind, Vec<CellFact>)> = Vec::new();
    let mut named = Named::new();
    for (i, cell) in cells.iter().enumerate() {
        let kind = cell.target.kind;
        let at = match facts.iter().position(|(k, _)| *k == kind) {
            Some(at) => at,
            None => {
                facts.push((kind, cell_facts(kind)));
                facts.len() - 1
            }
        };
        let Some((path, label, why)) = field_of(&facts[at].1, &cell.target, &cell.field) else {
            return Err(fields::unknown(
                &[kind],
                &cell.field,
                &format!("cells[{i}].field"),
            ));
        };
        let n = *index.entry(cell.target.clone()).or_insert_with(|| {
            rows.push(RowCells {
                target: cell.target.clone(),
                cells: Vec::new(),
                refused: Vec::new(),
            });
            rows.len() - 1
        });
        let row = &mut rows[n];
        if let Some(why) = why {
            let code = if why == validate::NO_UPDATE_ENDPOINT
                || kind.ignored_on_update().iter().any(|r| r.field == path)
            {
                codes::IGNORED_ON_UPDATE
            } else {
                READ_ONLY
            };
            row.refused
                .push(FieldError::new(&path, code, format!("{label}: {why}")));
            continue;
        }
        let editor = facts[at]
            .1
            .iter()
            .find(|f| f.path == path)
            .map_or_else(|| editor(kind, &path), |f| f.editor.clone());
        let input = match &cell.value {
            CellValue::Value(v) => CellInput::Value(v.clone()),
            CellValue::Text(t) => match read_text(ws, &mut named, &editor, &label, &path, t)? {
                Ok(input) => input,
                Err(e) => {
                    row.refused.push(e);
                    continue;
                }
            },
        };
        row.cells.push(CellChange { path, label, input });
    }
    Ok(rows)
}

/// A text cell of an enum or entity column as the value it names: a choice by its label
/// or value, an entity by its id or its name. Other text is read by the workspace as an
/// import reads the cell. An enum's unknown word goes on as typed: the model's rules
/// decide whether the service takes it.
/// The entities of a kind found by a name, each name looked up once per edit (a name
/// pasted down a column is one scan).
type Named = std::collections::HashMap<(Kind, String), Vec<EntityRef>>;

fn read_text(
    ws: &Workspace,
    found: &mut Named,
    editor: &CellEditor,
    label: &str,
    path: &str,
    text: &str,
) -> Result<std::result::Result<CellInput, FieldError>> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(Ok(CellInput::Text(String::new())));
    }
    match editor {
        CellEditor::Enum { choices } => {
            let hit = choices.iter().find(|c| {
                c.label.eq_ignore_ascii_case(t)
                    || match &c.value {
                        Value::String(s) => s.eq_ignore_ascii_case(t),
                        other => serde_json::from_str::<Value>(t).is_ok_and(|v| v == *other),
                    }
            });
            Ok(Ok(hit.map_or_else(
                || CellInput::Text(text.to_owned()),
                |c| CellInput::Value(c.value.clone()),
            )))
        }
        CellEditor::Entity { kind } => {
            if let Ok(id) = t.parse::<i64>() {
                return Ok(Ok(CellInput::Value(Value::from(id))));
            }
            let named = match found.get(&(*kind, t.to_owned())) {
                Some(named) => named.clone(),
                None => {
                    let named = ws.find_where(*kind, &[("name".to_owned(), Value::from(t))])?;
                    found.insert((*kind, t.to_owned()), named.clone());
                    named
                }
            };
            let bad = |why: String| {
                Ok(Err(FieldError::new(
                    path,
                    codes::INVALID,
                    format!("{label}: {why}"),
                )))
            };
            match named.as_slice() {
                [one] => match &one.key {
                    Key::Id(id) => Ok(Ok(CellInput::Value(Value::from(*id)))),
                    _ => bad(format!(
                        "the {} “{t}” is not posted yet, so it has no id to name",
                        kind.label()
                    )),
                },
                [] => bad(format!(
                    "expected the name or id of a {}, got “{t}”",
                    kind.label()
                )),
                _ => bad(format!(
                    "{} {} are named “{t}”; give its id",
                    named.len(),
                    kind.plural()
                )),
            }
        }
        _ => Ok(Ok(CellInput::Text(text.to_owned()))),
    }
}

/// Leads each error of `preview`'s rows with its field's label ("End: must be after
/// the start"), so an error names its cell: the row by its label, the field by its
/// label, the wire path in the error's `field`. An error already led by it is left.
fn name_errors(preview: &mut Preview) {
    let mut known: Vec<(Kind, Vec<CellFact>, Vec<fields::FieldInfo>)> = Vec::new();
    for row in &mut preview.rows {
        if row.errors.is_empty() {
            continue;
        }
        let at = match known.iter().position(|(k, _, _)| *k == row.kind) {
            Some(at) => at,
            None => {
                known.push((row.kind, cell_facts(row.kind), fields::fields(row.kind)));
                known.len() - 1
            }
        };
        let (_, facts, infos) = &known[at];
        for e in &mut row.errors {
            if e.field.is_empty() {
                continue;
            }
            let generic = fields::generic(&e.field);
            let label = facts
                .iter()
                .find(|f| !f.path.is_empty() && f.path == e.field)
                .map(|f| f.label.as_str())
                .or_else(|| {
                    infos
                        .iter()
                        .find(|f| f.path == generic)
                        .map(|f| f.label.as_str())
                });
            if let Some(label) = label
                && !e.message.starts_with(&format!("{label}:"))
            {
                e.message = format!("{label}: {}", e.message);
            }
        }
    }
}

impl Account {
    /// Cells typed, filled down or pasted into a table: previewed (`apply: false`), or
    /// applied as one undo step. The cells of one row make one change of it. A row with
    /// a read-only cell, or text that does not read as its field, is refused with the
    /// cell's error (at its wire path, led by its label); a field the kind does not have
    /// refuses the whole edit, naming the nearest ([`crate::fields`]).
    pub fn edit_cells(&self, cells: &[CellEdit], apply: bool) -> Result<BulkDone> {
        self.bulk(|ws, _| {
            let rows = rows_of(ws, cells)?;
            let mut preview = ws.edit_rows(&rows, apply)?;
            name_errors(&mut preview);
            Ok(preview)
        })
    }
}
