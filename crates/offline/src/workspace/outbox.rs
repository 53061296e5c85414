//! Pending changes: listing with diffs, discarding and "Check changes". What posting
//! records about them is in `outcome.rs`.

use std::collections::{BTreeSet, HashSet};

use flightdeck_model::{FieldError, MessageLevel, SiteList, TimezoneName};
use rusqlite::{OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::edit::{apply_site_op, status_for};
use super::validate::{Checker, Payload, Timezones, With, needs_timezone, needs_workspace};
use super::{
    Workspace, canonical, key_from_text, key_text, kind_from_text, now_ms, op_from_text,
    parse_json, status_from_text, status_text, to_json, to_value,
};
use crate::change::{ChangeStatus, EntityRef, Key, Kind, Op, ParentRef, PendingChange};
use crate::diff::{self, FieldDiff};
use crate::merge::FieldConflict;
use crate::{Error, Result};

/// A pending change without its payload ([`Workspace::pending_refs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRef {
    /// Outbox order.
    pub seq: i64,
    /// The entity it changes.
    pub target: EntityRef,
    /// What posting does.
    pub op: Op,
    /// Where it stands.
    pub status: ChangeStatus,
}

/// A message from the service about a change's last attempt, kept for the buyer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChangeMessage {
    /// `INFO`, `WARNING` or `ERROR` (or a level the service added).
    pub level: MessageLevel,
    /// Machine-readable code; may be empty.
    pub code: String,
    /// The text.
    pub message: String,
    /// The wire path it names, if any.
    pub field: Option<String>,
}

impl From<&flightdeck_client::ServerMessage> for ChangeMessage {
    fn from(m: &flightdeck_client::ServerMessage) -> Self {
        ChangeMessage {
            level: m.level.clone(),
            code: m.code.clone(),
            message: m.message.clone(),
            field: m.field.clone(),
        }
    }
}

const CHANGE_SELECT: &str =
    "SELECT seq, kind, key, op, payload, parents, base, errors, status, client_ref FROM outbox";

type RawChange = (
    i64,
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    String,
    String,
    Option<String>,
);

