//! Pending changes as both hosts show them: what changes, how, and the marker its row
//! carries, so neither host re-derives labels or markers.

use flightdeck_model::FieldError;
use flightdeck_model::MessageLevel;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Kind, Op, PendingChange};
use flightdeck_offline::diff::FieldDiff;
use flightdeck_offline::merge::FieldConflict;
use flightdeck_offline::sync;
use flightdeck_offline::workspace::{ChangeMessage, Marker, PendingRef, Pick, Review, Workspace};
use serde::Serialize;

use crate::checks::{self, Finding};
use crate::query::{TableQuery, Window, label_of};
use crate::{Account, Result};

/// One pending change as the review screen shows it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ChangeView {
    /// Outbox order.
    pub seq: i64,
    /// The entity it changes.
    pub target: EntityRef,
    /// The entity's name; without one, its kind and its parent's name ("flight caps of
    /// Spring sale"), else its kind and key.
    pub label: String,
    /// What the entity is, for people ("ad order").
    pub kind_label: String,
    /// The marker its row shows.
    pub marker: Marker,
    /// What posting does.
    pub op: Op,
    /// Where it stands.
    pub status: ChangeStatus,
    /// Field by field, against the server version it started from.
    pub diff: Vec<FieldDiff>,
    /// Broken rules (invalid changes are never posted).
    pub errors: Vec<FieldError>,
    /// The service's messages from the last attempt.
    pub messages: Vec<ChangeMessage>,
    /// Base, mine and theirs per conflicting field.
    pub conflicts: Vec<FieldConflict>,
    /// A creative's warnings and infos (`crate::checks`): they never hold it back,
    /// posting asks for a confirmation while there are warnings. Empty for other kinds.
    pub findings: Vec<Finding>,
}

/// The marker of one change: what needs the buyer first (conflict, invalid, failed),
/// then whether posting creates or changes the entity. The same precedence as the
/// per-entity markers of the tables ([`Workspace::markers`]).
pub fn marker_of(status: ChangeStatus, op: Op) -> Marker {
    Marker::of(
        status == ChangeStatus::Conflict,
        status == ChangeStatus::Invalid,
        matches!(status, ChangeStatus::Failed | ChangeStatus::NeedsReview),
        op == Op::Create,
    )
}

/// What a `Sending` change waits for, in the buyer's words: its request left and no
/// answer was recorded (it is in flight, or its answer was lost). The post settles it by
/// itself; the buyer need not press Post again.
fn in_flight_note(change: &PendingChange) -> ChangeMessage {
    let op = change.op;
    let message = if change.lost_create_lookup() {
        "sent, with no answer recorded yet: Flightdeck checks whether the ad platform has it, \
         and sends it again only once a late arrival is ruled out (twice the request timeout \
         after it was sent); the post does this by itself, no need to press Post again"
    } else if op == Op::Create || op == Op::AudienceData {
        "sent, with no answer recorded yet; the ad platform offers no way to look it up, so \
         if no answer comes the next post asks you to check it on the ad platform"
    } else {
        "sent, with no answer recorded yet; sending it again is harmless, and the post does \
         so by itself if no answer comes"
    };
    ChangeMessage {
        level: MessageLevel::Info,
        code: sync::LOOKUP_WAIT_CODE.to_owned(),
        message: message.to_owned(),
        field: None,
    }
}

/// A pending change's entity as the review names it: its name; for one without a name
/// of its own (flight caps, a flight, a draft not yet named), its kind and its parent's
/// name ("flight caps of Spring sale", "flight from 1 Mar 2027 of Spring sale") rather
/// than a draft key no screen shows.
pub fn change_label(ws: &Workspace, target: &EntityRef) -> Result<String> {
    let own = label_of(ws, target)?;
    if own != label(None, target) {
        return Ok(own);
    }
    let entity = ws.get(target)?;
    let parent = entity.as_ref().and_then(|e| e.parent.clone()).or_else(|| {
        match (target.kind, &target.key) {
            // Flight caps are keyed by their ad order's key.
            (Kind::FlightCaps, key) => Some(EntityRef::new(Kind::AdOrder, key.clone())),
            _ => None,
        }
    });
    let Some(parent) = parent else {
        return Ok(own);
    };
    let of = label_of(ws, &parent)?;
    let start = entity
        .as_ref()
        .filter(|_| target.kind == Kind::Flight)
        .and_then(|e| {
            e.working
                .get("startDate")
                .and_then(serde_json::Value::as_i64)
        })
        .map(|ms| format!(" from {}", flightdeck_model::validate::format_millis(ms)))
        .unwrap_or_default();
    Ok(format!("{}{start} of {of}", target.kind.label()))
}

