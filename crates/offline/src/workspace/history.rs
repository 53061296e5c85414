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

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Workspace, key_from_text, kind_from_text, now_ms};
use crate::change::{EntityRef, Kind};
use crate::{Error, Result};

/// Steps kept; older ones are dropped as new ones come.
const MAX_STEPS: i64 = 200;

/// Statuses a change can still be edited (and so un-edited) in; see `COALESCE_INTO`.
const EDITABLE: [&str; 4] = ["pending", "invalid", "failed", "blocked"];

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

/// Columns every image keeps, changed or not: the names of the row and what the undo
/// check compares.
fn always(tbl: &str) -> &'static [&'static str] {
    if tbl == "entities" {
        &["kind", "key", "base_hash", "working_json"]
    } else {
        &["kind", "key", "status"]
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
/// inserted, just its rowid.
fn triggers_sql() -> String {
    let mut sql = String::from(
        "CREATE TEMP TABLE IF NOT EXISTS history_new (\
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

type Image = Map<String, Value>;

/// A row's column values, in the table's column order.
type Row = Vec<SqlValue>;

fn read_row(r: &rusqlite::Row<'_>, from: usize, n: usize) -> rusqlite::Result<Row> {
    (from..from + n).map(|i| r.get::<_, SqlValue>(i)).collect()
}

fn current_row(conn: &Connection, tbl: &str, rid: i64) -> Result<Option<Row>> {
    let cols = table_columns(tbl);
    let sql = format!(
        "SELECT {} FROM main.{tbl} WHERE rowid = ?1",
        cols.join(", ")
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_row([rid], |r| read_row(r, 0, cols.len()))
        .optional()?)
}

fn json_value(v: &SqlValue) -> Value {
    match v {
        SqlValue::Null => Value::Null,
        SqlValue::Integer(i) => Value::from(*i),
        SqlValue::Real(f) => Value::from(*f),
        SqlValue::Text(t) => Value::String(t.clone()),
        SqlValue::Blob(b) => Value::String(String::from_utf8_lossy(b).into_owned()),
    }
}

fn parse_image(text: &str) -> Result<Image> {
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(Error::Corrupt("a history image is not an object".into())),
    }
}

fn whole(tbl: &str, row: &Row) -> Image {
    table_columns(tbl)
        .iter()
        .zip(row)
        .map(|(c, v)| ((*c).to_owned(), json_value(v)))
        .collect()
}

/// Keeps what undo needs of a changed row: the columns that changed and those it checks;
/// the whole row where the step created or removed it. `None` when nothing changed.
fn trim(
    tbl: &str,
    before: Option<Row>,
    after: Option<Row>,
) -> Option<(Option<Image>, Option<Image>)> {
    match (before, after) {
        (Some(b), Some(a)) => {
            if b == a {
                return None;
            }
            let cols = table_columns(tbl);
            let keep = |i: usize| b[i] != a[i] || always(tbl).contains(&cols[i]);
            let mut before = Image::new();
            let mut after = Image::new();
            for (i, col) in cols.iter().enumerate() {
                if keep(i) {
                    before.insert((*col).to_owned(), json_value(&b[i]));
                    after.insert((*col).to_owned(), json_value(&a[i]));
                }
            }
            // What the buyer saw before is the base when there was no working copy; a
            // revert after posting needs it even though the step did not change it.
            if tbl == "entities"
                && before.get("working_json").is_none_or(Value::is_null)
                && let Some(i) = cols.iter().position(|c| *c == "remote_json")
            {
                before.insert("remote_json".into(), json_value(&b[i]));
            }
            Some((Some(before), Some(after)))
        }
        (None, None) => None,
        (b, a) => Some((b.map(|r| whole(tbl, &r)), a.map(|r| whole(tbl, &r)))),
    }
}

/// Ends recording and stores the step, unless nothing changed. `label` names it; `None`
/// names it after what it touched ("Edit 3 ad orders").
pub(super) fn finish(conn: &Connection, label: Option<&str>) -> Result<Option<i64>> {
    let mut touched: Vec<(&'static str, i64, Option<Row>)> = Vec::new();
    {
        let mut stmt = conn.prepare_cached("SELECT tbl, rid FROM temp.history_new")?;
        let new: Vec<(String, i64)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (tbl, rid) in new {
            touched.push((
                if tbl == "entities" {
                    "entities"
                } else {
                    "outbox"
                },
                rid,
                None,
            ));
        }
    }
    let created: BTreeSet<(&str, i64)> = touched.iter().map(|(t, r, _)| (*t, *r)).collect();
    for tbl in ["entities", "outbox"] {
        let n = table_columns(tbl).len();
        let mut stmt = conn.prepare(&format!("SELECT * FROM temp.history_{tbl}"))?;
        let rows: Vec<(i64, Row)> = stmt
            .query_map([], |r| Ok((r.get(0)?, read_row(r, 1, n)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (rid, before) in rows {
            // A row this step inserted had no image before it.
            if !created.contains(&(tbl, rid)) {
                touched.push((tbl, rid, Some(before)));
            }
        }
    }
    conn.execute_batch(DROP_TRIGGERS)?;
    let mut rows = Vec::with_capacity(touched.len());
    let mut kinds: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (tbl, rid, before) in touched {
        let after = current_row(conn, tbl, rid)?;
        if tbl == "entities"
            && let Some(r) = after.as_ref().or(before.as_ref())
            && let (SqlValue::Text(kind), SqlValue::Text(key)) = (&r[0], &r[1])
        {
            kinds.entry(kind.clone()).or_default().insert(key.clone());
        }
        if let Some((b, a)) = trim(tbl, before, after) {
            rows.push((tbl, rid, b, a));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let label = match label {
        Some(l) => l.to_owned(),
        None => describe(&kinds),
    };
    // A new step ends the redo branch.
    conn.execute(
        "DELETE FROM history_row WHERE step IN (SELECT id FROM history_step WHERE undone = 1)",
        [],
    )?;
    conn.execute("DELETE FROM history_step WHERE undone = 1", [])?;
    conn.execute(
        "INSERT INTO history_step (label, created_at) VALUES (?1, ?2)",
        params![label, now_ms()],
    )?;
    let step = conn.last_insert_rowid();
    {
        let mut insert = conn.prepare_cached(
            "INSERT INTO history_row (step, tbl, rid, before, after) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (tbl, rid, before, after) in rows {
            let text = |m: Option<Image>| m.map(|m| Value::Object(m).to_string());
            insert.execute(params![step, tbl, rid, text(before), text(after)])?;
        }
    }
    conn.execute(
        "DELETE FROM history_row WHERE step <= ?1",
        [step - MAX_STEPS],
    )?;
    conn.execute(
        "DELETE FROM history_step WHERE id <= ?1",
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
    tbl: String,
    rid: i64,
    before: Option<Image>,
    after: Option<Image>,
}

fn step_rows(conn: &Connection, step: i64) -> Result<Vec<StepRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT tbl, rid, before, after FROM history_row WHERE step = ?1 ORDER BY tbl, rid",
    )?;
    let raw: Vec<(String, i64, Option<String>, Option<String>)> = stmt
        .query_map([step], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    raw.into_iter()
        .map(|(tbl, rid, b, a)| {
            // The name goes into SQL text: only the two tables history records.
            if tbl != "entities" && tbl != "outbox" {
                return Err(Error::Corrupt(format!(
                    "history names an unknown table {tbl}"
                )));
            }
            Ok(StepRow {
                tbl,
                rid,
                before: b.as_deref().map(parse_image).transpose()?,
                after: a.as_deref().map(parse_image).transpose()?,
            })
        })
        .collect()
}

fn step_of(conn: &Connection, id: i64) -> Result<HistoryStep> {
    conn.query_row(
        "SELECT id, label, created_at, undone FROM history_step WHERE id = ?1",
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
        let current: Option<(Value, Value)> = stmt
            .query_row([row.rid], |r| {
                Ok((
                    json_value(&r.get::<_, SqlValue>(0)?),
                    json_value(&r.get::<_, SqlValue>(1)?),
                ))
            })
            .optional()?;
        match (expect, current) {
            (None, None) => {}
            (None, Some(_)) => other = true,
            (Some(_), None) if outbox => return Ok(Some(true)),
            (Some(_), None) => other = true,
            (Some(e), Some((first, second))) => {
                if outbox {
                    if !first.as_str().is_some_and(|s| EDITABLE.contains(&s)) {
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
        let cols = table_columns(&row.tbl);
        let to = if to_after { &row.after } else { &row.before };
        let exists = conn
            .prepare_cached(&format!("SELECT 1 FROM main.{} WHERE rowid = ?1", row.tbl))?
            .exists([row.rid])?;
        match (to, exists) {
            (None, true) => {
                conn.execute(
                    &format!("DELETE FROM main.{} WHERE rowid = ?1", row.tbl),
                    [row.rid],
                )?;
            }
            (None, false) => {}
            (Some(img), false) => {
                let names: Vec<&str> = cols
                    .iter()
                    .copied()
                    .filter(|c| *c != "seq" && img.contains_key(*c))
                    .collect();
                let marks: Vec<String> = (1..=names.len() + 1).map(|i| format!("?{i}")).collect();
                let sql = format!(
                    "INSERT INTO main.{} (rowid, {}) VALUES ({})",
                    row.tbl,
                    names.join(", "),
                    marks.join(", ")
                );
                let mut values = vec![SqlValue::Integer(row.rid)];
                values.extend(names.iter().map(|c| sql_value(&img[*c])));
                conn.prepare_cached(&sql)?
                    .execute(rusqlite::params_from_iter(values))?;
            }
            (Some(img), true) => {
                let names: Vec<&str> = cols
                    .iter()
                    .copied()
                    .filter(|c| *c != "seq" && img.contains_key(*c))
                    .collect();
                if names.is_empty() {
                    continue;
                }
                let sets: Vec<String> = names
                    .iter()
                    .enumerate()
                    .map(|(i, c)| format!("{c} = ?{}", i + 2))
                    .collect();
                let sql = format!(
                    "UPDATE main.{} SET {} WHERE rowid = ?1",
                    row.tbl,
                    sets.join(", ")
                );
                let mut values = vec![SqlValue::Integer(row.rid)];
                values.extend(names.iter().map(|c| sql_value(&img[*c])));
                conn.prepare_cached(&sql)?
                    .execute(rusqlite::params_from_iter(values))?;
            }
        }
    }
    Ok(())
}

fn targets_of(rows: &[StepRow]) -> Vec<EntityRef> {
    let mut out = BTreeSet::new();
    for row in rows {
        for img in [&row.before, &row.after].into_iter().flatten() {
            if let (Some(Value::String(kind)), Some(Value::String(key))) =
                (img.get("kind"), img.get("key"))
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
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, label, created_at, undone FROM history_step ORDER BY id DESC LIMIT ?1",
        )?;
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
        Ok(Some(Undone {
            step: HistoryStep {
                undone: undo,
                ..step
            },
            targets: targets_of(&rows),
        }))
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
            let text = [before.get("working_json"), before.get("remote_json")]
                .into_iter()
                .flatten()
                .find_map(Value::as_str);
            let (Some(text), Some(Value::String(kind)), Some(Value::String(key))) =
                (text, before.get("kind"), before.get("key"))
            else {
                continue;
            };
            let target = EntityRef::new(kind_from_text(kind)?, key_from_text(key)?);
            out.push((target, super::parse_json(text)?));
        }
        Ok(out)
    }
}
