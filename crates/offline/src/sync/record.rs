//! Outcomes written back to the workspace, on the driving task: each step's status and
//! messages, applied ones batched in one transaction, and what waits on a step that did
//! not apply.

use std::collections::HashSet;

use serde_json::Value;

use super::graph::Graph;
use super::{ChangeOutcome, ConflictOutcome, FOUND_CODE, PushReport, notes};
use crate::change::{ChangeStatus, Key};
use crate::merge::FieldConflict;
use crate::plan::{self, Held};
use crate::workspace::{ChangeMessage, Workspace};
use crate::{Error, Result};

/// How a step ended.
pub(super) enum StepEnd {
    Applied {
        key: Key,
        /// The entity as the service answered, or as found by look-up.
        json: Value,
        messages: Vec<ChangeMessage>,
    },
    /// Rejected, with the service's answer when it is a record of its own (an audience
    /// upload refused for bad records: its counts).
    Failed(Vec<ChangeMessage>, Option<Value>),
    /// Refused by Flightdeck before anything was sent ([`crate::Error::Unpostable`]).
    Unpostable(Vec<ChangeMessage>),
    /// Answered for another entity ([`crate::Error::WrongId`]): nothing was recorded.
    WrongAnswer(Vec<ChangeMessage>),
    NeedsReview(Vec<ChangeMessage>),
    Conflict {
        fields: Vec<FieldConflict>,
        /// The server version they were found against, kept for resolving.
        theirs: Value,
    },
    /// Not settled: `Pending` (nothing was applied) or `Sending` (it may have been).
    Unsent {
        status: ChangeStatus,
        messages: Vec<ChangeMessage>,
    },
    /// The service cannot be reached: the push stops, and the change waits (`Pending`,
    /// or `Sending` when an earlier request of it may have landed).
    Unreachable {
        status: ChangeStatus,
        messages: Vec<ChangeMessage>,
        /// Why, for [`PushReport::unreachable`].
        reason: String,
    },
    /// Sign-in or permission: the push stops.
    Stop {
        status: ChangeStatus,
        messages: Vec<ChangeMessage>,
        /// Why, for [`PushReport::stopped`].
        reason: String,
    },
}

impl StepEnd {
    /// The end's name, for the log.
    pub(super) fn name(&self) -> &'static str {
        match self {
            StepEnd::Applied { .. } => "applied",
            StepEnd::Failed(..) => "failed",
            StepEnd::Unpostable(_) => "unpostable",
            StepEnd::WrongAnswer(_) => "wrong_answer",
            StepEnd::NeedsReview(_) => "needs_review",
            StepEnd::Conflict { .. } => "conflict",
            StepEnd::Unsent { .. } => "unsent",
            StepEnd::Unreachable { .. } => "unreachable",
            StepEnd::Stop { .. } => "stopped",
        }
    }
}

/// Records how steps ended, applied ones in one transaction; returns `(seq, status)` per step.
pub(super) fn record(
    ws: &mut Workspace,
    graph: &mut Graph<'_>,
    report: &mut PushReport,
    ends: Vec<(usize, StepEnd)>,
) -> Result<Vec<(i64, ChangeStatus)>> {
    let mut out = Vec::with_capacity(ends.len());
    let mut rows = Vec::new();
    let mut landed = Vec::new();
    for (i, end) in ends {
        let seq = graph.steps[i].seq;
        match end {
            StepEnd::Applied {
                key,
                json,
                messages,
            } => {
                rows.push((seq, key, json));
                landed.push((i, messages));
            }
            other => out.push((seq, record_unapplied(ws, graph, report, i, other)?)),
        }
    }
    if !rows.is_empty() {
        let mut refused = ws.mark_applied_many(&rows)?;
        for (i, messages) in landed {
            let seq = graph.steps[i].seq;
            if let Some(at) = refused.iter().position(|(s, _)| *s == seq) {
                let (_, e) = refused.swap_remove(at);
                let found = messages.iter().any(|m| m.code == FOUND_CODE);
                let note = notes::refused_answer_note(&e, found);
                let end = match e {
                    Error::IdTaken { .. } => StepEnd::NeedsReview(vec![note]),
                    _ => StepEnd::WrongAnswer(vec![note]),
                };
                out.push((seq, record_unapplied(ws, graph, report, i, end)?));
                continue;
            }
            report.applied.push(ChangeOutcome { seq, messages });
            graph.applied(i);
            out.push((seq, ChangeStatus::Applied));
        }
    }
    Ok(out)
}

