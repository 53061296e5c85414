//! What the workspace keeps of its latest bulk operation: its rows, which a host reads
//! a window at a time ([`Workspace::keep_rows`], [`Workspace::preview_rows`]) instead of
//! shipping 100,000 of them at once, and, for a preview, its writes, kept for its apply.
//!
//! A preview carries its plan out in a transaction it
//! rolls back (see [`super::bulk`]); the writes that run made are kept, with what the
//! workspace looked like once it was rolled back, so accepting the same operation on an
//! unchanged workspace only writes: the writes are replayed in one transaction, recorded
//! as one undo step, instead of planning and carrying out every row a second time.
//!
//! The replay is the preview's run by construction: the same statements with the same
//! values, on the same rows, in the same order. Anything written to the workspace since
//! (by this connection or another: an edit, a sync, an undo), a different operation, or a
//! replayed statement that does not touch the rows it touched in the preview, and the
//! apply carries the plan out afresh instead.

use std::hash::Hasher;
use std::sync::atomic::{AtomicU32, Ordering};

use rusqlite::types::{ToSqlOutput, Value as SqlValue};
use serde::Serialize;

use super::Workspace;
use super::bulk::{Planned, Preview, RowPreview};
use crate::{Error, Result};

/// Each row's timezone as read once: `None` when it could not be read (the row keeps
/// its values alone), `Some(None)` when it has none (UTC).
type Zones = std::collections::HashMap<
    crate::change::EntityRef,
    Option<Option<flightdeck_model::TimezoneName>>,
>;

/// Bytes of written values a preview keeps at most. A larger preview (an import of
/// 100,000 edited rows) is carried out again when applied rather than held in memory.
pub(crate) const MAX_BYTES: usize = 64 << 20;

/// One value a write binds.
#[derive(Debug, Clone)]
pub(crate) enum Arg {
    Value(SqlValue),
    /// The batch's time (`updated_at`, `created_at`): a replayed write is stamped with the
    /// time it is applied, not the time of the preview.
    Now,
}

impl Arg {
    fn bound(&self, now: i64) -> ToSqlOutput<'_> {
        match self {
            Arg::Value(v) => ToSqlOutput::Borrowed(v.into()),
            Arg::Now => ToSqlOutput::Owned(SqlValue::Integer(now)),
        }
    }

    fn size(&self) -> usize {
        match self {
            Arg::Value(SqlValue::Text(t)) => t.len(),
            Arg::Value(SqlValue::Blob(b)) => b.len(),
            _ => 8,
        }
    }
}

impl<T: Into<SqlValue>> From<T> for Arg {
    fn from(v: T) -> Arg {
        Arg::Value(v.into())
    }
}

/// The values `args` binds, for `params_from_iter`.
pub(crate) fn bound(args: &[Arg], now: i64) -> impl Iterator<Item = ToSqlOutput<'_>> {
    args.iter().map(move |a| a.bound(now))
}

/// One statement a batch ran, and what it did.
#[derive(Debug)]
pub(crate) struct Write {
    pub(crate) sql: &'static str,
    pub(crate) args: Vec<Arg>,
    /// Rows it changed (`None`: noted without being run, see [`super::Batch`]'s
    /// deferred writes).
    pub(crate) changed: Option<usize>,
    /// The rowid an insert gave its row.
    pub(crate) inserted: Option<i64>,
}

impl Write {
    /// What it counts against [`MAX_BYTES`]: its statement and the values it binds.
    pub(crate) fn size(&self) -> usize {
        self.sql.len() + self.args.iter().map(Arg::size).sum::<usize>()
    }
}

/// The writes of a batch, while they fit in [`MAX_BYTES`].
#[derive(Debug, Default)]
pub(crate) struct Log {
    writes: Vec<Write>,
    bytes: usize,
    overflowed: bool,
}

impl Log {
    pub(crate) fn push(&mut self, write: Write) {
        if self.overflowed {
            return;
        }
        self.bytes += write.size();
        if self.bytes > MAX_BYTES {
            self.overflowed = true;
            self.writes = Vec::new();
        } else {
            self.writes.push(write);
        }
    }

