//! What posting records: the hooks the posting executor drives (sending, applied,
//! failed, refused, in conflict), the buyer's verdict on a change that needs review, and
//! what an applied answer moves: the draft's key, new flights' ids, the new base.

use std::collections::HashSet;

use flightdeck_model::SiteList;
use rusqlite::{OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::edit::{apply_site_op, fill_parents, numeric_id, set_pointer};
use super::outbox::{ChangeMessage, no_change, referencing};
use super::{
    Workspace, canonical, hash_text, key_from_text, key_text, kind_from_text, now_ms, op_from_text,
    op_text, parse_json, status_from_text, status_text, to_json, to_value,
};
use crate::change::{ChangeStatus, EntityRef, Key, Kind, Op};
use crate::merge::FieldConflict;
use crate::{Error, Result};

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

impl Workspace {
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
    /// children that name it as parent, and other changes' [`ParentRef`](crate::change::ParentRef)s, whose pointers
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
    if op == op_text(Op::SetStatus) {
        // The answer is the status set, not the ad order: kept apart from its JSON (the
        // listings carry no status). A download held back for this change alone is the
        // ad order's base now, unless other changes still wait.
        let status = super::status::answered_status(server_json, &payload)?;
        super::status::record_known(tx, &key, status, now)?;
        tx.execute(
            "UPDATE entities SET remote_json = server_json, base_hash = server_hash, \
             server_json = NULL, server_hash = NULL, updated_at = ?3 \
             WHERE kind = ?1 AND key = ?2 AND server_json IS NOT NULL AND working_json IS NULL \
             AND NOT EXISTS (SELECT 1 FROM outbox WHERE kind = ?1 AND key = ?2 \
             AND status <> 'applied')",
            params![kind, key, now],
        )?;
        return Ok(());
    }
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
        "SELECT EXISTS(SELECT 1 FROM outbox WHERE kind = ?1 AND key = ?2 AND status <> 'applied' \
         AND op <> 'set_status')",
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
