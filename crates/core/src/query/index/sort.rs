//! Sorting a kind's index by a column: kept orders for columns of many values, orders
//! computed on each ask for the others, descending orders, and columns copied out to be
//! sorted with no lock held.

use super::*;

/// A column's cells copied out of an index (text cells into one string), so it can be
/// sorted while views go on reading the index.
pub(in crate::query) struct ColumnCopy {
    col: usize,
    version: u64,
    text: String,
    /// In the default order: each row's cell (text as a span of `text`) and its row.
    cells: Vec<(Copied, u32)>,
}

#[derive(Clone, Copy)]
enum Copied {
    Empty,
    Num(f64),
    Text(u32, u32),
}

impl ColumnCopy {
    /// The column's ascending order, and whether it is worth keeping.
    pub(in crate::query) fn sort(&self) -> (Vec<u32>, bool) {
        let text = self.text.as_str();
        let pairs = self
            .cells
            .iter()
            .map(|&(c, i)| {
                let cell = match c {
                    Copied::Empty => Cell::Empty,
                    Copied::Num(n) => Cell::Num(n),
                    Copied::Text(at, len) => {
                        Cell::Text(text.get(at as usize..(at + len) as usize).unwrap_or(""))
                    }
                };
                (cell, i)
            })
            .collect();
        sort_pairs(pairs, false)
    }
}

impl KindTable {
    /// The ascending order of `col` (on every core when `parallel`), and whether it is
    /// worth keeping: ties in the default order, as a stable sort of it leaves them.
    fn sort_column(&self, col: usize, parallel: bool) -> (Vec<u32>, bool) {
        let pairs = self
            .default
            .iter()
            .map(|&i| (self.cell(i, col), i))
            .collect();
        sort_pairs(pairs, parallel)
    }

    /// Whether `col` needs sorting ahead: its order is not kept, nor known to be cheap.
    pub(in crate::query) fn needs_presort(&self, col: usize) -> bool {
        !self.sorted.contains_key(&col) && self.cheap >> col & 1 == 0
    }

    fn keep(&mut self, col: usize, perm: Vec<u32>, keep: bool) {
        if keep {
            self.sorted.insert(col, Arc::new(perm));
        } else {
            self.cheap |= 1 << col;
        }
    }

    /// Copies `col`'s cells out, to be sorted with no lock held ([`ColumnCopy::sort`])
    /// and handed back to [`KindTable::install`].
    pub(in crate::query) fn copy_column(&self, col: usize) -> ColumnCopy {
        let mut text = String::new();
        let cells = self
            .default
            .iter()
            .map(|&i| {
                let c = match self.cell(i, col) {
                    Cell::Empty => Copied::Empty,
                    Cell::Num(n) => Copied::Num(n),
                    Cell::Text(t) => {
                        let at = index(text.len());
                        text.push_str(t);
                        Copied::Text(at, index(t.len()))
                    }
                };
                (c, i)
            })
            .collect();
        ColumnCopy {
            col,
            version: self.version,
            text,
            cells,
        }
    }

    /// Keeps the order sorted from `copy`, unless a row changed since it was copied.
    pub(in crate::query) fn install(&mut self, copy: &ColumnCopy, sorted: (Vec<u32>, bool)) {
        if copy.version == self.version && self.needs_presort(copy.col) {
            self.keep(copy.col, sorted.0, sorted.1);
        }
    }

    /// The ascending order of `col`.
    fn ascending(&mut self, col: usize) -> Arc<Vec<u32>> {
        if let Some(perm) = self.sorted.get(&col) {
            return perm.clone();
        }
        if let Some(((c, false), perm)) = &self.transient
            && *c == col
        {
            return perm.clone();
        }
        let (perm, keep) = self.sort_column(col, true);
        let perm = Arc::new(perm);
        if keep {
            self.sorted.insert(col, perm.clone());
        } else {
            self.cheap |= 1 << col;
            self.transient = Some(((col, false), perm.clone()));
        }
        perm
    }

    pub(in crate::query) fn order(&mut self, sort: Option<(usize, bool)>) -> Arc<Vec<u32>> {
        match sort {
            None => self.default.clone(),
            Some((col, false)) => self.ascending(col),
            Some((col, true)) => {
                if let Some((s, perm)) = &self.transient
                    && *s == (col, true)
                {
                    return perm.clone();
                }
                let asc = self.ascending(col);
                let d = Arc::new(self.descending_of(&asc, col));
                self.transient = Some(((col, true), d.clone()));
                d
            }
        }
    }

    /// The descending order of `col` from its ascending one: values high to low, rows of
    /// equal value still in the default order, empty cells still last.
    fn descending_of(&self, asc: &[u32], col: usize) -> Vec<u32> {
        let filled = asc.partition_point(|&i| self.cell(i, col) != Cell::Empty);
        let mut out = Vec::with_capacity(asc.len());
        let mut end = filled;
        while end > 0 {
            let last = self.cell(asc[end - 1], col);
            let mut start = end - 1;
            while start > 0 && self.cell(asc[start - 1], col).cmp_asc(&last) == Ordering::Equal {
                start -= 1;
            }
            out.extend_from_slice(&asc[start..end]);
            end = start;
        }
        out.extend_from_slice(&asc[filled..]);
        out
    }
}

/// Sorts `(cell, row)` pairs given in the default order by cell, stably (ties stay in
/// the default order): the rows in order, and whether the column has enough distinct
/// values for its order to be worth keeping.
fn sort_pairs(mut pairs: Vec<(Cell<'_>, u32)>, parallel: bool) -> (Vec<u32>, bool) {
    let cmp = |a: &(Cell<'_>, u32), b: &(Cell<'_>, u32)| a.0.cmp_asc(&b.0);
    sort_stable(&mut pairs, &cmp, parallel);
    let distinct = 1 + pairs
        .windows(2)
        .filter(|w| cmp(&w[0], &w[1]) != Ordering::Equal)
        .count();
    (
        pairs.into_iter().map(|(_, i)| i).collect(),
        distinct > KEEP_DISTINCT,
    )
}

/// Sorts `v` stably by `cmp`, on two threads when it is long and `parallel`: each half
/// alone, then merged (the left half first among equals, so still stable).
fn sort_stable<T: Copy + Send + Sync>(
    v: &mut Vec<T>,
    cmp: &(dyn Fn(&T, &T) -> Ordering + Sync),
    parallel: bool,
) {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if !parallel || threads < 2 || v.len() < PARALLEL_ROWS {
        v.sort_by(cmp);
        return;
    }
    let mid = v.len() / 2;
    let (left, right) = v.split_at_mut(mid);
    std::thread::scope(|s| {
        s.spawn(|| left.sort_by(cmp));
        right.sort_by(cmp);
    });
    let mut merged = Vec::with_capacity(v.len());
    let (mut i, mut j) = (0, mid);
    while i < mid && j < v.len() {
        if cmp(&v[j], &v[i]) == Ordering::Less {
            merged.push(v[j]);
            j += 1;
        } else {
            merged.push(v[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&v[i..mid]);
    merged.extend_from_slice(&v[j..]);
    *v = merged;
}
