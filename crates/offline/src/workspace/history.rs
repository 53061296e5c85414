//! Undo and redo of local edits, kept in the workspace file so they survive a restart.
//!
//! Every edit transaction the buyer makes ([`super::Batch`], discards, conflict picks)
//! records itself: temporary triggers, live only inside that transaction, note the image
//! of each `entities` and `outbox` row before its first change, and at commit the step
//! stores each row's image before and after. Recording rows rather than operations means
//! undo restores exactly what was there, whatever the edit did (coalescing into an open
//! change, dropping a change that went back to its base, cascading a discard).
//!
//! Undo and redo are checks plus writes: a step can only be undone while every row it
//! left is still as it left it in what matters (the working copy, the base version, the
//! change still editable). A step whose change was posted since cannot be undone locally
//! ([`Error::Posted`]); [`Workspace::revert`] makes a new edit that puts the old values
//! back instead.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::status::ChangeImages;
use super::{Workspace, key_from_text, kind_from_text, now_ms};
use crate::change::{EntityRef, Kind};
use crate::{Error, Result};

mod image;
use image::{Image, Images, Shared, decode_image};

/// Steps kept; older ones are dropped as new ones come.
const MAX_STEPS: i64 = 200;

/// `history_step.undone` of a step no longer in the history (an undone step a new edit
/// replaced, or one past [`MAX_STEPS`]), whose rows wait for [`purge_dropped`].
const DROPPED: i64 = 2;

/// History rows removed per transaction when purging, so a purge running beside the
/// buyer's edits holds the write lock only briefly.
const PURGE_CHUNK: i64 = 2_000;

/// Removes the rows of dropped steps, a chunk per transaction, then the steps. Run from
/// the background connection; `Ok(false)` when there was nothing to remove.
pub(super) fn purge_dropped(conn: &Connection) -> Result<bool> {
    // A read first: the deletes take the write lock even when they remove nothing.
    let dropped: bool = conn.query_row(
        &format!("SELECT EXISTS (SELECT 1 FROM history_step WHERE undone = {DROPPED})"),
        [],
        |r| r.get(0),
    )?;
    if !dropped {
        return Ok(false);
    }
    let mut any = false;
    loop {
        let removed = conn.execute(
            &format!(
                "DELETE FROM history_row WHERE rowid IN (SELECT r.rowid FROM history_row r \
                 JOIN history_step s ON s.id = r.step WHERE s.undone = {DROPPED} LIMIT {PURGE_CHUNK})"
            ),
            [],
        )?;
        if removed == 0 {
            break;
        }
        any = true;
    }
    let steps = conn.execute(
        &format!("DELETE FROM history_step WHERE undone = {DROPPED}"),
        [],
    )?;
    Ok(any || steps > 0)
}

/// Statuses a change can still be edited (and so un-edited) in.
const EDITABLE: [&str; 4] = super::edit::COALESCE_INTO;

/// One recorded step, as the history lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct HistoryStep {
    /// Its number; later steps have higher ones.
    #[cfg_attr(feature = "specta", specta(type = f64))]
    pub id: i64,
    /// What the buyer did, in their words ("Edit 3 ad orders").
    pub label: String,
    /// When, in milliseconds since the epoch.
    #[cfg_attr(feature = "specta", specta(type = f64))]
    pub created_at: i64,
    /// True when it was undone and can be redone.
    pub undone: bool,
}

/// What an undo or redo did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Undone {
    /// The step undone or redone.
    pub step: HistoryStep,
    /// The entities it changed back, for views to refresh.
    pub targets: Vec<EntityRef>,
    /// It made or removed entities (undoing a paste removes its drafts), which moves the
    /// rows after them in a table.
    pub added_or_removed: bool,
}

const ENTITY_COLUMNS: &[&str] = &[
    "kind",
    "key",
    "remote_json",
    "base_hash",
    "server_json",
    "server_hash",
    "server_removed",
    "working_json",
    "parent_kind",
    "parent_key",
    "scope",
    "updated_at",
];