/// A row's label: its name, or its kind and key when it has none.
pub fn label(name: Option<&str>, target: &EntityRef) -> String {
    match name {
        Some(n) if !n.trim().is_empty() => n.to_owned(),
        _ => format!("{} {}", target.kind.label(), target.key),
    }
}

/// One change as the review shows it, read in full.
fn view(ws: &Workspace, r: &PendingRef) -> Result<Option<ChangeView>> {
    let Some(c) = ws.change(r.seq)? else {
        return Ok(None);
    };
    let mut diff = ws.pending_diff(c.seq)?;
    // Dates, money and lists as a buyer reads them, beside the wire's values.
    ws.readable_diff(c.target.kind, &c.target, &mut diff);
    let mut messages = ws.change_messages(c.seq)?;
    if c.status == ChangeStatus::Sending
        && !messages.iter().any(|m| m.code == sync::LOOKUP_WAIT_CODE)
    {
        messages.push(in_flight_note(&c));
    }
    let conflicts = if c.status == ChangeStatus::Conflict {
        ws.conflicts(c.seq)?
    } else {
        Vec::new()
    };
    let findings = checks::findings_of(ws, &c.target)?;
    Ok(Some(ChangeView {
        label: change_label(ws, &c.target)?,
        kind_label: c.target.kind.label().to_owned(),
        marker: marker_of(c.status, c.op),
        seq: c.seq,
        target: c.target,
        op: c.op,
        status: c.status,
        diff,
        errors: c.errors,
        messages,
        conflicts,
        findings,
    }))
}

/// The words a pending change is found by: its number, kind, operation, status and
/// the entity's name.
fn search_text(ws: &Workspace, r: &PendingRef) -> Result<String> {
    let name = change_label(ws, &r.target)?;
    Ok(format!(
        "{} {} {:?} {:?} {name}",
        r.seq,
        r.target.kind.label(),
        r.op,
        r.status
    )
    .to_lowercase())
}

/// The pending changes a query selects, in its order, and how many there are in all.
fn selected(ws: &Workspace, query: &TableQuery) -> Result<(Vec<PendingRef>, usize)> {
    let mut refs = ws.pending_refs()?;
    let unfiltered = refs.len();
    let terms: Vec<String> = query
        .filter
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    if !terms.is_empty() {
        let mut kept = Vec::new();
        for r in refs {
            let text = search_text(ws, &r)?;
            if terms.iter().all(|t| text.contains(t.as_str())) {
                kept.push(r);
            }
        }
        refs = kept;
    }
    if query.sort.as_ref().is_some_and(|s| s.descending) {
        refs.reverse();
    }
    Ok((refs, unfiltered))
}

/// The changes of one window of the pending-changes table, in outbox order (or newest
/// first with `sort` on `seq` descending), filtered like the entity tables: every word
/// in the change's number, kind, operation, status or the entity's name. Only the rows
/// of the window are read in full.
pub fn window(ws: &Workspace, query: &TableQuery) -> Result<Window<ChangeView>> {
    let (refs, unfiltered) = selected(ws, query)?;
    let total = refs.len();
    let range = query.range(total);
    let offset = range.start;
    let mut rows = Vec::with_capacity(range.len());
    for r in &refs[range] {
        if let Some(v) = view(ws, r)? {
            rows.push(v);
        }
    }
    Ok(Window::new(rows, offset, total, unfiltered))
}

/// The numbers of the changes a query selects (offset and limit ignored): what "select
/// all" of the pending-changes table posts or discards.
pub fn seqs(ws: &Workspace, query: &TableQuery) -> Result<Vec<i64>> {
    Ok(selected(ws, query)?.0.into_iter().map(|r| r.seq).collect())
}

