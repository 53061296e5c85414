//! One kind's index, column by column: what the filter reads (each row's search text, in
//! one arena), what sorts read (each cell's type, numbers the filter does not read) and
//! the orders kept. No second copy of the rows: a row's key is an `i64` (drafts' keys in
//! a small side table), its parent and ancestor an index into the few the kind has, and
//! its text cells are segments of its search text, read back when a column is sorted.

use super::*;

mod build;
mod persist;
mod place;
mod sort;

#[cfg(test)]
pub(super) use build::column_slots;
pub(super) use build::index_row;
pub(super) use persist::{Unusable, index_path, read as read_index, write as write_index};
use sort::{Codes, Value};

/// Cell types are two bits a column in one `u32` a row.
pub(super) const MAX_COLUMNS: usize = 16;
/// Numbers the filter does not read (dates) are kept apart; at most this many a kind.
pub(super) const MAX_HIDDEN: usize = 4;

pub(super) const EMPTY: u32 = 0;
pub(super) const NUM: u32 = 1;
pub(super) const TEXT: u32 = 2;

/// The high bit of a span's start: the row's text sits in [`KindTable::edits`].
const EDITED: u32 = 1 << 31;

/// Bytes of re-read rows' text kept before dead text in [`KindTable::edits`] is dropped.
const EDITS_SLACK: usize = 1 << 16;

/// Distinct values a column may have and still be coded a byte a row ([`Codes`]) rather
/// than have its order kept (4 bytes a row): sorted on each ask by counting, a few
/// passes over the rows.
const KEEP_DISTINCT: usize = 256;

/// Kinds with at least this many rows are filtered, and sorted while a view waits, on
/// several threads.
pub(super) const PARALLEL_ROWS: usize = 50_000;

/// A cell's value for sorting, read from the index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Cell<'t> {
    Empty,
    Num(f64),
    Text(&'t str),
}

impl Cell<'_> {
    /// Ascending: numbers before text, empty cells last.
    pub(super) fn cmp_asc(&self, other: &Cell<'_>) -> Ordering {
        match (self, other) {
            (Cell::Empty, Cell::Empty) => Ordering::Equal,
            (Cell::Empty, _) => Ordering::Greater,
            (_, Cell::Empty) => Ordering::Less,
            (Cell::Num(x), Cell::Num(y)) => x.total_cmp(y),
            (Cell::Num(_), Cell::Text(_)) => Ordering::Less,
            (Cell::Text(_), Cell::Num(_)) => Ordering::Greater,
            (Cell::Text(x), Cell::Text(y)) => x.cmp(y),
        }
    }
}

/// A row read from the workspace, before it takes its place in the index. Its search
/// text is already in the arena it was read into, at `span`.
pub(super) struct Fresh {
    pub(super) target: EntityRef,
    pub(super) parent: Option<EntityRef>,
    /// The parent's parent: the advertiser of an ad order's (or a creative's) campaign,
    /// so a view of one advertiser lists those too.
    pub(super) ancestor: Option<EntityRef>,
    /// Insertion order in the workspace: drafts' default order.
    pub(super) order: i64,
    pub(super) span: (u32, u32),
    pub(super) types: u32,
    pub(super) hidden: [f64; MAX_HIDDEN],
}

type Lineage = (Option<EntityRef>, Option<EntityRef>);

/// An order not kept: the column and direction it sorts, and the rows in that order.
type Transient = ((usize, bool), Arc<Vec<u32>>);

