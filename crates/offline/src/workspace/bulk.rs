//! Bulk work: many entities changed in one step. Every operation (multi-row edit, find
//! and replace, paste, import, duplicate, revert) is first a *plan* (per entity, the
//! value it would get, or a draft to create), then [`Workspace::run`] carries the plan
//! out in one [`Batch`]. A preview is the same run rolled back, so what the buyer
//! previews is exactly what applying does: the same diffs, the same validation errors,
//! the same refusals. Applied, the batch is one undo step. Accepted right after its
//! preview, an operation replays the writes the preview made instead of carrying the plan
//! out again ([`super::kept`]).

use std::collections::BTreeMap;

use flightdeck_model::validate::codes;
use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, Creative, FieldError, FlightCap, SiteList,
    ValidationErrors,
};
use rusqlite::{OptionalExtension, params};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::edit::{Batch, Current, Hop};
use super::kept::{Seen, Write};
use super::{Workspace, key_from_text, key_text, kind_from_text, parse_json};
use crate::bulk::replace::Counts;
use crate::change::{EntityRef, Kind};
use crate::diff::{self, FieldDiff};
use crate::{Error, Result};

mod duplicate;
mod parallel;
use parallel::{SPLIT_MIN, carry_out_ahead, carry_out_split};

/// What a plan does to one entity.
#[derive(Debug, Clone, PartialEq)]
pub enum Planned {
    /// Give an entity the workspace holds this working copy.
    Update {
        /// The entity.
        target: EntityRef,
        /// Its new working copy (wire JSON).
        value: Value,
        /// The spreadsheet line it came from.
        line: Option<u32>,
        /// The working copy the plan started from, as it read it: carrying the plan out
        /// reads the entity again and, when it is still that text, need not parse it a
        /// second time. `None`: parsed when carried out.
        from: Option<ReadCopy>,
    },
    /// A multi-row edit of one entity, worked out when it is carried out: its working
    /// copy read in the run's transaction (or, for an apply, just ahead of it on a second
    /// connection: `carry_out_ahead`), `edits` applied, and then an
    /// [`Planned::Update`] (a [`Planned::Failed`] for edits that do not fit; nothing
    /// when they change nothing). Planned up front, every row of a select-all edit held
    /// two parsed copies of its entity until the run began: 1.35 GB for 100,000 ad
    /// orders, 14 GB for 1,000,000. This way a row's copies live while it is carried out.
    Edit {
        /// The entity.
        target: EntityRef,
        /// The edits, shared by every row.
        edits: std::sync::Arc<[crate::bulk::ops::FieldEdit]>,
    },
    /// A new draft.
    Create {
        /// Its kind.
        kind: Kind,
        /// Where it hangs (advertiser of a campaign, campaign of an ad order …).
        parent: Option<EntityRef>,
        /// Its value (wire JSON).
        value: Value,
        /// The spreadsheet line it came from.
        line: Option<u32>,
        /// An ad order's status to set once it is made (a sheet's `status` cell): a
        /// status change posted after its create.
        status: Option<flightdeck_model::AdOrderStatus>,
    },
    /// A copy of an entity as a new draft, with what belongs to it (a campaign's flights,
    /// an ad order's flight caps and audiences).
    Duplicate {
        /// What to copy.
        source: EntityRef,
        /// Where the copy goes (an advertiser or a campaign); `None`: beside the source.
        into: Option<EntityRef>,
        /// Days to move every date by (a new flight must start in the future).
        shift_days: i64,
    },
    /// Set an ad order's status (`updateStatus`), a pending change of its own (see
    /// `workspace/status.rs`).
    SetStatus {
        /// The ad order.
        target: EntityRef,
        /// The status to set.
        status: flightdeck_model::AdOrderStatus,
        /// The spreadsheet line it came from.
        line: Option<u32>,
    },
    /// Something the plan could not turn into a change (a cell that is not a number, an
    /// id the workspace does not hold); shown in the preview, never applied.
    Failed {
        /// The entity, when known.
        target: Option<EntityRef>,
        /// Its kind.
        kind: Kind,
        /// Why, per field.
        errors: Vec<FieldError>,
        /// The spreadsheet line it came from.
        line: Option<u32>,
    },
}