/// What is known about a change that needs review (its request left, the answer was
/// lost, and the ad platform offers no look-up), so the buyer can check the ad platform
/// and settle it: post it again, or mark it created with the ad platform's id.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ReviewView {
    /// Outbox order.
    pub seq: i64,
    /// The entity it creates or changes.
    pub target: EntityRef,
    /// The entity's name, or its kind and key when it has none.
    pub label: String,
    /// What the entity is, for people ("creative").
    pub kind_label: String,
    /// What posting does.
    pub op: Op,
    /// The fields that were sent.
    pub sent: Vec<FieldDiff>,
    /// The client reference the request carried, to search the ad platform by.
    pub reference: Option<String>,
    /// The wire field that carried it (`externalCreativeid`).
    pub reference_field: Option<String>,
    /// When its last request left (Unix ms), when known.
    pub sent_at: Option<i64>,
    /// Why it needs review, and what the service or the connection said.
    pub messages: Vec<ChangeMessage>,
    /// What to look for on the ad platform, in plain words.
    pub how_to_check: String,
    /// Whether "mark as created" applies (creates only: an upload has no id).
    pub can_mark_created: bool,
}

/// What is known about change `seq`, which must need review.
pub fn review(ws: &Workspace, seq: i64) -> Result<ReviewView> {
    let Some(c) = ws.change(seq)? else {
        return Err(flightdeck_offline::Error::NotFound(format!(
            "change {seq} is not in the workspace"
        ))
        .into());
    };
    if c.status != ChangeStatus::NeedsReview {
        return Err(flightdeck_offline::Error::Invalid(format!(
            "change {seq} does not need review"
        ))
        .into());
    }
    let label = change_label(ws, &c.target)?;
    // A buyer's own client id is in one of the fields; a generated reference went into
    // the first, on the way out.
    let fields = c.target.kind.client_reference_fields();
    let reference_field = c.client_ref.as_deref().and_then(|r| {
        fields
            .iter()
            .find(|f| c.payload.get(**f).and_then(|v| v.as_str()) == Some(r))
            .or(fields.first())
            .map(|f| (*f).to_owned())
    });
    let kind_label = c.target.kind.label();
    let how_to_check = match (&c.op, &c.client_ref, &reference_field) {
        (Op::AudienceData, _, _) => "Check the segment's identifier count on the ad platform \
             once it has processed the data (about every 10 minutes)"
            .to_owned(),
        (Op::Create, Some(r), Some(f)) => {
            format!("Look on the ad platform for a {kind_label} named \"{label}\" whose {f} is {r}")
        }
        (Op::Create, _, _) if c.target.kind == Kind::SiteList => format!(
            "Look on the ad platform for a site list named \"{label}\" (site lists carry no \
             reference of Flightdeck's)"
        ),
        _ => format!("Look on the ad platform for the {kind_label} \"{label}\""),
    };
    Ok(ReviewView {
        sent: ws.pending_diff(seq)?,
        reference: c.client_ref.clone(),
        reference_field,
        sent_at: ws.sent_at(seq)?,
        messages: ws.change_messages(seq)?,
        how_to_check,
        can_mark_created: c.op == Op::Create,
        kind_label: kind_label.to_owned(),
        label,
        seq,
        target: c.target,
        op: c.op,
    })
}

/// Every change that needs review, in outbox order.
pub fn reviews(ws: &Workspace) -> Result<Vec<ReviewView>> {
    ws.pending_refs()?
        .iter()
        .filter(|r| r.status == ChangeStatus::NeedsReview)
        .map(|r| review(ws, r.seq))
        .collect()
}

/// What "Check changes" found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CheckSummary {
    /// Changes checked.
    pub checked: u32,
    /// Of those, the ones that break a rule (held back from posting).
    pub invalid: u32,
    /// Pending creatives with warnings or infos (never held back).
    pub with_findings: u32,
    /// Warnings across the pending creatives: posting asks for a confirmation while
    /// there are any.
    pub warnings: u32,
    /// Infos across the pending creatives.
    pub infos: u32,
}

/// Every pending change checked, with the ones that break a rule.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Changes checked.
    pub checked: usize,
    /// Each change that breaks a rule, with its errors.
    pub broken: Vec<(i64, Vec<FieldError>)>,
    /// Each pending creative's change with warnings or infos, with them.
    pub findings: Vec<PendingFindings>,
}

/// A pending creative's warnings and infos, as Check lists them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingFindings {
    /// The change, in outbox order.
    pub seq: i64,
    /// The creative.
    pub target: EntityRef,
    /// Its name, or its kind and key.
    pub label: String,
    /// What the checks found.
    pub findings: Vec<Finding>,
}