    /// Adds the writes of another log (`None`: it had too many to keep).
    pub(crate) fn append(&mut self, writes: Option<Vec<Write>>) {
        match writes {
            Some(writes) => writes.into_iter().for_each(|w| self.push(w)),
            None => {
                self.overflowed = true;
                self.writes = Vec::new();
            }
        }
    }

    /// The writes, unless there were too many to keep.
    pub(crate) fn into_writes(self) -> Option<Vec<Write>> {
        (!self.overflowed).then_some(self.writes)
    }
}

/// What an operation was asked (its name and inputs, hashed): asked again of an
/// unchanged workspace, it has the same plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Asked([u64; 2]);

/// Feeds serialized inputs to two hashers: 128 bits, so two different operations never
/// pass for one.
struct Hashing([std::collections::hash_map::DefaultHasher; 2]);

impl std::io::Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for h in &mut self.0 {
            h.write(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Asked {
    pub(crate) fn of(operation: &str, inputs: &impl Serialize) -> Result<Asked> {
        Asked::of_keyed(operation, &(), inputs)
    }

    /// [`Asked::of`] with the large part of the inputs (10,000 targets, a whole file)
    /// hashed as it is rather than written as JSON first, which cost more than the rest
    /// of an apply's check put together.
    pub(crate) fn of_keyed(
        operation: &str,
        keyed: &impl std::hash::Hash,
        inputs: &impl Serialize,
    ) -> Result<Asked> {
        let mut h = Hashing(Default::default());
        h.0[1].write_u8(1);
        for x in &mut h.0 {
            x.write(operation.as_bytes());
            x.write_u8(0);
            keyed.hash(x);
        }
        serde_json::to_writer(&mut h, inputs)
            .map_err(|e| Error::Corrupt(format!("JSON encoding: {e}")))?;
        Ok(Asked([h.0[0].finish(), h.0[1].finish()]))
    }
}

/// What the workspace looked like: the rows this connection has changed so far, and
/// SQLite's count of commits by other connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seen {
    changes: u64,
    data_version: i64,
}

impl Seen {
    /// Whether a batch begun since (`batch`, which holds the write lock) reads the
    /// workspace as it was: this connection changed no row before it began (`changes`,
    /// read before it began, whose undo recording writes temporary tables) and no other
    /// connection committed.
    pub(crate) fn still(&self, changes: u64, batch: &super::Batch<'_>) -> Result<bool> {
        if changes != self.changes {
            return Ok(false);
        }
        let data_version: i64 = batch.row("PRAGMA data_version", [], |r| r.get(0))?;
        Ok(data_version == self.data_version)
    }
}

/// A preview kept for its apply.
#[derive(Debug)]
struct Replay {
    asked: Asked,
    seen: Seen,
    label: String,
    writes: Vec<Write>,
    preview: Preview,
}

/// The rows of the latest preview or applied operation, read a window at a time: a
/// preview of 100,000 rows answers its counts and first page, and the rest stays here.
///
/// Kept as text, one row after another in one buffer, and read back a window at a
/// time. As values, each row was a handful of small allocations (its label, its diffs,
/// their paths and values) made while the plan's working copies were in memory; once the
/// plan was freed, those rows pinned its memory pages. A select-all preview of 100,000
/// ad orders kept 150–300 MB that way (1.5–3 KB a row) for rows whose JSON is a few
/// hundred bytes.
#[derive(Debug)]
struct Rows {
    id: u32,
    /// Every row's JSON with its diffs' [`sides`], one after another.
    text: Vec<u8>,
    /// Where each row's JSON ends in `text`.
    ends: Vec<usize>,
}

impl Rows {
    fn new(id: u32, rows: Vec<RowPreview>) -> Result<Rows> {
        let mut kept = Rows {
            id,
            text: Vec::new(),
            ends: Vec::with_capacity(rows.len()),
        };
        for row in rows {
            serde_json::to_writer(&mut kept.text, &(&row, sides(&row)))
                .map_err(|e| Error::Corrupt(format!("a preview row as JSON: {e}")))?;
            kept.ends.push(kept.text.len());
        }
        kept.text.shrink_to_fit();
        Ok(kept)
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Rows `start..end` (within [`Rows::len`]).
    fn window(&self, start: usize, end: usize) -> Result<Vec<RowPreview>> {
        (start..end)
            .map(|i| {
                let from = match i.checked_sub(1) {
                    Some(before) => self.ends[before],
                    None => 0,
                };
                let (row, sides): (RowPreview, Vec<u8>) =
                    serde_json::from_slice(&self.text[from..self.ends[i]])
                        .map_err(|e| Error::Corrupt(format!("a kept preview row: {e}")))?;
                Ok(with_sides(row, &sides))
            })
            .collect()
    }
}

/// Which sides of each diff of `row` are present (1: before, 2: after): stored beside
/// the row, since an absent side and a JSON `null` both write `null`.
fn sides(row: &RowPreview) -> Vec<u8> {
    row.diffs
        .iter()
        .map(|d| u8::from(d.before.is_some()) | (u8::from(d.after.is_some()) << 1))
        .collect()
}

/// Gives the diffs of a row read back the `null` sides [`sides`] says were present.
fn with_sides(mut row: RowPreview, sides: &[u8]) -> RowPreview {
    for (d, side) in row.diffs.iter_mut().zip(sides) {
        if side & 1 != 0 && d.before.is_none() {
            d.before = Some(serde_json::Value::Null);
        }
        if side & 2 != 0 && d.after.is_none() {
            d.after = Some(serde_json::Value::Null);
        }
    }
    row
}

/// What the workspace keeps of its latest bulk operation: its writes, for an apply
/// right after the preview, and its rows, for the preview's pages.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    replay: Option<Replay>,
    rows: Option<Rows>,
}

/// Names each set of kept rows: a page asked of rows kept since is refused, not
/// answered from other rows.
static ROWS_ID: AtomicU32 = AtomicU32::new(1);

impl Workspace {
    /// What the workspace looks like now (see [`Seen`]).
    fn seen(&self) -> Result<Seen> {
        Ok(Seen {
            changes: self.conn.total_changes(),
            data_version: self
                .conn
                .query_row("PRAGMA data_version", [], |r| r.get(0))?,
        })
    }

