//! Posting order: a pure planner from pending changes to ordered steps.
//!
//! Parents go before children (advertiser → campaign with its flights → ad order → flight
//! caps; creatives after what they reference), and changes to one entity go in outbox
//! order. Nothing else orders anything: site lists, segments and unrelated entities have
//! no `after`, so the executor can post them concurrently, which is where the speed-up
//! over serial posting comes from.
//!
//! A change depends on:
//! - for each parent with a [`Key::Local`] key, the change that creates it: the latest
//!   create at or before its own seq, else the first one after (the store may re-queue a
//!   draft's create behind its children). No create at all holds the change: the executor
//!   could never fill in the id.
//! - for each parent that is a new flight ([`EntityRef::draft_flight`]), the change to its
//!   campaign that carries it (a draft campaign's create, or the edit adding the flight):
//!   the flight's id is mapped when that change lands, so caps on it go in the same push.
//!   None, and the flight never landed, holds the change.
//! - the previous change to the same target (a site list's create, then its appends).
//! - for an ad order's status change ([`Op::SetStatus`]), the latest create or update of
//!   the ad order whatever its seq (the status goes after the save it may launch), and
//!   the previous status change. Creates and updates never wait on a status change.
//! - for flight caps, the latest earlier change to their ad order, and for flights the
//!   latest earlier change to their campaign, even when those already exist remotely:
//!   caps name flights the ad order's or campaign's update may be adding.
//!
//! Remote parents ([`Key::Id`], [`Key::Segment`]) impose nothing. Only `Pending` and
//! `Sending` changes are planned (`Sending` means the outcome is unknown after a crash;
//! the executor resolves it, so it stays in the plan). A change that is invalid, or waits
//! on one that is held, failed, needs review, has a conflict or is blocked, is held with
//! the reason; unrelated changes go ahead.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use serde::{Deserialize, Serialize};

use crate::change::{ChangeStatus, EntityRef, Key, Kind, Op, PendingChange};

/// One change to post, after the changes it waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Step {
    /// The change.
    pub seq: i64,
    /// Changes that must be applied first.
    pub after: Vec<i64>,
}

/// A change the plan leaves out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Held {
    /// The change.
    pub seq: i64,
    /// Plain-language reason.
    pub reason: String,
    /// The change it waits on, when the cause is another change.
    pub blocked_by: Option<i64>,
}

/// The posting plan.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Plan {
    /// Changes to post, in an order where every step comes after its `after`.
    pub steps: Vec<Step>,
    /// Changes held back.
    pub held: Vec<Held>,
}

/// Orders `changes` for posting.
///
/// Steps come in dependency order, by seq among changes free to go at the same time;
/// held changes by seq. Changes that are neither `Pending`, `Sending` nor `Invalid` appear
/// in neither list (their status says it all), but still hold what depends on them,
/// except `Applied` ones, which are done.
pub fn plan(changes: &[PendingChange]) -> Plan {
    plan_with(changes, |_| false)
}

/// [`plan`], where `landed` tells which local entities already have a remote id (their
/// create was applied in an earlier sync and is no longer among `changes`): parents
/// among them impose no dependency and are not missing.
pub fn plan_with(changes: &[PendingChange], landed: impl Fn(&EntityRef) -> bool) -> Plan {
    Planner::new(changes, &landed).run()
}

/// Levels of the plan for display: wave 0 needs nothing, wave k waits only on earlier
/// waves. Each wave is sorted by seq.
pub fn waves(plan: &Plan) -> Vec<Vec<i64>> {
    let mut level: HashMap<i64, usize> = HashMap::with_capacity(plan.steps.len());
    let mut out: Vec<Vec<i64>> = Vec::new();
    for step in &plan.steps {
        let l = step
            .after
            .iter()
            .filter_map(|s| level.get(s))
            .map(|l| l + 1)
            .max()
            .unwrap_or(0);
        level.insert(step.seq, l);
        if out.len() <= l {
            out.resize_with(l + 1, Vec::new);
        }
        out[l].push(step.seq);
    }
    for wave in &mut out {
        wave.sort_unstable();
    }
    out
}

/// How a change takes part in planning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Pending or Sending, valid: to be planned.
    Plan,
    /// Invalid: held, and holds its dependents.
    Invalid,
    /// Applied: dependents need not wait.
    Done,
    /// Failed, NeedsReview, Conflict or Blocked: not listed, holds its dependents.
    Stopped,
}