/// An entity's working copy as a plan read it: the stored text and its value, whether
/// it is the base, and the entity's parent.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadCopy {
    pub(crate) text: String,
    pub(crate) value: Value,
    pub(crate) is_base: bool,
    pub(crate) hop: Hop,
}

/// What one entity's row of a preview says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum RowOutcome {
    /// A new draft.
    Create,
    /// A change to an entity.
    Update,
    /// Nothing would change.
    Unchanged,
    /// Refused as it stands (a field the service ignores on update, a posted creative, a
    /// cell that does not fit): nothing is saved for it.
    Refused,
}

/// One entity in a preview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct RowPreview {
    /// The entity (a new draft's local key once applied; in a preview a key that is
    /// thrown away).
    pub target: Option<EntityRef>,
    /// Its kind.
    pub kind: Kind,
    /// Its name, for the buyer.
    pub label: String,
    /// The spreadsheet line (1 is the first row after the header), for pastes and imports.
    pub line: Option<u32>,
    /// What happens to it.
    pub outcome: RowOutcome,
    /// Field by field, before and after.
    pub diffs: Vec<FieldDiff>,
    /// Rules the result breaks (saved anyway and held back from posting, as a form save
    /// is), or why it is refused.
    pub errors: Vec<FieldError>,
}

/// What a bulk operation would do, or did.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    /// One row per entity touched, refused or unchanged, in the plan's order; once the
    /// workspace keeps the rows ([`Workspace::keep_rows`]), only the first of them.
    pub rows: Vec<RowPreview>,
    /// Rows in all, the first of which are `rows`.
    pub row_count: u32,
    /// The rows kept for reading a window at a time ([`Workspace::preview_rows`]);
    /// `None` while `rows` holds them all.
    pub rows_id: Option<u32>,
    /// New drafts.
    pub creates: u32,
    /// Entities changed.
    pub updates: u32,
    /// Entities the operation reached that it leaves as they are.
    pub unchanged: u32,
    /// Rows refused.
    pub refused: u32,
    /// Changed or new entities whose result breaks a rule.
    pub invalid: u32,
    /// Find and replace: matches per field.
    pub matches: BTreeMap<String, u32>,
    /// The undo step, once applied (`None` in a preview, or when nothing changed).
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub step: Option<i64>,
}

impl Preview {
    pub(crate) fn count_matches(&mut self, counts: &Counts) {
        for (field, n) in counts {
            *self.matches.entry(field.clone()).or_default() +=
                u32::try_from(*n).unwrap_or(u32::MAX);
        }
    }
}

/// Whether no row of `plan` reads what another row writes, so a preview computes the
/// same rows without making its writes: each row edits one entity the others do not
/// touch, of a kind whose edit reads only its own rows and its parents' (never written by
/// these edits): ad orders, campaigns and creatives. Not advertisers (their timezone is
/// read for their children), flight caps (they read their campaign's flights), site
/// lists, creates or copies.
fn independent(plan: &[Planned]) -> bool {
    let mut seen = std::collections::HashSet::new();
    plan.iter().all(|p| match p {
        Planned::Update { target, .. } | Planned::Edit { target, .. } => {
            matches!(target.kind, Kind::AdOrder | Kind::Campaign | Kind::Creative)
                && seen.insert(target)
        }
        Planned::Failed {
            target: Some(target),
            ..
        } => seen.insert(target),
        Planned::Failed { target: None, .. } => true,
        Planned::Create { .. } | Planned::Duplicate { .. } | Planned::SetStatus { .. } => false,
    })
}

/// The field errors of an edit refused for this entity alone (a rule, an edit the
/// service would ignore, a parent that is gone); other errors stop the whole run.
fn refusal(e: Error) -> Result<Vec<FieldError>> {
    match e {
        Error::Refused(errors) => Ok(errors.0),
        Error::Invalid(message) | Error::NotFound(message) => {
            Ok(vec![FieldError::new("", codes::INVALID, message)])
        }
        other => Err(other),
    }
}

