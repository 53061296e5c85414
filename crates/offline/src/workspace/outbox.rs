//! Pending changes: listing with diffs, discarding, "Check changes", and the hooks the
//! posting executor drives.

use std::collections::{BTreeSet, HashSet};

use flightdeck_model::{FieldError, MessageLevel, SiteList, TimezoneName};
use rusqlite::{OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::edit::{apply_site_op, fill_parents, numeric_id, set_pointer, status_for};
use super::validate::{Checker, Payload, Timezones, With, needs_timezone, needs_workspace};
use super::{
    Workspace, canonical, hash_text, key_from_text, key_text, kind_from_text, now_ms, op_from_text,
    op_text, parse_json, status_from_text, status_text, to_json, to_value,
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

/// The buyer's verdict on a change that needs review: its request left, the answer was
/// lost, and the ad platform offers no way to look it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "choice", rename_all = "camelCase")]
pub enum Review {
    /// The ad platform does not have it: post it again (a create keeps its client
    /// reference), with the next push.
    PostAgain,
    /// The ad platform has it, under this id: record it as applied, as if the answer had
    /// arrived (what waits on it can then be posted).
    #[serde(rename_all = "camelCase")]
    Created {
        /// The id the ad platform shows for it.
        id: i64,
    },
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

    // ---- Hooks for the posting executor ----

    /// The change is about to be posted: status `sending`, one more attempt, and the client
    /// reference written into its external-id field (kept across retries so a lost answer
    /// can be looked up).
    pub fn mark_sending(&mut self, seq: i64, client_ref: Option<&str>) -> Result<()> {
        let n = self
            .conn
            .execute(MARK_SENDING, params![seq, client_ref, now_ms()])?;
        if n == 0 {
            return Err(no_change(seq));
        }
        Ok(())
    }

    /// Settles a change that needs review with the buyer's verdict, in one transaction.
    /// Refused for a change in any other status, and "created" for anything but a create
    /// (an upload has no id of its own: post it again or discard it).
    pub fn settle_review(&mut self, seq: i64, review: Review) -> Result<()> {
        let tx = self.conn.transaction()?;
        let (op, status, payload): (String, String, String) = tx
            .query_row(
                "SELECT op, status, payload FROM outbox WHERE seq = ?1",
                [seq],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?
            .ok_or_else(|| no_change(seq))?;
        if status_from_text(&status)? != ChangeStatus::NeedsReview {
            return Err(Error::Invalid(format!(
                "change {seq} does not need review (it is {})",
                status.replace('_', " ")
            )));
        }
        match review {
            Review::PostAgain => {
                set_outcome_in(&tx, seq, ChangeStatus::Pending, &[], None)?;
            }
            Review::Created { id } => {
                if op_from_text(&op)? != Op::Create {
                    return Err(Error::Invalid(format!(
                        "change {seq} is not a create, so it has no id of its own: post it \
                         again or discard it"
                    )));
                }
                if id <= 0 {
                    return Err(Error::Invalid(format!(
                        "{id} is not an id the ad platform gives: ids are whole numbers above 0"
                    )));
                }
                // What was sent, under the id the buyer found: the service's answer
                // would hold the same (creatives and site lists have no listing to
                // read it from). An id that belongs to another entity with edits of its
                // own is refused by the re-keying ([`Error::IdTaken`]).
                let mut entity: Value = parse_json(&payload)?;
                set_pointer(&mut entity, "/id", Value::from(id));
                apply_in(&tx, seq, &Key::Id(id), &entity)?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// When the change's latest request left (Unix ms, as [`Workspace::mark_sending`]
    /// wrote it), `None` when it was never sent. A create whose answer was lost may still
    /// commit on a slow service for a while after this; the sync waits that out before
    /// it believes a look-up that finds nothing.
    pub fn sent_at(&self, seq: i64) -> Result<Option<i64>> {
        self.conn
            .query_row("SELECT sent_at FROM outbox WHERE seq = ?1", [seq], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| no_change(seq))
    }

    /// The service refused the change; `messages` say why.
    pub fn mark_failed(&mut self, seq: i64, messages: &[ChangeMessage]) -> Result<()> {
        self.mark_status(seq, ChangeStatus::Failed, messages)
    }

    /// The service refused an audience upload and answered with its counts (`result`,
    /// an `AudienceDataResult`: published 0, the bad records): `failed`, keeping the
    /// answer for [`Workspace::audience_uploads`].
    pub fn mark_refused(
        &mut self,
        seq: i64,
        messages: &[ChangeMessage],
        result: &Value,
    ) -> Result<()> {
        let tx = self.conn.transaction()?;
        set_outcome_in(&tx, seq, ChangeStatus::Failed, messages, None)?;
        tx.execute(
            "UPDATE outbox SET result = ?2 WHERE seq = ?1",
            params![seq, to_json(result)?],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Sets a change's status (`needs_review`, `blocked`, `pending` …) with the messages
    /// explaining it. Use [`Workspace::mark_applied`] for `applied` and
    /// [`Workspace::mark_conflict`] for `conflict`: both carry more than messages.
    pub fn mark_status(
        &mut self,
        seq: i64,
        status: ChangeStatus,
        messages: &[ChangeMessage],
    ) -> Result<()> {
        match status {
            ChangeStatus::Applied => {
                return Err(Error::Invalid(
                    "use mark_applied: an applied change carries the server's version".into(),
                ));
            }
            ChangeStatus::Conflict => {
                return Err(Error::Invalid(
                    "use mark_conflict: a conflict carries the fields in conflict".into(),
                ));
            }
            _ => {}
        }
        self.set_outcome(seq, status, messages, None)
    }

    /// [`Workspace::mark_status`] for several changes in one transaction (one disk sync):
    /// the executor records a verdict on many waiting changes at once. A change whose
    /// status is not one of `from` is left as it is (a change in flight keeps its unknown
    /// outcome); returns how many changed. All or none are recorded.
    pub fn mark_status_many(
        &mut self,
        changes: &[(i64, ChangeStatus, Vec<ChangeMessage>)],
        from: &[ChangeStatus],
    ) -> Result<usize> {
        if changes.is_empty() {
            return Ok(0);
        }
        if changes
            .iter()
            .any(|(_, s, _)| matches!(s, ChangeStatus::Applied | ChangeStatus::Conflict))
        {
            return Err(Error::Invalid(
                "use mark_applied or mark_conflict: they carry more than messages".into(),
            ));
        }
        let from = to_json(&from.iter().map(|s| status_text(*s)).collect::<Vec<_>>())?;
        let tx = self.conn.transaction()?;
        let mut n = 0;
        {
            let mut stmt = tx.prepare_cached(
                "UPDATE outbox SET status = ?2, messages = ?3, conflicts = NULL, updated_at = ?4 \
                 WHERE seq = ?1 AND status IN (SELECT value FROM json_each(?5))",
            )?;
            let now = now_ms();
            for (seq, status, messages) in changes {
                n += stmt.execute(params![
                    seq,
                    status_text(*status),
                    to_json(messages)?,
                    now,
                    from
                ])?;
            }
        }
        tx.commit()?;
        Ok(n)
    }

    /// The server changed the same fields as the change: status `conflict`, with base,
    /// mine and theirs per field (read back by [`Workspace::conflicts`]) and the messages
    /// for the buyer. They last as long as the status: any other status, an edit folded
    /// into the change, or discarding it clears them.
    pub fn mark_conflict(
        &mut self,
        seq: i64,
        conflicts: &[FieldConflict],
        messages: &[ChangeMessage],
    ) -> Result<()> {
        let conflicts = to_json(conflicts)?;
        self.set_outcome(seq, ChangeStatus::Conflict, messages, Some(&conflicts))
    }

    /// [`Workspace::mark_conflict`], also keeping `theirs` — the server version the
    /// conflict was found against — as the entity's newer server version (as a refresh
    /// would), in the same transaction. [`Workspace::resolve_conflict`] rebases the change
    /// onto it, so the buyer can settle the conflict without downloading again.
    pub fn mark_conflict_against(
        &mut self,
        seq: i64,
        theirs: &Value,
        conflicts: &[FieldConflict],
        messages: &[ChangeMessage],
    ) -> Result<()> {
        let tx = self.conn.transaction()?;
        let (kind, key): (String, String) = tx
            .query_row("SELECT kind, key FROM outbox WHERE seq = ?1", [seq], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?
            .ok_or_else(|| no_change(seq))?;
        // The text a download writes for the same version (the wire struct's JSON), so
        // the next download sees the same hash and does not report it as changed again.
        let text = to_json(theirs)?;
        tx.execute(
            "UPDATE entities SET server_json = ?3, server_hash = ?4, server_removed = 0, \
             updated_at = ?5 WHERE kind = ?1 AND key = ?2",
            params![kind, key, text, hash_text(&text), now_ms()],
        )?;
        set_outcome_in(
            &tx,
            seq,
            ChangeStatus::Conflict,
            messages,
            Some(&to_json(conflicts)?),
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Records a status with its messages and conflicts (`None` for every status but
    /// `conflict`, so stale conflicts never outlive the status that explains them).
    fn set_outcome(
        &mut self,
        seq: i64,
        status: ChangeStatus,
        messages: &[ChangeMessage],
        conflicts: Option<&str>,
    ) -> Result<()> {
        set_outcome_in(&self.conn, seq, status, messages, conflicts)
    }

    /// The service applied the change and answered `server_json` for the entity, which
    /// now has `remote` as its key. In one transaction: the change becomes `applied`; a
    /// draft's local key is recorded in the id map and replaced by `remote` everywhere (its
    /// entity row, its flight caps, its other changes — whose `/id` is filled in —, the
    /// children that name it as parent, and other changes' [`ParentRef`]s, whose pointers
    /// get the id); `server_json` becomes the new base; the working copy follows it unless
    /// more changes to the entity are pending.
    pub fn mark_applied(&mut self, seq: i64, remote: &Key, server_json: &Value) -> Result<()> {
        let tx = self.conn.transaction()?;
        apply_in(&tx, seq, remote, server_json)?;
        tx.commit()?;
        self.empty_log_after_purge(&[seq])
    }

    /// [`Workspace::mark_applied`] for several changes in one transaction (one disk sync):
    /// the executor records the answers that arrived together. An answer the workspace
    /// refuses to take ([`Error::WrongId`], [`Error::IdTaken`]) is undone alone and
    /// returned with its seq, its change left as it was; the others are recorded. Any
    /// other failure records none.
    pub fn mark_applied_many(
        &mut self,
        applied: &[(i64, Key, Value)],
    ) -> Result<Vec<(i64, Error)>> {
        let tx = self.conn.transaction()?;
        let mut refused = Vec::new();
        for (seq, remote, server_json) in applied {
            tx.execute_batch("SAVEPOINT answer")?;
            match apply_in(&tx, *seq, remote, server_json) {
                Ok(()) => tx.execute_batch("RELEASE answer")?,
                Err(e @ (Error::WrongId { .. } | Error::IdTaken { .. })) => {
                    tx.execute_batch("ROLLBACK TO answer; RELEASE answer")?;
                    refused.push((*seq, e));
                }
                Err(e) => return Err(e),
            }
        }
        tx.commit()?;
        let seqs: Vec<i64> = applied.iter().map(|(seq, ..)| *seq).collect();
        self.empty_log_after_purge(&seqs)?;
        Ok(refused)
    }

    /// After an applied audience upload's identifiers were purged (`purge_identifiers`),
    /// the write-ahead log still holds the pages that carried them: it is copied back
    /// and emptied at once. A reader that keeps it from emptying only delays that until
    /// the log is next written over; the change itself is recorded either way.
    fn empty_log_after_purge(&self, seqs: &[i64]) -> Result<()> {
        let mut uploads = self
            .conn
            .prepare_cached("SELECT 1 FROM outbox WHERE seq = ?1 AND op = ?2")?;
        let mut purged = false;
        for seq in seqs {
            purged |= uploads.exists(params![seq, op_text(Op::AudienceData)])?;
        }
        if purged {
            let busy: i64 = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
            if busy != 0 {
                tracing::warn!("the log could not be emptied after purging an audience upload");
            }
        }
        Ok(())
    }

    /// [`Workspace::mark_sending`] for several changes in one transaction (one disk sync),
    /// before their requests go out together. All or none are marked.
    pub fn mark_sending_many(&mut self, sending: &[(i64, Option<&str>)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut stmt = tx.prepare_cached(MARK_SENDING)?;
            let now = now_ms();
            for (seq, client_ref) in sending {
                if stmt.execute(params![seq, client_ref, now])? == 0 {
                    return Err(no_change(*seq));
                }
            }
        }
        tx.commit()?;
        Ok(())
    }
}

/// The body of [`Workspace::set_outcome`], on a connection or inside a transaction.
pub(super) fn set_outcome_in(
    conn: &rusqlite::Connection,
    seq: i64,
    status: ChangeStatus,
    messages: &[ChangeMessage],
    conflicts: Option<&str>,
) -> Result<()> {
    let n = conn
        .prepare_cached(
            "UPDATE outbox SET status = ?2, messages = ?3, conflicts = ?4, updated_at = ?5 \
         WHERE seq = ?1",
        )?
        .execute(params![
            seq,
            status_text(status),
            to_json(messages)?,
            conflicts,
            now_ms()
        ])?;
    if n == 0 {
        return Err(no_change(seq));
    }
    Ok(())
}

/// Sets a change `sending` (see [`Workspace::mark_sending`]).
const MARK_SENDING: &str = "UPDATE outbox SET status = 'sending', attempts = attempts + 1, \
     client_ref = COALESCE(?2, client_ref), conflicts = NULL, updated_at = ?3, sent_at = ?3 \
     WHERE seq = ?1 AND status <> 'applied'";

/// The body of [`Workspace::mark_applied`], inside the caller's transaction.
fn apply_in(tx: &Transaction<'_>, seq: i64, remote: &Key, server_json: &Value) -> Result<()> {
    let (kind, key, op, payload): (String, String, String, String) = tx
        .query_row(
            "SELECT kind, key, op, payload FROM outbox WHERE seq = ?1",
            [seq],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?
        .ok_or_else(|| no_change(seq))?;
    let remote_text = key_text(remote);
    if op != op_text(Op::Create) {
        // A change to an entity the service has is answered for that entity: an answer
        // naming another would move this one onto it (see `rekey`).
        let sent = if key.starts_with("local:") {
            tx.query_row(
                "SELECT remote FROM id_map WHERE kind = ?1 AND local = ?2",
                params![kind, key],
                |r| r.get::<_, String>(0),
            )
            .optional()?
        } else {
            Some(key.clone())
        };
        if let Some(sent) = sent.filter(|sent| *sent != remote_text) {
            return Err(Error::WrongId {
                kind: kind_from_text(&kind)?,
                sent: key_from_text(&sent)?,
                answered: remote.clone(),
            });
        }
    }
    let now = now_ms();
    tx.execute(
        "UPDATE outbox SET status = 'applied', messages = '[]', conflicts = NULL, updated_at = ?2 \
         WHERE seq = ?1",
        params![seq, now],
    )?;
    if op == op_text(Op::AudienceData) {
        // The answer is the upload's counts, not the segment: kept with the change.
        tx.execute(
            "UPDATE outbox SET result = ?2 WHERE seq = ?1",
            params![seq, to_json(server_json)?],
        )?;
        purge_identifiers(tx, seq, &payload)?;
        return Ok(());
    }
    if kind == Kind::Campaign.name() {
        map_new_flights(tx, &key, &payload, server_json)?;
    }
    if key != remote_text {
        rekey(tx, &kind, &key, remote)?;
        if kind == Kind::AdOrder.name() {
            rekey(tx, Kind::FlightCaps.name(), &key, remote)?;
        }
    }
    let server_json = match kind.as_str() {
        // A segment's create answer is short (name, ids, status, ttl): what was sent
        // stays known under it.
        "site_list" | "creative" | "audience_segment" => {
            recorded(tx, &kind, &remote_text, &op, &payload, server_json)?
        }
        _ => server_json.clone(),
    };
    let text = canonical(&server_json)?;
    let hash = hash_text(&text);
    let more: bool = tx.query_row(
        "SELECT EXISTS(SELECT 1 FROM outbox WHERE kind = ?1 AND key = ?2 AND status <> 'applied')",
        params![kind, remote_text],
        |r| r.get(0),
    )?;
    tx.execute(
        "UPDATE entities SET remote_json = ?3, base_hash = ?4, server_json = NULL, \
         server_hash = NULL, server_removed = 0, \
         working_json = CASE WHEN ?5 THEN COALESCE(working_json, remote_json) END, updated_at = ?6 \
         WHERE kind = ?1 AND key = ?2",
        params![kind, remote_text, text, hash, more, now],
    )?;
    // Later updates of the entity were made on top of this change: the answer is
    // their base now.
    tx.execute(
        "UPDATE outbox SET base = ?3 WHERE kind = ?1 AND key = ?2 AND op = 'update' \
         AND status <> 'applied'",
        params![kind, remote_text, text],
    )?;
    Ok(())
}

/// The identifiers of an applied audience upload are personal data the service now has:
/// the workspace keeps only their count (`valueCount` in each record, which the uploads
/// view shows), and the undo step that queued them goes (a posted upload cannot be
/// undone, and its images hold the identifiers too).
fn purge_identifiers(tx: &Transaction<'_>, seq: i64, payload: &str) -> Result<()> {
    let mut records: Value = parse_json(payload)?;
    if let Some(list) = records.as_array_mut() {
        for record in list.iter_mut() {
            if let Some(Value::Array(values)) = record.get_mut("values") {
                let n = values.len();
                values.clear();
                record["valueCount"] = Value::from(n);
            }
        }
    }
    tx.execute(
        "UPDATE outbox SET payload = ?2 WHERE seq = ?1",
        params![seq, to_json(&records)?],
    )?;
    let steps = "SELECT step FROM history_row WHERE tbl = 'outbox' AND rid = ?1";
    tx.execute(
        &format!("DELETE FROM history_step WHERE id IN ({steps})"),
        [seq],
    )?;
    tx.execute(
        &format!("DELETE FROM history_row WHERE step IN ({steps})"),
        [seq],
    )?;
    Ok(())
}

/// The flights a campaign change added (no id in what was posted) take the ids the
/// service gave them, matched by start date (a campaign's flights never overlap): each
/// [`EntityRef::draft_flight`] is mapped like a landed draft, so flight caps waiting on it
/// are filled in and go in the same push. `campaign_key` is the campaign's key when the
/// change was posted (a draft's local key), which is how its new flights are named.
fn map_new_flights(
    tx: &Transaction<'_>,
    campaign_key: &str,
    payload: &str,
    answer: &Value,
) -> Result<()> {
    let payload: Value = parse_json(payload)?;
    let (Some(sent), Some(landed)) = (
        payload.get("flights").and_then(Value::as_array),
        answer.get("flights").and_then(Value::as_array),
    ) else {
        return Ok(());
    };
    let id_of = |f: &Value| f.get("id").and_then(Value::as_i64);
    let millis = |f: &Value| {
        let v = f.get("startDate")?;
        v.as_i64()
            .or_else(|| v.as_f64().filter(|x| x.fract() == 0.0).map(|x| x as i64))
    };
    let mut taken: HashSet<i64> = sent.iter().filter_map(id_of).collect();
    let campaign = EntityRef::new(Kind::Campaign, key_from_text(campaign_key)?);
    for new in sent.iter().filter(|f| id_of(f).is_none()) {
        let Some(start) = millis(new) else { continue };
        let found = landed.iter().find_map(|l| {
            let id = id_of(l)?;
            (!taken.contains(&id) && millis(l) == Some(start)).then_some(id)
        });
        if let Some(id) = found {
            taken.insert(id);
            let flight = EntityRef::draft_flight(&campaign, start);
            rekey(
                tx,
                Kind::Flight.name(),
                &key_text(&flight.key),
                &Key::Id(id),
            )?;
        }
    }
    Ok(())
}

/// A text column borrowed from the row, without copying it.
fn text<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> Result<&'r str> {
    r.get_ref(i)?
        .as_str()
        .map_err(|e| Error::Corrupt(format!("outbox column {i}: {e}")))
}

/// The new base of a site list, creative or new segment. The first two have no read
/// endpoint and their answers are partial (a site list comes back with `siteIds: null`),
/// so the workspace is their record: the previous base with the applied change on it,
/// under the answer's values (a null in the answer erases nothing). A segment's create
/// answer is short; the next download brings the whole segment.
fn recorded(
    tx: &Transaction<'_>,
    kind: &str,
    key: &str,
    op: &str,
    payload: &str,
    answer: &Value,
) -> Result<Value> {
    let op = op_from_text(op)?;
    let payload: Value = parse_json(payload)?;
    let mut known = match op {
        Op::Create | Op::Update => payload,
        _ => {
            let prev: Option<String> = tx
                .query_row(
                    "SELECT remote_json FROM entities WHERE kind = ?1 AND key = ?2",
                    params![kind, key],
                    |r| r.get(0),
                )
                .optional()?
                .flatten();
            let mut list: SiteList = match prev {
                Some(text) => parse_json(&text)?,
                None => SiteList::default(),
            };
            let body: SiteList = serde_json::from_value(payload)
                .map_err(|e| Error::Corrupt(format!("stored site-list change: {e}")))?;
            apply_site_op(&mut list, op, &body);
            to_value(&list)?
        }
    };
    if let (Value::Object(known), Value::Object(answer)) = (&mut known, answer) {
        for (k, v) in answer {
            if !v.is_null() {
                known.insert(k.clone(), v.clone());
            }
        }
        return Ok(Value::Object(known.clone()));
    }
    Ok(answer.clone())
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
fn referencing(tx: &Transaction<'_>, key: &str) -> Result<Vec<(i64, Vec<ParentRef>)>> {
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

/// Replaces the local key of a landed draft by its remote key everywhere. The one place
/// an entity moves to another key, and so the one home of the rule that it never moves
/// onto an entity with edits of its own: whoever named the remote key (the service's
/// answer, the look-up of a lost create, the buyer settling a review), an entity of that
/// key with a working copy or changes not applied means the key is wrong, and taking it
/// over would delete those edits ([`Error::IdTaken`]; the caller's transaction then
/// records nothing).
fn rekey(tx: &Transaction<'_>, kind: &str, local: &str, remote: &Key) -> Result<()> {
    let remote_text = key_text(remote);
    let edited: bool = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM entities WHERE kind = ?1 AND key = ?2 \
             AND working_json IS NOT NULL) OR EXISTS (SELECT 1 FROM outbox \
             WHERE kind = ?1 AND key = ?2 AND status <> 'applied')",
        )?
        .query_row(params![kind, remote_text], |r| r.get(0))?;
    if edited {
        let kind = match kind_from_text(kind)? {
            // Caps are keyed by their ad order, and are its edits.
            Kind::FlightCaps => Kind::AdOrder,
            other => other,
        };
        return Err(Error::IdTaken {
            kind,
            id: remote.clone(),
        });
    }
    tx.execute(
        "INSERT OR REPLACE INTO id_map (kind, local, remote) VALUES (?1, ?2, ?3)",
        params![kind, local, remote_text],
    )?;
    // A refresh may have downloaded it already under its remote key (with no edits of
    // its own, as checked above): the draft replaces the download.
    tx.execute(
        "DELETE FROM entities WHERE kind = ?1 AND key = ?2",
        params![kind, remote_text],
    )?;
    tx.execute(
        "UPDATE entities SET key = ?3 WHERE kind = ?1 AND key = ?2",
        params![kind, local, remote_text],
    )?;
    tx.execute(
        "UPDATE entities SET parent_key = ?3 WHERE parent_kind = ?1 AND parent_key = ?2 \
         AND parent_key GLOB 'local:*'",
        params![kind, local, remote_text],
    )?;
    // The draft's own later changes: new key, and the id they must carry.
    let own: Vec<(i64, String)> = {
        let mut stmt = tx.prepare(
            "SELECT seq, payload FROM outbox WHERE kind = ?1 AND key = ?2 AND status <> 'applied'",
        )?;
        let rows = stmt.query_map(params![kind, local], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    tx.execute(
        "UPDATE outbox SET key = ?3 WHERE kind = ?1 AND key = ?2",
        params![kind, local, remote_text],
    )?;
    if let (Some(id), false) = (numeric_id(remote), kind == Kind::FlightCaps.name()) {
        for (seq, payload) in own {
            let mut payload: Value = parse_json(&payload)?;
            if payload.is_object() {
                set_pointer(&mut payload, "/id", Value::from(id));
                tx.execute(
                    "UPDATE outbox SET payload = ?2 WHERE seq = ?1",
                    params![seq, canonical(&payload)?],
                )?;
            }
        }
    }
    // Children waiting for this draft: point their references at the remote key and
    // fill the pointers, in the change and in the child's working copy.
    let old = EntityRef::new(kind_from_text(kind)?, key_from_text(local)?);
    let new = EntityRef::new(old.kind, remote.clone());
    for (seq, mut parents) in referencing(tx, local)? {
        if !parents.iter().any(|p| p.target == old) {
            continue;
        }
        for p in parents.iter_mut().filter(|p| p.target == old) {
            p.target = new.clone();
        }
        let (ckind, ckey, payload): (String, String, String) = tx.query_row(
            "SELECT kind, key, payload FROM outbox WHERE seq = ?1",
            [seq],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let mut payload: Value = parse_json(&payload)?;
        fill_parents(&mut payload, &parents);
        tx.execute(
            "UPDATE outbox SET payload = ?2, parents = ?3 WHERE seq = ?1",
            params![seq, canonical(&payload)?, to_json(&parents)?],
        )?;
        let working: Option<String> = tx
            .query_row(
                "SELECT COALESCE(working_json, remote_json) FROM entities WHERE kind = ?1 AND key = ?2",
                params![ckind, ckey],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(working) = working {
            let mut working: Value = parse_json(&working)?;
            fill_parents(&mut working, &parents);
            tx.execute(
                "UPDATE entities SET working_json = ?3 WHERE kind = ?1 AND key = ?2",
                params![ckind, ckey, canonical(&working)?],
            )?;
        }
    }
    Ok(())
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
            Op::AudienceData => {}
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