/// Why a change is held.
#[derive(Debug, Clone)]
struct Hold {
    /// The change that started it (the held change itself for its own reasons).
    root: usize,
    /// The reason in full, when the change is held on its own account.
    own: String,
    /// The root's reason as it completes "which …" ("failed", "is not valid: name: …").
    cause: String,
    /// The change it waits on, if any.
    blocked_by: Option<usize>,
}

/// A target as a borrowed lookup key, so lookups clone nothing.
type Target<'a> = (Kind, &'a Key);

struct Planner<'a> {
    changes: &'a [PendingChange],
    landed: &'a dyn Fn(&EntityRef) -> bool,
    class: Vec<Class>,
    /// Each distinct target's number.
    targets: HashMap<Target<'a>, usize>,
    /// Changes to each target (by number), by seq; status changes apart.
    by_target: Vec<Vec<usize>>,
    /// Status changes ([`Op::SetStatus`]) of each target (by number), by seq.
    statuses: Vec<Vec<usize>>,
    /// Creates of each target (by number), by seq.
    creates: Vec<Vec<usize>>,
}

impl<'a> Planner<'a> {
    fn new(changes: &'a [PendingChange], landed: &'a dyn Fn(&EntityRef) -> bool) -> Self {
        let mut order: Vec<usize> = (0..changes.len()).collect();
        order.sort_by_key(|&i| (changes[i].seq, i));
        let mut targets: HashMap<Target<'a>, usize> = HashMap::with_capacity(changes.len());
        let mut by_target: Vec<Vec<usize>> = Vec::new();
        let mut creates: Vec<Vec<usize>> = Vec::new();
        let mut statuses: Vec<Vec<usize>> = Vec::new();
        for &i in &order {
            let c = &changes[i];
            let next = by_target.len();
            let t = *targets
                .entry((c.target.kind, &c.target.key))
                .or_insert(next);
            if t == next {
                by_target.push(Vec::new());
                creates.push(Vec::new());
                statuses.push(Vec::new());
            }
            if c.op == Op::SetStatus {
                statuses[t].push(i);
                continue;
            }
            by_target[t].push(i);
            if c.op == Op::Create {
                creates[t].push(i);
            }
        }
        let class = changes
            .iter()
            .map(|c| match c.status {
                ChangeStatus::Pending | ChangeStatus::Sending if c.errors.is_empty() => Class::Plan,
                ChangeStatus::Pending | ChangeStatus::Sending | ChangeStatus::Invalid => {
                    Class::Invalid
                }
                ChangeStatus::Applied => Class::Done,
                ChangeStatus::Failed
                | ChangeStatus::NeedsReview
                | ChangeStatus::Conflict
                | ChangeStatus::Blocked => Class::Stopped,
            })
            .collect();
        Planner {
            changes,
            landed,
            class,
            targets,
            by_target,
            statuses,
            creates,
        }
    }

    fn seq(&self, i: usize) -> i64 {
        self.changes[i].seq
    }

    /// The change that creates `target` for change `i`: the latest create at or before
    /// `i`'s seq, else the first after it.
    fn creator(&self, target: Target<'_>, i: usize) -> Option<usize> {
        let list = &self.creates[*self.targets.get(&target)?];
        let seq = self.seq(i);
        let split = list.partition_point(|&j| self.seq(j) <= seq);
        list[..split]
            .iter()
            .rev()
            .chain(&list[split..])
            .copied()
            .find(|&j| j != i)
    }

    /// The latest change to `target` with a lower seq than change `i`.
    fn latest_before(&self, target: Target<'_>, i: usize) -> Option<usize> {
        let list = &self.by_target[*self.targets.get(&target)?];
        let seq = self.seq(i);
        let split = list.partition_point(|&j| self.seq(j) < seq);
        list[..split].last().copied()
    }