impl RowPreview {
    fn refused(
        target: Option<EntityRef>,
        kind: Kind,
        label: String,
        line: Option<u32>,
        errors: Vec<FieldError>,
    ) -> RowPreview {
        RowPreview {
            target,
            kind,
            label,
            line,
            outcome: RowOutcome::Refused,
            diffs: Vec::new(),
            errors,
        }
    }
}

fn decode<T: DeserializeOwned>(kind: Kind, value: Value) -> Result<T> {
    // The plain decoder is the fast path; the path-tracking one only runs again to name
    // the field of a value that does not fit.
    if let Ok(v) = T::deserialize(&value) {
        return Ok(v);
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { String::new() } else { path };
        Error::Refused(ValidationErrors(vec![FieldError::new(
            field,
            codes::INVALID,
            format!("does not fit a {}: {}", kind.label(), e.inner()),
        )]))
    })
}

/// The name a buyer knows an entity by.
pub(crate) fn label_of(kind: Kind, target: Option<&EntityRef>, value: &Value) -> String {
    if let Some(name) = value.get("name").and_then(Value::as_str)
        && !name.is_empty()
    {
        return name.to_owned();
    }
    match target {
        Some(t) => format!("{} {}", kind.label(), t.key),
        None => format!("new {}", kind.label()),
    }
}

