//! Settling a conflict: the buyer picks base, mine or theirs for each field both sides
//! changed, and the change is rebased onto the server version it collided with.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::edit::status_for;
use super::outbox::{ChangeMessage, change_in, no_change, replay_working};
use super::outcome::set_outcome_in;
use super::validate::{Payload, check_one};
use super::{Workspace, canonical, key_text, parse_json, status_from_text, status_text, to_json};
use crate::change::{ChangeStatus, PendingChange};
use crate::diff::{self, Seg};
use crate::merge::{self, FieldConflict};
use crate::{Error, Result};

/// Which value a field in conflict takes (see [`Workspace::resolve_conflict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// The value both sides started from.
    Base,
    /// The buyer's value.
    Mine,
    /// The ad platform's value.
    Theirs,
}

impl Workspace {
    /// Settles a change in conflict with the buyer's `picks`: one [`Pick`] per wire path
    /// of [`Workspace::conflicts`]; every path must be picked, and only those.
    ///
    /// The change becomes the server's version (`theirs`, kept when the conflict was
    /// found) with the buyer's non-conflicting edits merged in and each picked value in
    /// place; its base becomes that server version, so the next push does not meet the
    /// same conflict again, and the entity's base and working copy follow. It goes back to
    /// `pending`, or `invalid` when the result breaks a validation rule (as an edit
    /// would). When the result is the server's version exactly, there is nothing left to
    /// post and the change goes away, as an edit back to the base does. Later edits of the
    /// same entity, made while it was in conflict, are rebased onto the result.
    ///
    /// Fails without changing anything when `seq` is unknown or not in conflict, when a
    /// path is missing or unknown, or when the server version is not in the workspace (a
    /// conflict recorded by an older Flightdeck: download, then resolve). If a download
    /// since the push brought a newer server version that collides differently, the
    /// stored conflicts are brought up to date and an error asks the buyer to look again.
    pub fn resolve_conflict(&mut self, seq: i64, picks: &[(String, Pick)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        let change = change_in(&tx, seq)?.ok_or_else(|| no_change(seq))?;
        if change.status != ChangeStatus::Conflict {
            return Err(Error::Invalid(format!(
                "change {seq} is not in conflict (it is {}); there is nothing to resolve",
                status_text(change.status).replace('_', " ")
            )));
        }
        let stored: Option<String> =
            tx.query_row("SELECT conflicts FROM outbox WHERE seq = ?1", [seq], |r| {
                r.get(0)
            })?;
        let PendingChange {
            target,
            op,
            payload: mine,
            parents,
            base,
            ..
        } = change;
        let (kind, key) = (target.kind.name(), key_text(&target.key));
        let what = format!("{} {}", kind.replace('_', " "), target.key);
        let server: Option<(Option<String>, Option<String>, bool)> = tx
            .query_row(
                "SELECT server_json, server_hash, server_removed FROM entities \
                 WHERE kind = ?1 AND key = ?2",
                params![kind, key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let (theirs_text, theirs_hash) = match server {
            Some((_, _, true)) => {
                return Err(Error::Invalid(format!(
                    "{what} was removed on the ad platform; discard change {seq} instead"
                )));
            }
            Some((Some(text), Some(hash), false)) => (text, hash),
            _ => {
                return Err(Error::Invalid(format!(
                    "the ad platform's version of {what} is not in the workspace; \
                     download it, then resolve change {seq}"
                )));
            }
        };
        let Some(base) = base else {
            return Err(Error::Corrupt(format!(
                "change {seq} is in conflict but has no base version"
            )));
        };
        let theirs: Value = parse_json(&theirs_text)?;
        let merged = merge::three_way(&base, &mine, &theirs);

        let stored: Vec<FieldConflict> = stored
            .as_deref()
            .map_or_else(|| Ok(Vec::new()), parse_json)?;
        // Compared as stored: a `null` value reads back as absent.
        let fresh: Vec<FieldConflict> = parse_json(&to_json(&merged.conflicts)?)?;
        if stored != fresh {
            // A download brought a newer server version since the push: what the buyer
            // picked from is out of date. Keep the fresh conflicts and ask again.
            let messages: Vec<ChangeMessage> = merged
                .conflicts
                .iter()
                .map(crate::sync::conflict_note)
                .collect();
            set_outcome_in(
                &tx,
                seq,
                ChangeStatus::Conflict,
                &messages,
                Some(&to_json(&merged.conflicts)?),
            )?;
            tx.commit()?;
            return Err(Error::Invalid(format!(
                "the ad platform changed {what} again since change {seq} was found in \
                 conflict; review its conflicts again"
            )));
        }

        let picked: HashMap<&str, Pick> = picks.iter().map(|(p, k)| (p.as_str(), *k)).collect();
        let missing: Vec<&str> = merged
            .conflicts
            .iter()
            .map(|c| c.path.as_str())
            .filter(|p| !picked.contains_key(p))
            .collect();
        if !missing.is_empty() {
            return Err(Error::Invalid(format!(
                "pick base, mine or theirs for every field in conflict; missing: {}",
                missing.join(", ")
            )));
        }
        let unknown: Vec<&str> = picks
            .iter()
            .map(|(p, _)| p.as_str())
            .filter(|p| !merged.conflicts.iter().any(|c| c.path == *p))
            .collect();
        if !unknown.is_empty() {
            return Err(Error::Invalid(format!(
                "not in conflict in change {seq}: {}",
                unknown.join(", ")
            )));
        }

        super::history::begin(&tx)?;
        let mut resolved = merged.merged;
        // Last first: paths are numbered in the merged value, so array items inserted or
        // removed at higher indices leave the lower ones where the paths say.
        for c in merged.conflicts.iter().rev() {
            let value = match picked.get(c.path.as_str()) {
                Some(Pick::Base) => c.base.clone(),
                Some(Pick::Mine) => c.mine.clone(),
                Some(Pick::Theirs) | None => c.theirs.clone(),
            };
            place(
                &mut resolved,
                &diff::parse(&c.path),
                c.theirs.is_some(),
                value,
            );
        }

        let errors = check_one(
            &tx,
            target.kind,
            &target.key,
            op,
            Payload::Value(&resolved),
            &parents,
            Some(&theirs),
        )?;

        // The server version is the entity's base from now on.
        tx.execute(
            "UPDATE entities SET remote_json = ?3, base_hash = ?4, server_json = NULL, \
             server_hash = NULL, server_removed = 0 WHERE kind = ?1 AND key = ?2",
            params![kind, key, theirs_text, theirs_hash],
        )?;
        let later: Vec<(i64, String, String)> = {
            let mut stmt = tx.prepare(
                "SELECT seq, payload, status FROM outbox WHERE kind = ?1 AND key = ?2 \
                 AND seq > ?3 AND status <> 'applied' AND op IN ('create', 'update') ORDER BY seq",
            )?;
            let rows = stmt.query_map(params![kind, key, seq], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let resolved_text = canonical(&resolved)?;
        if later.is_empty() && diff::same(&resolved, &theirs) {
            tx.execute("DELETE FROM outbox WHERE seq = ?1", [seq])?;
        } else {
            tx.execute(
                "UPDATE outbox SET payload = ?2, base = ?3, errors = ?4, status = ?5, \
                 messages = '[]', conflicts = NULL, updated_at = ?6 WHERE seq = ?1",
                params![
                    seq,
                    resolved_text,
                    theirs_text,
                    to_json(&errors)?,
                    status_text(status_for(&errors)),
                    super::now_ms()
                ],
            )?;
        }
        // Edits made while in conflict were whole versions over `mine`: keep what they
        // changed from it, on top of the resolution; they follow it to the server.
        // They are checked again like edits; one that waited on this change is free to go.
        for (later_seq, later_payload, later_status) in later {
            let edit: Value = parse_json(&later_payload)?;
            let rebased = merge::three_way(&mine, &resolved, &edit).merged;
            let errors = check_one(
                &tx,
                target.kind,
                &target.key,
                op,
                Payload::Value(&rebased),
                &parents,
                Some(&theirs),
            )?;
            let status = match status_from_text(&later_status)? {
                ChangeStatus::Pending | ChangeStatus::Invalid | ChangeStatus::Blocked => {
                    status_for(&errors)
                }
                other => other,
            };
            tx.execute(
                "UPDATE outbox SET payload = ?2, base = ?3, errors = ?4, status = ?5, \
                 updated_at = ?6 WHERE seq = ?1",
                params![
                    later_seq,
                    canonical(&rebased)?,
                    resolved_text,
                    to_json(&errors)?,
                    status_text(status),
                    super::now_ms()
                ],
            )?;
        }
        replay_working(&tx, kind, &key)?;
        super::history::finish(&tx, Some(&format!("Resolve the conflict of {what}")))?;
        tx.commit()?;
        Ok(())
    }
}

/// Puts `value` at `path` of `root` (`None`: absent). `present` says whether the merged
/// value holds an item at the path: an array item the server removed is not there, so
/// picking a value inserts it rather than replacing its neighbour.
fn place(root: &mut Value, path: &[Seg], present: bool, value: Option<Value>) {
    let Some((last, parents)) = path.split_last() else {
        *root = value.unwrap_or(Value::Null);
        return;
    };
    let mut node = root;
    for seg in parents {
        let next = match (node, seg) {
            (Value::Object(map), Seg::Key(k)) => {
                if value.is_none() && !map.contains_key(k) {
                    return;
                }
                map.entry(k.clone())
                    .or_insert_with(|| Value::Object(serde_json::Map::new()))
            }
            (Value::Array(items), Seg::Index(i)) => match items.get_mut(*i) {
                Some(item) => item,
                None => return,
            },
            _ => return,
        };
        node = next;
    }
    match (node, last) {
        (Value::Object(map), Seg::Key(k)) => match value {
            Some(v) => {
                map.insert(k.clone(), v);
            }
            None => {
                map.shift_remove(k);
            }
        },
        (Value::Array(items), Seg::Index(i)) => {
            let i = *i;
            match (present && i < items.len(), value) {
                (true, Some(v)) => items[i] = v,
                (true, None) => {
                    items.remove(i);
                }
                (false, Some(v)) => items.insert(i.min(items.len()), v),
                (false, None) => {}
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn merge_and_pick(base: Value, mine: Value, theirs: Value, pick: &[(&str, Pick)]) -> Value {
        let m = merge::three_way(&base, &mine, &theirs);
        let picked: HashMap<&str, Pick> = pick.iter().copied().collect();
        let mut out = m.merged;
        for c in m.conflicts.iter().rev() {
            let v = match picked[c.path.as_str()] {
                Pick::Base => c.base.clone(),
                Pick::Mine => c.mine.clone(),
                Pick::Theirs => c.theirs.clone(),
            };
            place(&mut out, &diff::parse(&c.path), c.theirs.is_some(), v);
        }
        out
    }

    #[test]
    fn picks_land_on_the_merged_value_and_keep_both_sides_other_edits() {
        let base = json!({"name": "a", "maxBid": 1, "category": "x", "note": "n"});
        let mine = json!({"name": "mine", "maxBid": 2, "category": "x", "note": "mine note"});
        let theirs = json!({"name": "theirs", "maxBid": 3, "category": "y", "note": "n"});
        let out = merge_and_pick(
            base,
            mine,
            theirs,
            &[("name", Pick::Theirs), ("maxBid", Pick::Mine)],
        );
        assert_eq!(
            out,
            json!({"name": "theirs", "maxBid": 2, "category": "y", "note": "mine note"})
        );
    }

    #[test]
    fn a_base_pick_of_an_absent_field_removes_it() {
        let base = json!({"name": "a"});
        let mine = json!({"name": "a", "extra": 1});
        let theirs = json!({"name": "a", "extra": 2});
        let out = merge_and_pick(base, mine, theirs, &[("extra", Pick::Base)]);
        assert_eq!(out, json!({"name": "a"}));
    }

    #[test]
    fn array_items_removed_on_one_side_come_back_or_go_as_picked() {
        let base = json!({"flights": [{"id": 1, "b": 1}, {"id": 2, "b": 1}, {"id": 3, "b": 1}]});
        // The server removed flight 1, which the buyer changed; the buyer removed flight
        // 3, which the server changed.
        let mine = json!({"flights": [{"id": 1, "b": 5}, {"id": 2, "b": 1}]});
        let theirs = json!({"flights": [{"id": 2, "b": 1}, {"id": 3, "b": 9}]});
        let m = merge::three_way(&base, &mine, &theirs);
        let paths: Vec<&str> = m.conflicts.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths.len(), 2, "{m:#?}");
        let all = |pick: Pick| -> Vec<(&str, Pick)> { paths.iter().map(|p| (*p, pick)).collect() };
        let out = merge_and_pick(base.clone(), mine.clone(), theirs.clone(), &all(Pick::Mine));
        assert_eq!(out, mine, "{m:#?}");
        let out = merge_and_pick(
            base.clone(),
            mine.clone(),
            theirs.clone(),
            &all(Pick::Theirs),
        );
        assert_eq!(out, theirs, "{m:#?}");
        let out = merge_and_pick(base.clone(), mine, theirs, &all(Pick::Base));
        assert_eq!(out, base, "{m:#?}");
    }
}
