//! The dependency graph of one push: which steps may start, and which wait on a step
//! that did not apply.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::plan::{self, Step};

/// The part of `plan` that posts `only` and every change they wait on, with the held
/// changes among them (and the held ones they wait on, so the report says why).
pub(super) fn select(plan: plan::Plan, only: &BTreeSet<i64>) -> plan::Plan {
    let after: HashMap<i64, &[i64]> = plan
        .steps
        .iter()
        .map(|s| (s.seq, s.after.as_slice()))
        .collect();
    let held_by: HashMap<i64, Option<i64>> =
        plan.held.iter().map(|h| (h.seq, h.blocked_by)).collect();
    let mut keep: HashSet<i64> = HashSet::new();
    let mut stack: Vec<i64> = only.iter().copied().collect();
    while let Some(seq) = stack.pop() {
        if !keep.insert(seq) {
            continue;
        }
        if let Some(after) = after.get(&seq) {
            stack.extend_from_slice(after);
        }
        if let Some(Some(by)) = held_by.get(&seq) {
            stack.push(*by);
        }
    }
    plan::Plan {
        steps: plan
            .steps
            .into_iter()
            .filter(|s| keep.contains(&s.seq))
            .collect(),
        held: plan
            .held
            .into_iter()
            .filter(|h| keep.contains(&h.seq))
            .collect(),
    }
}

/// The plan's steps with what each still waits on; indexes are positions in `steps`.
pub(super) struct Graph<'p> {
    pub(super) steps: &'p [Step],
    /// Unmet dependencies per step.
    waiting: Vec<usize>,
    dependents: Vec<Vec<usize>>,
    /// Steps free to start, by seq (the planner's order among free steps).
    ready: BTreeSet<(i64, usize)>,
    started: Vec<bool>,
    /// Steps held in this push because something they wait on did not apply.
    held: Vec<bool>,
}

impl<'p> Graph<'p> {
    pub(super) fn new(steps: &'p [Step]) -> Self {
        let index: HashMap<i64, usize> =
            steps.iter().enumerate().map(|(i, s)| (s.seq, i)).collect();
        let mut waiting = vec![0; steps.len()];
        let mut dependents = vec![Vec::new(); steps.len()];
        for (i, step) in steps.iter().enumerate() {
            let mut seen = HashSet::new();
            // Waits on anything outside the plan are settled (applied) by construction.
            for j in step.after.iter().filter_map(|a| index.get(a)) {
                if seen.insert(*j) {
                    waiting[i] += 1;
                    dependents[*j].push(i);
                }
            }
        }
        let ready = (0..steps.len())
            .filter(|&i| waiting[i] == 0)
            .map(|i| (steps[i].seq, i))
            .collect();
        Graph {
            steps,
            waiting,
            dependents,
            ready,
            started: vec![false; steps.len()],
            held: vec![false; steps.len()],
        }
    }

    pub(super) fn next_ready(&mut self) -> Option<usize> {
        let (_, i) = self.ready.pop_first()?;
        self.started[i] = true;
        Some(i)
    }

    /// Puts back a step taken by [`Graph::next_ready`] but not started: it waits for a
    /// free slot of its own kind.
    pub(super) fn defer(&mut self, i: usize) {
        self.started[i] = false;
        self.ready.insert((self.steps[i].seq, i));
    }

    pub(super) fn applied(&mut self, i: usize) {
        for k in 0..self.dependents[i].len() {
            let d = self.dependents[i][k];
            self.waiting[d] -= 1;
            if self.waiting[d] == 0 && !self.held[d] {
                self.ready.insert((self.steps[d].seq, d));
            }
        }
    }

    /// Every step depending on `i`, directly or not, not held yet.
    pub(super) fn hold_dependents(&mut self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![i];
        while let Some(j) = stack.pop() {
            for &d in &self.dependents[j] {
                if !self.held[d] {
                    self.held[d] = true;
                    self.ready.remove(&(self.steps[d].seq, d));
                    out.push(d);
                    stack.push(d);
                }
            }
        }
        out
    }

    pub(super) fn never_started(&self) -> Vec<usize> {
        (0..self.steps.len())
            .filter(|&i| !self.started[i] && !self.held[i])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_step_holds_only_its_descendants() {
        let steps = vec![
            Step {
                seq: 1,
                after: vec![],
            },
            Step {
                seq: 2,
                after: vec![1],
            },
            Step {
                seq: 3,
                after: vec![2],
            },
            Step {
                seq: 4,
                after: vec![],
            },
        ];
        let mut g = Graph::new(&steps);
        assert_eq!(g.next_ready(), Some(0));
        assert_eq!(g.next_ready(), Some(3));
        assert_eq!(g.next_ready(), None);
        let mut held = g.hold_dependents(0);
        held.sort_unstable();
        assert_eq!(held, vec![1, 2]);
        g.applied(3);
        assert_eq!(g.next_ready(), None);
        assert!(g.never_started().is_empty());
    }
}