/// A row of [`CHANGE_SELECT`], column by column (rusqlite reads a tuple in order).
fn raw_change(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawChange> {
    RawChange::try_from(r)
}

/// One change (applied ones included), or `None`, read inside a transaction as well as
/// outside one: the one mapping from an outbox row that listing and resolving share.
pub(super) fn change_in(conn: &rusqlite::Connection, seq: i64) -> Result<Option<PendingChange>> {
    let raw = conn
        .query_row(
            &format!("{CHANGE_SELECT} WHERE seq = ?1"),
            [seq],
            raw_change,
        )
        .optional()?;
    raw.map(into_change).transpose()
}

fn into_change(raw: RawChange) -> Result<PendingChange> {
    let (seq, kind, key, op, payload, parents, base, errors, status, client_ref) = raw;
    Ok(PendingChange {
        seq,
        target: EntityRef::new(kind_from_text(&kind)?, key_from_text(&key)?),
        op: op_from_text(&op)?,
        parents: parse_json(&parents)?,
        payload: parse_json(&payload)?,
        base: base.as_deref().map(parse_json).transpose()?,
        errors: parse_json(&errors)?,
        status: status_from_text(&status)?,
        client_ref,
    })
}

impl Workspace {
    /// Every change not applied yet, in outbox order.
    pub fn pending(&self) -> Result<Vec<PendingChange>> {
        let mut stmt = self.conn.prepare(&format!(
            "{CHANGE_SELECT} WHERE status <> 'applied' ORDER BY seq"
        ))?;
        let rows = stmt.query_map([], raw_change)?;
        let mut out = Vec::new();
        for row in rows {
            out.push(into_change(row?)?);
        }
        Ok(out)
    }

    /// Every change not applied yet, in outbox order, without its payload: what a window
    /// of the pending-changes table is cut from. Only the window's rows are read in full
    /// ([`Workspace::change`]).
    pub fn pending_refs(&self) -> Result<Vec<PendingRef>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, kind, key, op, status FROM outbox WHERE status <> 'applied' ORDER BY seq",
        )?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let kind = kind_from_text(&r.get::<_, String>(1)?)?;
            out.push(PendingRef {
                seq: r.get(0)?,
                target: EntityRef::new(kind, key_from_text(&r.get::<_, String>(2)?)?),
                op: op_from_text(&r.get::<_, String>(3)?)?,
                status: status_from_text(&r.get::<_, String>(4)?)?,
            });
        }
        Ok(out)
    }

    /// How many changes are not applied yet, without reading them (the status bar asks
    /// often, and there may be 100,000).
    pub fn pending_count(&self) -> Result<usize> {
        let n: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM outbox WHERE status <> 'applied'",
            [],
            |r| r.get(0),
        )?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// One change (applied ones included), or `None`.
    pub fn change(&self, seq: i64) -> Result<Option<PendingChange>> {
        change_in(&self.conn, seq)
    }

    /// The latest change of `target` not applied yet: what an edit just saved, with the
    /// rules it breaks. One look-up in the outbox's `(kind, key, status)` index.
    pub fn latest_change(&self, target: &EntityRef) -> Result<Option<PendingChange>> {
        let raw = self
            .conn
            .query_row(
                &format!(
                    "{CHANGE_SELECT} WHERE kind = ?1 AND key = ?2 AND status <> 'applied' \
                     ORDER BY seq DESC LIMIT 1"
                ),
                params![target.kind.name(), key_text(&target.key)],
                raw_change,
            )
            .optional()?;
        raw.map(into_change).transpose()
    }

    /// The service's messages about a change's last attempt.
    pub fn change_messages(&self, seq: i64) -> Result<Vec<ChangeMessage>> {
        let text: String = self
            .conn
            .query_row("SELECT messages FROM outbox WHERE seq = ?1", [seq], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| no_change(seq))?;
        parse_json(&text)
    }

    /// The fields a change in conflict collides on, with base, mine and theirs each (see
    /// [`Workspace::mark_conflict`]); empty for a change in any other status.
    pub fn conflicts(&self, seq: i64) -> Result<Vec<FieldConflict>> {
        let text: Option<String> = self
            .conn
            .query_row("SELECT conflicts FROM outbox WHERE seq = ?1", [seq], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| no_change(seq))?;
        text.as_deref().map_or_else(|| Ok(Vec::new()), parse_json)
    }

    /// Field-by-field differences of a change against the server version it started from
    /// (every field for creates, site-list operations and uploads).
    pub fn pending_diff(&self, seq: i64) -> Result<Vec<FieldDiff>> {
        let change = self.change(seq)?.ok_or_else(|| no_change(seq))?;
        if change.op == Op::SetStatus {
            // The status as the service last answered it, to the one set: in words.
            return super::status::status_diff(self, &change.target, &change.payload);
        }
        Ok(diff::fields(change.base.as_ref(), &change.payload))
    }

    /// Discards one change. See [`Workspace::discard_many`].
    pub fn discard(&mut self, seq: i64) -> Result<Vec<i64>> {
        self.discard_many(&[seq])
    }

    /// Discards changes in one transaction and returns every `seq` that went. Discarding
    /// a draft's create also discards the changes that depend on the draft (its children,
    /// their children, their uploads); the working copies of the entities touched go back
    /// to the base with the remaining changes replayed, or, when none remain, to the
    /// newest server version a refresh held back. A change being sent cannot be discarded:
    /// its outcome is not known yet.
    pub fn discard_many(&mut self, seqs: &[i64]) -> Result<Vec<i64>> {
        let tx = self.conn.transaction()?;
        super::history::begin(&tx)?;
        let mut gone: BTreeSet<i64> = BTreeSet::new();
        let mut queue: Vec<i64> = seqs.to_vec();
        let mut touched: BTreeSet<(String, String)> = BTreeSet::new();
        let mut drafts_done: HashSet<(String, String)> = HashSet::new();
        while let Some(seq) = queue.pop() {
            if gone.contains(&seq) {
                continue;
            }
            let row: Option<(String, String, String, String)> = tx
                .query_row(
                    "SELECT kind, key, op, status FROM outbox WHERE seq = ?1",
                    [seq],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )
                .optional()?;
            let Some((kind, key, op, status)) = row else {
                return Err(no_change(seq));
            };
            match status.as_str() {
                "applied" => continue,
                "sending" => {
                    return Err(Error::Invalid(format!(
                        "change {seq} is being sent; wait for its outcome before discarding it"
                    )));
                }
                _ => {}
            }
            gone.insert(seq);
            touched.insert((kind.clone(), key.clone()));
            if op == "create"
                && key.starts_with("local:")
                && drafts_done.insert((kind.clone(), key.clone()))
            {
                queue.extend(dependents(&tx, &kind, &key)?);
            }
        }
        for seq in &gone {
            tx.execute("DELETE FROM outbox WHERE seq = ?1", [seq])?;
        }
        for (kind, key) in &touched {
            replay_working(&tx, kind, key)?;
        }
        let label = match gone.len() {
            1 => "Discard a change".to_owned(),
            n => format!("Discard {n} changes"),
        };
        super::history::finish(&tx, Some(&label))?;
        tx.commit()?;
        Ok(gone.into_iter().collect())
    }

    /// "Check changes": validates every change not applied and not being sent against
    /// flightdeck-model's rules, stores the result (status `invalid` or `pending`), and
    /// returns the changes that break rules with their errors. One transaction; rows whose
    /// result did not change are not written.
    pub fn check(&mut self) -> Result<Vec<(i64, Vec<FieldError>)>> {
        let tx = self.conn.transaction()?;
        let checked = check_all(&tx)?;
        let mut broken = Vec::new();
        {
            let mut stmt = tx.prepare(
                "UPDATE outbox SET errors = ?2, status = ?3, updated_at = ?4 WHERE seq = ?1",
            )?;
            let now = now_ms();
            for (row, errors) in checked {
                // A failed or blocked change that is now invalid needs the buyer's fix
                // first; conflict and needs-review wait for the buyer anyway.
                let status = match row.status {
                    ChangeStatus::Pending | ChangeStatus::Invalid => status_for(&errors),
                    ChangeStatus::Failed | ChangeStatus::Blocked if !errors.is_empty() => {
                        ChangeStatus::Invalid
                    }
                    other => other,
                };
                // Stored errors were written by the same encoder, so text equality is
                // value equality.
                let errors_text = if errors.is_empty() {
                    "[]".to_owned()
                } else {
                    to_json(&errors)?
                };
                if errors_text != row.errors || status != row.status {
                    stmt.execute(params![row.seq, errors_text, status_text(status), now])?;
                }
                if !errors.is_empty() {
                    broken.push((row.seq, errors));
                }
            }
        }
        tx.commit()?;
        Ok(broken)
    }
}