const OUTBOX_COLUMNS: &[&str] = &[
    "seq",
    "kind",
    "key",
    "op",
    "payload",
    "parents",
    "base",
    "errors",
    "status",
    "client_ref",
    "attempts",
    "messages",
    "created_at",
    "updated_at",
    "conflicts",
    "result",
];

/// Columns every image keeps, changed or not: the names of the row (a change's with its
/// operation, which a revert reads) and what the undo check compares.
fn always(tbl: &str) -> &'static [&'static str] {
    if tbl == "entities" {
        &["kind", "key", "base_hash", "working_json"]
    } else {
        &["kind", "key", "op", "status"]
    }
}

fn table_columns(tbl: &str) -> &'static [&'static str] {
    if tbl == "entities" {
        ENTITY_COLUMNS
    } else {
        OUTBOX_COLUMNS
    }
}

/// The temporary tables and triggers that note each row's first image in a step: a copy
/// of the old row's columns (no JSON work in the trigger), or, for a row the step
/// inserted, just its rowid. The temporary database gets a cache as large as the main
/// one's: with SQLite's default 2 MB, the old rows of a 10,000-row step spill to a
/// temporary file, written during the step and read back when it is stored.
fn triggers_sql() -> String {
    let mut sql = String::from(
        "PRAGMA temp.cache_size = -65536;\n\
         CREATE TEMP TABLE IF NOT EXISTS history_new (\
             tbl TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (tbl, rid)) WITHOUT ROWID;\n\
         DELETE FROM temp.history_new;\n",
    );
    for tbl in ["entities", "outbox"] {
        let cols = table_columns(tbl);
        let old: Vec<String> = cols.iter().map(|c| format!("OLD.{c}")).collect();
        sql.push_str(&format!(
            "CREATE TEMP TABLE IF NOT EXISTS history_{tbl} (rid INTEGER PRIMARY KEY, {cols});\n\
             DELETE FROM temp.history_{tbl};\n\
             CREATE TEMP TRIGGER IF NOT EXISTS history_{tbl}_update BEFORE UPDATE ON main.{tbl} \
             BEGIN INSERT OR IGNORE INTO history_{tbl} VALUES (OLD.rowid, {old}); END;\n\
             CREATE TEMP TRIGGER IF NOT EXISTS history_{tbl}_delete BEFORE DELETE ON main.{tbl} \
             BEGIN INSERT OR IGNORE INTO history_{tbl} VALUES (OLD.rowid, {old}); END;\n\
             CREATE TEMP TRIGGER IF NOT EXISTS history_{tbl}_insert AFTER INSERT ON main.{tbl} \
             BEGIN INSERT OR IGNORE INTO history_new VALUES ('{tbl}', NEW.rowid); END;\n",
            cols = cols.join(", "),
            old = old.join(", "),
        ));
    }
    sql
}

const DROP_TRIGGERS: &str = "\
    DROP TRIGGER IF EXISTS temp.history_entities_update;\
    DROP TRIGGER IF EXISTS temp.history_entities_delete;\
    DROP TRIGGER IF EXISTS temp.history_entities_insert;\
    DROP TRIGGER IF EXISTS temp.history_outbox_update;\
    DROP TRIGGER IF EXISTS temp.history_outbox_delete;\
    DROP TRIGGER IF EXISTS temp.history_outbox_insert;\
    DELETE FROM temp.history_entities;\
    DELETE FROM temp.history_outbox;\
    DELETE FROM temp.history_new;";

/// Starts recording the open transaction's row changes. The triggers are created inside
/// that transaction, so a rollback removes them with everything else.
pub(super) fn begin(conn: &Connection) -> Result<()> {
    conn.execute_batch(&triggers_sql())?;
    Ok(())
}

/// Columns of an image: index in the table's column list, and value.
type Columns<'v> = Vec<(u8, ValueRef<'v>)>;

