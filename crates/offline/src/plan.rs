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
    /// Changes to each target (by number), by seq.
    by_target: Vec<Vec<usize>>,
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
        for &i in &order {
            let c = &changes[i];
            let next = by_target.len();
            let t = *targets
                .entry((c.target.kind, &c.target.key))
                .or_insert(next);
            if t == next {
                by_target.push(Vec::new());
                creates.push(Vec::new());
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
        deps.extend(self.latest_before(own, i));
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
mod tests {
    use super::*;
    use crate::change::ParentRef;
    use flightdeck_model::FieldError;
    use flightdeck_model::validate::codes;
    use proptest::prelude::*;
    use serde_json::json;
    use std::collections::HashSet;

    fn local(kind: Kind, name: &str) -> EntityRef {
        EntityRef::new(kind, Key::Local(format!("{name}-local-key")))
    }

    fn remote(kind: Kind, id: i64) -> EntityRef {
        EntityRef::new(kind, Key::Id(id))
    }

    fn change(seq: i64, target: EntityRef, op: Op, parents: &[(&str, EntityRef)]) -> PendingChange {
        PendingChange {
            seq,
            target,
            op,
            parents: parents
                .iter()
                .map(|(pointer, target)| ParentRef {
                    pointer: (*pointer).to_owned(),
                    target: target.clone(),
                })
                .collect(),
            payload: json!({}),
            base: None,
            errors: Vec::new(),
            status: ChangeStatus::Pending,
            client_ref: None,
        }
    }

    fn with_status(mut c: PendingChange, status: ChangeStatus) -> PendingChange {
        c.status = status;
        c
    }

    fn step(seq: i64, after: &[i64]) -> Step {
        Step {
            seq,
            after: after.to_vec(),
        }
    }

    fn held_seqs(p: &Plan) -> Vec<(i64, Option<i64>)> {
        p.held.iter().map(|h| (h.seq, h.blocked_by)).collect()
    }

    /// Every `after` names an earlier step, and no change is listed twice.
    fn assert_well_formed(p: &Plan) {
        let mut seen = HashSet::new();
        for s in &p.steps {
            for a in &s.after {
                assert!(seen.contains(a), "step {} runs before {}", s.seq, a);
            }
            assert!(seen.insert(s.seq), "step {} twice", s.seq);
        }
        for h in &p.held {
            assert!(seen.insert(h.seq), "change {} both planned and held", h.seq);
        }
    }

    /// Draft advertiser → draft campaign → draft ad order → flight caps, with `seqs` for
    /// the four changes in that order.
    fn chain(seqs: [i64; 4]) -> Vec<PendingChange> {
        let adv = local(Kind::Advertiser, "adv");
        let camp = local(Kind::Campaign, "camp");
        let order = local(Kind::AdOrder, "order");
        let flight = local(Kind::Flight, "flight");
        vec![
            change(seqs[0], adv.clone(), Op::Create, &[]),
            change(seqs[1], camp.clone(), Op::Create, &[("/advertiserId", adv)]),
            change(
                seqs[2],
                order.clone(),
                Op::Create,
                &[("/campaignId", camp.clone())],
            ),
            change(
                seqs[3],
                EntityRef::new(Kind::FlightCaps, order.key.clone()),
                Op::Update,
                &[("/0/orderId", order), ("/0/flightId", flight.clone())],
            ),
            // The flight is created with its campaign; the store records that as a
            // create of the flight hanging on the campaign.
            change(seqs[1] * 100, flight, Op::Create, &[("", camp)]),
        ]
    }

    #[test]
    fn independent_changes_have_no_after() {
        let changes = vec![
            change(3, remote(Kind::Advertiser, 1), Op::Update, &[]),
            change(1, local(Kind::SiteList, "sl"), Op::Create, &[]),
            change(2, local(Kind::AudienceSegment, "seg"), Op::Create, &[]),
            change(
                4,
                remote(Kind::AdOrder, 9),
                Op::Update,
                &[("/campaignId", remote(Kind::Campaign, 5))],
            ),
            change(
                5,
                remote(Kind::Campaign, 5),
                Op::Update,
                &[("/advertiserId", remote(Kind::Advertiser, 1))],
            ),
        ];
        let p = plan(&changes);
        assert_eq!(
            p.steps,
            vec![
                step(1, &[]),
                step(2, &[]),
                step(3, &[]),
                step(4, &[]),
                step(5, &[])
            ]
        );
        assert!(p.held.is_empty());
        assert_eq!(waves(&p), vec![vec![1, 2, 3, 4, 5]]);
    }

    #[test]
    fn only_pending_and_sending_are_planned() {
        let t = |i| remote(Kind::Creative, i);
        let changes = vec![
            with_status(change(1, t(1), Op::Update, &[]), ChangeStatus::Applied),
            with_status(change(2, t(2), Op::Update, &[]), ChangeStatus::Failed),
            with_status(change(3, t(3), Op::Update, &[]), ChangeStatus::NeedsReview),
            with_status(change(4, t(4), Op::Update, &[]), ChangeStatus::Conflict),
            with_status(change(5, t(5), Op::Update, &[]), ChangeStatus::Blocked),
            with_status(change(6, t(6), Op::Create, &[]), ChangeStatus::Sending),
            change(7, t(7), Op::Update, &[]),
        ];
        let p = plan(&changes);
        assert_eq!(p.steps, vec![step(6, &[]), step(7, &[])]);
        assert!(p.held.is_empty());
    }

    #[test]
    fn invalid_changes_are_held_with_their_first_error() {
        let mut bad = change(1, remote(Kind::Campaign, 1), Op::Update, &[]);
        bad.errors = vec![
            FieldError::new("flights[1].startDate", codes::OVERLAP, "overlaps flight 12"),
            FieldError::new("name", codes::REQUIRED, "is required"),
        ];
        let marked = with_status(
            change(2, remote(Kind::Campaign, 2), Op::Update, &[]),
            ChangeStatus::Invalid,
        );
        let p = plan(&[bad, marked]);
        assert!(p.steps.is_empty());
        assert_eq!(
            p.held[0].reason,
            "not valid: flights[1].startDate: overlaps flight 12"
        );
        assert_eq!(p.held[0].blocked_by, None);
        assert_eq!(p.held[1].seq, 2);
        assert!(p.held[1].reason.contains("invalid"), "{}", p.held[1].reason);
    }

    #[test]
    fn draft_chain_goes_parent_first_whatever_the_input_order() {
        let expected = vec![
            step(1, &[]),
            step(2, &[1]),
            step(3, &[2]),
            step(200, &[2]),
            step(4, &[3, 200]),
        ];
        let mut changes = chain([1, 2, 3, 4]);
        assert_eq!(plan(&changes).steps, expected);
        changes.reverse();
        let p = plan(&changes);
        assert_eq!(p.steps, expected);
        assert_eq!(waves(&p), vec![vec![1], vec![2], vec![3, 200], vec![4]]);
    }

    #[test]
    fn draft_chain_with_reversed_seqs_still_goes_parent_first() {
        // The store re-queued each draft's create behind its children.
        let mut changes = chain([40, 30, 20, 10]);
        changes.reverse();
        let p = plan(&changes);
        assert!(p.held.is_empty(), "{:?}", p.held);
        assert_eq!(
            p.steps,
            vec![
                step(40, &[]),
                step(30, &[40]),
                step(20, &[30]),
                step(3000, &[30]),
                step(10, &[20, 3000])
            ]
        );
        assert_well_formed(&p);
    }

    #[test]
    fn changes_to_one_entity_keep_outbox_order() {
        let sl = local(Kind::SiteList, "sl");
        let changes = vec![
            change(5, sl.clone(), Op::SiteListRemoveSites, &[]),
            change(1, sl.clone(), Op::Create, &[]),
            change(3, sl.clone(), Op::SiteListAppend, &[]),
            change(2, remote(Kind::SiteList, 8), Op::SiteListOverwrite, &[]),
        ];
        let p = plan(&changes);
        assert_eq!(
            p.steps,
            vec![step(1, &[]), step(2, &[]), step(3, &[1]), step(5, &[3])]
        );
    }

    #[test]
    fn creatives_wait_for_draft_campaigns_only() {
        let camp = local(Kind::Campaign, "c");
        let changes = vec![
            change(
                1,
                camp.clone(),
                Op::Create,
                &[("/advertiserId", remote(Kind::Advertiser, 1))],
            ),
            change(
                2,
                local(Kind::Creative, "a"),
                Op::Create,
                &[("/campaignId", camp)],
            ),
            change(
                3,
                local(Kind::Creative, "b"),
                Op::Create,
                &[("/advertiserId", remote(Kind::Advertiser, 1))],
            ),
        ];
        assert_eq!(
            plan(&changes).steps,
            vec![step(1, &[]), step(2, &[1]), step(3, &[])]
        );
    }

    #[test]
    fn flight_caps_wait_for_their_ad_orders_update() {
        let order = remote(Kind::AdOrder, 9);
        let caps = EntityRef::new(Kind::FlightCaps, Key::Id(9));
        let changes = vec![
            change(1, order.clone(), Op::Update, &[]),
            change(
                2,
                caps.clone(),
                Op::Update,
                &[("/0/orderId", order.clone())],
            ),
            // A later ad-order edit does not hold back earlier caps.
            change(3, order.clone(), Op::Update, &[]),
            change(4, caps, Op::Update, &[("/0/orderId", order)]),
        ];
        let p = plan(&changes);
        assert_eq!(
            p.steps,
            vec![step(1, &[]), step(2, &[1]), step(3, &[1]), step(4, &[2, 3])]
        );
        // A flight hangs on its campaign.
        let camp = remote(Kind::Campaign, 5);
        let changes = vec![
            change(1, camp.clone(), Op::Update, &[]),
            change(
                2,
                remote(Kind::Flight, 70),
                Op::Update,
                &[("/campaignId", camp)],
            ),
        ];
        assert_eq!(plan(&changes).steps, vec![step(1, &[]), step(2, &[1])]);
    }

    #[test]
    fn caps_on_a_new_flight_wait_for_the_campaign_change_that_carries_it() {
        let camp = local(Kind::Campaign, "camp");
        let order = local(Kind::AdOrder, "order");
        let flight = EntityRef::draft_flight(&camp, 1_800_000_000_000);
        assert_eq!(
            flight.draft_flight_parts(),
            Some((camp.clone(), 1_800_000_000_000))
        );
        let caps = EntityRef::new(Kind::FlightCaps, order.key.clone());
        let changes = vec![
            change(1, camp.clone(), Op::Create, &[]),
            change(2, order.clone(), Op::Create, &[("/campaignId", camp)]),
            change(
                3,
                caps,
                Op::Update,
                &[("/0/orderId", order), ("/0/flightId", flight.clone())],
            ),
        ];
        let p = plan(&changes);
        assert_well_formed(&p);
        assert_eq!(p.steps, vec![step(1, &[]), step(2, &[1]), step(3, &[1, 2])]);

        // A new flight added to a posted campaign by a later edit (edits fold into one
        // change, whatever its seq): the caps wait for that edit.
        let posted = remote(Kind::Campaign, 5);
        let flight = EntityRef::draft_flight(&posted, 7);
        let caps = EntityRef::new(Kind::FlightCaps, Key::Id(9));
        let changes = vec![
            change(
                1,
                caps.clone(),
                Op::Update,
                &[("/0/flightId", flight.clone())],
            ),
            change(4, posted, Op::Update, &[]),
        ];
        assert_eq!(plan(&changes).steps, vec![step(4, &[]), step(1, &[4])]);
        // No change carries it and it never landed: held, saying which flight.
        let p = plan(&changes[..1]);
        assert!(p.steps.is_empty());
        assert!(
            p.held[0].reason.contains("the new flight starting"),
            "{}",
            p.held[0].reason
        );
        // Landed in an earlier push: free to go.
        let p = plan_with(&changes[..1], |t| *t == flight);
        assert_eq!(p.steps, vec![step(1, &[])]);
    }

    #[test]
    fn missing_draft_parent_holds_the_change_and_its_children() {
        let ghost = local(Kind::Campaign, "ghost");
        let order = local(Kind::AdOrder, "o");
        let changes = vec![
            change(1, order.clone(), Op::Create, &[("/campaignId", ghost)]),
            change(
                2,
                EntityRef::new(Kind::FlightCaps, order.key.clone()),
                Op::Update,
                &[("/0/orderId", order)],
            ),
            change(3, local(Kind::SiteList, "sl"), Op::Create, &[]),
        ];
        let p = plan(&changes);
        assert_eq!(p.steps, vec![step(3, &[])]);
        assert_eq!(held_seqs(&p), vec![(1, None), (2, Some(1))]);
        assert_eq!(
            p.held[0].reason,
            "its parent campaign draft ghost-lo is not in the workspace"
        );
        assert!(
            p.held[1]
                .reason
                .starts_with("waits for change 1 (ad order draft o-local-)"),
            "{}",
            p.held[1].reason
        );
    }

    #[test]
    fn failed_or_invalid_parent_holds_descendants_not_unrelated_changes() {
        for status in [
            ChangeStatus::Failed,
            ChangeStatus::Invalid,
            ChangeStatus::NeedsReview,
            ChangeStatus::Conflict,
        ] {
            let mut changes = chain([1, 2, 3, 4]);
            changes[1].status = status; // the campaign
            changes.push(change(5, local(Kind::SiteList, "sl"), Op::Create, &[]));
            changes.push(change(6, remote(Kind::Campaign, 77), Op::Update, &[]));
            let p = plan(&changes);
            assert_eq!(
                p.steps,
                vec![step(1, &[]), step(5, &[]), step(6, &[])],
                "{status:?}"
            );
            let mut expected = vec![(3, Some(2)), (4, Some(3)), (200, Some(2))];
            if status == ChangeStatus::Invalid {
                expected.insert(0, (2, None));
            }
            assert_eq!(held_seqs(&p), expected, "{status:?}");
            let caps = p
                .held
                .iter()
                .find(|h| h.seq == 4)
                .map(|h| h.reason.as_str());
            assert!(
                caps.is_some_and(
                    |r| r.contains("which waits on change 2 (campaign draft camp-loc)")
                ),
                "{caps:?}"
            );
        }
    }

    #[test]
    fn applied_parents_are_done_and_landed_drafts_need_no_create() {
        let camp = local(Kind::Campaign, "c");
        let changes = vec![
            with_status(
                change(1, camp.clone(), Op::Create, &[]),
                ChangeStatus::Applied,
            ),
            change(
                2,
                local(Kind::AdOrder, "o"),
                Op::Create,
                &[("/campaignId", camp.clone())],
            ),
            change(3, camp.clone(), Op::Update, &[]),
        ];
        assert_eq!(plan(&changes).steps, vec![step(2, &[]), step(3, &[])]);
        let changes = vec![change(
            2,
            local(Kind::AdOrder, "o"),
            Op::Create,
            &[("/campaignId", camp.clone())],
        )];
        assert_eq!(plan(&changes).held.len(), 1);
        let p = plan_with(&changes, |t| *t == camp);
        assert_eq!(p.steps, vec![step(2, &[])]);
    }

    #[test]
    fn cycles_are_held() {
        let a = local(Kind::Creative, "a");
        let b = local(Kind::Campaign, "b");
        let changes = vec![
            change(1, a.clone(), Op::Create, &[("/campaignId", b.clone())]),
            change(2, b.clone(), Op::Create, &[("/x", a.clone())]),
            change(3, a, Op::Update, &[]),
            change(4, local(Kind::SiteList, "s"), Op::Create, &[]),
        ];
        let p = plan(&changes);
        assert_eq!(p.steps, vec![step(4, &[])]);
        assert_eq!(
            held_seqs(&p),
            vec![(1, Some(2)), (2, Some(1)), (3, Some(1))]
        );
        assert!(p.held[0].reason.contains("wait on each other"));
    }

    #[test]
    fn ten_thousand_independent_changes_run_together() {
        let changes: Vec<PendingChange> = (0..10_000)
            .map(|i| change(i, local(Kind::SiteList, &i.to_string()), Op::Create, &[]))
            .collect();
        let p = plan(&changes);
        assert_eq!(p.steps.len(), 10_000);
        assert!(p.steps.iter().all(|s| s.after.is_empty()));
        assert_eq!(waves(&p).len(), 1);
    }

    #[test]
    fn a_hundred_thousand_changes_plan_correctly() {
        // 20,000 draft chains (campaign → ad order → caps → caps again) and 20,000 site
        // lists, shuffled by a fixed permutation; every tenth chain's campaign failed.
        let mut changes = Vec::with_capacity(100_000);
        for k in 0..20_000i64 {
            let camp = local(Kind::Campaign, &format!("c{k}"));
            let order = local(Kind::AdOrder, &format!("o{k}"));
            let caps = EntityRef::new(Kind::FlightCaps, order.key.clone());
            let mut c = change(
                k * 5,
                camp.clone(),
                Op::Create,
                &[("/advertiserId", remote(Kind::Advertiser, 1))],
            );
            if k % 10 == 0 {
                c.status = ChangeStatus::Failed;
            }
            changes.push(c);
            changes.push(change(
                k * 5 + 1,
                order.clone(),
                Op::Create,
                &[("/campaignId", camp)],
            ));
            changes.push(change(
                k * 5 + 2,
                caps.clone(),
                Op::Update,
                &[("/0/orderId", order.clone())],
            ));
            changes.push(change(
                k * 5 + 3,
                caps,
                Op::Update,
                &[("/0/orderId", order)],
            ));
            changes.push(change(
                k * 5 + 4,
                local(Kind::SiteList, &format!("s{k}")),
                Op::Create,
                &[],
            ));
        }
        let n = changes.len();
        let mut shuffled = Vec::with_capacity(n);
        let mut i = 0usize;
        for _ in 0..n {
            i = (i + 48_271) % n; // 48271 is coprime with 100000, so this visits all.
            shuffled.push(changes[i].clone());
        }
        let p = plan(&shuffled);
        assert_well_formed(&p);
        assert_eq!(p.held.len(), 2_000 * 3);
        assert_eq!(p.steps.len(), 100_000 - 2_000 * 4);
        let by_seq: HashMap<i64, &Step> = p.steps.iter().map(|s| (s.seq, s)).collect();
        for k in 1..20_000i64 {
            if k % 10 == 0 {
                continue;
            }
            let b = k * 5;
            assert_eq!(by_seq[&b].after, Vec::<i64>::new());
            assert_eq!(by_seq[&(b + 1)].after, vec![b]);
            assert_eq!(by_seq[&(b + 2)].after, vec![b + 1]);
            assert_eq!(by_seq[&(b + 3)].after, vec![b + 1, b + 2]);
            assert!(by_seq[&(b + 4)].after.is_empty());
        }
        assert_eq!(waves(&p).len(), 4);
    }

    fn arbitrary_changes() -> impl Strategy<Value = Vec<PendingChange>> {
        let statuses = prop::sample::select(vec![
            ChangeStatus::Pending,
            ChangeStatus::Pending,
            ChangeStatus::Pending,
            ChangeStatus::Sending,
            ChangeStatus::Invalid,
            ChangeStatus::Applied,
            ChangeStatus::Failed,
            ChangeStatus::Blocked,
        ]);
        let kinds = prop::sample::select(vec![
            Kind::Advertiser,
            Kind::Campaign,
            Kind::AdOrder,
            Kind::FlightCaps,
            Kind::SiteList,
        ]);
        let op = prop::sample::select(vec![Op::Create, Op::Create, Op::Update, Op::SiteListAppend]);
        prop::collection::vec(
            (
                kinds.clone(),
                0..6u8,
                any::<bool>(),
                op,
                statuses,
                prop::collection::vec((kinds, 0..6u8, any::<bool>()), 0..3),
            ),
            0..40,
        )
        .prop_map(|rows| {
            rows.into_iter()
                .enumerate()
                .map(|(i, (kind, n, is_local, op, status, parents))| {
                    let key = |n: u8, l: bool| {
                        if l {
                            Key::Local(format!("k{n}"))
                        } else {
                            Key::Id(i64::from(n))
                        }
                    };
                    let mut c = change(
                        (i as i64 * 7919) % 41,
                        EntityRef::new(kind, key(n, is_local)),
                        op,
                        &[],
                    );
                    c.status = status;
                    c.parents = parents
                        .into_iter()
                        .map(|(k, n, l)| ParentRef {
                            pointer: "/x".into(),
                            target: EntityRef::new(k, key(n, l)),
                        })
                        .collect();
                    c
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn plans_are_well_formed(changes in arbitrary_changes()) {
            let p = plan(&changes);
            assert_well_formed(&p);
            let status: HashMap<i64, ChangeStatus> = changes.iter().map(|c| (c.seq, c.status)).collect();
            let listed: HashSet<i64> = p.steps.iter().map(|s| s.seq).chain(p.held.iter().map(|h| h.seq)).collect();
            for c in &changes {
                let expected = matches!(c.status, ChangeStatus::Pending | ChangeStatus::Sending | ChangeStatus::Invalid);
                prop_assert_eq!(listed.contains(&c.seq), expected, "{:?}", c);
            }
            for s in &p.steps {
                prop_assert!(matches!(status[&s.seq], ChangeStatus::Pending | ChangeStatus::Sending));
            }
            for h in &p.held {
                if let Some(b) = h.blocked_by {
                    prop_assert!(!p.steps.iter().any(|s| s.seq == b) || h.reason.contains("each other"));
                }
            }
            // Order-independent: the same changes in reverse give the same plan.
            let mut reversed = changes.clone();
            reversed.reverse();
            prop_assert_eq!(plan(&reversed), p);
        }
    }
}
