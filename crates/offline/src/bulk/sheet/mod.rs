//! Spreadsheets: CSV and TSV export and import, and copy and paste of table rows, read and
//! written by the `csv` crate (RFC 4180 quoting).
//!
//! # Cells
//! - Columns are wire field names; nested fields use dotted paths (`frequencyCap.limit`);
//!   lists and objects below that are JSON in the cell (`flights`, `iabCategory`).
//! - `id` names the entity: its id, a segment's `serviceSegmentId`, or `draft:<key>` for a
//!   draft. A row without one is a new draft.
//! - On import a blank cell means "no change" and `[]` means "clear" (`null`, or an empty
//!   list for a list), the convention buyers know from the desktop editors.
//! - A column's path goes at most 32 levels deep, and a cell's JSON nests at most 32
//!   (`validate::limits::NESTING_MAX`): deeper is refused at the cell, since an entity
//!   nested past what serde_json reads back could never be read (or posted) again.
//! - A whole-account file starts with a `kind` column (`ad_order`, `campaign` …).
//! - Flight caps are one row per ad order (`id` is the ad order's), with the caps as JSON
//!   in `caps`.
//! - A text cell that a spreadsheet would run as a formula is written behind a `'`, and
//!   a `'` in front of a cell is taken away on import (`text_cell`, `text_of_cell`).
//!
//! - Ad orders have a `status` column (`active`, `paused` …; blank when unknown), kept
//!   apart from their JSON (the listings carry none): a word that differs from the
//!   status the ad order shows becomes a status change, in the same undo step as the
//!   sheet's other edits; blank is no change, and another word is refused at its cell.
//!
//! Export, then import with no edit, gives no change: a value is written as the text it
//! is read back from, and the empty and null values it cannot write are blank.
//!
//! An export is in one of two formats ([`SheetFormat`]): the wire format above, or the
//! spreadsheet format, whose dates, amounts, lists and parent names a buyer reads
//! ([`readable`]). Import reads either, cell by cell.

mod export;
mod readable;

use std::borrow::Cow;

use flightdeck_model::validate::{self, codes};
use flightdeck_model::{AdOrderStatus, FieldError, TimezoneName};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ops::{self, Change, FieldEdit};
use super::replace::is_text_field;
use crate::change::{EntityRef, Key, Kind};
use crate::workspace::{Planned, parse_status_word, status_words};
use crate::{Error, Result};

pub(crate) use export::SheetRows;
pub(crate) use readable::{RowFacts, name_columns};

/// What an export's cells look like. Import needs no format: it reads both. The UI
/// calls it `ExportFormat`: the tag sheets' `SheetFormat` (XLSX, CSV, TSV) has the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename = "ExportFormat")]
#[serde(rename_all = "snake_case")]
pub enum SheetFormat {
    /// As a buyer reads it: dates in the advertiser's timezone with their offset, money
    /// with two decimals, lists as `a; b; c`, each parent's name beside its id.
    #[default]
    Sheet,
    /// As the service sends it: epoch milliseconds, JSON lists, ids alone; for scripts.
    Wire,
}

impl SheetFormat {
    /// `sheet` or `wire`.
    pub fn parse(text: &str) -> Option<SheetFormat> {
        match text.trim().to_ascii_lowercase().as_str() {
            "sheet" => Some(SheetFormat::Sheet),
            "wire" => Some(SheetFormat::Wire),
            _ => None,
        }
    }
}

/// Comma or tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Delimiter {
    /// CSV files.
    Comma,
    /// TSV files, and what spreadsheets put on the clipboard.
    Tab,
}

impl Delimiter {
    /// Tab for `.tsv` and `.txt` files, comma otherwise.
    pub fn of_path(path: &std::path::Path) -> Delimiter {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("tsv") || e.eq_ignore_ascii_case("txt") => {
                Delimiter::Tab
            }
            _ => Delimiter::Comma,
        }
    }

    fn byte(self) -> u8 {
        match self {
            Delimiter::Comma => b',',
            Delimiter::Tab => b'\t',
        }
    }
}