impl Checked {
    /// Warnings and infos across every pending creative.
    pub fn counts(&self) -> (u32, u32) {
        self.findings.iter().fold((0, 0), |(w, i), p| {
            let (pw, pi) = checks::count(&p.findings);
            (w + pw, i + pi)
        })
    }
}

/// The buyer's choice for one conflicting field.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ConflictPick {
    /// Wire path of the field.
    pub path: String,
    /// Which version wins.
    pub pick: Pick,
}

impl Account {
    /// One window of the pending-changes table.
    pub fn pending_window(&self, query: &TableQuery) -> Result<Window<ChangeView>> {
        let ws = self.workspace()?;
        window(&ws, query)
    }

    /// The numbers of the pending changes a query selects.
    pub fn pending_seqs(&self, query: &TableQuery) -> Result<Vec<i64>> {
        let ws = self.workspace()?;
        seqs(&ws, query)
    }

    /// Re-validates every pending change ("Check changes").
    pub fn check_changes(&self) -> Result<CheckSummary> {
        let found = self.check_all()?;
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        let (warnings, infos) = found.counts();
        Ok(CheckSummary {
            checked: n(found.checked),
            invalid: n(found.broken.len()),
            with_findings: n(found.findings.len()),
            warnings,
            infos,
        })
    }

    /// Re-validates every pending change: how many were checked, each change that
    /// breaks a rule with its errors (such a change is never posted until fixed), and
    /// each pending creative's warnings and infos (posted all the same, once confirmed).
    pub fn check_all(&self) -> Result<Checked> {
        let mut ws = self.workspace()?;
        let found = ws.check()?;
        let checked = ws.pending_count()?;
        let broken = found.into_iter().filter(|(_, e)| !e.is_empty()).collect();
        let mut findings: Vec<PendingFindings> = Vec::new();
        for r in ws.pending_refs()? {
            if r.target.kind != Kind::Creative || findings.iter().any(|p| p.target == r.target) {
                continue;
            }
            let found = checks::findings_of(&ws, &r.target)?;
            if !found.is_empty() {
                findings.push(PendingFindings {
                    seq: r.seq,
                    label: change_label(&ws, &r.target)?,
                    target: r.target,
                    findings: found,
                });
            }
        }
        Ok(Checked {
            checked,
            broken,
            findings,
        })
    }

    /// Every change not applied yet, in outbox order, as the workspace records it.
    pub fn pending_changes(&self) -> Result<Vec<PendingChange>> {
        Ok(self.workspace()?.pending()?)
    }

    /// Discards changes (drafts that depend on them go too); returns every seq removed.
    pub fn discard(self: &std::sync::Arc<Self>, seqs: &[i64]) -> Result<Vec<i64>> {
        let removed = self.workspace()?.discard_many(seqs)?;
        // Drafts vanished and edits were rolled back: the tables are built again.
        self.tables.clear();
        self.warm_tables();
        Ok(removed)
    }

    /// Every change that needs review, with what is known about each.
    pub fn reviews(&self) -> Result<Vec<ReviewView>> {
        reviews(&*self.workspace()?)
    }

    /// What is known about one change that needs review.
    pub fn review(&self, seq: i64) -> Result<ReviewView> {
        review(&*self.workspace()?, seq)
    }

    /// Settles a change that needs review: post it again, or record it as created under
    /// the ad platform's id (what waits on it can then be posted).
    pub fn settle_review(self: &std::sync::Arc<Self>, seq: i64, verdict: Review) -> Result<()> {
        self.workspace()?.settle_review(seq, verdict)?;
        // A created draft took its id: its rows and its children's are keyed anew.
        self.tables.clear();
        self.warm_tables();
        Ok(())
    }

    /// Resolves a conflict: one pick per conflicting field; the change goes back to
    /// pending.
    pub fn resolve_conflict(&self, seq: i64, picks: Vec<ConflictPick>) -> Result<()> {
        let mut ws = self.workspace()?;
        let target = ws.change(seq)?.map(|c| c.target);
        let picks: Vec<(String, Pick)> = picks.into_iter().map(|p| (p.path, p.pick)).collect();
        let before = ws.change_stamp().ok();
        ws.resolve_conflict(seq, &picks)?;
        if let Some(t) = target {
            self.tables.touched_since(&ws, &[t], before)?;
        }
        Ok(())
    }
}