    /// Keeps the rows of `preview` (a preview or an applied result) for
    /// [`Workspace::preview_rows`], leaving only its first `first` rows in it, and names
    /// them in `rows_id`. The rows kept before are dropped.
    pub fn keep_rows(&mut self, preview: &mut Preview, first: usize) -> Result<()> {
        let rows = std::mem::take(&mut preview.rows);
        preview.rows = rows[..first.min(rows.len())].to_vec();
        let id = ROWS_ID.fetch_add(1, Ordering::Relaxed);
        // The rows kept before go first: the new ones need not share memory with them.
        self.kept.get_or_insert_default().rows = None;
        let kept = Rows::new(id, rows)?;
        preview.rows_id = Some(id);
        self.kept.get_or_insert_default().rows = Some(kept);
        Ok(())
    }

    /// Gives the diffs of `rows` (the ones a preview shows) the texts a buyer reads, as
    /// the spreadsheet format writes them: dates in the row's advertiser's timezone,
    /// money with two decimals, lists as `a; b`. Only for reading: a row whose timezone
    /// cannot be read keeps its values alone (shown as JSON), and nothing fails, since
    /// the operation the preview shows may already be applied.
    pub fn readable_diffs(&self, rows: &mut [RowPreview]) {
        let mut zones = Zones::new();
        for row in rows {
            self.readable_into(row.kind, row.target.as_ref(), &mut row.diffs, &mut zones);
        }
    }

    /// The same texts for one entity's diffs (a pending change's, on the review screen):
    /// `target` names the entity whose advertiser's timezone dates are read in.
    pub fn readable_diff(
        &self,
        kind: crate::change::Kind,
        target: &crate::change::EntityRef,
        diffs: &mut [crate::diff::FieldDiff],
    ) {
        self.readable_into(kind, Some(target), diffs, &mut Zones::new());
    }

