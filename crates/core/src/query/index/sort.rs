//! Sorting a kind's index by a column: kept orders for columns of many values, a byte a
//! row for the others (sorted on each ask by counting), descending orders, and columns
//! copied out to be sorted with no lock held.

use std::hash::{BuildHasherDefault, Hasher};

use super::*;

/// A value of a column of few values, as [`Codes`] keeps it.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::query) enum Value {
    Empty,
    Num(f64),
    Text(Box<str>),
}

impl Value {
    fn of(cell: Cell<'_>) -> Value {
        match cell {
            Cell::Empty => Value::Empty,
            Cell::Num(n) => Value::Num(n),
            Cell::Text(t) => Value::Text(t.into()),
        }
    }

    fn cell(&self) -> Cell<'_> {
        match self {
            Value::Empty => Cell::Empty,
            Value::Num(n) => Cell::Num(*n),
            Value::Text(t) => Cell::Text(t),
        }
    }
}

/// A column of at most [`KEEP_DISTINCT`] distinct values: each row's value as a byte,
/// an index into them. Sorting it is counting: O(rows), stable in the default order,
/// either direction, for a byte a row where a kept order costs four.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::query) struct Codes {
    /// The distinct values, in the order first met.
    pub(in crate::query) values: Vec<Value>,
    /// Per row: its value's index in `values`.
    pub(in crate::query) of: Vec<u8>,
}

impl Codes {
    /// Codes row `i` (an existing row, or the next one) as `cell`; `false` when that is
    /// one value too many, and the column must be sorted as one of many values.
    pub(in crate::query) fn set(&mut self, i: u32, cell: Cell<'_>) -> bool {
        let code = match self
            .values
            .iter()
            .position(|v| v.cell().cmp_asc(&cell) == Ordering::Equal)
        {
            Some(c) => c,
            None if self.values.len() < KEEP_DISTINCT => {
                self.values.push(Value::of(cell));
                self.values.len() - 1
            }
            None => return false,
        };
        let code = u8::try_from(code).unwrap_or(u8::MAX);
        match self.of.get_mut(i as usize) {
            Some(c) => *c = code,
            None => {
                room(&mut self.of);
                self.of.push(code);
            }
        }
        true
    }

    pub(in crate::query) fn heap_bytes(&self) -> usize {
        self.of.capacity()
            + self.values.capacity() * std::mem::size_of::<Value>()
            + self
                .values
                .iter()
                .map(|v| match v {
                    Value::Text(t) => t.len(),
                    _ => 0,
                })
                .sum::<usize>()
    }

    /// The rows of `default` ordered by value (descending: high to low, empty cells
    /// still last), rows of equal value in the order of `default`.
    fn counted(&self, default: &[u32], descending: bool) -> Vec<u32> {
        let k = self.values.len();
        let mut by: Vec<usize> = (0..k).collect();
        let cmp = |a: usize, b: usize| self.values[a].cell().cmp_asc(&self.values[b].cell());
        by.sort_by(|&a, &b| cmp(a, b));
        let mut rank = [0usize; KEEP_DISTINCT];
        let mut ranks = 0;
        for (p, &c) in by.iter().enumerate() {
            if p > 0 && cmp(by[p - 1], c) != Ordering::Equal {
                ranks += 1;
            }
            rank[c] = ranks;
        }
        let ranks = if k == 0 { 0 } else { ranks + 1 };
        if descending {
            let filled = ranks - usize::from(self.values.contains(&Value::Empty));
            for (c, v) in self.values.iter().enumerate() {
                if *v != Value::Empty {
                    rank[c] = filled - 1 - rank[c];
                }
            }
        }
        let mut start = vec![0usize; ranks + 1];
        for &i in default {
            start[rank[self.of[i as usize] as usize] + 1] += 1;
        }
        for r in 1..start.len() {
            start[r] += start[r - 1];
        }
        let mut out = vec![0u32; default.len()];
        for &i in default {
            let r = rank[self.of[i as usize] as usize];
            out[start[r]] = i;
            start[r] += 1;
        }
        out
    }
}

