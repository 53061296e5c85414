//! Bulk work for both hosts: each operation previews (nothing saved) or applies as one
//! undo step, and keeps the table indexes up to date. The rules are the workspace's
//! (`flightdeck_offline::bulk`); this layer only adds the account's lock and the tables.

use flightdeck_offline::bulk::money::MoneySummary;
use flightdeck_offline::bulk::ops::FieldEdit;
use flightdeck_offline::bulk::plan::{DuplicateOptions, Scope};
use flightdeck_offline::bulk::replace::Find;
use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions};
use flightdeck_offline::change::EntityRef;
use flightdeck_offline::workspace::{HistoryStep, Preview, Undone, Workspace};

use serde::Serialize;

use crate::{Account, Result};

/// Largest file an import reads: 256 MiB. A whole-account export of 100,000 ad orders,
/// the benches' scale, is about 24 MB (their 50 MB listing in the export's columns), so
/// this is ten times that; the sheet parser takes the text whole, and a preview holds
/// its rows besides.
pub const MAX_IMPORT_BYTES: u64 = 256 * 1024 * 1024;

/// The text of an import file, for both hosts. A file over [`MAX_IMPORT_BYTES`] is
/// refused by its size before anything is read (and, should it grow meanwhile, as it is
/// read), with an error at `path` naming the file and the limit.
pub fn read_import_file(path: &std::path::Path) -> Result<String> {
    read_capped(path, MAX_IMPORT_BYTES)
}

fn read_capped(path: &std::path::Path, limit: u64) -> Result<String> {
    use std::io::Read;
    let too_large = |bytes: u64| {
        const MB: u64 = 1024 * 1024;
        crate::Error::invalid(
            "path",
            "TOO_LARGE",
            &format!(
                "{} is {} MB, more than the {} MB an import reads; split it into smaller files",
                path.display(),
                bytes.div_ceil(MB),
                limit / MB
            ),
        )
    };
    let file = std::fs::File::open(path).map_err(|e| crate::Error::storage(path, e))?;
    let size = file
        .metadata()
        .map_err(|e| crate::Error::storage(path, e))?
        .len();
    if size > limit {
        return Err(too_large(size));
    }
    let mut text = String::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_string(&mut text)
        .map_err(|e| crate::Error::storage(path, e))?;
    if text.len() as u64 > limit {
        return Err(too_large(text.len() as u64));
    }
    Ok(text)
}

/// The entities an applied preview changed or made.
fn changed(preview: &Preview) -> Vec<EntityRef> {
    if preview.step.is_none() {
        return Vec::new();
    }
    preview
        .rows
        .iter()
        .filter_map(|r| r.target.clone())
        .collect()
}

impl Account {
    fn bulk(
        &self,
        f: impl FnOnce(&mut Workspace) -> flightdeck_offline::Result<Preview>,
    ) -> Result<Preview> {
        let (preview, _) = self.edit(|ws| {
            let preview = f(ws)?;
            let touched = changed(&preview);
            Ok((preview, touched))
        })?;
        Ok(preview)
    }

    /// "Edit N selected": the same field edits on every target.
    pub fn bulk_edit(
        &self,
        targets: &[EntityRef],
        edits: &[FieldEdit],
        apply: bool,
    ) -> Result<Preview> {
        self.bulk(|ws| ws.bulk_edit(targets, edits, apply))
    }

    /// Find and replace in text fields.
    pub fn replace(&self, scope: &Scope, find: &Find, apply: bool) -> Result<Preview> {
        self.bulk(|ws| ws.replace(scope, find, apply))
    }

    /// Import a CSV or TSV file, or paste rows from a spreadsheet.
    pub fn import_sheet(
        &self,
        text: &str,
        options: &ImportOptions,
        apply: bool,
    ) -> Result<Preview> {
        let label = match options.delimiter {
            Delimiter::Tab => "Paste rows",
            Delimiter::Comma => "Import a file",
        };
        self.import_labelled(text, options, label, apply)
    }

    /// An import that undo and history name by `label`.
    fn import_labelled(
        &self,
        text: &str,
        options: &ImportOptions,
        label: &str,
        apply: bool,
    ) -> Result<Preview> {
        self.bulk(|ws| ws.import_sheet(text, options, label, apply))
    }

    /// Copies as new drafts.
    pub fn duplicate_many(
        &self,
        sources: &[EntityRef],
        options: &DuplicateOptions,
        apply: bool,
    ) -> Result<Preview> {
        self.bulk(|ws| ws.duplicate(sources, options, apply))
    }

