//! Moving a saved row into place in every order the index holds, and in the last
//! filtered result: a binary search for where it was, a rotation to where it goes, so a
//! save costs what the rows it moves past cost, not a pass over every row.

use super::*;

/// Where a row sat, before a save changed it, in each order that holds it.
pub(super) struct Places {
    default: Option<usize>,
    sorted: Vec<(usize, Option<usize>)>,
    transient: Option<usize>,
    last: Option<usize>,
}

/// Which order the last result is (an unfiltered view's result is the order itself).
#[derive(Clone, Copy, PartialEq)]
enum Shared {
    Default,
    Sorted(usize),
    Transient,
}

impl KindTable {
    /// Whether row `x` comes before a row of value `cell` and default-order key `key`
    /// in the order `sort` (see [`KindTable::order`]: descending keeps empty cells last
    /// and ties in the default order).
    fn precedes(
        &self,
        x: u32,
        sort: Option<(usize, bool)>,
        cell: &Cell<'_>,
        key: (bool, i64),
    ) -> bool {
        let by_value = match sort {
            None => Ordering::Equal,
            Some((col, descending)) => {
                let c = self.cell(x, col);
                if descending && c != Cell::Empty && *cell != Cell::Empty {
                    cell.cmp_asc(&c)
                } else {
                    c.cmp_asc(cell)
                }
            }
        };
        by_value.then_with(|| self.order_key(x).cmp(&key)) == Ordering::Less
    }

    /// Where row `i` sits in `perm`, ordered by `sort`: a binary search by its value,
    /// else (a value the order was not sorted by) a scan.
    fn find(&self, perm: &[u32], i: u32, sort: Option<(usize, bool)>) -> Option<usize> {
        let cell = sort.map_or(Cell::Empty, |(col, _)| self.cell(i, col));
        let key = self.order_key(i);
        let at = perm.partition_point(|&x| x != i && self.precedes(x, sort, &cell, key));
        if perm.get(at) == Some(&i) {
            Some(at)
        } else {
            perm.iter().position(|&x| x == i)
        }
    }

    /// Where row `i` sits in each order, before a save changes it.
    pub(super) fn places(&self, i: u32) -> Places {
        Places {
            default: self.find(&self.default, i, None),
            sorted: self
                .sorted
                .iter()
                .map(|(&col, perm)| (col, self.find(perm, i, Some((col, false)))))
                .collect(),
            transient: self
                .transient
                .as_ref()
                .and_then(|(sort, perm)| self.find(perm, i, Some(*sort))),
            last: self
                .last
                .as_ref()
                .and_then(|(sig, result)| self.find(result, i, sig.sort)),
        }
    }

    /// Moves row `i` (at `from`, or in no place yet) to where `sort` puts its value now.
    fn move_row(
        &self,
        perm: &mut Vec<u32>,
        i: u32,
        from: Option<usize>,
        sort: Option<(usize, bool)>,
    ) {
        let cell = sort.map_or(Cell::Empty, |(col, _)| self.cell(i, col));
        let key = self.order_key(i);
        let before = |x: &u32| *x != i && self.precedes(*x, sort, &cell, key);
        match from.filter(|&at| perm.get(at) == Some(&i)) {
            Some(at) => {
                // Its place among the others, as if it were taken out.
                let (left, right) = (&perm[..at], &perm[at + 1..]);
                let to = match left.partition_point(before) {
                    p if p < left.len() => p,
                    p => p + right.partition_point(before),
                };
                if to >= at {
                    perm[at..=to].rotate_left(1);
                } else {
                    perm[to..=at].rotate_right(1);
                }
            }
            None => {
                let to = perm.partition_point(before);
                room(perm);
                perm.insert(to, i);
            }
        }
    }

