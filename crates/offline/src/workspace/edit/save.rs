//! Folding a create or update into the entity's open change, or queueing a new one: the
//! base read once, fields the service ignores on update refused, an edit back to the
//! base dropped, and the body checked as it will be sent.

use flightdeck_model::validate::{self, IgnoredOnUpdate};
use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::*;
use crate::change::{EntityRef, Kind, Op, ParentRef};
use crate::workspace::kept::Arg;
use crate::workspace::validate::Timezones;
use crate::workspace::{canonical, key_text, parse_json, status_text, to_json};
use crate::{Error, Result};

impl Batch<'_> {
    /// Folds a create or update into the entity's open change, or queues a new one.
    /// `parents`: `None` keeps those of the entity's create (a draft's draft parent).
    pub(super) fn save(
        &mut self,
        target: &EntityRef,
        op: Op,
        payload: Value,
        parents: Option<Vec<ParentRef>>,
        ignored: &[IgnoredOnUpdate],
    ) -> Result<i64> {
        // Held aside while saving (and given back for the run's diff).
        let current = self.current.take();
        let known = current.as_ref().filter(|c| c.target == *target);
        let out = self.save_with(target, op, payload, parents, ignored, known);
        self.current = current;
        out
    }

    pub(super) fn save_with(
        &mut self,
        target: &EntityRef,
        op: Op,
        mut payload: Value,
        parents: Option<Vec<ParentRef>>,
        ignored: &[IgnoredOnUpdate],
        known: Option<&Current>,
    ) -> Result<i64> {
        let (kind, key) = (target.kind.name(), key_text(&target.key));
        // The base, read once (for the check against it, the change's base, and telling
        // whether the edit went back to it), with the fields the service ignores on update
        // (from the working copy a bulk run holds, else out of the stored one), and the
        // entity's parent, where its timezone is looked up from.
        let (base_text, fields, hop): (Option<String>, Option<String>, Hop) =
            match known.and_then(|k| k.base.as_ref()) {
                Some((text, hop)) => (Some(text.clone()), None, hop.clone()),
                None => {
                    let sql = if known.is_some() {
                        rule_fields_sql(&[])
                    } else {
                        rule_fields_sql(ignored)
                    };
                    self.row(&sql, params![kind, key], |r| {
                        Ok((r.get(0)?, r.get(1)?, (r.get(2)?, r.get(3)?, r.get(4)?)))
                    })
                    .optional()?
                    .ok_or_else(|| {
                        Error::NotFound(format!("{kind} {} is not in the workspace", target.key))
                    })?
                }
            };
        let current = match known {
            Some(k) => Some(rule_fields_of(ignored, &k.working)),
            None => rule_fields_from(ignored, fields.as_deref())?,
        };
        refuse_ignored(target, ignored, current, &payload)?;
        let parents = match parents {
            Some(p) => p,
            None => self.create_parents(target)?,
        };
        fill_parents(&mut payload, &parents);
        let open = self.open_change(kind, &key)?;
        let text = canonical(&payload)?;
        let row_op = match &open {
            Some((_, o)) if o == "create" => Op::Create,
            _ => op,
        };
        if row_op == Op::Update && !target.kind.has_update() {
            // A draft whose create is being sent (or awaits review) cannot take an edit:
            // it would be an update, which the kind does not have.
            return Err(no_update(target.kind));
        }
        if target.kind == Kind::Advertiser {
            // Dates of its campaigns and orders are checked in its timezone.
            self.timezones = Timezones::default();
        }
        self.write(
            "UPDATE entities SET working_json = ?3, updated_at = ?4 WHERE kind = ?1 AND key = ?2",
            vec![
                kind.to_owned().into(),
                key.clone().into(),
                text.clone().into(),
                Arg::Now,
            ],
        )?;
        let parsed;
        let base = match (&base_text, row_op, known) {
            // The working copy the run holds is the base itself: the same text.
            (Some(_), Op::Update, Some(k)) if k.is_base => Some(&k.working),
            // An update is checked as it will be sent: against the server version.
            (Some(t), Op::Update, _) => {
                parsed = parse_json::<Value>(t)?;
                Some(&parsed)
            }
            _ => None,
        };
        // Back to the base exactly: nothing left to post. (Maps compare regardless of
        // member order, as their canonical texts would.)
        if base.is_some_and(|b| *b == payload) {
            self.written = Some(payload);
            self.recorded = Some(Vec::new());
            if let Some((seq, _)) = open {
                self.write("DELETE FROM outbox WHERE seq = ?1", vec![seq.into()])?;
                return Ok(seq);
            }
            return Ok(0);
        }
        self.timezones.first_hop(target.kind, &key, hop);
        let errors = self.validate(target, row_op, &payload, &parents, base)?;
        self.written = Some(payload);
        let seq = match open {
            Some((seq, _)) => {
                self.write(
                    "UPDATE outbox SET payload = ?2, parents = ?3, errors = ?4, status = ?5, \
                     messages = '[]', conflicts = NULL, updated_at = ?6 WHERE seq = ?1",
                    vec![
                        seq.into(),
                        text.into(),
                        to_json(&parents)?.into(),
                        to_json(&errors)?.into(),
                        status_text(status_for(&errors)).to_owned().into(),
                        Arg::Now,
                    ],
                )?;
                seq
            }
            None => self.insert_row(target, op, text, &parents, base_text, &errors)?,
        };
        self.recorded = Some(errors);
        Ok(seq)
    }

    /// The entity's latest change that an edit folds into (see [`COALESCE_INTO`]): its
    /// `seq` and op. Its rows are filtered here rather than in SQL, where the two lists
    /// cost a temporary table each and the order a sort, for every edit of a bulk run.
    pub(super) fn open_change(&self, kind: &str, key: &str) -> Result<Option<(i64, String)>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT seq, op, status FROM outbox WHERE kind = ?1 AND key = ?2")?;
        let mut rows = stmt.query(params![kind, key])?;
        let mut open: Option<(i64, String)> = None;
        while let Some(r) = rows.next()? {
            let seq: i64 = r.get(0)?;
            let op: String = r.get(1)?;
            let status: String = r.get(2)?;
            if (op == "create" || op == "update")
                && COALESCE_INTO.contains(&status.as_str())
                && open.as_ref().is_none_or(|(s, _)| seq > *s)
            {
                open = Some((seq, op));
            }
        }
        Ok(open)
    }
}

