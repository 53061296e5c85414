//! The rows a batch reads and writes: every write goes through [`Batch::write`] so a
//! preview's log holds all of them, and the reads edits share (working copies, scopes,
//! landed drafts, a draft's parent references).

use flightdeck_model::FieldError;
use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::*;
use crate::change::{EntityRef, Key, Kind, Op, ParentRef};
use crate::workspace::kept::{Arg, Write, bound};
use crate::workspace::{
    canonical, key_from_text, key_text, op_text, parse_json, status_text, to_json,
};
use crate::{Error, Result};

impl Batch<'_> {
    /// Every write of a batch goes through here, so a preview's log holds all of them.
    /// Statements are cached: a batch of 100,000 edits re-runs the same few.
    pub(in crate::workspace) fn write(
        &mut self,
        sql: &'static str,
        args: Vec<Arg>,
    ) -> Result<usize> {
        if self.defer {
            if let Some(log) = &mut self.log {
                log.push(Write {
                    sql,
                    args,
                    changed: None,
                    inserted: None,
                });
            }
            return Ok(1);
        }
        let changed = self
            .tx
            .prepare_cached(sql)?
            .execute(rusqlite::params_from_iter(bound(&args, self.now)))?;
        if let Some(log) = &mut self.log {
            let inserted = sql
                .starts_with("INSERT")
                .then(|| self.tx.last_insert_rowid());
            log.push(Write {
                sql,
                args,
                changed: Some(changed),
                inserted,
            });
        }
        Ok(changed)
    }

    /// Runs the writes of a preview's log again, in order; false as soon as one does not
    /// change the rows it changed then (the workspace is not as the preview left it).
    /// Their few statements are each looked up once, not once per write.
    pub(in crate::workspace) fn rewrite(&self, writes: &[Write]) -> Result<bool> {
        let mut statements: Vec<(&str, rusqlite::CachedStatement<'_>)> = Vec::new();
        for write in writes {
            let at = match statements.iter().position(|(sql, _)| *sql == write.sql) {
                Some(at) => at,
                None => {
                    statements.push((write.sql, self.tx.prepare_cached(write.sql)?));
                    statements.len() - 1
                }
            };
            let changed = statements[at]
                .1
                .execute(rusqlite::params_from_iter(bound(&write.args, self.now)))?;
            let inserted = write
                .inserted
                .is_none_or(|id| id == self.tx.last_insert_rowid());
            if !(write.changed.is_none_or(|c| c == changed) && inserted) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The writes of a batch begun with a log, unless they were too many to keep.
    pub(crate) fn take_log(&mut self) -> Option<Vec<Write>> {
        self.log.take().and_then(Log::into_writes)
    }

    /// [`Batch::take_log`], the batch logging on with an empty log: the writes of a part
    /// of a run, for [`Batch::note_all`] to put back in plan order.
    pub(crate) fn take_noted(&mut self) -> Option<Vec<Write>> {
        self.log
            .as_mut()
            .and_then(|log| std::mem::take(log).into_writes())
    }

    /// The batch's transaction, to read with (a bulk run's `Planned::Edit` rows).
    pub(in crate::workspace) fn reader(&self) -> &rusqlite::Connection {
        &self.tx
    }

    pub(in crate::workspace) fn row<T>(
        &self,
        sql: &str,
        p: impl rusqlite::Params,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.tx.prepare_cached(sql)?.query_row(p, f)
    }

    pub(super) fn landed(&self, target: &EntityRef) -> Result<Option<Key>> {
        let remote: Option<String> = self
            .row(
                "SELECT remote FROM id_map WHERE kind = ?1 AND local = ?2",
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get(0),
            )
            .optional()?;
        remote.as_deref().map(key_from_text).transpose()
    }

    /// `None`: not in the workspace; `Some(scope)` otherwise.
    pub(super) fn scope_of(&self, target: &EntityRef) -> Result<Option<Option<i64>>> {
        let scope = self
            .row(
                "SELECT scope FROM entities WHERE kind = ?1 AND key = ?2",
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get::<_, Option<i64>>(0),
            )
            .optional()?;
        let own = match (target.kind, &target.key) {
            (Kind::Advertiser, Key::Id(id)) => Some(*id),
            _ => None,
        };
        Ok(scope.map(|s| s.or(own)))
    }

    pub(in crate::workspace) fn exists(&self, target: &EntityRef) -> Result<bool> {
        Ok(self.scope_of(target)?.is_some())
    }

    /// The working copy, or `NotFound`.
    pub(in crate::workspace) fn require(&self, target: &EntityRef) -> Result<String> {
        Ok(self.working_text(target)?.0)
    }

    /// The text of an entity's working copy, and whether it is the base (no edit of its
    /// own); `NotFound` when the workspace does not hold it.
    pub(in crate::workspace) fn working_text(&self, target: &EntityRef) -> Result<(String, bool)> {
        self.row(
            "SELECT COALESCE(working_json, remote_json), working_json IS NULL \
             FROM entities WHERE kind = ?1 AND key = ?2",
            params![target.kind.name(), key_text(&target.key)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?
        .ok_or_else(|| {
            Error::NotFound(format!(
                "{} {} is not in the workspace",
                target.kind.name(),
                target.key
            ))
        })
    }

    /// Parent references of the entity's create, if it was a draft.
    pub(super) fn create_parents(&self, target: &EntityRef) -> Result<Vec<ParentRef>> {
        if !target.key.is_local() {
            return Ok(Vec::new());
        }
        let text: Option<String> = self
            .row(
                "SELECT parents FROM outbox WHERE kind = ?1 AND key = ?2 AND op = 'create' \
                 ORDER BY seq DESC LIMIT 1",
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get(0),
            )
            .optional()?;
        text.as_deref()
            .map(parse_json)
            .transpose()
            .map(Option::unwrap_or_default)
    }

    pub(super) fn insert_entity(
        &mut self,
        target: &EntityRef,
        working: &Value,
        parent: Option<&EntityRef>,
        scope: Option<i64>,
    ) -> Result<()> {
        self.write(
            "INSERT INTO entities (kind, key, working_json, parent_kind, parent_key, scope, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            vec![
                target.kind.name().to_owned().into(),
                key_text(&target.key).into(),
                canonical(working)?.into(),
                parent.map(|p| p.kind.name().to_owned()).into(),
                parent.map(|p| key_text(&p.key)).into(),
                scope.into(),
                Arg::Now,
            ],
        )?;
        Ok(())
    }

    pub(in crate::workspace) fn insert_row(
        &mut self,
        target: &EntityRef,
        op: Op,
        payload: String,
        parents: &[ParentRef],
        base: Option<String>,
        errors: &[FieldError],
    ) -> Result<i64> {
        self.write(
            "INSERT INTO outbox (kind, key, op, payload, parents, base, errors, status, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
            vec![
                target.kind.name().to_owned().into(),
                key_text(&target.key).into(),
                op_text(op).to_owned().into(),
                payload.into(),
                to_json(parents)?.into(),
                base.into(),
                to_json(errors)?.into(),
                status_text(status_for(errors)).to_owned().into(),
                Arg::Now,
            ],
        )?;
        // A deferred insert has no row yet: its `seq` is not known (nor needed).
        Ok(if self.defer {
            0
        } else {
            self.tx.last_insert_rowid()
        })
    }
}
