//! Writing a sheet: one row per entity, its fields flattened to dotted columns numbered
//! in the order first met, in the wire format or the spreadsheet format.

use std::borrow::Cow;
use std::collections::HashMap;

use flightdeck_model::AdOrderStatus;
use serde_json::Value;

use super::{
    CAPS_COLUMN, Delimiter, ID_COLUMN, KIND_COLUMN, RowFacts, STATUS_COLUMN, SheetFormat, cell_of,
    id_cell, name_columns, parent_field, readable, text_cell,
};
use crate::change::{EntityRef, Kind};
use crate::workspace::status_word;
use crate::{Error, Result};

/// Flattens an object into (dotted path, value) pairs: objects recurse, everything else
/// is a leaf.
fn flatten<'v>(value: &'v Value, prefix: &mut String, out: &mut Vec<(String, &'v Value)>) {
    match value {
        Value::Object(map) if !map.is_empty() || prefix.is_empty() => {
            for (k, v) in map {
                let len = prefix.len();
                if !prefix.is_empty() {
                    prefix.push('.');
                }
                prefix.push_str(k);
                flatten(v, prefix, out);
                prefix.truncate(len);
            }
        }
        other => out.push((prefix.clone(), other)),
    }
}

struct Line {
    kind: Kind,
    id: String,
    /// (column number, cell) in the order met.
    cells: Vec<(usize, String)>,
}

/// Column names in the order first met, numbered.
#[derive(Default)]
struct Columns {
    names: Vec<String>,
    index: HashMap<String, usize>,
}

impl Columns {
    fn number(&mut self, name: &str) -> usize {
        if let Some(i) = self.index.get(name) {
            return *i;
        }
        let i = self.names.len();
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), i);
        i
    }
}

/// Builds one sheet row per entity; `facts` is `Some` for the spreadsheet format.
fn line_of(
    kind: Kind,
    target: &EntityRef,
    parent: Option<&EntityRef>,
    value: &Value,
    status: Option<AdOrderStatus>,
    facts: Option<&RowFacts>,
    columns: &mut Columns,
) -> Line {
    // The parents' names the row writes beside their ids: (id field, name column, name).
    // Never over a member of the entity's own that has the name column's name.
    let names: Vec<(&str, &str, &str)> = facts
        .map(|f| {
            name_columns(kind)
                .iter()
                .filter(|(_, column, _)| value.get(column).is_none())
                .filter_map(|(field, column, _)| {
                    let (_, name) = f.names.iter().find(|(g, _)| g == field)?;
                    Some((*field, *column, name.as_str()))
                })
                .collect()
        })
        .unwrap_or_default();
    // Numbers a column, and a parent's name column right after its id's.
    let number = |columns: &mut Columns, path: &str| {
        let i = columns.number(path);
        if let Some((_, column, _)) = names.iter().find(|(f, _, _)| *f == path) {
            columns.number(column);
        }
        i
    };
    let mut cells = Vec::new();
    if kind == Kind::FlightCaps {
        cells.push((columns.number(CAPS_COLUMN), value.to_string()));
    } else {
        let mut flat = Vec::new();
        flatten(value, &mut String::new(), &mut flat);
        // Sorted per row so the column order does not depend on the entity's key order.
        flat.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, v) in flat {
            if path == ID_COLUMN || (kind == Kind::AdOrder && path == STATUS_COLUMN) {
                continue;
            }
            let readable = facts.and_then(|f| readable::cell(kind, &path, v, f.tz.as_ref()));
            if let Some(text) = readable.or_else(|| cell_of(v)) {
                cells.push((number(columns, &path), text));
            }
        }
        // A draft's child names its draft parent, which has no id yet.
        if let Some(p) = parent
            && p.key.is_local()
            && let Some(field) = parent_field(kind, p.kind)
        {
            let i = number(columns, field);
            cells.retain(|(c, _)| *c != i);
            cells.push((i, id_cell(&p.key)));
        }
        for (field, column, name) in &names {
            number(columns, field);
            cells.push((columns.number(column), text_cell(name).into_owned()));
        }
        if kind == Kind::AdOrder {
            // Always a column, blank when unknown.
            let i = columns.number(STATUS_COLUMN);
            if let Some(s) = status {
                cells.push((i, status_word(s)));
            }
        }
    }
    Line {
        kind,
        id: id_cell(&target.key),
        cells,
    }
}

/// The rows of an export, with their columns numbered in the order first met: what
/// `Workspace::export_sheet` fills from the workspace and writes out.
pub(crate) struct SheetRows {
    columns: Columns,
    lines: Vec<Line>,
    format: SheetFormat,
}

impl SheetRows {
    /// Room for `n` rows.
    pub(crate) fn with_capacity(n: usize, format: SheetFormat) -> SheetRows {
        SheetRows {
            columns: Columns::default(),
            lines: Vec::with_capacity(n),
            format,
        }
    }

    /// What cells look like.
    pub(crate) fn format(&self) -> SheetFormat {
        self.format
    }

    /// Adds the row of one entity, under `parent` when it has one; an ad order's
    /// `status` is the one it shows (pending, else known). `facts` (its timezone and
    /// parents' names) are read by the spreadsheet format only.
    pub(crate) fn add(
        &mut self,
        target: &EntityRef,
        parent: Option<&EntityRef>,
        value: &Value,
        status: Option<AdOrderStatus>,
        facts: &RowFacts,
    ) {
        let facts = (self.format == SheetFormat::Sheet).then_some(facts);
        let line = line_of(
            target.kind,
            target,
            parent,
            value,
            status,
            facts,
            &mut self.columns,
        );
        self.lines.push(line);
    }

    /// The sheet's text: a `kind` column when `with_kind` (a whole account), then `id`,
    /// then the columns in the order they were first met.
    pub(crate) fn write(self, delimiter: Delimiter, with_kind: bool) -> Result<String> {
        let mut w = csv::WriterBuilder::new()
            .delimiter(delimiter.byte())
            .from_writer(Vec::with_capacity(self.lines.len() * 256));
        let mut header: Vec<&str> = Vec::with_capacity(self.columns.names.len() + 2);
        if with_kind {
            header.push(KIND_COLUMN);
        }
        header.push(ID_COLUMN);
        let names: Vec<Cow<'_, str>> = self.columns.names.iter().map(|n| text_cell(n)).collect();
        header.extend(names.iter().map(|n| n.as_ref()));
        w.write_record(&header).map_err(Error::SheetWrite)?;
        let mut record: Vec<&str> = vec![""; self.columns.names.len()];
        for line in &self.lines {
            record.iter_mut().for_each(|c| *c = "");
            for (i, cell) in &line.cells {
                record[*i] = cell;
            }
            if with_kind {
                w.write_field(Kind::name(line.kind))
                    .map_err(Error::SheetWrite)?;
            }
            w.write_field(text_cell(&line.id).as_ref())
                .map_err(Error::SheetWrite)?;
            w.write_record(&record).map_err(Error::SheetWrite)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| Error::SheetWrite(e.into_error().into()))?;
        // Every cell was a `&str`, so the bytes are UTF-8.
        String::from_utf8(bytes).map_err(|e| {
            Error::SheetWrite(std::io::Error::new(std::io::ErrorKind::InvalidData, e).into())
        })
    }
}