    /// A posted step put back by a new edit.
    pub fn revert(&self, step: i64, apply: bool) -> Result<Preview> {
        self.bulk(|ws| ws.revert(step, apply))
    }

    /// The entities of `scope` as a sheet (a whole account gets a `kind` column).
    pub fn export_sheet(&self, scope: &Scope, delimiter: Delimiter) -> Result<String> {
        let ws = self.workspace()?;
        let targets = ws.targets(scope)?;
        Ok(ws.export_sheet(&targets, delimiter, matches!(scope, Scope::Account))?)
    }

    /// Undoes the latest local edit; `None` when there is none.
    pub fn undo(&self) -> Result<Option<Undone>> {
        self.step_history(Workspace::undo)
    }

    /// Redoes the latest undone edit; `None` when there is none.
    pub fn redo(&self) -> Result<Option<Undone>> {
        self.step_history(Workspace::redo)
    }

    fn step_history(
        &self,
        f: impl FnOnce(&mut Workspace) -> flightdeck_offline::Result<Option<Undone>>,
    ) -> Result<Option<Undone>> {
        let mut ws = self.workspace()?;
        let done = f(&mut ws)?;
        if let Some(d) = &done {
            self.tables.touched(&ws, &d.targets)?;
        }
        Ok(done)
    }

    /// The latest steps, newest first.
    pub fn history(&self, limit: usize) -> Result<Vec<HistoryStep>> {
        Ok(self.workspace()?.history(limit)?)
    }

    /// What the pending changes do to budgets and bids.
    pub fn money_summary(&self) -> Result<MoneySummary> {
        Ok(self
            .workspace()?
            .money_summary(flightdeck_client::now_ms())?)
    }
}

impl Account {
    /// Imports a CSV or TSV file (tab for `.tsv` and `.txt`), as a step history names
    /// by the file ("Import orders.csv").
    pub fn import_file(
        &self,
        path: &std::path::Path,
        kind: Option<flightdeck_offline::change::Kind>,
        parent: Option<EntityRef>,
        apply: bool,
    ) -> Result<Preview> {
        let text = read_import_file(path)?;
        let options = ImportOptions {
            delimiter: Delimiter::of_path(path),
            kind,
            parent,
        };
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        self.import_labelled(&text, &options, &format!("Import {name}"), apply)
    }

    /// Writes the entities of `scope` to a CSV or TSV file, whole or not at all (an
    /// earlier file stays as it was when the write fails); returns the rows written.
    pub fn export_file(&self, path: &std::path::Path, scope: &Scope) -> Result<usize> {
        self.export_to(path, scope, Delimiter::of_path(path))
    }

    /// [`Account::export_file`] with the delimiter chosen (the CLI's `--tsv`); returns
    /// the entities written (a cell may hold a line break, so lines are not rows).
    pub fn export_to(
        &self,
        path: &std::path::Path,
        scope: &Scope,
        delimiter: Delimiter,
    ) -> Result<usize> {
        let (text, rows) = {
            let ws = self.workspace()?;
            let targets = ws.targets(scope)?;
            let text = ws.export_sheet(&targets, delimiter, matches!(scope, Scope::Account))?;
            (text, targets.len())
        };
        crate::files::replace_file(path, text.as_bytes())?;
        Ok(rows)
    }
}

impl Account {
    /// The rows a "select all" of a filtered table stands for, less those unticked: the
    /// targets of a bulk operation on it.
    pub fn selected_targets(
        &self,
        kind: flightdeck_offline::change::Kind,
        query: &crate::query::TableQuery,
        except: &[EntityRef],
    ) -> Result<Vec<EntityRef>> {
        let ws = self.workspace()?;
        let mut targets = self.tables.targets(&ws, kind, query)?;
        targets.retain(|t| !except.contains(t));
        Ok(targets)
    }
}

/// A kind a copy can go into, with the label the buyer reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct KindChoice {
    /// The kind.
    pub kind: flightdeck_offline::change::Kind,
    /// "advertiser", "campaign".
    pub label: String,
}

/// Where a copy of an entity of `kind` can go (`Kind::parent_kinds`), labelled.
pub fn parent_kinds(kind: flightdeck_offline::change::Kind) -> Vec<KindChoice> {
    kind.parent_kinds()
        .iter()
        .map(|k| KindChoice {
            kind: *k,
            label: k.label().to_owned(),
        })
        .collect()
}