/// The columns of an image of a row a step changed: those that changed and those undo
/// checks; and in the image before, the base when there was no working copy (what the
/// buyer saw, which a revert after posting needs even though the step did not change
/// it). `None` when nothing changed.
fn changed_columns<'v>(
    tbl: &str,
    before: &[ValueRef<'v>],
    after: &[ValueRef<'v>],
) -> Option<(Columns<'v>, Columns<'v>)> {
    if before == after {
        return None;
    }
    let cols = table_columns(tbl);
    let mut b = Vec::with_capacity(cols.len());
    let mut a = Vec::with_capacity(cols.len());
    for (i, col) in cols.iter().enumerate() {
        if before[i] != after[i] || always(tbl).contains(col) {
            let index = u8::try_from(i).unwrap_or(u8::MAX);
            b.push((index, before[i]));
            a.push((index, after[i]));
        }
    }
    if tbl == "entities" {
        let at = |name: &str| cols.iter().position(|c| *c == name);
        if let (Some(w), Some(r)) = (at("working_json"), at("remote_json"))
            && before[w] == ValueRef::Null
            && !b.iter().any(|(i, _)| usize::from(*i) == r)
        {
            b.push((u8::try_from(r).unwrap_or(u8::MAX), before[r]));
        }
    }
    Some((b, a))
}

/// Every column of a row the step inserted or removed.
fn all_columns<'v>(values: &[ValueRef<'v>]) -> impl Iterator<Item = (u8, ValueRef<'v>)> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| (u8::try_from(i).unwrap_or(u8::MAX), *v))
}

fn read_refs<'r>(
    r: &'r rusqlite::Row<'_>,
    from: usize,
    n: usize,
) -> rusqlite::Result<Vec<ValueRef<'r>>> {
    (from..from + n).map(|i| r.get_ref(i)).collect()
}