/// One kind's index. Rows are never removed in place: a removal rebuilds the kind.
pub(super) struct KindTable {
    /// Per column: `None` when its numbers are in the search text, or the slot of
    /// [`KindTable::hidden`] that holds them (dates: the filter does not read them).
    columns: Box<[Option<u8>]>,
    /// Per row: its id, or for a key that is no id (a draft, a segment) its insertion
    /// order. Default order: ids ascending, then the others in insertion order.
    keys: Vec<i64>,
    /// One bit a row: its key is no id; the key itself is in `others`.
    local: Vec<u64>,
    others: HashMap<u32, Key>,
    by_other: HashMap<Key, u32>,
    /// Per row: its parent and ancestor, an index into `lineages` (a kind has few).
    lineage: Vec<u32>,
    lineages: Vec<Lineage>,
    /// Per row: where its search text sits in `text` (or, with [`EDITED`], `edits`):
    /// every cell's text, lower case, separated by U+001F.
    spans: Vec<(u32, u32)>,
    /// Every row's search text, one after another, so a filter reads memory in order.
    pub(super) text: String,
    /// The text of rows re-read since the build (a save). Dead text here is dropped
    /// once it outweighs the live; dead text in `text` stays until the next build, so
    /// neither grows with the saves.
    edits: String,
    edits_live: usize,
    /// Per row: each cell's type, two bits a column.
    types: Vec<u32>,
    /// Per hidden column: each row's number (meaningless where the cell is no number).
    hidden: Vec<Vec<f64>>,
    /// Per row, once a query asked [`HAS_FINDINGS`] or [`HAS_WARNINGS`]: how many
    /// warnings and infos the creative's checks give (`None` until counted).
    pub(super) findings: Vec<Option<(u32, u32)>>,
    /// Row numbers in the default order.
    default: Arc<Vec<u32>>,
    /// The default order is the rows' memory order (row `k` at place `k`), as after a
    /// download in id order: a filter in that order reads its result straight off the
    /// bit set of matches.
    default_in_memory_order: bool,
    /// Row numbers per column in ascending order, for columns with many values,
    /// computed on first use (or ahead, by [`Tables::presort`]) and kept up to date.
    pub(super) sorted: HashMap<usize, Arc<Vec<u32>>>,
    /// Per column found to have few values: each row's value as a byte, sorted on each
    /// ask by counting (computed on first use or ahead, and kept up to date).
    pub(super) codes: HashMap<usize, Codes>,
    /// The last order computed and not kept (a descending one, or a column of few
    /// values); dropped by any change.
    transient: Option<Transient>,
    /// The last filtered result (before offset and limit), so scrolling only slices and
    /// a longer filter only narrows it.
    pub(super) last: Option<(Signature, Arc<Vec<u32>>)>,
    /// Buffers a filter fills, kept from one keystroke to the next: the bit set of the
    /// rows that match, and a result no one holds any more. Fresh ones would be fresh
    /// pages each time, which the allocator hands back to the OS between keystrokes
    /// (mimalloc purges freed memory after 10 ms), so every keystroke paid the kernel to
    /// zero them again: 12% of the app's time in a filter at 1M.
    spare_hits: Vec<u64>,
    spare_rows: Vec<u32>,
    /// The bit set of a scanned result's rows (by row, not in its order), with the
    /// signature it answered and the [`KindTable::version`] it was read at: while both
    /// still hold, a longer filter scans only these rows.
    last_hits: Option<(Signature, u64, Vec<u64>)>,
    /// Some row's count of findings is not computed yet.
    pub(super) findings_missing: bool,
    /// Changes whenever a row changes, unique across tables: a column sorted with no
    /// lock held is kept only if the table is still the one it was copied from.
    version: u64,
    /// A workspace change stamp every change up to which this index holds (read before
    /// it was built or loaded, moved on by saves known to be the only change since), or
    /// `None` when unknown. What the file on disk is stamped with, so it is never
    /// stamped later than what it holds.
    pub(super) stamp: Option<i64>,
}

/// The source of [`KindTable::version`]s.
static VERSIONS: AtomicU64 = AtomicU64::new(0);

fn next_version() -> u64 {
    VERSIONS.fetch_add(1, AtomicOrdering::Relaxed)
}

/// Makes room for one more element without doubling a large vector: a save that adds
/// a row to a million grows each column by a sliver, not by another million.
fn room<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 64).max(16));
    }
}

