//! Bulk work for both hosts: each operation previews (nothing saved) or applies as one
//! undo step, and keeps the table indexes up to date. The rules are the workspace's
//! (`flightdeck_offline::bulk`); this layer adds the account's lock, the tables, the
//! scope a table's "select all" stands for ([`scope`]), and the paging of a preview's
//! rows: an answer carries its counts and first [`FIRST_ROWS`] rows, the rest stay in
//! the workspace ([`Account::preview_rows`]).

pub mod scope;

use flightdeck_model::AdOrderStatus;
use flightdeck_offline::bulk::money::MoneySummary;
use flightdeck_offline::bulk::ops::FieldEdit;
use flightdeck_offline::bulk::plan::DuplicateOptions;
use flightdeck_offline::bulk::replace::Find;
use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions, SheetFormat};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{
    HistoryStep, Preview, RowPreview, Undone, Workspace, no_status,
};

use serde::Serialize;

pub use scope::{BulkScope, TableSelection};

use crate::query::Window;
use crate::{Account, Result};

/// Rows a bulk answer carries: a table's page. The others are read a window at a time.
pub const FIRST_ROWS: usize = 50;

/// What an edit did, for a host's change event: the entities it changed, and whether it
/// added or removed rows (a new draft, an undone create), which moves every row after
/// them in a table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changed {
    /// The entities changed, made or removed.
    pub targets: Vec<EntityRef>,
    /// Rows were added or removed.
    pub added_or_removed: bool,
}

impl Changed {
    /// What a download changed: the entities the service added, changed or removed.
    pub fn pulled(report: &flightdeck_offline::workspace::PullReport) -> Changed {
        use flightdeck_offline::workspace::ServerChangeKind;
        Changed {
            targets: report.changes.iter().map(|c| c.target.clone()).collect(),
            added_or_removed: report
                .changes
                .iter()
                .any(|c| !matches!(c.change, ServerChangeKind::Changed)),
        }
    }

    /// The kinds of the entities changed, each once.
    pub fn kinds(&self) -> Vec<Kind> {
        let mut kinds: Vec<Kind> = Vec::new();
        for t in &self.targets {
            if !kinds.contains(&t.kind) {
                kinds.push(t.kind);
            }
        }
        kinds
    }
}

/// A bulk operation's answer (its counts and first rows) and what it changed.
#[derive(Debug, Clone)]
pub struct BulkDone {
    /// The preview, or the applied result, with its first [`FIRST_ROWS`] rows.
    pub preview: Preview,
    /// What applying changed (nothing for a preview).
    pub changed: Changed,
}

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

/// What an applied preview changed or made.
fn changed(preview: &Preview) -> Changed {
    if preview.step.is_none() {
        return Changed::default();
    }
    Changed {
        targets: preview
            .rows
            .iter()
            .filter(|r| r.outcome != flightdeck_offline::workspace::RowOutcome::Refused)
            .filter_map(|r| r.target.clone())
            .collect(),
        added_or_removed: preview.creates > 0,
    }
}

impl Account {
    /// Runs a bulk operation on the workspace (with the table indexes the scope is read
    /// from), brings the indexes up to date, and keeps its rows for paging.
    pub(crate) fn bulk(
        &self,
        f: impl FnOnce(&mut Workspace, &crate::query::Tables) -> Result<Preview>,
    ) -> Result<BulkDone> {
        let ((preview, changed), _) = self.edit(|ws| {
            let mut preview = f(ws, &self.tables)?;
            let changed = changed(&preview);
            ws.keep_rows(&mut preview, FIRST_ROWS)?;
            ws.readable_diffs(&mut preview.rows);
            let touched = changed.targets.clone();
            Ok(((preview, changed), touched))
        })?;
        Ok(BulkDone { preview, changed })
    }

    /// "Edit N selected": the same field edits on every entity of `scope`. A field is
    /// named by its wire path or its label ("Max bid"); a name the kind does not have is
    /// refused with the nearest ones ([`crate::fields`]).
    pub fn bulk_edit(
        &self,
        scope: &BulkScope,
        edits: &[FieldEdit],
        apply: bool,
    ) -> Result<BulkDone> {
        self.bulk_edit_forced(scope, edits, &[], apply)
    }

    /// [`Account::bulk_edit`] that also writes the fields `forced` names as typed, even
    /// where the kind has no such member (the CLI's `--set-unknown`): a member the
    /// service added that the model does not know yet.
    pub fn bulk_edit_forced(
        &self,
        scope: &BulkScope,
        edits: &[FieldEdit],
        forced: &[String],
        apply: bool,
    ) -> Result<BulkDone> {
        self.bulk(|ws, tables| {
            let targets = scope.targets(tables, ws)?;
            let edits = crate::fields::resolve_edits(ws, &targets, edits, forced)?;
            Ok(ws.bulk_edit(&targets, &edits, apply)?)
        })
    }

    /// Launch, pause, archive or make inactive the ad orders of `scope`
    /// (`updateStatus`): one pending status change each, posted after any create or
    /// save of the same ad order, and one undo step. A scope of another kind is refused
    /// whole; a row the service would refuse (out of Archived) is refused alone, saying
    /// why.
    pub fn set_status(
        &self,
        scope: &BulkScope,
        status: AdOrderStatus,
        apply: bool,
    ) -> Result<BulkDone> {
        let kind = match scope {
            BulkScope::Kind(kind) => Some(*kind),
            BulkScope::Query(q) => Some(q.kind),
            BulkScope::Ids(_) | BulkScope::Account => None,
        };
        if let Some(why) = kind.and_then(no_status) {
            return Err(crate::Error::invalid("kind", "INVALID", &why));
        }
        self.bulk(|ws, tables| {
            let mut targets = scope.targets(tables, ws)?;
            if *scope == BulkScope::Account {
                targets.retain(|t| t.kind == Kind::AdOrder);
            }
            Ok(ws.set_status(&targets, status, apply)?)
        })
    }

