//! Raw reads for indexes kept outside the workspace (the core's table windows): the
//! working JSON of every entity of a kind, without decoding it, so the reader extracts
//! only the few fields it needs.

use rusqlite::{Transaction, TransactionBehavior, params};

use super::{Workspace, key_from_text, key_text};
use crate::Result;
use crate::change::{EntityRef, Kind};

/// One entity as [`Workspace::scan`] hands it over.
#[derive(Debug)]
pub struct Scanned<'a> {
    /// Which entity.
    pub target: EntityRef,
    /// Its owner, when known.
    pub parent: Option<EntityRef>,
    /// The working copy's JSON text (pending edits applied).
    pub json: &'a str,
    /// Insertion order in the workspace: a stable order for drafts, which have no id.
    pub order: i64,
}

const SCAN: &str = "SELECT e.key, COALESCE(e.working_json, e.remote_json), e.parent_kind, e.parent_key, e.rowid \
     FROM entities e WHERE e.kind = ?1";

fn parent_of(kind: Option<String>, key: Option<String>) -> Result<Option<EntityRef>> {
    match (kind, key) {
        (Some(k), Some(key)) => Ok(Some(EntityRef::new(
            super::kind_from_text(&k)?,
            key_from_text(&key)?,
        ))),
        _ => Ok(None),
    }
}

impl Workspace {
    /// Runs `f`, whose statements only read, in one read transaction when none is open:
    /// they share one snapshot and one shared lock, instead of each taking and dropping
    /// SQLite's lock on the WAL index (two `fcntl` calls and a read of its header per
    /// statement). A table window runs four statements per row it decodes.
    ///
    /// Deferred, unlike the connection's own transactions: it never takes the write lock,
    /// so no writer waits for it.
    pub fn reading<T, E: From<crate::Error>>(
        &self,
        f: impl FnOnce() -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        if !self.conn.is_autocommit() {
            return f();
        }
        // Rolled back when dropped: after an error, and after a panic, which would
        // otherwise leave it open and every later write refused.
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Deferred)
            .map_err(crate::Error::from)?;
        let out = f()?;
        tx.commit().map_err(crate::Error::from)?;
        Ok(out)
    }

    /// The workspace's change stamp: a counter SQLite triggers bump on every write to
    /// the rows an index kept outside reads (entities, ad-order statuses, the outbox),
    /// by any program. An index built or saved at one stamp still holds while it is the
    /// stamp.
    pub fn change_stamp(&self) -> Result<i64> {
        Ok(self
            .conn
            .prepare_cached("SELECT n FROM change_stamp WHERE id = 1")?
            .query_row([], |r| r.get(0))?)
    }

    /// Calls `f` with every entity of `kind`, in no particular order.
    pub fn scan(&self, kind: Kind, mut f: impl FnMut(Scanned<'_>) -> Result<()>) -> Result<()> {
        let mut stmt = self.conn.prepare_cached(SCAN)?;
        let mut rows = stmt.query(params![kind.name()])?;
        while let Some(r) = rows.next()? {
            let key: String = r.get(0)?;
            let Some(json) = r
                .get_ref(1)?
                .as_str_or_null()
                .map_err(rusqlite::Error::from)?
            else {
                continue;
            };
            let parent = parent_of(r.get(2)?, r.get(3)?)?;
            f(Scanned {
                target: EntityRef::new(kind, key_from_text(&key)?),
                parent,
                json,
                order: r.get(4)?,
            })?;
        }
        Ok(())
    }

    /// Like [`Workspace::scan`] for one entity; `f` is not called when it is gone.
    pub fn scan_one(
        &self,
        target: &EntityRef,
        mut f: impl FnMut(Scanned<'_>) -> Result<()>,
    ) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("{SCAN} AND e.key = ?2"))?;
        let mut rows = stmt.query(params![target.kind.name(), key_text(&target.key)])?;
        if let Some(r) = rows.next()?
            && let Some(json) = r
                .get_ref(1)?
                .as_str_or_null()
                .map_err(rusqlite::Error::from)?
        {
            let parent = parent_of(r.get(2)?, r.get(3)?)?;
            f(Scanned {
                target: target.clone(),
                parent,
                json,
                order: r.get(4)?,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_sees_one_snapshot_and_then_lets_it_go() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| crate::Error::Corrupt(e.to_string()))?;
        let path = dir.path().join("w.sqlite");
        let ws = Workspace::open(&path)?;
        let other = rusqlite::Connection::open(&path)?;
        let before = ws.change_stamp()?;
        let (first, second) = ws.reading(|| -> Result<_> {
            let first = ws.change_stamp()?;
            other.execute("UPDATE change_stamp SET n = n + 1 WHERE id = 1", [])?;
            Ok((first, ws.change_stamp()?))
        })?;
        assert_eq!(
            (first, second),
            (before, before),
            "reads inside share one snapshot"
        );
        assert!(ws.conn.is_autocommit(), "the read transaction ended");
        assert_eq!(ws.change_stamp()?, before + 1, "later reads see the write");

        let failed: Result<()> = ws.reading(|| Err(crate::Error::Corrupt("stop".into())));
        assert!(matches!(failed, Err(crate::Error::Corrupt(_))));
        assert!(
            ws.conn.is_autocommit(),
            "a failed read ends its transaction too"
        );
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ws.reading(|| -> Result<()> { panic!("a bug mid-read") })
        }));
        assert!(panicked.is_err());
        assert!(
            ws.conn.is_autocommit(),
            "a panic mid-read ends its transaction too"
        );
        // Inside a transaction already open, it joins that one.
        ws.conn.execute_batch("BEGIN")?;
        ws.reading(|| ws.change_stamp())?;
        assert!(!ws.conn.is_autocommit());
        ws.conn.execute_batch("ROLLBACK")?;
        Ok(())
    }
}
