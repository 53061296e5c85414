//! [`Tables`]: the in-memory indexes of one workspace, per kind, and the windows read
//! from them.

use super::*;

/// The indexes of one workspace, per kind.
#[derive(Default)]
pub struct Tables {
    kinds: Mutex<HashMap<Kind, KindTable>>,
    /// Bumped by every change of the indexes' contents, so a build that read the
    /// workspace before it is not installed.
    generation: AtomicU64,
    /// One lock per kind, held while that kind is built: a view opening meanwhile waits
    /// for that build rather than doing the same work again, and a view of another kind
    /// does not wait for it.
    building: Mutex<HashMap<Kind, Arc<Mutex<()>>>>,
    /// Views waiting for the indexes' lock: [`Tables::presort`] gives way to them.
    views_waiting: AtomicUsize,
    /// Set once a view has been answered (see [`Tables::wait_for_first_view`]).
    viewed: (Mutex<bool>, std::sync::Condvar),
    /// Each creative's count of warnings and infos, with a hash of the JSON it was
    /// counted from: computed the first time a query asks [`HAS_FINDINGS`] or
    /// [`HAS_WARNINGS`], and kept across rebuilds of the index (a download, a post), so
    /// only creatives whose JSON changed are checked again.
    findings: Mutex<HashMap<EntityRef, Counted>>,
    /// The stamp of the index file as last read or written: saving again is skipped
    /// while it is still the one.
    saved: Mutex<Option<i64>>,
}

/// One kind's index as [`Tables::stats`] measures it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct IndexStats {
    /// Which kind ([`Kind::name`]).
    pub kind: String,
    /// Its rows.
    pub rows: u32,
    /// The heap bytes the index holds for them: every vector's, string's and map's
    /// capacity, the kept orders and the last result included.
    pub bytes: u64,
}

/// A creative's (warnings, infos), and the hash of the JSON they were counted from.
type Counted = (u64, (u32, u32));

/// The kinds with tables, largest first: built ahead of the first view.
pub const TABLE_KINDS: [Kind; 6] = [
    Kind::AdOrder,
    Kind::Campaign,
    Kind::Creative,
    Kind::AudienceSegment,
    Kind::SiteList,
    Kind::Advertiser,
];

pub(super) fn table_of<'a>(
    kinds: &'a mut HashMap<Kind, KindTable>,
    ws: &Workspace,
    kind: Kind,
) -> Result<&'a mut KindTable> {
    Ok(match kinds.entry(kind) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(v) => v.insert(KindTable::build(ws, kind)?),
    })
}

pub(super) fn signature(kind: Kind, query: &TableQuery) -> Result<Signature> {
    let sort = match &query.sort {
        None => None,
        Some(s) => {
            let col = specs(kind)
                .iter()
                .position(|c| c.id == s.column)
                .ok_or_else(|| {
                    Error::invalid(
                        "sort.column",
                        "UNKNOWN",
                        &format!("{} tables have no column {}", kind.label(), s.column),
                    )
                })?;
            Some((col, s.descending))
        }
    };
    let lower = query.filter.trim().to_lowercase();
    let words = || lower.split_whitespace();
    let has_findings = if words().any(|w| w == HAS_WARNINGS) {
        Some(Found::Warning)
    } else if words().any(|w| w == HAS_FINDINGS) {
        Some(Found::Any)
    } else {
        None
    };
    let filter = if has_findings.is_some() {
        words()
            .filter(|w| *w != HAS_FINDINGS && *w != HAS_WARNINGS)
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        lower.clone()
    };
    Ok(Signature {
        parent: query.parent.clone(),
        filter,
        sort,
        has_findings,
    })
}

/// Rows missing their count of findings that are read one by one, rather than in one
/// scan of the kind.
const FEW_MISSING: usize = 64;

/// A hash of a creative's JSON: whether its count of findings is still the one kept.
fn json_hash(json: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    json.hash(&mut h);
    h.finish()
}

pub(super) fn poisoned() -> Error {
    crate::error::State::Unavailable("the table index").into()
}