/// How to read a sheet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ImportOptions {
    /// Comma or tab.
    pub delimiter: Delimiter,
    /// The kind of every row, when the sheet has no `kind` column.
    pub kind: Option<Kind>,
    /// Where new rows hang when their own parent field is blank (the campaign selected
    /// when ad orders are pasted).
    pub parent: Option<EntityRef>,
}

const KIND_COLUMN: &str = "kind";
const ID_COLUMN: &str = "id";
const CAPS_COLUMN: &str = "caps";
const DRAFT_PREFIX: &str = "draft:";
/// An ad order's status, apart from its JSON.
const STATUS_COLUMN: &str = "status";

/// The field naming the parent of an entity of `kind` hanging under `parent_kind`.
fn parent_field(kind: Kind, parent_kind: Kind) -> Option<&'static str> {
    match (kind, parent_kind) {
        (Kind::Campaign | Kind::Creative, Kind::Advertiser) => Some("advertiserId"),
        (Kind::AdOrder | Kind::Creative, Kind::Campaign) => Some("campaignId"),
        _ => None,
    }
}

fn kind_of_name(name: &str) -> Option<Kind> {
    Kind::parse(name)
}

/// The `id` cell of an entity.
pub fn id_cell(key: &Key) -> String {
    match key {
        Key::Id(id) => id.to_string(),
        Key::Segment(s) => s.clone(),
        Key::Local(l) => format!("{DRAFT_PREFIX}{l}"),
    }
}

fn key_of_cell(kind: Kind, cell: &str) -> Option<Key> {
    let cell = text_of_cell(cell.trim()).0;
    if let Some(local) = cell.strip_prefix(DRAFT_PREFIX) {
        return Some(Key::Local(local.to_owned()));
    }
    match kind {
        Kind::AudienceSegment => Some(Key::Segment(cell.to_owned())),
        _ => cell.parse().ok().map(Key::Id),
    }
}

/// The first characters of a cell that Excel and LibreOffice read as a formula (or, for
/// tab and carriage return, strip before reading one), after OWASP's CSV-injection
/// guidance.
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];
/// Marks a cell as text. Spreadsheets show the text after it and run nothing.
const TEXT_MARK: char = '\'';

/// The cell of a text (a name, a column name, an id): the text itself, or the text
/// behind a [`TEXT_MARK`] when it
/// - starts with a formula character ([`FORMULA_START`]), so that `=HYPERLINK(…)` in a
///   name is shown, not run, when the file is opened in a spreadsheet;
/// - starts with the mark itself, so that the mark taken away on import
///   ([`text_of_cell`]) gives back `'quoted` from `''quoted`;
/// - reads as the clear cell `[]`, which would otherwise empty the field on import.
///
/// Only text is marked. A number is written as JSON: `-5` is a number to a spreadsheet
/// too, runs nothing, and is read back as a number; lists and objects start with `[` or
/// `{`. So an export imported back unchanged changes nothing.
fn text_cell(text: &str) -> Cow<'_, str> {
    if text.starts_with(FORMULA_START) || text.starts_with(TEXT_MARK) || text.trim() == "[]" {
        Cow::Owned(format!("{TEXT_MARK}{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// How the spreadsheet format writes `v`, the value at `path` of a `kind` entity whose
/// advertiser is in `tz`, for a buyer to read (a preview's diff): `None` where that is
/// the value's JSON. A flight's members read as the campaign's of the same name.
pub(crate) fn display_text(
    kind: Kind,
    path: &str,
    v: &Value,
    tz: Option<&TimezoneName>,
) -> Option<String> {
    let member = match kind {
        Kind::Campaign => flight_member(path).unwrap_or(path),
        _ => path,
    };
    let cell = readable::cell(kind, member, v, tz)?;
    Some(text_of_cell(&cell).0.to_owned())
}

/// `startDate` of `flights[2].startDate`.
fn flight_member(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("flights[")?;
    let (index, member) = rest.split_once("].")?;
    (!index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) && !member.contains(['.', '[']))
        .then_some(member)
}

/// The text of a cell: a cell with a leading [`TEXT_MARK`] is text, whatever the field,
/// and loses exactly that one mark (the one [`text_cell`] or a spreadsheet user put
/// there). Returns the text and whether the cell was marked.
fn text_of_cell(cell: &str) -> (&str, bool) {
    match cell.strip_prefix(TEXT_MARK) {
        Some(text) => (text, true),
        None => (cell, false),
    }
}

/// The cell text of a value; `None` for what is written blank (null, absent).
fn cell_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(text_cell(s).into_owned()),
        other => Some(other.to_string()),
    }
}