/// A text column borrowed from the row, without copying it.
pub(super) fn text<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> Result<&'r str> {
    r.get_ref(i)?
        .as_str()
        .map_err(|e| Error::Corrupt(format!("outbox column {i}: {e}")))
}

/// One change as "Check changes" reads it.
struct CheckRow {
    seq: i64,
    /// The timezone of its advertiser, for kinds whose messages carry dates.
    tz: Option<TimezoneName>,
    /// The server version it started from, for kinds checked as their request body.
    base: Option<String>,
    kind: Kind,
    key: Key,
    op: Op,
    payload: String,
    parents: Vec<ParentRef>,
    errors: String,
    status: ChangeStatus,
}

impl CheckRow {
    fn with(&self) -> With<'_> {
        With {
            tz: self.tz.as_ref(),
            base: self.base.as_deref().map(Payload::Text),
        }
    }
}

/// Reads every open change and validates it. Reading (this thread) and validating
/// (worker threads, fed in chunks) overlap; rows that need lookups in the workspace are
/// validated here after the read. Results come back in `seq` order.
fn check_all(tx: &Transaction<'_>) -> Result<Vec<(CheckRow, Vec<FieldError>)>> {
    const CHUNK: usize = 2048;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (send, receive) = std::sync::mpsc::sync_channel::<Vec<CheckRow>>(threads * 4);
    let receive = std::sync::Mutex::new(receive);
    let checked = std::thread::scope(|s| -> Result<Vec<(CheckRow, Vec<FieldError>)>> {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let receive = &receive;
                s.spawn(move || -> Result<Vec<(CheckRow, Vec<FieldError>)>> {
                    let mut checker = Checker::detached();
                    let mut out = Vec::new();
                    let mut failed = None;
                    loop {
                        let chunk = match receive.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => break,
                        };
                        let Ok(chunk) = chunk else { break };
                        // After an error keep draining, so the reader never blocks.
                        if failed.is_some() {
                            continue;
                        }
                        for r in chunk {
                            let p = Payload::Text(&r.payload);
                            match checker.check(r.kind, &r.key, r.op, p, &r.parents, r.with()) {
                                Ok(errors) => out.push((r, errors)),
                                Err(e) => {
                                    failed = Some(e);
                                    break;
                                }
                            }
                        }
                    }
                    failed.map_or(Ok(out), Err)
                })
            })
            .collect();

        let mut local: Vec<CheckRow> = Vec::new();
        let mut timezones = Timezones::default();
        let read = (|| -> Result<()> {
            let mut stmt = tx.prepare(
                "SELECT o.seq, o.kind, o.key, o.op, o.payload, o.parents, o.errors, o.status, \
                 e.parent_kind, e.parent_key, e.scope, o.base FROM outbox o \
                 LEFT JOIN entities e ON e.kind = o.kind AND e.key = o.key \
                 WHERE o.status NOT IN ('applied', 'sending') ORDER BY o.seq",
            )?;
            let mut rows = stmt.query([])?;
            let mut chunk = Vec::with_capacity(CHUNK);
            while let Some(r) = rows.next()? {
                let parents = text(r, 5)?;
                let kind = kind_from_text(text(r, 1)?)?;
                let tz = if needs_timezone(kind) {
                    // The parent's advertiser, cached per advertiser.
                    let parent_kind: Option<String> = r.get(8)?;
                    let parent_key: Option<String> = r.get(9)?;
                    let scope: Option<i64> = r.get(10)?;
                    match (parent_kind, parent_key, scope) {
                        (Some(pk), Some(pkey), _) => {
                            timezones.of(tx, kind_from_text(&pk)?, &key_from_text(&pkey)?)?
                        }
                        (_, _, Some(scope)) => {
                            timezones.of_advertiser(tx, &key_text(&Key::Id(scope)))?
                        }
                        _ => None,
                    }
                } else {
                    None
                };
                let row = CheckRow {
                    seq: r.get(0)?,
                    tz,
                    // Only campaigns and ad orders use it (the others' bases stay unread).
                    base: if needs_timezone(kind) {
                        r.get(11)?
                    } else {
                        None
                    },
                    kind,
                    key: key_from_text(text(r, 2)?)?,
                    op: op_from_text(text(r, 3)?)?,
                    payload: r.get(4)?,
                    parents: if parents == "[]" {
                        Vec::new()
                    } else {
                        parse_json(parents)?
                    },
                    errors: r.get(6)?,
                    status: status_from_text(text(r, 7)?)?,
                };
                if needs_workspace(row.kind, row.op) {
                    local.push(row);
                    continue;
                }
                chunk.push(row);
                if chunk.len() == CHUNK {
                    let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
                    if send.send(full).is_err() {
                        break;
                    }
                }
            }
            if !chunk.is_empty() {
                let _ = send.send(chunk);
            }
            Ok(())
        })();
        drop(send);
        let mut out = Vec::new();
        let mut failed = read.err();
        for w in workers {
            match w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)) {
                Ok(mut part) => out.append(&mut part),
                Err(e) => failed = failed.or(Some(e)),
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
        let mut checker = Checker::new(tx);
        for r in local {
            let errors = checker.check(
                r.kind,
                &r.key,
                r.op,
                Payload::Text(&r.payload),
                &r.parents,
                r.with(),
            )?;
            out.push((r, errors));
        }
        Ok(out)
    })?;
    let mut checked = checked;
    checked.sort_unstable_by_key(|(r, _)| r.seq);
    Ok(checked)
}