/// The parent of the entity `save` reads (`parent_kind`, `parent_key`, `scope`): the
/// first hop of its timezone's look-up.
pub(crate) type Hop = (Option<String>, Option<String>, Option<i64>);

/// [`Error::Refused`] when the edit changes a field in `rules` from the entity's current
/// working copy (its server version when it has no pending edit): `current` holds those
/// fields' values (see [`rule_fields_of`]). Drafts have none and may set anything.
/// Compared with the working copy, not with a newer server version a pull holds back
/// while edits are pending: a value someone else changed elsewhere (an ad order's budget
/// through its flight) is not this edit's doing and must not refuse it.
pub(super) fn refuse_ignored(
    target: &EntityRef,
    rules: &[IgnoredOnUpdate],
    current: Option<Value>,
    edited: &Value,
) -> Result<()> {
    if target.key.is_local() || rules.is_empty() {
        return Ok(());
    }
    let Some(current) = current else {
        return Ok(());
    };
    validate::ignored_on_update(rules, &current, edited).map_err(Error::Refused)
}

/// The fields of `rules` in a working copy, as an object.
pub(super) fn rule_fields_of(rules: &[IgnoredOnUpdate], working: &Value) -> Value {
    Value::Object(
        rules
            .iter()
            .map(|r| {
                let v = working.get(r.field).cloned().unwrap_or(Value::Null);
                (r.field.to_owned(), v)
            })
            .collect(),
    )
}

/// The fields of `rules` as SQLite took them out of the stored working copy: a JSON array
/// in `rules`' order (see [`rule_fields_sql`]).
pub(super) fn rule_fields_from(
    rules: &[IgnoredOnUpdate],
    fields: Option<&str>,
) -> Result<Option<Value>> {
    let Some(fields) = fields.filter(|_| !rules.is_empty()) else {
        return Ok(None);
    };
    let values: Vec<Value> = parse_json(fields)?;
    Ok(Some(Value::Object(
        rules
            .iter()
            .zip(values)
            .map(|(r, v)| (r.field.to_owned(), v))
            .collect(),
    )))
}

/// The SQL of what `save` reads of an entity: its base, the fields of `rules` in its
/// working copy as one JSON array (SQLite takes them out: parsing the whole working copy
/// again is a large share of an edit in a bulk run), and its parent ([`Hop`]).
pub(super) fn rule_fields_sql(rules: &[IgnoredOnUpdate]) -> String {
    let mut paths: Vec<String> = rules.iter().map(|r| format!("'$.{}'", r.field)).collect();
    let fields = match paths.len() {
        0 => "NULL".to_owned(),
        n => {
            if n == 1 {
                // With one path SQLite gives the bare value (of any SQL type); with two,
                // always a JSON array. The second path matches nothing.
                paths.push("'$.\"\"'".to_owned());
            }
            format!(
                "json_extract(COALESCE(working_json, remote_json), {})",
                paths.join(", ")
            )
        }
    };
    format!(
        "SELECT remote_json, {fields}, parent_kind, parent_key, scope \
         FROM entities WHERE kind = ?1 AND key = ?2"
    )
}