/// The plan of a sheet: rows with an `id` change that entity, rows without one
/// create drafts. Rows that change nothing stay out of the plan; a row that cannot
/// be read is refused with the field at fault. Returns the plan and how many rows
/// were unchanged. `current` reads the working copy of an entity a row names (`None`
/// when the workspace does not hold it), `shown` the status an ad order shows, and
/// `timezone` the timezone of an entity's advertiser (for a date cell without offset).
pub(crate) fn plan_sheet(
    text: &str,
    options: &ImportOptions,
    mut current: impl FnMut(&EntityRef) -> Result<Option<Value>>,
    mut shown: impl FnMut(&EntityRef) -> Result<Option<AdOrderStatus>>,
    mut timezone: impl FnMut(&EntityRef) -> Result<Option<TimezoneName>>,
) -> Result<(Vec<Planned>, u32)> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(options.delimiter.byte())
        .flexible(true)
        .from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .map_err(csv_error)?
        .iter()
        .map(|h| {
            text_of_cell(h.trim().trim_start_matches('\u{feff}'))
                .0
                .to_owned()
        })
        .collect();
    let kind_at = header.iter().position(|h| h == KIND_COLUMN);
    let id_at = header.iter().position(|h| h == ID_COLUMN);
    if kind_at.is_none() && options.kind.is_none() {
        return Err(Error::Refused(flightdeck_model::ValidationErrors(vec![
            FieldError::new(
                KIND_COLUMN,
                codes::REQUIRED,
                "the sheet has no kind column; say what its rows are",
            ),
        ])));
    }
    let mut plan = Vec::new();
    let mut unchanged = 0;
    let mut record = csv::StringRecord::new();
    let mut line: u32 = 0;
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(csv_error(e)),
        }
        line += 1;
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let cell = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or("");
        let kind = match kind_at {
            Some(_) => match kind_of_name(cell(kind_at)) {
                Some(k) => k,
                None => {
                    plan.push(Planned::Failed {
                        target: None,
                        kind: options.kind.unwrap_or(Kind::Advertiser),
                        errors: vec![FieldError::new(
                            KIND_COLUMN,
                            codes::INVALID,
                            format!("“{}” is not a kind of entity", cell(kind_at)),
                        )],
                        line: Some(line),
                    });
                    continue;
                }
            },
            None => options.kind.unwrap_or(Kind::Advertiser),
        };
        let mut status_cell = None;
        let cells: Vec<(&str, &str)> = header
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != kind_at && Some(*i) != id_at)
            .map(|(i, h)| (h.as_str(), record.get(i).unwrap_or("")))
            .filter(|(_, c)| !c.is_empty())
            .filter(|(h, c)| {
                let status = kind == Kind::AdOrder && *h == STATUS_COLUMN;
                if status {
                    status_cell = Some(*c);
                }
                !status
            })
            .collect();
        let id = cell(id_at).trim();
        let target = || key_of_cell(kind, id).map(|key| EntityRef::new(kind, key));
        let status = match status_of_cell(status_cell) {
            Ok(status) => status,
            Err(e) => {
                plan.push(Planned::Failed {
                    target: target(),
                    kind,
                    errors: vec![e],
                    line: Some(line),
                });
                continue;
            }
        };
        let planned = if id.is_empty() {
            let parent = parent_of_new_row(kind, &cells, options);
            let tz = match &parent {
                Some(p) if needs_zone(kind, &cells) => timezone(p)?,
                _ => None,
            };
            plan_new_row(kind, &cells, parent, tz.as_ref(), line).map(|p| match p {
                Planned::Create {
                    kind,
                    parent,
                    value,
                    line,
                    status: _,
                } => Planned::Create {
                    kind,
                    parent,
                    value,
                    line,
                    status,
                },
                other => other,
            })
        } else {
            plan_row(kind, id, &cells, line, &mut current, &mut timezone)?
        };
        let failed = matches!(planned, Some(Planned::Failed { .. }));
        let set = match (status, target()) {
            (Some(status), Some(target)) if !id.is_empty() && !failed => {
                (shown(&target)? != Some(status)).then_some(Planned::SetStatus {
                    target,
                    status,
                    line: Some(line),
                })
            }
            _ => None,
        };
        if planned.is_none() && set.is_none() {
            unchanged += 1;
        }
        plan.extend(planned);
        plan.extend(set);
    }
    Ok((plan, unchanged))
}