    /// Fills the texts of `diffs` of one row of `kind`; `target` is `None` for a row
    /// that exists only in the preview (its dates read in UTC). `zones` keeps each
    /// target's timezone, read once.
    fn readable_into(
        &self,
        kind: crate::change::Kind,
        target: Option<&crate::change::EntityRef>,
        diffs: &mut [crate::diff::FieldDiff],
        zones: &mut Zones,
    ) {
        let readable = |d: &crate::diff::FieldDiff| {
            [&d.before, &d.after]
                .into_iter()
                .flatten()
                .any(|v| crate::bulk::sheet::display_text(kind, &d.path, v, None).is_some())
        };
        if !diffs.iter().any(readable) {
            return;
        }
        let tz = match target {
            Some(t) => {
                if !zones.contains_key(t) {
                    let tz = self.timezone_of(t).inspect_err(|e| {
                        tracing::warn!(error = %e, "a row's timezone could not be read");
                    });
                    zones.insert(t.clone(), tz.ok());
                }
                match zones.get(t).cloned().flatten() {
                    Some(tz) => tz,
                    None => return,
                }
            }
            None => None,
        };
        for d in diffs {
            let text = |v: &Option<serde_json::Value>| {
                v.as_ref()
                    .and_then(|v| crate::bulk::sheet::display_text(kind, &d.path, v, tz.as_ref()))
            };
            d.before_text = text(&d.before);
            d.after_text = text(&d.after);
        }
    }

    /// The kept rows `rows_id` names, from `offset` (clamped), at most `limit`, and how
    /// many there are; refused once other rows were kept since.
    pub fn preview_rows(
        &self,
        rows_id: u32,
        offset: usize,
        limit: usize,
    ) -> Result<(Vec<RowPreview>, usize)> {
        let rows = self
            .kept
            .as_ref()
            .and_then(|k| k.rows.as_ref())
            .filter(|r| r.id == rows_id)
            .ok_or_else(|| {
                Error::NotFound(
                    "the preview is gone (another one replaced it): preview again".into(),
                )
            })?;
        let start = offset.min(rows.len());
        let end = start.saturating_add(limit).min(rows.len());
        Ok((rows.window(start, end)?, rows.len()))
    }

    /// Runs the bulk operation `asked`: `plan` gives its plan, its undo label, and what
    /// to add to the preview of the run (counts of rows the plan leaves out). Applied
    /// right after its preview on an unchanged workspace, it replays the preview's
    /// writes; previewed, it keeps them for that apply.
    pub(crate) fn run_asked<F>(
        &mut self,
        asked: Asked,
        apply: bool,
        plan: impl FnOnce(&Workspace) -> Result<(Vec<Planned>, String, F)>,
    ) -> Result<Preview>
    where
        F: FnOnce(&mut Preview),
    {
        let kept = self.kept.as_mut().and_then(|k| k.replay.take());
        if apply
            && let Some(kept) = kept
            && kept.asked == asked
            && let Some(preview) = self.replay(kept)?
        {
            return Ok(preview);
        }
        let planned = self.seen()?;
        let (plan, label, finish) = plan(self)?;
        let (mut preview, writes) = self.run_logged(plan, &label, apply, !apply, Some(planned))?;
        finish(&mut preview);
        if let Some(writes) = writes {
            // Taken once the preview's transaction is rolled back.
            let seen = self.seen()?;
            self.kept.get_or_insert_default().replay = Some(Replay {
                asked,
                seen,
                label,
                writes,
                preview: preview.clone(),
            });
        }
        Ok(preview)
    }

    /// Applies a kept preview by writing what its run wrote; `None` (nothing written)
    /// when the workspace changed since, or a write does not do what it did then.
    fn replay(&mut self, kept: Replay) -> Result<Option<Preview>> {
        // Read before the batch begins: its undo recording writes temporary tables.
        let changes = self.conn.total_changes();
        if changes != kept.seen.changes {
            return Ok(None);
        }
        let mut batch = self.batch()?;
        // Inside the transaction, which holds the write lock: no other connection can
        // commit between this look and the writes.
        if !kept.seen.still(changes, &batch)? {
            return Ok(None);
        }
        batch.label(kept.label);
        if !batch.rewrite(&kept.writes)? {
            // Dropped: rolled back, nothing kept.
            return Ok(None);
        }
        let mut preview = kept.preview;
        preview.step = batch.commit_step()?;
        Ok(Some(preview))
    }
}