/// Records a step that did not apply and holds what depends on it.
fn record_unapplied(
    ws: &mut Workspace,
    graph: &mut Graph<'_>,
    report: &mut PushReport,
    i: usize,
    end: StepEnd,
) -> Result<ChangeStatus> {
    let seq = graph.steps[i].seq;
    let (status, why, blocks) = match end {
        StepEnd::Applied { .. } => {
            return Err(Error::Invalid(
                "an applied step is recorded with the others".into(),
            ));
        }
        StepEnd::Failed(messages, result) => {
            match &result {
                Some(result) => ws.mark_refused(seq, &messages, result)?,
                None => ws.mark_failed(seq, &messages)?,
            }
            report.failed.push(ChangeOutcome { seq, messages });
            (ChangeStatus::Failed, "the ad platform rejected", true)
        }
        StepEnd::Unpostable(messages) => {
            ws.mark_failed(seq, &messages)?;
            report.failed.push(ChangeOutcome { seq, messages });
            (
                ChangeStatus::Failed,
                "Flightdeck cannot post as it is stored",
                true,
            )
        }
        StepEnd::WrongAnswer(messages) => {
            ws.mark_failed(seq, &messages)?;
            report.failed.push(ChangeOutcome { seq, messages });
            (
                ChangeStatus::Failed,
                "the ad platform answered for another entity",
                true,
            )
        }
        StepEnd::NeedsReview(messages) => {
            ws.mark_status(seq, ChangeStatus::NeedsReview, &messages)?;
            report.needs_review.push(ChangeOutcome { seq, messages });
            (ChangeStatus::NeedsReview, "needs review", true)
        }
        StepEnd::Conflict { fields, theirs } => {
            let messages: Vec<ChangeMessage> = fields.iter().map(notes::conflict_note).collect();
            ws.mark_conflict_against(seq, &theirs, &fields, &messages)?;
            report.conflicts.push(ConflictOutcome { seq, fields });
            (
                ChangeStatus::Conflict,
                "has a conflict with the ad platform",
                true,
            )
        }
        StepEnd::Unsent { status, messages } => {
            ws.mark_status(seq, status, &messages)?;
            report.unsent.push(ChangeOutcome { seq, messages });
            (status, "could not be sent yet", false)
        }
        StepEnd::Unreachable {
            status,
            messages,
            reason,
        } => {
            ws.mark_status(seq, status, &messages)?;
            report.unsent.push(ChangeOutcome { seq, messages });
            report.unreachable.get_or_insert(reason);
            (
                status,
                "could not be sent: the ad platform cannot be reached",
                false,
            )
        }
        StepEnd::Stop {
            status,
            messages,
            reason,
        } => {
            ws.mark_status(seq, status, &messages)?;
            report.unsent.push(ChangeOutcome { seq, messages });
            report.stopped.get_or_insert(reason);
            (status, "could not be sent", false)
        }
    };
    // What waits on a change the buyer must settle is `Blocked` until then; what waits on
    // one that merely could not be sent stays `Pending` for the next push.
    let mut blocked = Vec::new();
    for d in graph.hold_dependents(i) {
        let held = Held {
            seq: graph.steps[d].seq,
            reason: format!("waits on change {seq}, which {why}"),
            blocked_by: Some(seq),
        };
        if blocks {
            blocked.push((
                held.seq,
                ChangeStatus::Blocked,
                vec![notes::blocked_note(&held.reason)],
            ));
        }
        report.held.push(held);
    }
    ws.mark_status_many(&blocked, &[ChangeStatus::Pending, ChangeStatus::Blocked])?;
    Ok(status)
}

/// Makes the plan's verdict on waiting changes durable, in one transaction: a change
/// held because it waits on one that failed, is invalid, needs review or is in conflict
/// is `Blocked` with the reason; a blocked change the plan now posts is `Pending` again.
pub(super) fn settle_blocked(
    ws: &mut Workspace,
    plan: &plan::Plan,
    was_blocked: &HashSet<i64>,
) -> Result<()> {
    let mut rows: Vec<(i64, ChangeStatus, Vec<ChangeMessage>)> = Vec::new();
    for h in &plan.held {
        if h.blocked_by.is_some() {
            rows.push((
                h.seq,
                ChangeStatus::Blocked,
                vec![notes::blocked_note(&h.reason)],
            ));
        }
    }
    for step in &plan.steps {
        if was_blocked.contains(&step.seq) {
            rows.push((step.seq, ChangeStatus::Pending, Vec::new()));
        }
    }
    // Only `Pending` and `Blocked` changes are held this way (a held `Sending` change
    // keeps its unknown outcome for the look-up).
    ws.mark_status_many(&rows, &[ChangeStatus::Pending, ChangeStatus::Blocked])?;
    Ok(())
}