/// `text` with its header row's names put through `rename` (a label, "Max bid", as its
/// wire path `max_bid`): a header `rename` answers `None` for stays as it is. The
/// columns of the format's own (`kind`, `id`, `caps`, `status`, a parent's name) are
/// taken in any case and never renamed. The rows after the header are left as they are.
pub fn rename_headers<'a>(
    text: &'a str,
    delimiter: Delimiter,
    rename: impl Fn(&str) -> Option<String>,
) -> Result<Cow<'a, str>> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter.byte())
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = reader.headers().map_err(csv_error)?.clone();
    let rest = usize::try_from(reader.position().byte()).unwrap_or(text.len());
    let mut changed = false;
    let names: Vec<String> = header
        .iter()
        .map(|h| {
            let name = text_of_cell(h.trim().trim_start_matches('\u{feff}')).0;
            let own = [KIND_COLUMN, ID_COLUMN, CAPS_COLUMN, STATUS_COLUMN]
                .into_iter()
                .chain(Kind::tables().flat_map(|k| name_columns(k).iter().map(|(_, c, _)| *c)))
                .find(|c| c.eq_ignore_ascii_case(name));
            let new = match own {
                Some(own) => (own != name).then(|| own.to_owned()),
                None => rename(name).filter(|p| p != name),
            };
            changed |= new.is_some();
            new.unwrap_or_else(|| h.to_owned())
        })
        .collect();
    if !changed || rest > text.len() || !text.is_char_boundary(rest) {
        return Ok(Cow::Borrowed(text));
    }
    let mut writer = csv::WriterBuilder::new()
        .delimiter(delimiter.byte())
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    writer.write_record(&names).map_err(csv_error)?;
    let mut out = writer
        .into_inner()
        .map_err(|e| Error::Invalid(format!("the sheet's header could not be written: {e}")))?;
    out.extend_from_slice(&text.as_bytes()[rest..]);
    String::from_utf8(out)
        .map(Cow::Owned)
        .map_err(|e| Error::Invalid(format!("the sheet's header could not be written: {e}")))
}

/// Whether a row has a date cell that needs its advertiser's timezone to be read.
fn needs_zone(kind: Kind, cells: &[(&str, &str)]) -> bool {
    cells
        .iter()
        .any(|(column, text)| readable::needs_zone(kind, column, text))
}