pub(super) fn no_change(seq: i64) -> Error {
    Error::NotFound(format!("change {seq} is not in the workspace"))
}

/// Changes that cannot stand without the draft `(kind, key)`: every other change of the
/// draft and every change whose parent references name it.
fn dependents(tx: &Transaction<'_>, kind: &str, key: &str) -> Result<Vec<i64>> {
    let mut out: Vec<i64> = Vec::new();
    let mut own = tx.prepare_cached(
        "SELECT seq FROM outbox WHERE key = ?2 AND status <> 'applied' \
         AND (kind = ?1 OR (?1 = 'ad_order' AND kind = 'flight_caps'))",
    )?;
    for seq in own.query_map(params![kind, key], |r| r.get(0))? {
        out.push(seq?);
    }
    let target = EntityRef::new(kind_from_text(kind)?, key_from_text(key)?);
    for (seq, parents) in referencing(tx, key)? {
        if parents.iter().any(|p| p.target == target) {
            out.push(seq);
        }
    }
    Ok(out)
}

/// Open changes whose parent references mention `key` (a local key is random, so the
/// text search is exact enough; callers compare the parsed targets).
pub(super) fn referencing(tx: &Transaction<'_>, key: &str) -> Result<Vec<(i64, Vec<ParentRef>)>> {
    let needle = key.strip_prefix("local:").unwrap_or(key);
    let mut stmt = tx.prepare_cached(
        "SELECT seq, parents FROM outbox WHERE status <> 'applied' AND parents <> '[]' \
         AND instr(parents, ?1) > 0",
    )?;
    let rows = stmt.query_map([needle], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (seq, text) = row?;
        out.push((seq, parse_json(&text)?));
    }
    Ok(out)
}