    /// Find and replace in text fields; `find.fields` may name fields by label or wire
    /// path, and a name no kind in `scope` has is refused with the nearest ones.
    pub fn replace(&self, scope: &BulkScope, find: &Find, apply: bool) -> Result<BulkDone> {
        self.bulk(|ws, tables| {
            let mut find = find.clone();
            find.fields = crate::fields::resolve_names(&scope.kinds(), &find.fields)?;
            let scope = scope.resolve(tables, ws)?;
            Ok(ws.replace(&scope, &find, apply)?)
        })
    }

    /// Import a CSV or TSV file, or paste rows from a spreadsheet.
    pub fn import_sheet(
        &self,
        text: &str,
        options: &ImportOptions,
        apply: bool,
    ) -> Result<BulkDone> {
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
    ) -> Result<BulkDone> {
        // A header may be the grid's label ("Max bid") wherever a wire name goes.
        let text = flightdeck_offline::bulk::sheet::rename_headers(text, options.delimiter, |h| {
            crate::fields::header_path(options.kind, h)
        })?;
        self.bulk(|ws, _| Ok(ws.import_sheet(&text, options, label, apply)?))
    }

    /// Copies as new drafts.
    pub fn duplicate_many(
        &self,
        scope: &BulkScope,
        options: &DuplicateOptions,
        apply: bool,
    ) -> Result<BulkDone> {
        self.bulk(|ws, tables| {
            let sources = scope.targets(tables, ws)?;
            Ok(ws.duplicate(&sources, options, apply)?)
        })
    }

    /// A posted step put back by a new edit.
    pub fn revert(&self, step: i64, apply: bool) -> Result<BulkDone> {
        self.bulk(|ws, _| Ok(ws.revert(step, apply)?))
    }

    /// A window of the rows of the latest preview (or applied result) `rows_id` names
    /// (its `rowsId`): the pages after the first its answer carried.
    pub fn preview_rows(
        &self,
        rows_id: u32,
        offset: u32,
        limit: u32,
    ) -> Result<Window<RowPreview>> {
        let ws = self.workspace()?;
        let (mut rows, total) = ws.preview_rows(rows_id, offset as usize, limit as usize)?;
        ws.readable_diffs(&mut rows);
        let offset = (offset as usize).min(total);
        Ok(Window::new(rows, offset, total, total))
    }

    /// The entities of `scope` as a sheet in `format` (a whole account gets a `kind`
    /// column).
    pub fn export_sheet(
        &self,
        scope: &BulkScope,
        delimiter: Delimiter,
        format: SheetFormat,
    ) -> Result<String> {
        let ws = self.workspace()?;
        let targets = scope.targets(&self.tables, &ws)?;
        let with_kind = matches!(scope, BulkScope::Account);
        Ok(ws.export_sheet_as(&targets, delimiter, with_kind, format)?)
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
        // As `Account::edit`: the index file stays current after an undo or a redo.
        let before = ws.change_stamp().ok();
        let done = f(&mut ws)?;
        if let Some(d) = &done {
            self.tables.touched_since(&ws, &d.targets, before)?;
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
    ) -> Result<BulkDone> {
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

    /// Writes the entities of `scope` to a CSV or TSV file in `format`, whole or not at
    /// all (an earlier file stays as it was when the write fails); returns the rows
    /// written.
    pub fn export_file(
        &self,
        path: &std::path::Path,
        scope: &BulkScope,
        format: SheetFormat,
    ) -> Result<usize> {
        self.export_to(path, scope, Delimiter::of_path(path), format)
    }

    /// [`Account::export_file`] with the delimiter chosen (the CLI's `--tsv`); returns
    /// the entities written (a cell may hold a line break, so lines are not rows).
    pub fn export_to(
        &self,
        path: &std::path::Path,
        scope: &BulkScope,
        delimiter: Delimiter,
        format: SheetFormat,
    ) -> Result<usize> {
        let (text, rows) = {
            let ws = self.workspace()?;
            let targets = scope.targets(&self.tables, &ws)?;
            let with_kind = matches!(scope, BulkScope::Account);
            let text = ws.export_sheet_as(&targets, delimiter, with_kind, format)?;
            (text, targets.len())
        };
        crate::files::replace_file(path, text.as_bytes())?;
        Ok(rows)
    }
}

impl Account {
    /// What a post changed, for a host's change event: the entities of the changes it
    /// settled or held (keyed as they are now), and rows added or removed when it created
    /// one (a new entity's draft key gives way to its id). `None` when the post failed
    /// as a whole, or a change is no longer in the workspace: then anything may have.
    pub fn posted(&self, report: &flightdeck_offline::sync::PushReport) -> Result<Option<Changed>> {
        let ws = self.workspace()?;
        let seqs = report
            .applied
            .iter()
            .chain(&report.failed)
            .chain(&report.needs_review)
            .map(|c| c.seq)
            .chain(report.conflicts.iter().map(|c| c.seq))
            .chain(report.held.iter().map(|h| h.seq));
        let mut changed = Changed::default();
        for seq in seqs {
            let Some(change) = ws.change(seq)? else {
                return Ok(None);
            };
            changed.added_or_removed |= change.op == flightdeck_offline::change::Op::Create;
            changed.targets.push(change.target);
        }
        Ok(Some(changed))
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