fn plan_row(
    kind: Kind,
    id: &str,
    cells: &[(&str, &str)],
    line: u32,
    current: &mut impl FnMut(&EntityRef) -> Result<Option<Value>>,
    timezone: &mut impl FnMut(&EntityRef) -> Result<Option<TimezoneName>>,
) -> Result<Option<Planned>> {
    let failed = |target: Option<EntityRef>, errors: Vec<FieldError>| {
        Ok(Some(Planned::Failed {
            target,
            kind,
            errors,
            line: Some(line),
        }))
    };
    let Some(key) = key_of_cell(kind, id) else {
        return failed(
            None,
            vec![FieldError::new(
                ID_COLUMN,
                codes::INVALID,
                format!("“{id}” is not an id"),
            )],
        );
    };
    let target = EntityRef::new(kind, key);
    let Some(current) = current(&target)? else {
        return failed(
            None,
            vec![FieldError::new(
                ID_COLUMN,
                codes::BAD_REFERENCE,
                format!("there is no {} {id} in the workspace", kind.label()),
            )],
        );
    };
    let tz = if needs_zone(kind, cells) {
        timezone(&target)?
    } else {
        None
    };
    let mut edits = Vec::with_capacity(cells.len());
    let mut errors = Vec::new();
    for (column, text) in cells {
        // The parent of a draft's child is fixed when it is made.
        if text.starts_with(DRAFT_PREFIX) {
            continue;
        }
        // A parent's name is for reading: the id beside it says which parent.
        if readable::is_name_column(kind, column) && ops::get(&current, column).is_none() {
            continue;
        }
        let now = if kind == Kind::FlightCaps && *column == CAPS_COLUMN {
            Some(&current)
        } else {
            ops::get(&current, column)
        };
        match change_of(kind, column, text, now, tz.as_ref()) {
            // A cell that holds what the field holds changes nothing: most cells of
            // an exported sheet coming back.
            Ok(Some(Change::Set(v))) if now.is_some_and(|n| crate::diff::same(n, &v)) => {}
            Ok(Some(change)) => edits.push((column, change)),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return failed(Some(target), errors);
    }
    if edits.is_empty() {
        return Ok(None);
    }
    let mut value = current.clone();
    let mut field_edits = Vec::with_capacity(edits.len());
    for (column, change) in edits {
        if kind == Kind::FlightCaps && *column == CAPS_COLUMN {
            value = match change {
                Change::Set(v) => v,
                _ => Value::Array(Vec::new()),
            };
        } else {
            field_edits.push(FieldEdit {
                field: (*column).to_owned(),
                change,
            });
        }
    }
    let errors = ops::apply(&mut value, &field_edits);
    if !errors.is_empty() {
        return failed(Some(target), errors);
    }
    if crate::diff::same(&current, &value) {
        return Ok(None);
    }
    Ok(Some(Planned::Update {
        target,
        value,
        line: Some(line),
        from: None,
    }))
}

/// Where a new row hangs: the parent its own cells name, else the one the import was
/// given.
fn parent_of_new_row(
    kind: Kind,
    cells: &[(&str, &str)],
    options: &ImportOptions,
) -> Option<EntityRef> {
    let mut parent = None;
    for (column, text) in cells {
        for parent_kind in [Kind::Advertiser, Kind::Campaign] {
            if parent_field(kind, parent_kind) == Some(*column)
                && let Some(key) = key_of_cell(parent_kind, text)
            {
                // A creative under a campaign names both; the campaign wins.
                if parent
                    .as_ref()
                    .is_none_or(|p: &EntityRef| p.kind == Kind::Advertiser)
                {
                    parent = Some(EntityRef::new(parent_kind, key));
                }
            }
        }
    }
    parent.or_else(|| options.parent.clone())
}

fn plan_new_row(
    kind: Kind,
    cells: &[(&str, &str)],
    parent: Option<EntityRef>,
    tz: Option<&TimezoneName>,
    line: u32,
) -> Option<Planned> {
    let mut value = Value::Object(Map::new());
    let mut errors = Vec::new();
    let mut edits = Vec::new();
    for (column, text) in cells {
        if text.starts_with(DRAFT_PREFIX) || readable::is_name_column(kind, column) {
            continue;
        }
        if kind == Kind::FlightCaps && *column == CAPS_COLUMN {
            match change_of(kind, column, text, Some(&Value::Array(Vec::new())), tz) {
                Ok(Some(Change::Set(v))) => value = v,
                Ok(_) => {}
                Err(e) => errors.push(e),
            }
            continue;
        }
        match change_of(kind, column, text, None, tz) {
            Ok(Some(change)) => edits.push(FieldEdit {
                field: (*column).to_owned(),
                change,
            }),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    errors.extend(ops::apply(&mut value, &edits));
    if !errors.is_empty() {
        return Some(Planned::Failed {
            target: None,
            kind,
            errors,
            line: Some(line),
        });
    }
    Some(Planned::Create {
        kind,
        parent,
        value,
        line: Some(line),
        status: None,
    })
}

/// The status an ad order's `status` cell asks for: `None` when blank (no change),
/// refused at the cell when it is no status.
fn status_of_cell(cell: Option<&str>) -> Result<Option<AdOrderStatus>, FieldError> {
    let Some(text) = cell
        .map(|c| text_of_cell(c).0.trim())
        .filter(|t| !t.is_empty())
    else {
        return Ok(None);
    };
    parse_status_word(text).map(Some).ok_or_else(|| {
        FieldError::new(
            STATUS_COLUMN,
            codes::INVALID,
            format!("“{text}” is not a status: one of {}", status_words()),
        )
    })
}

/// What a cell asks of a field of `kind` that now holds `now`: `None` for no change
/// (blank). A date without offset is read in `tz`.
fn change_of(
    kind: Kind,
    column: &str,
    text: &str,
    now: Option<&Value>,
    tz: Option<&TimezoneName>,
) -> Result<Option<Change>, FieldError> {
    if text.is_empty() {
        return Ok(None);
    }
    let (text, marked) = text_of_cell(text);
    if !marked && text.trim() == "[]" {
        return Ok(Some(Change::Clear));
    }
    // Dates, amounts, lists and words as the spreadsheet format writes them (and the
    // wire's numbers and JSON in the same columns).
    if let Some(read) = readable::read(kind, column, text, marked, now, tz) {
        let value = read?;
        validate::value_depth(column, &value)?;
        return Ok(Some(Change::Set(value)));
    }
    let bad =
        |what: &str| FieldError::new(column, codes::INVALID, format!("“{text}” is not {what}"));
    let value = match now {
        Some(Value::String(_)) => Value::String(text.to_owned()),
        Some(Value::Number(_)) => match serde_json::from_str::<Value>(text.trim()) {
            Ok(v @ Value::Number(_)) => v,
            _ => return Err(bad("a number")),
        },
        Some(Value::Bool(_)) => match bool_of(text) {
            Some(b) => Value::Bool(b),
            None => return Err(bad("true or false")),
        },
        Some(Value::Array(_) | Value::Object(_)) => match serde_json::from_str::<Value>(text) {
            Ok(v) => v,
            Err(_) => return Err(bad("JSON")),
        },
        None | Some(Value::Null) => {
            // A marked cell is text; so is a client id, even all digits, in both of the
            // ad order's spellings (`ioNumber` in, `io_number` out).
            if marked
                || is_text_field(column)
                || column.starts_with("external")
                || column == "ioNumber"
                || column == "io_number"
            {
                Value::String(text.to_owned())
            } else if let Some(b) = bool_of(text) {
                Value::Bool(b)
            } else {
                ops::parse_value(text)
            }
        }
    };
    // A cell's JSON as deep as serde_json reads would make a row that never reads back.
    validate::value_depth(column, &value)?;
    Ok(Some(Change::Set(value)))
}

/// What a table cell's text asks of the field `path` of `kind`, which now holds `now`,
/// read as an import reads the cell (blank: `None`); else what the cell should have held
/// ("a date like 2026-03-01 or 2026-03-01T09:00-05:00").
pub(crate) fn read_cell(
    kind: Kind,
    path: &str,
    text: &str,
    now: Option<&Value>,
    tz: Option<&TimezoneName>,
) -> std::result::Result<Option<Change>, String> {
    change_of(kind, path, text, now, tz).map_err(|_| {
        readable::expected(kind, path).unwrap_or_else(|| {
            match now {
                Some(Value::Number(_)) => "a number",
                Some(Value::Bool(_)) => "true or false",
                Some(Value::Array(_) | Value::Object(_)) => "JSON",
                _ => "a value",
            }
            .to_owned()
        })
    })
}

/// Whether the text `cell` of `path` is a date without an offset, read in the
/// advertiser's timezone.
pub(crate) fn needs_zone_at(kind: Kind, path: &str, cell: &str) -> bool {
    readable::needs_zone(kind, path, cell)
}

fn bool_of(text: &str) -> Option<bool> {
    match text.trim() {
        "true" | "TRUE" | "True" => Some(true),
        "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

fn csv_error(e: csv::Error) -> Error {
    let at = e
        .position()
        .map(|p| format!(" (line {})", p.line()))
        .unwrap_or_default();
    Error::Invalid(format!("the sheet could not be read{at}: {e}"))
}