fn index(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The `col`th U+001F-separated segment of `text`.
fn segment(text: &[u8], col: usize) -> &[u8] {
    let mut start = 0;
    let mut seps = memchr::memchr_iter(0x1f, text);
    if col > 0 {
        match seps.nth(col - 1) {
            Some(at) => start = at + 1,
            None => return &[],
        }
    }
    let end = memchr::memchr(0x1f, &text[start..]).map_or(text.len(), |e| start + e);
    &text[start..end]
}

impl KindTable {
    /// An index of no rows, whose columns keep their numbers as `columns` says.
    pub(super) fn empty(columns: Vec<Option<u8>>) -> KindTable {
        debug_assert!(columns.len() <= MAX_COLUMNS);
        let hidden = columns.iter().flatten().count();
        KindTable {
            columns: columns.into_boxed_slice(),
            keys: Vec::new(),
            local: Vec::new(),
            others: HashMap::new(),
            by_other: HashMap::new(),
            lineage: Vec::new(),
            lineages: Vec::new(),
            spans: Vec::new(),
            text: String::new(),
            edits: String::new(),
            edits_live: 0,
            types: Vec::new(),
            hidden: vec![Vec::new(); hidden],
            findings: Vec::new(),
            default: Arc::new(Vec::new()),
            default_in_memory_order: true,
            sorted: HashMap::new(),
            codes: HashMap::new(),
            transient: None,
            last: None,
            spare_hits: Vec::new(),
            spare_rows: Vec::new(),
            last_hits: None,
            findings_missing: true,
            version: next_version(),
            stamp: None,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Sets the default order, noting whether it is the rows' memory order.
    pub(super) fn set_default(&mut self, order: Vec<u32>) {
        self.default_in_memory_order = in_memory_order(&order);
        self.default = Arc::new(order);
    }

    fn is_local(&self, i: u32) -> bool {
        self.local
            .get((i / 64) as usize)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// The default order's key: ids ascending, then the others in insertion order.
    fn order_key(&self, i: u32) -> (bool, i64) {
        (self.is_local(i), self.keys[i as usize])
    }

    /// Which entity row `i` is.
    pub(super) fn key(&self, i: u32) -> Key {
        if self.is_local(i) {
            self.others
                .get(&i)
                .cloned()
                .unwrap_or(Key::Id(self.keys[i as usize]))
        } else {
            Key::Id(self.keys[i as usize])
        }
    }

    /// The row of `key`, if the index holds it.
    pub(super) fn position(&self, key: &Key) -> Option<u32> {
        match key {
            Key::Id(id) => {
                let want = (false, *id);
                let at = self.default.partition_point(|&x| self.order_key(x) < want);
                self.default
                    .get(at)
                    .copied()
                    .filter(|&x| self.order_key(x) == want)
            }
            other => self.by_other.get(other).copied(),
        }
    }

    /// A row's search text.
    pub(super) fn row_text(&self, i: u32) -> &[u8] {
        let (at, len) = self.spans[i as usize];
        let (arena, at) = if at & EDITED == 0 {
            (&self.text, at)
        } else {
            (&self.edits, at & !EDITED)
        };
        let at = at as usize;
        arena.as_bytes().get(at..at + len as usize).unwrap_or(&[])
    }

    /// Row `i`'s cell in `col`.
    pub(super) fn cell(&self, i: u32, col: usize) -> Cell<'_> {
        match self.types[i as usize] >> (2 * col) & 3 {
            NUM => match self.columns.get(col).copied().flatten() {
                Some(slot) => Cell::Num(self.hidden[slot as usize][i as usize]),
                None => std::str::from_utf8(segment(self.row_text(i), col))
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .map_or(Cell::Empty, Cell::Num),
            },
            TEXT => Cell::Text(std::str::from_utf8(segment(self.row_text(i), col)).unwrap_or("")),
            _ => Cell::Empty,
        }
    }

    /// Whether row `i` hangs under `parent` (as its parent or its parent's parent), per
    /// lineage.
    fn under(&self, parent: &EntityRef) -> Vec<bool> {
        self.lineages
            .iter()
            .map(|(p, a)| p.as_ref() == Some(parent) || a.as_ref() == Some(parent))
            .collect()
    }

    /// Takes in a row re-read since the build (its text in `scratch`): replaces the row
    /// of its key, or adds it, and moves it into place in every order kept.
    pub(super) fn put(&mut self, fresh: Fresh, scratch: &str) {
        let at = self.edits.len();
        room_str(&mut self.edits, scratch.len());
        self.edits.push_str(scratch);
        let span = (index(at) | EDITED, fresh.span.1);
        self.edits_live += scratch.len();
        let lineage = (fresh.parent, fresh.ancestor);
        let l = match self.lineages.iter().position(|x| *x == lineage) {
            Some(l) => index(l),
            None => {
                self.lineages.push(lineage);
                index(self.lineages.len() - 1)
            }
        };
        let existing = self.position(&fresh.target.key);
        // Where the row sits in each order, found from its old value before it changes.
        let places = existing.map(|i| self.places(i));
        let i = match existing {
            Some(i) => {
                let old = self.spans[i as usize];
                if old.0 & EDITED != 0 {
                    self.edits_live -= old.1 as usize;
                }
                self.spans[i as usize] = span;
                self.types[i as usize] = fresh.types;
                self.lineage[i as usize] = l;
                if self.is_local(i) {
                    self.keys[i as usize] = fresh.order;
                }
                if let Some(f) = self.findings.get_mut(i as usize) {
                    *f = None;
                }
                for (slot, v) in self.hidden.iter_mut().enumerate() {
                    v[i as usize] = fresh.hidden.get(slot).copied().unwrap_or_default();
                }
                i
            }
            None => {
                let i = index(self.len());
                self.push_row(i, fresh.target.key, fresh.order, l, span, fresh.types);
                for (slot, v) in self.hidden.iter_mut().enumerate() {
                    room(v);
                    v.push(fresh.hidden.get(slot).copied().unwrap_or_default());
                }
                i
            }
        };
        self.reposition(i, places);
        if self.edits.len() > EDITS_SLACK && self.edits_live * 2 < self.edits.len() {
            self.compact_edits();
        }
    }

    /// Drops the dead text of `edits`: the live spans move to a fresh string.
    fn compact_edits(&mut self) {
        let mut fresh = String::with_capacity(self.edits_live * 2);
        for span in &mut self.spans {
            if span.0 & EDITED != 0 {
                let at = (span.0 & !EDITED) as usize;
                let to = index(fresh.len());
                fresh.push_str(self.edits.get(at..at + span.1 as usize).unwrap_or(""));
                span.0 = to | EDITED;
            }
        }
        self.edits_live = fresh.len();
        self.edits = fresh;
    }

    /// What the last result says of the rows `sig` can keep, and the words of `sig`
    /// every row it names is known to hold; `None` when the last result is `sig`'s own.
    fn prior(&self, sig: &Signature) -> Option<(Prior, Vec<String>)> {
        match &self.last {
            Some((last, _)) if last == sig => None,
            Some((last, result))
                if last.parent == sig.parent
                    && last.sort == sig.sort
                    && last.has_findings == sig.has_findings
                    && !last.filter.is_empty()
                    && sig.filter.starts_with(&last.filter) =>
            {
                // A longer filter (the next keystroke) keeps a subset of the last
                // result: only its rows are read again, and only for the terms they are
                // not known to hold (every row of it holds each of its terms).
                let prior = if result.len() == self.len() {
                    // Every row matched (the first letters typed, often).
                    Prior::All
                } else if result.len() <= self.len() / 4 {
                    // Few: read in their order, which is the new result's.
                    Prior::Few(result.clone())
                } else if self
                    .last_hits
                    .as_ref()
                    .is_some_and(|(s, v, _)| s == last && *v == self.version)
                {
                    Prior::Hits
                } else {
                    return Some((Prior::None, Vec::new()));
                };
                let known = last.filter.split_whitespace().map(str::to_owned).collect();
                Some((prior, known))
            }
            _ => Some((Prior::None, Vec::new())),
        }
    }

    /// Whether `sig` selects every row in the default order: no row needs reading.
    fn selects_all(sig: &Signature) -> bool {
        sig.filter.split_whitespace().next().is_none()
            && sig.parent.is_none()
            && sig.has_findings.is_none()
    }

    pub(super) fn select(&mut self, sig: &Signature) -> Arc<Vec<u32>> {
        let (prior, known) = match self.prior(sig) {
            None => {
                if let Some((_, result)) = &self.last {
                    return result.clone();
                }
                (Prior::None, Vec::new())
            }
            Some(p) => p,
        };
        let result = if Self::selects_all(sig) {
            self.order(sig.sort)
        } else {
            let order = (!matches!(prior, Prior::Few(_))).then(|| self.order(sig.sort));
            let mut hits = std::mem::take(&mut self.spare_hits);
            let mut rows = std::mem::take(&mut self.spare_rows);
            rows.clear();
            let this = &*self;
            let matcher = Matcher::new(this, sig, &known);
            let keep = |i: u32| matcher.keep(i);
            let candidates = match prior {
                Prior::Hits => this.last_hits.as_ref().map(|(_, _, bits)| bits.as_slice()),
                _ => None,
            };
            let mut scanned = false;
            match (prior, order) {
                (Prior::Few(prev), _) => rows.extend(prev.iter().copied().filter(|&i| keep(i))),
                (_, Some(order)) => {
                    // Rows are read in memory order into a bit set, on every core for a
                    // large kind; the order is then one pass over it.
                    matching(this.len(), &keep, candidates, &mut hits);
                    let count: usize = hits.iter().map(|w| w.count_ones() as usize).sum();
                    if count == this.len() {
                        // Every row matches (the first letters typed, often): the result
                        // is the order itself, shared, not a copy of it.
                        self.spare_hits = hits;
                        self.spare_rows = rows;
                        self.keep_last(sig, order.clone());
                        return order;
                    }
                    scanned = true;
                    rows.reserve(count);
                    if this.default_in_memory_order && Arc::ptr_eq(&order, &this.default) {
                        // The order is 0, 1, 2, …: the set bits, in turn, are the result
                        // (a pass over the matches, not over every row of the order).
                        for (w, &word) in hits.iter().enumerate() {
                            let mut bits = word;
                            while bits != 0 {
                                rows.push(index(w * 64 + bits.trailing_zeros() as usize));
                                bits &= bits - 1;
                            }
                        }
                    } else {
                        let hit = |i: u32| hits[(i / 64) as usize] >> (i % 64) & 1 == 1;
                        rows.extend(order.iter().copied().filter(|&i| hit(i)));
                    }
                }
                (_, None) => {}
            }
            if scanned {
                // The bit set is kept for the next keystroke; the one it replaces is the
                // next scan's buffer.
                let old = self.last_hits.replace((sig.clone(), self.version, hits));
                self.spare_hits = old.map(|(_, _, bits)| bits).unwrap_or_default();
            } else {
                self.spare_hits = hits;
            }
            Arc::new(rows)
        };
        self.keep_last(sig, result.clone());
        result
    }

    /// The first `want` rows `sig` selects, in its order, found by reading rows in that
    /// order until they are found: what a window from the top shows, without the count
    /// [`KindTable::select`] reads every row for. With whether more rows follow them.
    ///
    /// `None` when that is no quicker than [`KindTable::select`]: the result is kept, no
    /// row needs reading, the kind is small, or the first eighth of the order's rows holds
    /// fewer than `want` (a rare filter, whose count then costs little more). Nothing is
    /// kept: the next [`KindTable::select`] of `sig` narrows the last result as before.
    pub(super) fn head(&mut self, sig: &Signature, want: usize) -> Option<(Vec<u32>, bool)> {
        if self.len() < PARALLEL_ROWS || want == 0 || Self::selects_all(sig) {
            return None;
        }
        let (prior, known) = self.prior(sig)?;
        let order = match &prior {
            Prior::Few(prev) => prev.clone(),
            _ => self.order(sig.sort),
        };
        let this = &*self;
        let matcher = Matcher::new(this, sig, &known);
        let candidate = |i: u32| match prior {
            Prior::Hits => this
                .last_hits
                .as_ref()
                .is_some_and(|(_, _, bits)| bits[(i / 64) as usize] >> (i % 64) & 1 == 1),
            _ => true,
        };
        let budget = order.len().div_ceil(HEAD_SHARE);
        let mut rows = Vec::with_capacity(want + 1);
        for &i in order.iter().take(budget) {
            if candidate(i) && matcher.keep(i) {
                rows.push(i);
                if rows.len() > want {
                    rows.pop();
                    return Some((rows, true));
                }
            }
        }
        (budget == order.len()).then_some((rows, false))
    }

    /// Makes `result` the last result; the one it replaces, if no one else holds it,
    /// becomes the spare buffer of the next filter (the larger of the two is kept).
    fn keep_last(&mut self, sig: &Signature, result: Arc<Vec<u32>>) {
        let old = self.last.replace((sig.clone(), result));
        if let Some(rows) = old.and_then(|(_, r)| Arc::try_unwrap(r).ok())
            && rows.capacity() > self.spare_rows.capacity()
        {
            self.spare_rows = rows;
        }
    }

    pub(super) fn count_of(&self, parent: Option<&EntityRef>) -> usize {
        match parent {
            None => self.len(),
            Some(p) => {
                let under = self.under(p);
                self.lineage.iter().filter(|&&l| under[l as usize]).count()
            }
        }
    }

    /// The heap bytes this index holds (capacities, not lengths; an order shared by the
    /// last result counted once).
    pub(super) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let key = |k: &Key| match k {
            Key::Id(_) => 0,
            Key::Segment(s) | Key::Local(s) => s.capacity(),
        };
        let entity = |e: &Option<EntityRef>| e.as_ref().map_or(0, |e| key(&e.key));
        // A hash map's buckets, each with its control byte.
        let map = |entry: usize, cap: usize| cap * (entry + 1);
        let others = map(size_of::<(u32, Key)>(), self.others.capacity())
            + map(size_of::<(Key, u32)>(), self.by_other.capacity())
            + self.others.values().map(|k| 2 * key(k)).sum::<usize>();
        let lineages = self.lineages.capacity() * size_of::<Lineage>()
            + self
                .lineages
                .iter()
                .map(|(p, a)| entity(p) + entity(a))
                .sum::<usize>();
        let columns = self.keys.capacity() * 8
            + self.local.capacity() * 8
            + self.lineage.capacity() * 4
            + self.spans.capacity() * 8
            + self.types.capacity() * 4
            + self.hidden.iter().map(|v| v.capacity() * 8).sum::<usize>()
            + self.findings.capacity() * size_of::<Option<(u32, u32)>>()
            + self.spare_hits.capacity() * 8
            + self.spare_rows.capacity() * 4
            + self
                .last_hits
                .as_ref()
                .map_or(0, |(_, _, b)| b.capacity() * 8);
        let perm = |p: &Arc<Vec<u32>>| p.capacity() * 4;
        let kept = |p: &Arc<Vec<u32>>| {
            Arc::ptr_eq(p, &self.default) || self.sorted.values().any(|s| Arc::ptr_eq(p, s))
        };
        let transient = self.transient.as_ref().map(|(_, p)| p);
        let orders = perm(&self.default)
            + self.sorted.values().map(perm).sum::<usize>()
            + transient.map_or(0, perm)
            + self.last.as_ref().map_or(0, |(_, l)| {
                if kept(l) || transient.is_some_and(|t| Arc::ptr_eq(t, l)) {
                    0
                } else {
                    perm(l)
                }
            });
        let codes = map(size_of::<(usize, Codes)>(), self.codes.capacity())
            + self.codes.values().map(Codes::heap_bytes).sum::<usize>();
        others + lineages + columns + self.text.capacity() + self.edits.capacity() + orders + codes
    }
}

/// Whether `order` is 0, 1, 2, …
fn in_memory_order(order: &[u32]) -> bool {
    order.iter().enumerate().all(|(k, &i)| i as usize == k)
}

/// Makes room for `more` bytes without doubling a large string.
fn room_str(s: &mut String, more: usize) {
    if s.capacity() - s.len() < more {
        s.reserve_exact(more.max(s.len() / 8).max(4096));
    }
}

/// A quick window's walk ([`KindTable::head`]) reads at most this share of the rows.
const HEAD_SHARE: usize = 8;

/// Whether a row is kept by a signature: under its parent, with the findings asked,
/// holding each of its words but those already `known` to hold.
struct Matcher<'t> {
    table: &'t KindTable,
    finders: Vec<memchr::memmem::Finder<'t>>,
    under: Option<Vec<bool>>,
    has_findings: Option<Found>,
}

impl<'t> Matcher<'t> {
    fn new(table: &'t KindTable, sig: &'t Signature, known: &[String]) -> Matcher<'t> {
        Matcher {
            table,
            finders: sig
                .filter
                .split_whitespace()
                .filter(|t| !known.iter().any(|k| k == t))
                .map(|t| memchr::memmem::Finder::new(t.as_bytes()))
                .collect(),
            under: sig.parent.as_ref().map(|p| table.under(p)),
            has_findings: sig.has_findings,
        }
    }

    #[inline]
    fn keep(&self, i: u32) -> bool {
        let t = self.table;
        self.under
            .as_ref()
            .is_none_or(|u| u[t.lineage[i as usize] as usize])
            && match (
                self.has_findings,
                t.findings.get(i as usize).copied().flatten(),
            ) {
                (None, _) => true,
                (Some(Found::Any), Some((w, n))) => w + n > 0,
                (Some(Found::Warning), Some((w, _))) => w > 0,
                (Some(_), None) => false,
            }
            && {
                let text = t.row_text(i);
                self.finders.iter().all(|f| f.find(text).is_some())
            }
    }
}