    /// Change `i`'s dependencies, or the local parent no change creates.
    fn deps(&self, i: usize) -> Result<Vec<usize>, String> {
        let c = &self.changes[i];
        let own: Target<'_> = (c.target.kind, &c.target.key);
        let mut deps = Vec::new();
        let need_created = |target: Target<'_>, deps: &mut Vec<usize>| {
            if !target.1.is_local() || target == own {
                return Ok(());
            }
            if let Some(j) = self.creator(target, i) {
                deps.push(j);
                return Ok(());
            }
            let target = EntityRef::new(target.0, target.1.clone());
            if (self.landed)(&target) {
                Ok(())
            } else {
                Err(describe(&target))
            }
        };
        for parent in &c.parents {
            // A new flight gets its id when the change to its campaign that carries it
            // lands: that change, whatever its seq (edits fold into it), goes first.
            if let Some((campaign, _)) = parent.target.draft_flight_parts() {
                let carrier = self
                    .targets
                    .get(&(campaign.kind, &campaign.key))
                    .and_then(|&t| self.by_target[t].last().copied());
                match carrier {
                    Some(j) => deps.push(j),
                    None if (self.landed)(&parent.target) => {}
                    None => return Err(describe(&parent.target)),
                }
                continue;
            }
            need_created((parent.target.kind, &parent.target.key), &mut deps)?;
        }
        // What flight caps and flights hang on (caps are keyed by their ad order's key).
        let hang_kind = match c.target.kind {
            Kind::FlightCaps => Some(Kind::AdOrder),
            Kind::Flight => Some(Kind::Campaign),
            _ => None,
        };
        if let Some(kind) = hang_kind {
            let keyed = (c.target.kind == Kind::FlightCaps).then_some(&c.target.key);
            let via_parents = c
                .parents
                .iter()
                .filter(|p| p.target.kind == kind)
                .map(|p| &p.target.key);
            for key in keyed.into_iter().chain(via_parents) {
                need_created((kind, key), &mut deps)?;
                deps.extend(self.latest_before((kind, key), i));
            }
        }
        if c.op == Op::SetStatus {
            // After the ad order's latest save, even one queued later (the status may
            // launch what it saves), and after the previous status change.
            if let Some(&t) = self.targets.get(&own) {
                deps.extend(self.by_target[t].last().copied());
                let list = &self.statuses[t];
                let seq = self.seq(i);
                let split = list.partition_point(|&j| self.seq(j) < seq);
                deps.extend(list[..split].last().copied());
            }
        } else {
            deps.extend(self.latest_before(own, i));
        }
        deps.sort_unstable_by_key(|&j| (self.seq(j), j));
        deps.dedup();
        deps.retain(|&j| j != i);
        Ok(deps)
    }

    fn run(self) -> Plan {
        let n = self.changes.len();
        let mut hold: Vec<Option<Hold>> = vec![None; n];
        // Plan-class dependencies only; others are settled here.
        let mut deps: Vec<Vec<usize>> = vec![Vec::new(); n];
        for i in 0..n {
            match self.class[i] {
                Class::Invalid => {
                    let cause = stopped_cause(&self.changes[i]);
                    hold[i] = Some(Hold {
                        root: i,
                        own: cause.trim_start_matches("is ").to_owned(),
                        cause,
                        blocked_by: None,
                    });
                }
                Class::Plan => match self.deps(i) {
                    Err(missing) => {
                        hold[i] = Some(Hold {
                            root: i,
                            own: format!("its parent {missing} is not in the workspace"),
                            cause: format!("has a parent {missing} that is not in the workspace"),
                            blocked_by: None,
                        });
                    }
                    Ok(all) => {
                        for j in all {
                            match self.class[j] {
                                Class::Done => {}
                                Class::Plan => deps[i].push(j),
                                Class::Invalid | Class::Stopped => {
                                    if hold[i].is_none() {
                                        hold[i] = Some(Hold {
                                            root: j,
                                            own: String::new(),
                                            cause: stopped_cause(&self.changes[j]),
                                            blocked_by: Some(j),
                                        });
                                    }
                                }
                            }
                        }
                    }
                },
                Class::Done | Class::Stopped => {}
            }
        }

        // Kahn's algorithm, lowest seq first among the ready; holds flow downstream.
        let mut indegree: Vec<usize> = deps.iter().map(Vec::len).collect();
        // Dependents of each change, flattened: those of `j` are `edges[start[j]..start[j + 1]]`.
        let mut start = vec![0usize; n + 1];
        for &j in deps.iter().flatten() {
            start[j + 1] += 1;
        }
        for j in 0..n {
            start[j + 1] += start[j];
        }
        let mut fill = start.clone();
        let mut edges = vec![0usize; start[n]];
        for (i, ds) in deps.iter().enumerate() {
            for &j in ds {
                edges[fill[j]] = i;
                fill[j] += 1;
            }
        }
        let mut ready: BinaryHeap<Reverse<(i64, usize)>> = (0..n)
            .filter(|&i| self.class[i] == Class::Plan && indegree[i] == 0)
            .map(|i| Reverse((self.seq(i), i)))
            .collect();
        let mut done = vec![false; n];
        let mut steps = Vec::new();
        while let Some(Reverse((_, i))) = ready.pop() {
            done[i] = true;
            if hold[i].is_none() {
                // Deps are sorted by seq, so this names the earliest held one.
                if let Some(&j) = deps[i].iter().find(|&&j| hold[j].is_some())
                    && let Some(h) = &hold[j]
                {
                    hold[i] = Some(Hold {
                        root: h.root,
                        own: String::new(),
                        cause: h.cause.clone(),
                        blocked_by: Some(j),
                    });
                }
            }
            if hold[i].is_none() {
                steps.push(Step {
                    seq: self.seq(i),
                    after: deps[i].iter().map(|&j| self.seq(j)).collect(),
                });
            }
            for &k in &edges[start[i]..start[i + 1]] {
                indegree[k] -= 1;
                if indegree[k] == 0 {
                    ready.push(Reverse((self.seq(k), k)));
                }
            }
        }
        // Whatever is left waits on a cycle (a damaged outbox; the store never makes one).
        for i in 0..n {
            if self.class[i] == Class::Plan && !done[i] && hold[i].is_none() {
                let j = deps[i].iter().copied().find(|&j| !done[j]);
                let own = "part of, or waits on, a set of changes that wait on each other";
                hold[i] = Some(Hold {
                    root: i,
                    own: own.to_owned(),
                    cause: format!("is {own}"),
                    blocked_by: j,
                });
            }
        }

        let mut held: Vec<(i64, usize, Held)> = (0..n)
            .filter_map(|i| {
                let h = hold[i].as_ref()?;
                let reason = match h.blocked_by {
                    _ if h.root == i => h.own.clone(),
                    None => h.cause.clone(),
                    Some(j) if h.root == j => format!(
                        "waits for change {} ({}), which {}",
                        self.seq(j),
                        describe(&self.changes[j].target),
                        h.cause
                    ),
                    Some(j) => format!(
                        "waits for change {} ({}), which waits on change {} ({}), which {}",
                        self.seq(j),
                        describe(&self.changes[j].target),
                        self.seq(h.root),
                        describe(&self.changes[h.root].target),
                        h.cause
                    ),
                };
                let held = Held {
                    seq: self.seq(i),
                    reason,
                    blocked_by: h.blocked_by.map(|j| self.seq(j)),
                };
                Some((self.seq(i), i, held))
            })
            .collect();
        held.sort_by_key(|(seq, i, _)| (*seq, *i));
        Plan {
            steps,
            held: held.into_iter().map(|(_, _, h)| h).collect(),
        }
    }
}