/// Ends recording and stores the step, unless nothing changed. `label` names it; `None`
/// names it after what it touched ("Edit 3 ad orders").
pub(super) fn finish(conn: &Connection, label: Option<&str>) -> Result<Option<i64>> {
    // Each row's image before (from the triggers' copies) and after (the table now), read
    // in one join per table rather than one look-up per row, and encoded as it is read.
    type Range = Option<std::ops::Range<usize>>;
    let mut images = Images::default();
    let mut rows: Vec<(&'static str, i64, Range, Range)> = Vec::new();
    let mut kinds: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut note_kind = |row: &[ValueRef<'_>]| {
        if label.is_none()
            && let (Some(ValueRef::Text(kind)), Some(ValueRef::Text(key))) =
                (row.first(), row.get(1))
        {
            kinds
                .entry(String::from_utf8_lossy(kind).into_owned())
                .or_default()
                .insert(String::from_utf8_lossy(key).into_owned());
        }
    };
    for tbl in ["entities", "outbox"] {
        let outbox = tbl == "outbox";
        let cols = table_columns(tbl);
        let n = cols.len();
        let list = |alias: &str| {
            cols.iter()
                .map(|c| format!("{alias}.{c}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // Rows the step inserted had no image before it.
        let mut stmt = conn.prepare(&format!(
            "SELECT n.rid, m.rowid IS NOT NULL, {} FROM temp.history_new n \
             LEFT JOIN main.{tbl} m ON m.rowid = n.rid WHERE n.tbl = '{tbl}'",
            list("m")
        ))?;
        let mut found = stmt.query([])?;
        while let Some(r) = found.next()? {
            let rid: i64 = r.get(0)?;
            // Inserted and removed again: nothing to keep.
            if !r.get::<_, bool>(1)? {
                continue;
            }
            let after = read_refs(r, 2, n)?;
            if !outbox {
                note_kind(&after);
            }
            let at = images.encode(outbox, (rid, true), all_columns(&after));
            rows.push((tbl, rid, None, Some(at)));
        }
        let mut stmt = conn.prepare(&format!(
            "SELECT h.rid, m.rowid IS NOT NULL, {}, {} FROM temp.history_{tbl} h \
             LEFT JOIN main.{tbl} m ON m.rowid = h.rid \
             WHERE h.rid NOT IN (SELECT rid FROM temp.history_new WHERE tbl = '{tbl}')",
            list("h"),
            list("m")
        ))?;
        let mut found = stmt.query([])?;
        while let Some(r) = found.next()? {
            let rid: i64 = r.get(0)?;
            let before = read_refs(r, 2, n)?;
            if !r.get::<_, bool>(1)? {
                if !outbox {
                    note_kind(&before);
                }
                let at = images.encode(outbox, (rid, false), all_columns(&before));
                rows.push((tbl, rid, Some(at), None));
                continue;
            }
            let after = read_refs(r, 2 + n, n)?;
            if !outbox {
                note_kind(&after);
            }
            let Some((b, a)) = changed_columns(tbl, &before, &after) else {
                continue;
            };
            let b = images.encode(outbox, (rid, false), b);
            let a = images.encode(outbox, (rid, true), a);
            rows.push((tbl, rid, Some(b), Some(a)));
        }
    }
    conn.execute_batch(DROP_TRIGGERS)?;
    if rows.is_empty() {
        return Ok(None);
    }
    let label = match label {
        Some(l) => l.to_owned(),
        None => describe(&kinds),
    };
    // A new step ends the redo branch. Its steps are only marked dropped here: removing
    // a large step's rows takes about as long as writing them did, and is done in the
    // background ([`purge_dropped`]).
    conn.execute(
        &format!("UPDATE history_step SET undone = {DROPPED} WHERE undone = 1"),
        [],
    )?;
    conn.execute(
        "INSERT INTO history_step (label, created_at) VALUES (?1, ?2)",
        params![label, now_ms()],
    )?;
    let step = conn.last_insert_rowid();
    {
        let mut insert = conn.prepare_cached(
            "INSERT INTO history_row (step, tbl, rid, before, after) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let bytes = |r: &Range| r.clone().map(|r| &images.bytes[r]);
        for (tbl, rid, before, after) in &rows {
            insert.execute(params![step, tbl, rid, bytes(before), bytes(after)])?;
        }
    }
    conn.execute(
        &format!("UPDATE history_step SET undone = {DROPPED} WHERE id <= ?1"),
        [step - MAX_STEPS],
    )?;
    Ok(Some(step))
}

/// "Edit ad order", "Edit 3 ad orders", "Edit 2 campaigns and 1 ad order".
fn describe(kinds: &BTreeMap<String, BTreeSet<String>>) -> String {
    let parts: Vec<String> = kinds
        .iter()
        .filter_map(|(kind, keys)| {
            let kind = kind_from_text(kind).ok()?;
            let label = kind.label();
            Some(match keys.len() {
                1 if kinds.len() == 1 => label.to_owned(),
                1 => format!("1 {label}"),
                n if kind == Kind::FlightCaps => format!("{n} {label}"),
                n => format!("{n} {label}s"),
            })
        })
        .collect();
    match parts.as_slice() {
        [] => "Edit".to_owned(),
        [one] => format!("Edit {one}"),
        [rest @ .., last] => format!("Edit {} and {last}", rest.join(", ")),
    }
}

struct StepRow {
    tbl: &'static str,
    rid: i64,
    before: Option<Image>,
    after: Option<Image>,
}

fn step_rows(conn: &Connection, step: i64) -> Result<Vec<StepRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT tbl, rid, before, after FROM history_row WHERE step = ?1 ORDER BY tbl, rid",
    )?;
    let raw: Vec<(String, i64, SqlValue, SqlValue)> = stmt
        .query_map([step], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    // Texts stored by reference: (row, side, position in its image, where the text is).
    let mut refs: Vec<(usize, bool, usize, Shared)> = Vec::new();
    let mut rows = Vec::with_capacity(raw.len());
    for (tbl, rid, b, a) in raw {
        // The name goes into SQL text: only the two tables history records.
        let tbl = match tbl.as_str() {
            "entities" => "entities",
            "outbox" => "outbox",
            other => {
                return Err(Error::Corrupt(format!(
                    "history names an unknown table {other}"
                )));
            }
        };
        let mut image = |v: SqlValue, after: bool| -> Result<Option<Image>> {
            if v == SqlValue::Null {
                return Ok(None);
            }
            let (image, shared) = decode_image(tbl, v)?;
            refs.extend(shared.into_iter().map(|(at, s)| (rows.len(), after, at, s)));
            Ok(Some(image))
        };
        let before = image(b, false)?;
        let after = image(a, true)?;
        rows.push(StepRow {
            tbl,
            rid,
            before,
            after,
        });
    }
    if !refs.is_empty() {
        let index: std::collections::HashMap<(bool, i64), usize> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.tbl == "outbox", r.rid), i))
            .collect();
        let corrupt = || Error::Corrupt("a history image refers to a text it lacks".into());
        for (row, after, at, s) in refs {
            let from = index.get(&(s.outbox, s.rid)).ok_or_else(corrupt)?;
            let source = &rows[*from];
            let image = if s.after {
                &source.after
            } else {
                &source.before
            };
            let col = table_columns(if s.outbox { "outbox" } else { "entities" })
                .get(usize::from(s.col))
                .ok_or_else(corrupt)?;
            let text = image
                .as_ref()
                .and_then(|m| m.text(col))
                .ok_or_else(corrupt)?
                .to_owned();
            let target = &mut rows[row];
            let image = if after {
                &mut target.after
            } else {
                &mut target.before
            };
            let slot = image
                .as_mut()
                .and_then(|m| m.0.get_mut(at))
                .ok_or_else(corrupt)?;
            slot.1 = SqlValue::Text(text);
        }
    }
    Ok(rows)
}

fn step_of(conn: &Connection, id: i64) -> Result<HistoryStep> {
    conn.query_row(
        &format!(
            "SELECT id, label, created_at, undone FROM history_step WHERE id = ?1 AND undone < {DROPPED}"
        ),
        [id],
        |r| {
            Ok(HistoryStep {
                id: r.get(0)?,
                label: r.get(1)?,
                created_at: r.get(2)?,
                undone: r.get(3)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("there is no step {id} in the history")))
}

/// Why the rows are no longer as `expect` has them, if they are not: `Some(true)` when a
/// change was posted (or is being posted) since, `Some(false)` for anything else. Only
/// what matters is compared: an entity's working copy and base version (a download that
/// only held a newer server version back does not count), a change's payload and whether
/// it is still editable.
fn drifted(conn: &Connection, rows: &[StepRow], expect_after: bool) -> Result<Option<bool>> {
    let mut other = false;
    let mut entity =
        conn.prepare_cached("SELECT base_hash, working_json FROM main.entities WHERE rowid = ?1")?;
    let mut change =
        conn.prepare_cached("SELECT status, payload FROM main.outbox WHERE rowid = ?1")?;
    for row in rows {
        let expect = if expect_after {
            &row.after
        } else {
            &row.before
        };
        let outbox = row.tbl == "outbox";
        let stmt = if outbox { &mut change } else { &mut entity };
        let current: Option<(SqlValue, SqlValue)> = stmt
            .query_row([row.rid], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        match (expect, current) {
            (None, None) => {}
            (None, Some(_)) => other = true,
            (Some(_), None) if outbox => return Ok(Some(true)),
            (Some(_), None) => other = true,
            (Some(e), Some((first, second))) => {
                if outbox {
                    let editable =
                        matches!(&first, SqlValue::Text(s) if EDITABLE.contains(&s.as_str()));
                    if !editable {
                        return Ok(Some(true));
                    }
                    if e.get("payload").is_some_and(|p| *p != second) {
                        other = true;
                    }
                } else {
                    if e.get("base_hash").is_some_and(|h| *h != first) {
                        return Ok(Some(true));
                    }
                    if e.get("working_json").is_some_and(|w| *w != second) {
                        other = true;
                    }
                }
            }
        }
    }
    Ok(other.then_some(false))
}

fn sql_value(v: &Value) -> SqlValue {
    match v {
        Value::Null => SqlValue::Null,
        Value::Bool(b) => SqlValue::Integer(i64::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => SqlValue::Integer(i),
            None => SqlValue::Real(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => SqlValue::Text(s.clone()),
        other => SqlValue::Text(other.to_string()),
    }
}

/// Writes `to` (one side of each row) over the current rows.
fn restore(conn: &Connection, rows: &[StepRow], to_after: bool) -> Result<()> {
    for row in rows {
        let to = if to_after { &row.after } else { &row.before };
        let Some(img) = to else {
            conn.prepare_cached(&format!("DELETE FROM main.{} WHERE rowid = ?1", row.tbl))?
                .execute([row.rid])?;
            continue;
        };
        // `seq` is the outbox's rowid.
        let cols: Vec<&(&str, SqlValue)> = img.0.iter().filter(|(c, _)| *c != "seq").collect();
        if cols.is_empty() {
            continue;
        }
        let rid = SqlValue::Integer(row.rid);
        let values = || std::iter::once(&rid).chain(cols.iter().map(|(_, v)| v));
        let sets: Vec<String> = cols
            .iter()
            .enumerate()
            .map(|(i, (c, _))| format!("{c} = ?{}", i + 2))
            .collect();
        let update = format!(
            "UPDATE main.{} SET {} WHERE rowid = ?1",
            row.tbl,
            sets.join(", ")
        );
        let changed = conn
            .prepare_cached(&update)?
            .execute(rusqlite::params_from_iter(values()))?;
        if changed == 0 {
            let names: Vec<&str> = cols.iter().map(|(c, _)| *c).collect();
            let marks: Vec<String> = (1..=names.len() + 1).map(|i| format!("?{i}")).collect();
            let insert = format!(
                "INSERT INTO main.{} (rowid, {}) VALUES ({})",
                row.tbl,
                names.join(", "),
                marks.join(", ")
            );
            conn.prepare_cached(&insert)?
                .execute(rusqlite::params_from_iter(values()))?;
        }
    }
    Ok(())
}

fn targets_of(rows: &[StepRow]) -> Vec<EntityRef> {
    let mut out = BTreeSet::new();
    for row in rows {
        for img in [&row.before, &row.after].into_iter().flatten() {
            if let (Some(kind), Some(key)) = (img.text("kind"), img.text("key"))
                && let (Ok(kind), Ok(key)) = (kind_from_text(kind), key_from_text(key))
            {
                out.insert(EntityRef::new(kind, key));
            }
        }
    }
    out.into_iter().collect()
}

impl Workspace {
    /// The recorded steps, newest first: undone ones (which redo brings back) included.
    pub fn history(&self, limit: usize) -> Result<Vec<HistoryStep>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT id, label, created_at, undone FROM history_step WHERE undone < {DROPPED} \
                 ORDER BY id DESC LIMIT ?1"
        ))?;
        let steps = stmt
            .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
                Ok(HistoryStep {
                    id: r.get(0)?,
                    label: r.get(1)?,
                    created_at: r.get(2)?,
                    undone: r.get(3)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(steps)
    }

    /// Undoes the latest step not undone; `None` when there is nothing to undo.
    ///
    /// Refused, with nothing changed, when a change of the step was posted since
    /// ([`Error::Posted`]: [`Workspace::revert`] is the way back) or a download changed
    /// what it edited.
    pub fn undo(&mut self) -> Result<Option<Undone>> {
        self.step_back_or_forth(true)
    }

    /// Redoes the earliest undone step; `None` when there is nothing to redo.
    pub fn redo(&mut self) -> Result<Option<Undone>> {
        self.step_back_or_forth(false)
    }

    fn step_back_or_forth(&mut self, undo: bool) -> Result<Option<Undone>> {
        let tx = self.conn.transaction()?;
        let id: Option<i64> = tx
            .query_row(
                if undo {
                    "SELECT max(id) FROM history_step WHERE undone = 0"
                } else {
                    "SELECT min(id) FROM history_step WHERE undone = 1"
                },
                [],
                |r| r.get(0),
            )
            .optional()?
            .flatten();
        let Some(id) = id else {
            return Ok(None);
        };
        let step = step_of(&tx, id)?;
        let rows = step_rows(&tx, id)?;
        match drifted(&tx, &rows, undo)? {
            Some(true) if undo => {
                return Err(Error::Posted {
                    step: id,
                    label: step.label,
                });
            }
            Some(_) => {
                return Err(Error::Invalid(format!(
                    "“{}” cannot be {} here: what it changed was changed since by a download or a post",
                    step.label,
                    if undo { "undone" } else { "redone" }
                )));
            }
            None => {}
        }
        restore(&tx, &rows, !undo)?;
        tx.execute(
            "UPDATE history_step SET undone = ?2 WHERE id = ?1",
            params![id, undo],
        )?;
        tx.commit()?;
        if let Some(c) = &self.upkeep {
            c.nudge();
        }
        Ok(Some(Undone {
            step: HistoryStep {
                undone: undo,
                ..step
            },
            targets: targets_of(&rows),
            added_or_removed: rows
                .iter()
                .any(|r| r.tbl == "entities" && (r.before.is_none() || r.after.is_none())),
        }))
    }

    /// The changes of operation `op` (outbox text) a step queued, edited or removed, for
    /// a revert ([`super::status`]): each one's entity with its payload before and after
    /// the step (`None`: not there then). Changes whose payload the step left as it was,
    /// and those of entities the step created (as [`Workspace::values_before`] leaves the
    /// entities), are left out.
    pub(super) fn payloads_of(&self, id: i64, op: &str) -> Result<Vec<ChangeImages>> {
        step_of(&self.conn, id)?;
        let rows = step_rows(&self.conn, id)?;
        let created: BTreeSet<(&str, &str)> = rows
            .iter()
            .filter(|r| r.tbl == "entities" && r.before.is_none())
            .filter_map(|r| r.after.as_ref())
            .filter_map(|a| Some((a.text("kind")?, a.text("key")?)))
            .collect();
        let mut out = Vec::new();
        for row in rows.iter().filter(|r| r.tbl == "outbox") {
            let images = [&row.before, &row.after];
            let name = |col: &str| images.iter().find_map(|i| i.as_ref()?.text(col));
            let (Some(kind), Some(key)) = (name("kind"), name("key")) else {
                continue;
            };
            // Steps recorded before images kept the operation: the change's own row.
            let row_op = match name("op") {
                Some(o) => Some(o.to_owned()),
                None => self
                    .conn
                    .query_row("SELECT op FROM outbox WHERE seq = ?1", [row.rid], |r| {
                        r.get(0)
                    })
                    .optional()?,
            };
            let payload = |i: &Option<Image>| i.as_ref()?.text("payload").map(str::to_owned);
            let kept = row.after.is_some() && payload(&row.after).is_none();
            if row_op.as_deref() != Some(op) || kept || created.contains(&(kind, key)) {
                continue;
            }
            out.push(ChangeImages {
                target: EntityRef::new(kind_from_text(kind)?, key_from_text(key)?),
                before: payload(&row.before),
                after: payload(&row.after),
            });
        }
        Ok(out)
    }

    /// The working copies a step started from, for a new edit that puts them back
    /// ([`Workspace::revert`]): entities the step created have none and are left out.
    pub(crate) fn values_before(&self, id: i64) -> Result<Vec<(EntityRef, Value)>> {
        step_of(&self.conn, id)?;
        let mut out = Vec::new();
        for row in step_rows(&self.conn, id)? {
            if row.tbl != "entities" {
                continue;
            }
            let Some(before) = &row.before else { continue };
            // No working copy: the buyer saw the base.
            let text = before
                .text("working_json")
                .or_else(|| before.text("remote_json"));
            let (Some(text), Some(kind), Some(key)) =
                (text, before.text("kind"), before.text("key"))
            else {
                continue;
            };
            let target = EntityRef::new(kind_from_text(kind)?, key_from_text(key)?);
            out.push((target, super::parse_json(text)?));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
