//! The plans of the bulk operations over the workspace: multi-row edit, find and
//! replace, revert and duplicate, and their entry points that preview or apply them
//! through `run_asked` (`kept.rs`). What a row becomes is decided by the pure parts in
//! [`crate::bulk`]; this module reads the rows they work on.

use rusqlite::{Connection, params};
use serde_json::Value;

use super::{Asked, Planned, Preview, ReadCopy, Workspace, key_text, parse_json};
use crate::bulk::cells::{self, RowCells};
use crate::bulk::ops::{self, FieldEdit};
use crate::bulk::plan::{DuplicateOptions, EDITABLE_KINDS, Scope};
use crate::bulk::replace::{Counts, Find, Matcher};
use crate::change::{EntityRef, Kind};
use crate::{Error, Result};

impl Workspace {
    /// The working copy of one entity, decoded; `None` when it is not in the workspace.
    pub fn working_of(&self, target: &EntityRef) -> Result<Option<Value>> {
        let mut out = None;
        self.scan_one(target, |s| {
            out = Some(parse_json::<Value>(s.json)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// The plans of `targets` as `plan` makes each from its working copy (`None` when the
    /// workspace does not hold it), read through [`Workspace::read_each`].
    fn plan_each<T: Send>(
        &self,
        targets: &[EntityRef],
        plan: impl Fn(&EntityRef, Option<ReadCopy>) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        self.read_each(targets, |conn, target| {
            plan(target, read_copy(conn, target)?)
        })
    }

    /// The entities `scope` names, kind by kind in posting order.
    pub fn targets(&self, scope: &Scope) -> Result<Vec<EntityRef>> {
        let kinds: Vec<Kind> = match scope {
            Scope::Selection(t) => return Ok(t.clone()),
            Scope::Kind(k) => vec![*k],
            Scope::Account => EDITABLE_KINDS.to_vec(),
        };
        let mut out = Vec::new();
        for kind in kinds {
            let mut of_kind: Vec<(i64, EntityRef)> = Vec::new();
            self.scan(kind, |s| {
                of_kind.push((s.order, s.target));
                Ok(())
            })?;
            of_kind.sort_by_key(|(order, _)| *order);
            out.extend(of_kind.into_iter().map(|(_, t)| t));
        }
        Ok(out)
    }

    /// Entities of `kind` whose fields hold the given values (`--where status=ACTIVE`),
    /// compared as the wire values (`"10"` matches the text `10` and the number 10).
    pub fn find_where(&self, kind: Kind, filters: &[(String, Value)]) -> Result<Vec<EntityRef>> {
        let mut out: Vec<(i64, EntityRef)> = Vec::new();
        self.scan(kind, |s| {
            let value = parse_json::<Value>(s.json)?;
            let hit = filters.iter().all(|(path, want)| {
                let got = ops::get(&value, path);
                match (got, want) {
                    (None | Some(Value::Null), Value::Null) => true,
                    (Some(g), w) => crate::diff::same(g, w) || text_of(g) == text_of(w),
                    (None, _) => false,
                }
            });
            if hit {
                out.push((s.order, s.target));
            }
            Ok(())
        })?;
        out.sort_by_key(|(o, _)| *o);
        Ok(out.into_iter().map(|(_, t)| t).collect())
    }

    /// The plan of a multi-row edit: each target gets every edit, in order. A target an
    /// edit cannot apply to is refused with that edit's field; one the edits leave as it
    /// is stays out of the rows. Distinct ad orders, campaigns or creatives are planned
    /// as [`Planned::Edit`] rows, worked out as they are carried out (`lazy_edits`).
    pub fn plan_edit(&self, targets: &[EntityRef], edits: &[FieldEdit]) -> Result<Vec<Planned>> {
        if let Some(lazy) = lazy_edits(targets, edits) {
            return Ok(lazy);
        }
        let plans = self.read_each(targets, |conn, target| work_out(conn, target, edits))?;
        Ok(plans.into_iter().flatten().collect())
    }

    /// Multi-row edit: previews it, or applies it as one undo step.
    pub fn bulk_edit(
        &mut self,
        targets: &[EntityRef],
        edits: &[FieldEdit],
        apply: bool,
    ) -> Result<Preview> {
        let asked = Asked::of_keyed("edit", &targets, &edits)?;
        self.run_asked(asked, apply, |ws| {
            let plan = ws.plan_edit(targets, edits)?;
            let reached = targets.len();
            let label = match (reached, targets.first()) {
                (1, Some(t)) => format!("Edit {}", t.kind.label()),
                (n, Some(t)) if targets.iter().all(|x| x.kind == t.kind) => {
                    format!("Edit {n} {}", t.kind.plural())
                }
                (n, _) => format!("Edit {n} entities"),
            };
            Ok((plan, label, move |p: &mut Preview| unchanged_of(p, reached)))
        })
    }

    /// The plan of cells typed or pasted into a table: each row's cells as one change
    /// of it (and an ad order's Status cell as its status change, after it). A row with
    /// a bad cell (or one refused up front) is refused with each bad cell's error; a row
    /// its cells leave as it is stays out of the plan.
    pub fn plan_cells(&self, rows: &[RowCells]) -> Result<Vec<Planned>> {
        let targets: Vec<EntityRef> = rows.iter().map(|r| r.target.clone()).collect();
        let by_target: std::collections::HashMap<&EntityRef, &RowCells> =
            rows.iter().map(|r| (&r.target, r)).collect();
        let plans = self.read_each(&targets, |conn, target| {
            let Some(row) = by_target.get(target) else {
                return Ok(Vec::new());
            };
            let Some(read) = read_copy(conn, target)? else {
                return Err(Error::NotFound(format!(
                    "{} {} is not in the workspace",
                    target.kind.label(),
                    target.key
                )));
            };
            let tz = if row.needs_zone() {
                super::validate::Timezones::default().of(conn, target.kind, &target.key)?
            } else {
                None
            };
            let failed = |errors| Planned::Failed {
                target: Some(target.clone()),
                kind: target.kind,
                errors,
                line: None,
            };
            let (edits, status) = match cells::row_edits(row, &read.value, tz.as_ref()) {
                Ok(done) => done,
                Err(errors) => return Ok(vec![failed(errors)]),
            };
            let mut value = read.value.clone();
            let errors = ops::apply(&mut value, &edits);
            let mut plan = Vec::with_capacity(2);
            if !errors.is_empty() {
                return Ok(vec![failed(errors)]);
            } else if !crate::diff::same(&read.value, &value) {
                plan.push(Planned::Update {
                    target: target.clone(),
                    value,
                    line: None,
                    from: Some(read),
                });
            }
            // After the row's save, as a status change posts after its ad order's.
            plan.extend(status.map(|status| Planned::SetStatus {
                target: target.clone(),
                status,
                line: None,
            }));
            Ok(plan)
        })?;
        Ok(plans.into_iter().flatten().collect())
    }

    /// Cells typed or pasted into a table: previews them, or applies them as one undo
    /// step (bulk edit's run: a row whose result breaks a rule is saved and held back
    /// from posting, as a form save is; a refused row is not saved).
    pub fn edit_rows(&mut self, rows: &[RowCells], apply: bool) -> Result<Preview> {
        let asked = Asked::of("cells", &rows)?;
        self.run_asked(asked, apply, |ws| {
            let plan = ws.plan_cells(rows)?;
            let reached = rows.len();
            let label = match rows {
                [one] => match one.cells.as_slice() {
                    [cell] => format!("Edit {} of {}", cell.label, one.target.kind.label()),
                    _ => format!("Edit {}", one.target.kind.label()),
                },
                many => format!("Edit cells of {} rows", many.len()),
            };
            Ok((plan, label, move |p: &mut Preview| unchanged_of(p, reached)))
        })
    }

    /// The plan of a find and replace over `scope`, with the matches per field.
    pub fn plan_replace(
        &self,
        scope: &Scope,
        find: &Find,
    ) -> Result<(Vec<Planned>, Counts, usize)> {
        let matcher = Matcher::new(find)
            .map_err(|e| Error::Refused(flightdeck_model::ValidationErrors(vec![e])))?;
        let targets = self.targets(scope)?;
        let plans = self.plan_each(&targets, |target, read| {
            let Some(read) = read else {
                return Ok(None);
            };
            let mut value = read.value.clone();
            let mut counts = Counts::new();
            Ok((matcher.apply(&mut value, &mut counts) > 0).then(|| {
                let update = Planned::Update {
                    target: target.clone(),
                    value,
                    line: None,
                    from: Some(read),
                };
                (update, counts)
            }))
        })?;
        let mut counts = Counts::new();
        let mut plan = Vec::with_capacity(plans.len());
        for (update, found) in plans.into_iter().flatten() {
            plan.push(update);
            for (field, n) in found {
                *counts.entry(field).or_default() += n;
            }
        }
        Ok((plan, counts, targets.len()))
    }

    /// Find and replace: previews it, or applies it as one undo step.
    pub fn replace(&mut self, scope: &Scope, find: &Find, apply: bool) -> Result<Preview> {
        let asked = Asked::of("replace", &(scope, find))?;
        self.run_asked(asked, apply, |ws| {
            let (plan, counts, reached) = ws.plan_replace(scope, find)?;
            let label = format!("Replace “{}” with “{}”", find.find, find.replace);
            Ok((plan, label, move |p: &mut Preview| {
                p.count_matches(&counts);
                unchanged_of(p, reached);
            }))
        })
    }

    /// A step that cannot be undone because it was posted, put back by a new edit:
    /// previews it, or applies it as one undo step.
    pub fn revert(&mut self, step: i64, apply: bool) -> Result<Preview> {
        let asked = Asked::of("revert", &step)?;
        self.run_asked(asked, apply, |ws| {
            let plan = ws.revert_plan(step)?;
            let label = ws
                .history(usize::MAX)?
                .into_iter()
                .find(|s| s.id == step)
                .map_or_else(
                    || format!("Revert step {step}"),
                    |s| format!("Revert “{}”", s.label),
                );
            Ok((plan, label, |_: &mut Preview| {}))
        })
    }
}

/// What `edits` make of `target` as `read`: its update, a refusal of edits that do
/// not fit, or `None` when they change nothing.
fn edited(target: &EntityRef, read: ReadCopy, edits: &[FieldEdit]) -> Option<Planned> {
    let current = &read.value;
    let mut value = current.clone();
    let errors = ops::apply(&mut value, edits);
    if !errors.is_empty() {
        Some(Planned::Failed {
            target: Some(target.clone()),
            kind: target.kind,
            errors,
            line: None,
        })
    } else if !crate::diff::same(current, &value) {
        Some(Planned::Update {
            target: target.clone(),
            value,
            line: None,
            from: Some(read),
        })
    } else {
        None
    }
}

/// A [`Planned::Edit`] of `target` worked out over `conn`: its entity read and `edits`
/// applied ([`edited`]). An entity the workspace does not hold stops the whole run, as
/// planning it up front does.
pub(super) fn work_out(
    conn: &Connection,
    target: &EntityRef,
    edits: &[FieldEdit],
) -> Result<Option<Planned>> {
    let Some(read) = read_copy(conn, target)? else {
        return Err(Error::NotFound(format!(
            "{} {} is not in the workspace",
            target.kind.label(),
            target.key
        )));
    };
    Ok(edited(target, read, edits))
}

/// The plan of an edit of `targets` as [`Planned::Edit`] rows, each worked out as it is
/// carried out, when that reads what planning up front would: distinct entities of the
/// kinds whose edits read nothing another row of the run writes (ad orders, campaigns,
/// creatives; see `independent` in `bulk.rs`). `None`: plan up front.
fn lazy_edits(targets: &[EntityRef], edits: &[FieldEdit]) -> Option<Vec<Planned>> {
    let mut seen = std::collections::HashSet::with_capacity(targets.len());
    let lazy = targets.iter().all(|t| {
        matches!(t.kind, Kind::AdOrder | Kind::Campaign | Kind::Creative) && seen.insert(t)
    });
    if !lazy {
        return None;
    }
    let edits: std::sync::Arc<[FieldEdit]> = edits.into();
    Some(
        targets
            .iter()
            .map(|target| Planned::Edit {
                target: target.clone(),
                edits: edits.clone(),
            })
            .collect(),
    )
}

/// An entity's working copy with the text it was parsed from, and its parent; `None`
/// when the workspace does not hold it.
fn read_copy(conn: &Connection, target: &EntityRef) -> Result<Option<ReadCopy>> {
    let mut stmt = conn.prepare_cached(
        "SELECT COALESCE(working_json, remote_json), working_json IS NULL, \
         parent_kind, parent_key, scope FROM entities WHERE kind = ?1 AND key = ?2",
    )?;
    let mut rows = stmt.query(params![target.kind.name(), key_text(&target.key)])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let Some(text) = row
        .get_ref(0)?
        .as_str_or_null()
        .map_err(rusqlite::Error::from)?
    else {
        return Ok(None);
    };
    Ok(Some(ReadCopy {
        text: text.to_owned(),
        value: parse_json::<Value>(text)?,
        is_base: row.get(1)?,
        hop: (row.get(2)?, row.get(3)?, row.get(4)?),
    }))
}

fn count_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Entities an operation reached that its plan left out (nothing to change) count as
/// unchanged.
fn unchanged_of(preview: &mut Preview, reached: usize) {
    preview.unchanged =
        count_u32(reached).saturating_sub(preview.updates + preview.refused + preview.creates);
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Workspace {
    /// Duplicates as drafts: previews the copies, or makes them as one undo step.
    pub fn duplicate(
        &mut self,
        sources: &[EntityRef],
        options: &DuplicateOptions,
        apply: bool,
    ) -> Result<Preview> {
        let asked = Asked::of_keyed("duplicate", &sources, options)?;
        self.run_asked(asked, apply, |_| {
            let plan = sources
                .iter()
                .map(|s| Planned::Duplicate {
                    source: s.clone(),
                    into: options.into.clone(),
                    shift_days: options.shift_days.unwrap_or(0),
                })
                .collect();
            let label = match sources {
                [one] => format!("Duplicate {}", one.kind.label()),
                many => format!("Duplicate {} entities", many.len()),
            };
            Ok((plan, label, |_: &mut Preview| {}))
        })
    }
}