impl Tables {
    /// The rows of `kind` that `query` selects, decoded as `T`, with the counts.
    pub fn window<T: DeserializeOwned>(
        &self,
        ws: &Workspace,
        kind: Kind,
        query: &TableQuery,
    ) -> Result<Window<Row<T>>> {
        let sig = signature(kind, query)?;
        self.ensure(ws, kind)?;
        let (targets, offset, total, unfiltered, partial) = {
            let mut kinds = self.lock_for_view()?;
            let table = table_of(&mut kinds, ws, kind)?;
            if sig.has_findings.is_some() {
                self.count_findings(ws, kind, table)?;
            }
            // A quick window from the top answers with the first rows found, before the
            // count: its total then only says whether more follow.
            let head = match (query.quick, query.offset) {
                (true, 0) => table.head(&sig, query.limit as usize),
                _ => None,
            };
            let (selected, partial) = match head {
                Some((rows, more)) => (Arc::new(rows), more),
                None => (table.select(&sig), false),
            };
            let total = selected.len() + usize::from(partial);
            let range = query.range(selected.len());
            let offset = range.start;
            let targets: Vec<EntityRef> = selected[range]
                .iter()
                .map(|&i| EntityRef::new(kind, table.key(i)))
                .collect();
            let unfiltered = if sig.filter.is_empty() && sig.has_findings.is_none() {
                total
            } else {
                table.count_of(query.parent.as_ref())
            };
            (targets, offset, total, unfiltered, partial)
        };
        let rows = ws.reading(|| -> Result<_> {
            let markers = ws.markers_of(&targets)?;
            let mut parents = ParentCache::default();
            let mut rows = Vec::with_capacity(targets.len());
            for target in &targets {
                if let Some(row) = row_with(ws, target, &markers, &mut parents)? {
                    rows.push(row);
                }
            }
            Ok(rows)
        })?;
        self.mark_viewed();
        Ok(Window {
            partial,
            ..Window::new(rows, offset, total, unfiltered)
        })
    }

    /// Every entity `query` selects, in order (offset and limit ignored): what "select
    /// all filtered" stands for, resolved where the rows are.
    pub fn targets(
        &self,
        ws: &Workspace,
        kind: Kind,
        query: &TableQuery,
    ) -> Result<Vec<EntityRef>> {
        let sig = signature(kind, query)?;
        let mut kinds = self.lock_for_view()?;
        let table = table_of(&mut kinds, ws, kind)?;
        if sig.has_findings.is_some() {
            self.count_findings(ws, kind, table)?;
        }
        let selected = table.select(&sig);
        Ok(selected
            .iter()
            .map(|&i| EntityRef::new(kind, table.key(i)))
            .collect())
    }