/// A cell as its bytes in the index, to tell values apart quickly: numbers in the
/// search text by their text, not parsed on every row.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Raw<'t> {
    Empty,
    Bits(u64),
    Num(&'t [u8]),
    Text(&'t [u8]),
}

/// FNV-1a for [`Raw`]s: short keys, hashed once a row while coding a column.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

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

    /// Whether `col` needs sorting ahead: its order is not kept, nor is it coded.
    pub(in crate::query) fn needs_presort(&self, col: usize) -> bool {
        !self.sorted.contains_key(&col) && !self.codes.contains_key(&col)
    }

    fn keep(&mut self, col: usize, perm: Vec<u32>, keep: bool) {
        if keep {
            self.sorted.insert(col, Arc::new(perm));
        } else {
            self.code(col);
        }
    }

    /// Row `i`'s cell in `col` as its bytes.
    fn raw(&self, i: u32, col: usize) -> Raw<'_> {
        match self.types[i as usize] >> (2 * col) & 3 {
            NUM => match self.columns.get(col).copied().flatten() {
                Some(slot) => Raw::Bits(self.hidden[slot as usize][i as usize].to_bits()),
                None => Raw::Num(segment(self.row_text(i), col)),
            },
            TEXT => Raw::Text(segment(self.row_text(i), col)),
            _ => Raw::Empty,
        }
    }

    /// Codes `col` ([`Codes`]) if it has at most [`KEEP_DISTINCT`] distinct values: one
    /// pass over the rows, given up at the first value too many. Whether it is coded.
    pub(in crate::query) fn code(&mut self, col: usize) -> bool {
        if self.codes.contains_key(&col) {
            return true;
        }
        let mut seen: HashMap<Raw<'_>, u8, BuildHasherDefault<Fnv>> = HashMap::default();
        let mut raws: Vec<Raw<'_>> = Vec::new();
        let mut of = Vec::with_capacity(self.len());
        let mut last: Option<(Raw<'_>, u8)> = None;
        for i in 0..index(self.len()) {
            let r = self.raw(i, col);
            let code = match last {
                Some((l, c)) if l == r => c,
                _ => {
                    let c = match seen.get(&r) {
                        Some(&c) => c,
                        None if raws.len() < KEEP_DISTINCT => {
                            let c = u8::try_from(raws.len()).unwrap_or(u8::MAX);
                            raws.push(r);
                            seen.insert(r, c);
                            c
                        }
                        None => return false,
                    };
                    last = Some((r, c));
                    c
                }
            };
            of.push(code);
        }
        let values = raws
            .into_iter()
            .map(|r| match r {
                Raw::Empty => Value::Empty,
                Raw::Bits(b) => Value::Num(f64::from_bits(b)),
                Raw::Num(t) => std::str::from_utf8(t)
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .map_or(Value::Empty, Value::Num),
                Raw::Text(t) => Value::Text(String::from_utf8_lossy(t).into()),
            })
            .collect();
        self.codes.insert(col, Codes { values, of });
        true
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
        if let Some(perm) = self.counted(col, false) {
            return perm;
        }
        let (perm, _) = self.sort_column(col, true);
        let perm = Arc::new(perm);
        self.sorted.insert(col, perm.clone());
        perm
    }

    /// The order of `col` by counting, if it is coded (or can be: a column of few
    /// values), kept as the transient order.
    fn counted(&mut self, col: usize, descending: bool) -> Option<Arc<Vec<u32>>> {
        if !self.code(col) {
            return None;
        }
        let codes = self.codes.get(&col)?;
        let perm = Arc::new(codes.counted(&self.default, descending));
        self.transient = Some(((col, descending), perm.clone()));
        Some(perm)
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
                if !self.sorted.contains_key(&col)
                    && let Some(perm) = self.counted(col, true)
                {
                    return perm;
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