/// Rows a thread of [`matching`] takes at a time, in 64-row words.
const CHUNK_WORDS: usize = 256;

/// What the last result says of the rows a longer filter can keep.
enum Prior {
    /// Nothing: every row is read.
    None,
    /// Every row matched it.
    All,
    /// These few rows, in the new result's order.
    Few(Arc<Vec<u32>>),
    /// The rows of [`KindTable::last_hits`].
    Hits,
}

/// One bit per row of `n` into `hits`: whether `keep` holds. With `candidates` (a bit
/// per row), only the rows set there are read; the others are not kept.
fn matching(
    n: usize,
    keep: &(dyn Fn(u32) -> bool + Sync),
    candidates: Option<&[u64]>,
    hits: &mut Vec<u64>,
) {
    hits.clear();
    hits.resize(n.div_ceil(64), 0);
    let fill = |words: &mut [u64], first_word: usize| {
        for (w, word) in words.iter_mut().enumerate() {
            let at = first_word + w;
            let base = at * 64;
            let rows = if n - base >= 64 {
                u64::MAX
            } else {
                (1 << (n - base)) - 1
            };
            let mut todo = candidates.map_or(rows, |c| c.get(at).map_or(0, |&c| c & rows));
            while todo != 0 {
                let bit = todo.trailing_zeros();
                if keep(index(base + bit as usize)) {
                    *word |= 1 << bit;
                }
                todo &= todo - 1;
            }
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if threads > 1 && n >= PARALLEL_ROWS {
        // Small chunks taken in turn, the calling thread among the takers, rather than
        // one share a thread: a thread the OS sets aside (for the web page's paint of the
        // keystroke, on 2 cores) then holds up one chunk, and the others take the rest.
        let chunks = std::sync::Mutex::new(hits.chunks_mut(CHUNK_WORDS).enumerate());
        let work = || {
            while let Some((k, words)) = chunks.lock().ok().and_then(|mut c| c.next()) {
                fill(words, k * CHUNK_WORDS);
            }
        };
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(work);
            }
            work();
        });
    } else {
        fill(hits, 0);
    }
}