impl Batch<'_> {
    /// The working copy of an entity the workspace holds.
    pub(crate) fn working(&self, target: &EntityRef) -> Result<Value> {
        parse_json(&self.require(target)?)
    }

    /// The entity `target` hangs under, if any.
    pub(crate) fn parent_of(&self, target: &EntityRef) -> Result<Option<EntityRef>> {
        let parent: Option<(Option<String>, Option<String>)> = self
            .row(
                "SELECT parent_kind, parent_key FROM entities WHERE kind = ?1 AND key = ?2",
                params![target.kind.name(), key_text(&target.key)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        match parent {
            Some((Some(k), Some(key))) => Ok(Some(EntityRef::new(
                kind_from_text(&k)?,
                key_from_text(&key)?,
            ))),
            _ => Ok(None),
        }
    }

    /// Gives `target` a new working copy through the kind's own edit, so every rule of
    /// a form save applies (ids kept, ignored-on-update fields and posted creatives
    /// refused, validation recorded).
    pub fn put(&mut self, target: &EntityRef, value: Value) -> Result<i64> {
        let kind = target.kind;
        match kind {
            Kind::Advertiser => self.update_advertiser(target, decode::<Advertiser>(kind, value)?),
            Kind::Campaign => self.update_campaign(target, decode::<Campaign>(kind, value)?),
            Kind::AdOrder => self.update_ad_order(target, decode::<AdOrder>(kind, value)?),
            Kind::Creative => self.update_creative(target, decode::<Creative>(kind, value)?),
            Kind::AudienceSegment => {
                self.update_audience_segment(target, decode::<AudienceSegment>(kind, value)?)
            }
            Kind::SiteList => {
                // The service changes a list by replacing its content, which carries the
                // name too (a rename).
                self.overwrite_sites(target, decode::<SiteList>(kind, value)?)
            }
            Kind::FlightCaps => {
                let caps = decode::<Vec<FlightCap>>(kind, value)?;
                let order = EntityRef::new(Kind::AdOrder, target.key.clone());
                self.set_flight_caps(&order, caps)
            }
            Kind::Flight => Err(Error::Invalid(
                "a flight is edited through its campaign (`flights[*]` fields)".into(),
            )),
        }
    }

    /// A new draft of `kind` under `parent` (required where the kind has one).
    pub fn create_value(
        &mut self,
        kind: Kind,
        parent: Option<&EntityRef>,
        value: Value,
    ) -> Result<EntityRef> {
        let needs = |what: &str| {
            Error::Refused(ValidationErrors(vec![FieldError::new(
                what,
                codes::REQUIRED,
                format!(
                    "a new {} needs its {}",
                    kind.label(),
                    if what == "campaignId" {
                        "campaign"
                    } else {
                        "advertiser"
                    }
                ),
            )]))
        };
        match kind {
            Kind::Advertiser => self.create_advertiser(decode(kind, value)?),
            Kind::Campaign => {
                let p = parent.ok_or_else(|| needs("advertiserId"))?.clone();
                self.create_campaign(&p, decode(kind, value)?)
            }
            Kind::AdOrder => {
                let p = parent.ok_or_else(|| needs("campaignId"))?.clone();
                self.create_ad_order(&p, decode(kind, value)?)
            }
            Kind::Creative => {
                let p = parent.ok_or_else(|| needs("advertiserId"))?.clone();
                self.create_creative(&p, decode(kind, value)?)
            }
            Kind::SiteList => self.create_site_list(decode(kind, value)?),
            Kind::AudienceSegment => self.create_audience_segment(decode(kind, value)?),
            Kind::FlightCaps | Kind::Flight => Err(Error::Invalid(format!(
                "a new {} is added through its {}",
                kind.label(),
                if kind == Kind::Flight {
                    "campaign"
                } else {
                    "ad order"
                }
            ))),
        }
    }

    /// The errors recorded on change `seq` (none when the edit left nothing to post).
    pub(crate) fn errors_of(&self, seq: i64) -> Result<Vec<FieldError>> {
        let text: Option<String> = self
            .row("SELECT errors FROM outbox WHERE seq = ?1", [seq], |r| {
                r.get(0)
            })
            .optional()?;
        text.map_or(Ok(Vec::new()), |t| parse_json(&t))
    }

    /// The errors of the latest change of `target`.
    pub(crate) fn latest_errors(&self, target: &EntityRef) -> Result<Vec<FieldError>> {
        let text: Option<String> = self
            .row(
                "SELECT errors FROM outbox WHERE kind = ?1 AND key = ?2 ORDER BY seq DESC LIMIT 1",
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get(0),
            )
            .optional()?;
        text.map_or(Ok(Vec::new()), |t| parse_json(&t))
    }

    /// Carries out one planned change and says what it did (`None`: an
    /// [`Planned::Edit`] that changes nothing, left out of the rows as a plan leaves it
    /// out).
    pub(crate) fn carry_out(&mut self, planned: Planned) -> Result<Option<RowPreview>> {
        match planned {
            Planned::Edit { target, edits } => {
                let Some(planned) = super::bulk_plan::work_out(self.reader(), &target, &edits)?
                else {
                    return Ok(None);
                };
                // Read in this transaction, just now: what the row read is what the
                // entity holds.
                let plan_current = std::mem::replace(&mut self.plan_current, true);
                let row = self.carry_out(planned);
                self.plan_current = plan_current;
                row
            }
            planned => self.carry_out_planned(planned).map(Some),
        }
    }

    /// [`Batch::carry_out`] of a change planned up front.
    fn carry_out_planned(&mut self, planned: Planned) -> Result<RowPreview> {
        match planned {
            Planned::Edit { .. } => Err(Error::Invalid(
                "an edit is carried out through carry_out".into(),
            )),
            Planned::Failed {
                target,
                kind,
                errors,
                line,
            } => {
                let label = match &target {
                    Some(t) => match self.working(t) {
                        Ok(v) => label_of(kind, Some(t), &v),
                        Err(_) => label_of(kind, Some(t), &Value::Null),
                    },
                    None => label_of(kind, None, &Value::Null),
                };
                Ok(RowPreview::refused(target, kind, label, line, errors))
            }
            Planned::Update {
                target,
                value,
                line,
                from,
            } => {
                let (before, is_base, base) = match from {
                    Some(read) if self.plan_current => {
                        let base = read.is_base.then_some((read.text, read.hop));
                        (read.value, read.is_base, base)
                    }
                    from => {
                        let (text, is_base) = self.working_text(&target)?;
                        let before: Value = match from {
                            Some(read) if read.text == text => read.value,
                            _ => parse_json(&text)?,
                        };
                        (before, is_base, None)
                    }
                };
                let label = label_of(target.kind, Some(&target), &before);
                let mut row = RowPreview {
                    target: Some(target.clone()),
                    kind: target.kind,
                    label,
                    line,
                    outcome: RowOutcome::Unchanged,
                    diffs: Vec::new(),
                    errors: Vec::new(),
                };
                self.written = None;
                self.recorded = None;
                self.current = Some(Current {
                    target: target.clone(),
                    working: before,
                    is_base,
                    base,
                });
                let put = self.put(&target, value);
                let before = match self.current.take() {
                    Some(c) => c.working,
                    None => self.working(&target)?,
                };
                match put {
                    Ok(seq) => {
                        let after = match self.written.take() {
                            Some(v) => v,
                            None => self.working(&target)?,
                        };
                        row.diffs = diff::fields(Some(&before), &after);
                        if !row.diffs.is_empty() {
                            row.outcome = RowOutcome::Update;
                            row.errors = match self.recorded.take() {
                                Some(errors) => errors,
                                None => self.errors_of(seq)?,
                            };
                        }
                    }
                    Err(e) => {
                        row.outcome = RowOutcome::Refused;
                        row.errors = refusal(e)?;
                    }
                }
                Ok(row)
            }
            Planned::SetStatus {
                target,
                status,
                line,
            } => {
                let working = self.working(&target).unwrap_or(Value::Null);
                let label = label_of(target.kind, Some(&target), &working);
                let mut row = RowPreview {
                    target: Some(target.clone()),
                    kind: target.kind,
                    label,
                    line,
                    outcome: RowOutcome::Unchanged,
                    diffs: Vec::new(),
                    errors: Vec::new(),
                };
                match self.set_status(&target, status) {
                    Ok(set) if set.changed => {
                        let word = |s: flightdeck_model::AdOrderStatus| {
                            Value::from(super::status::status_word(s))
                        };
                        row.outcome = RowOutcome::Update;
                        row.diffs = vec![diff::FieldDiff::new(
                            "status",
                            set.before.map(word),
                            Some(word(status)),
                        )];
                    }
                    Ok(_) => {}
                    Err(e) => {
                        row.outcome = RowOutcome::Refused;
                        row.errors = refusal(e)?;
                    }
                }
                Ok(row)
            }
            Planned::Duplicate {
                source,
                into,
                shift_days,
            } => {
                let kind = source.kind;
                let original = self.working(&source)?;
                let label = label_of(kind, Some(&source), &original);
                match self.duplicate_into(&source, into.as_ref(), shift_days) {
                    Ok((target, errors)) => {
                        let after = self.working(&target)?;
                        Ok(RowPreview {
                            label: label_of(kind, Some(&target), &after),
                            target: Some(target),
                            kind,
                            line: None,
                            outcome: RowOutcome::Create,
                            diffs: diff::fields(None, &after),
                            errors,
                        })
                    }
                    Err(e) => Ok(RowPreview::refused(None, kind, label, None, refusal(e)?)),
                }
            }
            Planned::Create {
                kind,
                parent,
                value,
                line,
                status,
            } => {
                let label = label_of(kind, None, &value);
                self.written = None;
                self.recorded = None;
                match self.create_value(kind, parent.as_ref(), value) {
                    Ok(target) => {
                        let after = match self.written.take() {
                            Some(v) => v,
                            None => self.working(&target)?,
                        };
                        let mut errors = match self.recorded.take() {
                            Some(errors) => errors,
                            None => self.latest_errors(&target)?,
                        };
                        let mut diffs = diff::fields(None, &after);
                        if let Some(status) = status {
                            // The draft stands; a status it cannot take is said beside it.
                            match self.set_status(&target, status) {
                                Ok(_) => diffs.push(diff::FieldDiff::new(
                                    "status",
                                    None,
                                    Some(Value::from(super::status::status_word(status))),
                                )),
                                Err(e) => errors.extend(refusal(e)?),
                            }
                        }
                        Ok(RowPreview {
                            target: Some(target),
                            kind,
                            label,
                            line,
                            outcome: RowOutcome::Create,
                            diffs,
                            errors,
                        })
                    }
                    Err(e) => Ok(RowPreview::refused(None, kind, label, line, refusal(e)?)),
                }
            }
        }
    }
}

impl Workspace {
    /// Carries out `plan` in one transaction: kept (one undo step named `label`) when
    /// `apply`, rolled back when previewing. Either way the answer says, per entity,
    /// what changed and which rules the result breaks.
    pub fn run(&mut self, plan: Vec<Planned>, label: &str, apply: bool) -> Result<Preview> {
        Ok(self.run_logged(plan, label, apply, false, None)?.0)
    }

    /// [`Workspace::run`]; a preview with `log` also returns its writes (see
    /// [`super::kept`]), unless they were too many to keep. `planned`: the workspace as
    /// it was when the plan began to read it.
    pub(crate) fn run_logged(
        &mut self,
        plan: Vec<Planned>,
        label: &str,
        apply: bool,
        log: bool,
        planned: Option<Seen>,
    ) -> Result<(Preview, Option<Vec<Write>>)> {
        let independent = independent(&plan);
        let changes = self.conn.total_changes();
        // A preview that only notes its writes reads the workspace and nothing else: half
        // of its rows can be carried out on another thread, over a second connection.
        let apart = (!apply && log && independent && plan.len() >= SPLIT_MIN)
            .then(|| self.second_reader())
            .flatten();
        // An apply writes on this thread alone; its rows' reading and working out can go
        // ahead of it on another.
        let ahead = (apply
            && plan.len() >= SPLIT_MIN
            && plan.iter().all(|p| matches!(p, Planned::Edit { .. })))
        .then(|| self.second_reader())
        .flatten();
        let mut batch = if apply {
            self.batch()?
        } else {
            self.scratch_batch(log, independent)?
        };
        batch.label(label);
        if let Some(planned) = planned.filter(|_| independent) {
            batch.plan_current = planned.still(changes, &batch)?;
        }
        let rows = match (apart, ahead) {
            (Some(path), _) => carry_out_split(&mut batch, plan, &path)?,
            (None, Some(path)) => carry_out_ahead(&mut batch, plan, &path)?,
            (None, None) => plan
                .into_iter()
                .filter_map(|p| batch.carry_out(p).transpose())
                .collect::<Result<Vec<_>>>()?,
        };
        let mut preview = Preview::default();
        for row in rows {
            match row.outcome {
                RowOutcome::Create => preview.creates += 1,
                RowOutcome::Update => preview.updates += 1,
                RowOutcome::Unchanged => preview.unchanged += 1,
                RowOutcome::Refused => preview.refused += 1,
            }
            if matches!(row.outcome, RowOutcome::Create | RowOutcome::Update)
                && !row.errors.is_empty()
            {
                preview.invalid += 1;
            }
            preview.rows.push(row);
        }
        preview.row_count = u32::try_from(preview.rows.len()).unwrap_or(u32::MAX);
        if apply {
            preview.step = batch.commit_step()?;
            return Ok((preview, None));
        }
        Ok((preview, batch.take_log()))
    }

    /// A new edit that gives every entity a step changed its working copy from before
    /// the step, and every ad order whose status it changed the status from before
    /// (refused where that was unknown: [`Workspace::revert_statuses`]), for a step that
    /// cannot be undone because it was posted. Entities the step created are left out:
    /// the service has no delete for them.
    pub fn revert_plan(&self, step: i64) -> Result<Vec<Planned>> {
        let mut plan: Vec<Planned> = self
            .values_before(step)?
            .into_iter()
            .filter(|(t, _)| t.kind != Kind::Flight)
            .map(|(target, value)| Planned::Update {
                target,
                value,
                line: None,
                from: None,
            })
            .collect();
        // After the entities' values, as a status change posts after its ad order's save.
        plan.extend(self.revert_statuses(step)?);
        Ok(plan)
    }
}
