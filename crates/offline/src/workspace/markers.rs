//! Row markers: what the buyer's list views show beside each entity with changes not
//! applied yet, read for a whole kind in one query so a 100,000-row grid stays fast.

use std::collections::HashMap;

use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{Workspace, key_from_text, key_text};
use crate::Result;
use crate::change::{EntityRef, Kind};

/// The one marker a row shows when it has changes not applied yet. When several apply,
/// the one that needs the buyer most wins: `Conflict` > `Invalid` > `Failed` > `New` >
/// `Changed` (see [`Workspace::markers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Marker {
    /// A change of it is in conflict with the ad platform; the buyer picks values.
    Conflict,
    /// A change of it breaks validation rules and will not be posted until fixed.
    Invalid,
    /// The ad platform rejected a change of it, or a change's outcome is unknown and
    /// needs the buyer's review.
    Failed,
    /// A draft the ad platform has never seen.
    New,
    /// A downloaded entity with changes waiting to be posted.
    Changed,
}

impl Marker {
    /// The one marker of an entity (or a change) with open changes: what needs the buyer
    /// most wins; otherwise a draft the service has never seen is `New`.
    pub fn of(conflict: bool, invalid: bool, failed: bool, draft: bool) -> Marker {
        marker(conflict, invalid, failed, draft)
    }
}

fn marker(conflict: bool, invalid: bool, failed: bool, draft: bool) -> Marker {
    if conflict {
        Marker::Conflict
    } else if invalid {
        Marker::Invalid
    } else if failed {
        Marker::Failed
    } else if draft {
        Marker::New
    } else {
        Marker::Changed
    }
}

/// One row per entity of a kind with open changes: its key and which statuses it has.
const MARKERS: &str = "SELECT key, \
       MAX(status = 'conflict'), \
       MAX(status = 'invalid'), \
       MAX(status IN ('failed', 'needs_review')) \
     FROM outbox WHERE kind = ?1 AND status <> 'applied' GROUP BY key";

impl Workspace {
    /// The marker of every entity of `kind` with changes not applied yet; entities
    /// without any are absent. One grouped query over the outbox's `(kind, key, status)`
    /// index, never one per row.
    ///
    /// Changes that are being sent or wait on another change (`blocked`) mark their row
    /// `New` or `Changed` like pending ones. Flight caps are their own kind, keyed by
    /// their ad order's key: `markers(Kind::FlightCaps)` names the ad orders whose caps
    /// are pending.
    pub fn markers(&self, kind: Kind) -> Result<HashMap<EntityRef, Marker>> {
        // Drafts keep their local key until their create is applied, so "never posted"
        // is the key's prefix: the query needs nothing beyond the index.
        let mut stmt = self.conn.prepare_cached(MARKERS)?;
        let mut rows = stmt.query(params![kind.name()])?;
        let mut out = HashMap::new();
        while let Some(r) = rows.next()? {
            let key: String = r.get(0)?;
            let marker = marker(r.get(1)?, r.get(2)?, r.get(3)?, key.starts_with("local:"));
            out.insert(EntityRef::new(kind, key_from_text(&key)?), marker);
        }
        Ok(out)
    }
}

impl Workspace {
    /// The markers of `targets` (all of one kind) only: what a table window needs, one
    /// look-up per row in the outbox's `(kind, key, status)` index, however many other
    /// rows have changes.
    pub fn markers_of(&self, targets: &[EntityRef]) -> Result<HashMap<EntityRef, Marker>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT MAX(status = 'conflict'), MAX(status = 'invalid'), \
             MAX(status IN ('failed', 'needs_review')), COUNT(*) \
             FROM outbox WHERE kind = ?1 AND key = ?2 AND status <> 'applied'",
        )?;
        let mut out = HashMap::new();
        for target in targets {
            let key = key_text(&target.key);
            let (conflict, invalid, failed, n): (Option<bool>, Option<bool>, Option<bool>, i64) =
                stmt.query_row(params![target.kind.name(), key], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })?;
            if n == 0 {
                continue;
            }
            let m = marker(
                conflict == Some(true),
                invalid == Some(true),
                failed == Some(true),
                target.key.is_local(),
            );
            out.insert(target.clone(), m);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_read_only_the_outbox_index() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| crate::Error::Corrupt(e.to_string()))?;
        let ws = Workspace::open(dir.path().join("w.sqlite"))?;
        let mut stmt = ws.conn.prepare(&format!("EXPLAIN QUERY PLAN {MARKERS}"))?;
        let plan: Vec<String> = stmt
            .query_map(["ad_order"], |r| r.get::<_, String>(3))?
            .collect::<rusqlite::Result<_>>()?;
        assert!(
            plan.iter()
                .any(|p| p.contains("USING COVERING INDEX outbox_target")),
            "{plan:?}"
        );
        Ok(())
    }
}