/// Rebuilds an entity's working copy from its base and its remaining changes. A draft
/// with no change left is removed; an entity with none left adopts the server version a
/// refresh held back, if any.
pub(super) fn replay_working(tx: &Transaction<'_>, kind: &str, key: &str) -> Result<()> {
    /// `remote_json, server_json, server_hash, server_removed`.
    type Stored = (Option<String>, Option<String>, Option<String>, bool);
    let row: Option<Stored> = tx
        .query_row(
            "SELECT remote_json, server_json, server_hash, server_removed FROM entities \
             WHERE kind = ?1 AND key = ?2",
            params![kind, key],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let Some((remote, server, server_hash, removed)) = row else {
        return Ok(());
    };
    let mut stmt = tx.prepare_cached(
        "SELECT op, payload FROM outbox WHERE kind = ?1 AND key = ?2 AND status <> 'applied' \
         ORDER BY seq",
    )?;
    let changes: Vec<(String, String)> = stmt
        .query_map(params![kind, key], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let now = now_ms();
    if changes.is_empty() {
        if remote.is_none() || removed {
            tx.execute(
                "DELETE FROM entities WHERE kind = ?1 AND key = ?2",
                params![kind, key],
            )?;
        } else if let (Some(server), Some(hash)) = (server, server_hash) {
            tx.execute(
                "UPDATE entities SET remote_json = ?3, base_hash = ?4, working_json = NULL, \
                 server_json = NULL, server_hash = NULL, updated_at = ?5 WHERE kind = ?1 AND key = ?2",
                params![kind, key, server, hash, now],
            )?;
        } else {
            tx.execute(
                "UPDATE entities SET working_json = NULL, updated_at = ?3 \
                 WHERE kind = ?1 AND key = ?2",
                params![kind, key, now],
            )?;
        }
        return Ok(());
    }
    let mut working: Value = match &remote {
        Some(text) => parse_json(text)?,
        None => Value::Null,
    };
    for (op, payload) in changes {
        match op_from_text(&op)? {
            Op::Create | Op::Update => working = parse_json(&payload)?,
            op @ (Op::SiteListAppend | Op::SiteListOverwrite | Op::SiteListRemoveSites) => {
                let mut list: SiteList = if working.is_null() {
                    SiteList::default()
                } else {
                    serde_json::from_value(working.clone())
                        .map_err(|e| Error::Corrupt(format!("stored site list: {e}")))?
                };
                let body: SiteList = parse_json(&payload)?;
                apply_site_op(&mut list, op, &body);
                working = to_value(&list)?;
            }
            Op::AudienceData | Op::SetStatus => {}
        }
    }
    if working.is_null() {
        // Only uploads or list operations left of a discarded draft: nothing to show.
        return Ok(());
    }
    tx.execute(
        "UPDATE entities SET working_json = ?3, updated_at = ?4 WHERE kind = ?1 AND key = ?2",
        params![kind, key, canonical(&working)?, now],
    )?;
    Ok(())
}