    /// The indexes, for a view: counted as waiting meanwhile, so a background sort gives
    /// way to it.
    fn lock_for_view(&self) -> Result<std::sync::MutexGuard<'_, HashMap<Kind, KindTable>>> {
        self.views_waiting.fetch_add(1, AtomicOrdering::SeqCst);
        let kinds = self.kinds.lock().map_err(|_| poisoned());
        self.views_waiting.fetch_sub(1, AtomicOrdering::SeqCst);
        kinds
    }

    /// Fills in the count of findings of every row of `table` that has none yet: from
    /// the kept counts when the JSON is unchanged, else by checking the creative. Other
    /// kinds count none.
    fn count_findings(&self, ws: &Workspace, kind: Kind, table: &mut KindTable) -> Result<()> {
        if !table.findings_missing {
            return Ok(());
        }
        let n = table.len();
        if kind != Kind::Creative {
            table.findings = vec![Some((0, 0)); n];
            table.findings_missing = false;
            return Ok(());
        }
        table.findings.resize(n, None);
        // After a save only the rows saved are missing: read those alone.
        let missing: Vec<EntityRef> = (0..n)
            .filter(|&i| table.findings[i].is_none())
            .take(FEW_MISSING + 1)
            .map(|i| EntityRef::new(kind, table.key(u32::try_from(i).unwrap_or(u32::MAX))))
            .collect();
        let mut kept = self.findings.lock().map_err(|_| poisoned())?;
        // The rows counted before with the same JSON, and the rows to check: their JSON
        // changed since it was counted, or was never.
        let mut same: Vec<(u32, (u32, u32))> = Vec::new();
        let mut todo: Vec<(u32, u64, String)> = Vec::new();
        let this = &*table;
        let mut read = |s: Scanned<'_>| {
            let Some(i) = this.position(&s.target.key) else {
                return Ok(());
            };
            if this.findings[i as usize].is_some() {
                return Ok(());
            }
            let hash = json_hash(s.json);
            match kept.get(&s.target) {
                Some(&(h, n)) if h == hash => same.push((i, n)),
                _ => todo.push((i, hash, s.json.to_owned())),
            }
            Ok(())
        };
        if missing.len() <= FEW_MISSING {
            for target in &missing {
                ws.scan_one(target, &mut read)?;
            }
        } else {
            ws.scan(kind, read)?;
        }
        let counts = crate::checks::par_map(&todo, &|(_, _, json): &(u32, u64, String)| {
            crate::checks::count(&crate::checks::findings_of_json(json))
        });
        for (i, n) in same {
            table.findings[i as usize] = Some(n);
        }
        for ((i, hash, _), n) in todo.iter().zip(counts) {
            table.findings[*i as usize] = Some(n);
            kept.insert(EntityRef::new(kind, table.key(*i)), (*hash, n));
        }
        // A row the scan did not meet (gone since the build) counts none.
        for f in table.findings.iter_mut().filter(|f| f.is_none()) {
            *f = Some((0, 0));
        }
        table.findings_missing = false;
        table.last = None;
        Ok(())
    }

    /// Builds the indexes of `kinds` not built yet, from `ws` (a connection of its own:
    /// this runs on a background thread after the workspace opens or changes wholesale,
    /// so the first view finds its index ready). A build that raced a change is dropped.
    pub fn prebuild(&self, ws: &Workspace, kinds: &[Kind]) -> Result<()> {
        for kind in kinds {
            self.ensure(ws, *kind)?;
        }
        for kind in kinds {
            self.presort(*kind)?;
            if let Some(s) = self.stats().into_iter().find(|s| s.kind == kind.name()) {
                tracing::info!(
                    kind = s.kind,
                    rows = s.rows,
                    bytes = s.bytes,
                    bytes_per_row = s.bytes / u64::from(s.rows.max(1)),
                    "table index sorted ahead"
                );
            }
        }
        Ok(())
    }

    /// Sorts every column of `kind` with many values ahead of the first click on its
    /// header (a column of few values is coded a byte a row, and sorted on each ask by
    /// counting), a
    /// column at a time on this thread, so the window keeps a core to paint with. The
    /// sort itself holds no lock: the column's cells are copied out, sorted, and the
    /// order kept if no row changed meanwhile, so a view asking waits for a copy at most.
    pub fn presort(&self, kind: Kind) -> Result<()> {
        for col in 0..specs(kind).len() {
            while self.views_waiting.load(AtomicOrdering::SeqCst) > 0 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            let copy = {
                let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
                let Some(table) = kinds.get_mut(&kind) else {
                    return Ok(());
                };
                // A column of few values is coded in one pass (given up early for one
                // of many): as quick as copying it out.
                if !table.needs_presort(col) || table.code(col) {
                    continue;
                }
                table.copy_column(col)
            };
            let sorted = copy.sort();
            let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
            let Some(table) = kinds.get_mut(&kind) else {
                return Ok(());
            };
            table.install(&copy, sorted);
        }
        Ok(())
    }

    /// Waits until a view has been answered, or `timeout`. Building the large indexes
    /// ahead waits for it: at start the window is loading its first screen, and on two
    /// cores a build beside it delays that screen more than it saves later.
    pub fn wait_for_first_view(&self, timeout: std::time::Duration) {
        let (lock, cvar) = &self.viewed;
        if let Ok(viewed) = lock.lock() {
            let _ = cvar.wait_timeout_while(viewed, timeout, |v| !*v);
        }
    }

    fn mark_viewed(&self) {
        let (lock, cvar) = &self.viewed;
        if let Ok(mut viewed) = lock.lock()
            && !*viewed
        {
            *viewed = true;
            cvar.notify_all();
        }
    }

    /// Whether `kind`'s index is built.
    fn built(&self, kind: Kind) -> Result<bool> {
        Ok(self
            .kinds
            .lock()
            .map_err(|_| poisoned())?
            .contains_key(&kind))
    }

    /// Builds `kind`'s index unless it is there (or another thread is building it: then
    /// waits for that build).
    fn ensure(&self, ws: &Workspace, kind: Kind) -> Result<()> {
        if self.built(kind)? {
            return Ok(());
        }
        let lock = self
            .building
            .lock()
            .map_err(|_| poisoned())?
            .entry(kind)
            .or_default()
            .clone();
        let _building = lock.lock().map_err(|_| poisoned())?;
        loop {
            let generation = self.generation.load(AtomicOrdering::SeqCst);
            if self.built(kind)? {
                return Ok(());
            }
            let started = std::time::Instant::now();
            // Read before the rows: the index then holds every change up to it.
            let stamp = ws.change_stamp().ok();
            let mut table = KindTable::build(ws, kind)?;
            table.stamp = stamp;
            let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
            if self.generation.load(AtomicOrdering::SeqCst) == generation {
                let (rows, bytes) = (table.len(), table.heap_bytes());
                tracing::info!(
                    kind = kind.name(),
                    rows,
                    bytes,
                    bytes_per_row = bytes / rows.max(1),
                    ms = started.elapsed().as_millis() as u64,
                    "table index built"
                );
                kinds.insert(kind, table);
                return Ok(());
            }
            // Something changed while this read the workspace: read it again.
        }
    }

    /// Re-reads the rows of entities saved since: each moves into place in every order
    /// already computed. A row that is gone rebuilds its kind on next use, and a renamed
    /// parent rebuilds the kind that shows its label.
    pub fn touched(&self, ws: &Workspace, targets: &[EntityRef]) -> Result<()> {
        self.touched_since(ws, targets, None)
    }

    /// [`Tables::touched`] after an edit on `ws` before which the workspace's change
    /// stamp was `before` (read on `ws`, with nothing else writing through it
    /// meanwhile): an index that held every change up to `before` then holds every
    /// change up to the stamp after the edit, and the file saved later is stamped so.
    /// Without `before` the kinds keep their stamps, older than what they hold: their
    /// file is then stale at the next start, never wrong.
    pub fn touched_since(
        &self,
        ws: &Workspace,
        targets: &[EntityRef],
        before: Option<i64>,
    ) -> Result<()> {
        let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
        self.generation.fetch_add(1, AtomicOrdering::SeqCst);
        Self::take_in(&mut kinds, ws, targets)?;
        if let Some(before) = before {
            let after = ws.change_stamp().ok();
            for table in kinds.values_mut() {
                if table.stamp == Some(before) {
                    table.stamp = after;
                }
            }
        }
        Ok(())
    }

    fn take_in(
        kinds: &mut HashMap<Kind, KindTable>,
        ws: &Workspace,
        targets: &[EntityRef],
    ) -> Result<()> {
        for target in targets {
            if let Some(child) = [Kind::Campaign, Kind::AdOrder]
                .into_iter()
                .find(|k| parent_kind(*k) == Some(target.kind))
            {
                kinds.remove(&child);
            }
            let Some(table) = kinds.get_mut(&target.kind) else {
                continue;
            };
            let labels = match parent_kind(target.kind) {
                Some(p) => labels_of_one(ws, p, target)?,
                None => HashMap::new(),
            };
            let mut grandparents = HashMap::new();
            if has_ancestor(target.kind) {
                let mut parent = None;
                ws.scan_one(target, |s| {
                    parent = s.parent.filter(|p| p.kind == Kind::Campaign);
                    Ok(())
                })?;
                if let Some(campaign) = parent {
                    ws.scan_one(&campaign, |s| {
                        if let Some(advertiser) = s.parent {
                            grandparents.insert(s.target, advertiser);
                        }
                        Ok(())
                    })?;
                }
            }
            let status = match target.kind {
                Kind::AdOrder => Some(ws.ad_order_status(target)?.word()),
                _ => None,
            };
            let mut fresh = None;
            let mut scratch = String::new();
            ws.scan_one(target, |s| {
                fresh = Some(index_row(
                    target.kind,
                    &s,
                    &labels,
                    &grandparents,
                    status.as_deref(),
                    &mut scratch,
                ));
                Ok(())
            })?;
            match fresh.transpose()? {
                None => {
                    kinds.remove(&target.kind);
                }
                Some(row) => table.put(row, &scratch),
            }
        }
        Ok(())
    }

    /// Loads the indexes from the file kept beside the workspace at `workspace` (see
    /// [`Tables::save`]), if it is this build's and its change stamp is the workspace's:
    /// a start then finds them ready instead of building them. Kinds already built stay.
    /// Whether it loaded them; a missing, stale or damaged file is no error, only not
    /// loaded (the indexes are built as without it).
    pub fn load(&self, ws: &Workspace, workspace: &std::path::Path) -> Result<bool> {
        let locks: Vec<Arc<Mutex<()>>> = {
            let mut building = self.building.lock().map_err(|_| poisoned())?;
            TABLE_KINDS
                .iter()
                .map(|k| building.entry(*k).or_default().clone())
                .collect()
        };
        // A view opening meanwhile waits for the load, as for a build, rather than
        // building what the file holds.
        let _building = locks
            .iter()
            .map(|l| l.lock().map_err(|_| poisoned()))
            .collect::<Result<Vec<_>>>()?;
        let generation = self.generation.load(AtomicOrdering::SeqCst);
        let stamp = ws.change_stamp()?;
        let started = std::time::Instant::now();
        let path = index_path(workspace);
        let loaded = match read_index(&path, stamp) {
            Ok(loaded) => loaded,
            Err(Unusable::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(why) => {
                tracing::info!(path = %path.display(), %why, "table index file not used");
                return Ok(false);
            }
        };
        let mut kinds = self.kinds.lock().map_err(|_| poisoned())?;
        if self.generation.load(AtomicOrdering::SeqCst) != generation {
            // A save came first: the file misses it.
            return Ok(false);
        }
        let mut rows = 0;
        for (kind, mut table) in loaded {
            rows += table.len();
            table.stamp = Some(stamp);
            kinds.entry(kind).or_insert(table);
        }
        *self.saved.lock().map_err(|_| poisoned())? = Some(stamp);
        tracing::info!(
            rows,
            ms = started.elapsed().as_millis() as u64,
            "table index loaded"
        );
        Ok(true)
    }

    /// Writes the indexes to the file beside the workspace at `workspace`, for the next
    /// start to load: only when every kind with a table is built, and only if they
    /// changed since the file was last read or written. The file's stamp is the oldest
    /// change stamp the kinds are known to hold every change up to, so a change they
    /// may miss (another program's) leaves the file stale, never wrong. Whether it wrote.
    pub fn save(&self, workspace: &std::path::Path) -> Result<bool> {
        let kinds = self.kinds.lock().map_err(|_| poisoned())?;
        let mut saved = self.saved.lock().map_err(|_| poisoned())?;
        let mut all = Vec::with_capacity(TABLE_KINDS.len());
        let mut stamp = i64::MAX;
        for kind in TABLE_KINDS {
            let Some(table) = kinds.get(&kind) else {
                return Ok(false);
            };
            let Some(s) = table.stamp else {
                return Ok(false);
            };
            stamp = stamp.min(s);
            all.push((kind, table));
        }
        if *saved == Some(stamp) {
            return Ok(false);
        }
        let started = std::time::Instant::now();
        let path = index_path(workspace);
        write_index(&path, stamp, &all).map_err(|e| Error::storage(&path, e))?;
        *saved = Some(stamp);
        tracing::info!(
            path = %path.display(),
            ms = started.elapsed().as_millis() as u64,
            "table index saved"
        );
        Ok(true)
    }

    /// What each built index holds, largest first: for the log when a kind is built and
    /// for benches that print bytes per row.
    pub fn stats(&self) -> Vec<IndexStats> {
        let Ok(kinds) = self.kinds.lock() else {
            return Vec::new();
        };
        let mut out: Vec<IndexStats> = kinds
            .iter()
            .map(|(kind, table)| IndexStats {
                kind: kind.name().to_owned(),
                rows: u32::try_from(table.len()).unwrap_or(u32::MAX),
                bytes: table.heap_bytes() as u64,
            })
            .collect();
        out.sort_by_key(|s| std::cmp::Reverse(s.bytes));
        out
    }

    /// Forgets kinds whose rows changed wholesale (a download, a post, a discard, another
    /// workspace); they are rebuilt on next use.
    pub fn invalidate(&self, kinds: &[Kind]) {
        if let Ok(mut k) = self.kinds.lock() {
            self.generation.fetch_add(1, AtomicOrdering::SeqCst);
            for kind in kinds {
                k.remove(kind);
            }
        }
    }

    /// Forgets every kind.
    pub fn clear(&self) {
        if let Ok(mut k) = self.kinds.lock() {
            self.generation.fetch_add(1, AtomicOrdering::SeqCst);
            k.clear();
        }
    }
}

/// The label of the parent of `target`, as the parent column shows it.
pub(super) fn labels_of_one(
    ws: &Workspace,
    parent_kind: Kind,
    target: &EntityRef,
) -> Result<HashMap<EntityRef, String>> {
    let mut parent = None;
    ws.scan_one(target, |s| {
        parent = s.parent.filter(|p| p.kind == parent_kind);
        Ok(())
    })?;
    let Some(parent) = parent else {
        return Ok(HashMap::new());
    };
    let l = label_of(ws, &parent)?;
    Ok(HashMap::from([(parent, l)]))
}