/// How a change that holds its dependents stands, completing "which …".
fn stopped_cause(c: &PendingChange) -> String {
    match c.status {
        ChangeStatus::Failed => "failed".to_owned(),
        ChangeStatus::NeedsReview => "needs review".to_owned(),
        ChangeStatus::Conflict => "has a conflict with the server's version".to_owned(),
        ChangeStatus::Blocked => "is blocked".to_owned(),
        _ => c.errors.first().map_or_else(
            || "is marked invalid; check changes again to see why".to_owned(),
            |e| format!("is not valid: {e}"),
        ),
    }
}

/// "campaign 12", "ad order draft 1a2b3c4d", "audience segment 0a1b2c3d4e5f6a7b".
fn describe(target: &EntityRef) -> String {
    let kind = match target.kind {
        // Keyed by their ad order's key.
        Kind::FlightCaps => "flight caps of ad order",
        other => other.label(),
    };
    if let Some((campaign, start)) = target.draft_flight_parts() {
        return format!(
            "the new flight starting {} of {}",
            flightdeck_model::validate::format_millis(start),
            describe(&campaign)
        );
    }
    match &target.key {
        Key::Segment(s) => format!("{kind} {s}"),
        key => format!("{kind} {key}"),
    }
}

#[cfg(test)]
mod tests;