    /// Whether row `i` is one `sig` selects (its count of findings aside).
    fn selects(&self, i: u32, sig: &Signature) -> bool {
        let under = sig.parent.as_ref().is_none_or(|p| {
            self.lineages
                .get(self.lineage[i as usize] as usize)
                .is_some_and(|(pp, a)| pp.as_ref() == Some(p) || a.as_ref() == Some(p))
        });
        let text = self.row_text(i);
        under
            && sig
                .filter
                .split_whitespace()
                .all(|w| memchr::memmem::find(text, w.as_bytes()).is_some())
    }

    /// Puts row `i` at its place in every order held (from `places`, where it was; `None`
    /// for a new row), and in the last result when it is kept up to date that way.
    pub(super) fn reposition(&mut self, i: u32, places: Option<Places>) {
        self.version = next_version();
        self.findings_missing = true;
        // Taken out first, so the orders are not shared and change in place.
        let last = self.last.take();
        let transient = self.transient.take();
        let shared = last.as_ref().and_then(|(_, r)| {
            if Arc::ptr_eq(r, &self.default) {
                Some(Shared::Default)
            } else if let Some((&col, _)) = self.sorted.iter().find(|(_, p)| Arc::ptr_eq(r, p)) {
                Some(Shared::Sorted(col))
            } else {
                transient
                    .as_ref()
                    .filter(|(_, p)| Arc::ptr_eq(r, p))
                    .map(|_| Shared::Transient)
            }
        });
        let (sig, mut result) = match last {
            Some((sig, result)) => (Some(sig), shared.is_none().then_some(result)),
            None => (None, None),
        };
        let from = |f: fn(&Places) -> Option<usize>| places.as_ref().and_then(f);

        let mut codes = std::mem::take(&mut self.codes);
        codes.retain(|&col, c| c.set(i, self.cell(i, col)));
        self.codes = codes;

        let mut default = std::mem::take(&mut self.default);
        self.move_row(Arc::make_mut(&mut default), i, from(|p| p.default), None);
        // One row moved: the order is still the memory order only if it was, and the
        // row sits at its own place (a new row appended, a save that kept its key).
        self.default_in_memory_order &= default.get(i as usize) == Some(&i);
        self.default = default;

        let mut sorted = std::mem::take(&mut self.sorted);
        for (&col, perm) in &mut sorted {
            let at = places
                .as_ref()
                .and_then(|p| p.sorted.iter().find(|(c, _)| *c == col))
                .and_then(|(_, at)| *at);
            self.move_row(Arc::make_mut(perm), i, at, Some((col, false)));
        }
        self.sorted = sorted;

        if let Some((sort, mut perm)) = transient {
            self.move_row(
                Arc::make_mut(&mut perm),
                i,
                from(|p| p.transient),
                Some(sort),
            );
            self.transient = Some((sort, perm));
        }

        // A filtered result that is a kept order (every row matched) stays it only while
        // the row still matches; otherwise it is computed again when next asked.
        let still_all = |sig: &Signature| sig.has_findings.is_none() && self.selects(i, sig);
        let (sig, shared) = match (sig, shared) {
            (Some(sig), Some(_)) if !still_all(&sig) => (None, None),
            other => other,
        };
        self.last = match (sig, shared) {
            (Some(sig), Some(Shared::Default)) => Some((sig, self.default.clone())),
            (Some(sig), Some(Shared::Sorted(col))) => {
                self.sorted.get(&col).map(|p| (sig, p.clone()))
            }
            (Some(sig), Some(Shared::Transient)) => {
                self.transient.as_ref().map(|(_, p)| (sig, p.clone()))
            }
            // A filtered result: the row leaves it, and comes back where it belongs if
            // it still matches. Counts of findings are read again: dropped.
            (Some(sig), None) if sig.has_findings.is_none() => result.take().map(|mut r| {
                let list = Arc::make_mut(&mut r);
                if let Some(at) = from(|p| p.last).filter(|&at| list.get(at) == Some(&i)) {
                    list.remove(at);
                }
                if self.selects(i, &sig) {
                    self.move_row(list, i, None, sig.sort);
                }
                (sig, r)
            }),
            _ => None,
        };
    }
}
