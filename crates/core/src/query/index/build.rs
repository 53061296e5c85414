//! Reading a kind's rows into its index: each row's cells and search text, on a
//! thread of its own while SQLite reads the next rows.

use super::*;

/// Rows read from the workspace, handed to the thread that indexes them.
#[derive(Default)]
struct Batch {
    /// Each row's target, parent, insertion order and where its JSON sits in `json`.
    rows: Vec<(EntityRef, Option<EntityRef>, i64, std::ops::Range<usize>)>,
    json: String,
}

/// Rows a [`Batch`] carries.
const BATCH_ROWS: usize = 2048;

/// Where each of `kind`'s columns keeps its numbers (see [`KindTable::columns`]).
pub(in crate::query) fn column_slots(kind: Kind) -> Vec<Option<u8>> {
    let mut slot = 0u8;
    specs(kind)
        .iter()
        .map(|c| {
            (!c.search).then(|| {
                slot += 1;
                slot - 1
            })
        })
        .collect()
}

/// Appends a cell's text, lower case, with any U+001F in it made a space: the
/// separator then only ever separates cells, so a column's cell is found by counting.
fn push_lower(arena: &mut String, t: &str) {
    let start = arena.len();
    if t.is_ascii() {
        arena.push_str(t);
        arena[start..].make_ascii_lowercase();
    } else {
        arena.extend(t.chars().flat_map(char::to_lowercase));
    }
    if memchr::memchr(0x1f, &arena.as_bytes()[start..]).is_some() {
        let own = arena[start..].replace('\u{1f}', " ");
        arena.truncate(start);
        arena.push_str(&own);
    }
}

/// Reads one row of `kind`: its search text goes to the end of `arena`.
pub(in crate::query) fn index_row(
    kind: Kind,
    s: &Scanned<'_>,
    labels: &HashMap<EntityRef, String>,
    grandparents: &HashMap<EntityRef, EntityRef>,
    status: Option<&str>,
    arena: &mut String,
) -> flightdeck_offline::Result<Fresh> {
    let value = Doc::parse(s.json).map_err(|e| {
        flightdeck_offline::Error::Corrupt(format!(
            "{} {} does not fit its resource: {e}",
            kind.label(),
            s.target.key
        ))
    })?;
    let ctx = Context {
        parent_label: s
            .parent
            .as_ref()
            .and_then(|p| labels.get(p))
            .map(String::as_str),
        status,
    };
    let start = arena.len();
    let mut types = 0u32;
    let mut hidden = [0.0; MAX_HIDDEN];
    let mut slot = 0;
    for (i, column) in specs(kind).iter().enumerate() {
        if i > 0 {
            arena.push('\u{1f}');
        }
        match (column.cell)(&value, &ctx) {
            Extracted::Empty => {}
            Extracted::Num(n) => {
                types |= NUM << (2 * i);
                if column.search {
                    push_number(arena, n);
                } else if let Some(h) = hidden.get_mut(slot) {
                    *h = n;
                }
            }
            Extracted::Text(t) => {
                types |= TEXT << (2 * i);
                push_lower(arena, &t);
            }
        }
        if !column.search {
            slot += 1;
        }
    }
    if types & 3 == EMPTY && !specs(kind).is_empty() {
        // A row without a name is labelled by kind and key; the filter finds it so.
        let fallback = label(None, &s.target).to_lowercase().replace('\u{1f}', " ");
        arena.insert_str(start, &fallback);
        types |= TEXT;
    }
    let span = |n: usize| {
        u32::try_from(n)
            .ok()
            .filter(|n| n & EDITED == 0)
            .ok_or_else(|| {
                flightdeck_offline::Error::Corrupt(format!(
                    "the {} table's search text passed 2 GB",
                    kind.label()
                ))
            })
    };
    let at = span(start)?;
    let len = span(arena.len() - start)?;
    span(arena.len())?;
    Ok(Fresh {
        order: s.order,
        target: s.target.clone(),
        ancestor: s.parent.as_ref().and_then(|p| grandparents.get(p).cloned()),
        parent: s.parent.clone(),
        span: (at, len),
        types,
        hidden,
    })
}

impl KindTable {
    pub(in crate::query) fn build(ws: &Workspace, kind: Kind) -> Result<KindTable> {
        let labels = match parent_kind(kind) {
            Some(p) => labels_of(ws, p)?,
            None => HashMap::new(),
        };
        let grandparents = if has_ancestor(kind) {
            campaign_advertisers(ws)?
        } else {
            HashMap::new()
        };
        let statuses = if kind == Kind::AdOrder {
            ws.ad_order_statuses()?
        } else {
            HashMap::new()
        };
        // SQLite reads the rows on this thread while another parses them and fills the
        // index, a batch at a time in order: the two halves of a build take about as
        // long, so a large kind is built in about half the time on two cores.
        let (send, receive) = std::sync::mpsc::sync_channel::<Batch>(4);
        let built = std::thread::scope(|scope| {
            let worker = scope.spawn(|| -> flightdeck_offline::Result<KindTable> {
                let mut table = KindTable::empty(column_slots(kind));
                let mut lineage_of: HashMap<Lineage, u32> = HashMap::new();
                for batch in receive {
                    for (target, parent, order, at) in batch.rows {
                        let s = Scanned {
                            target,
                            parent,
                            json: batch.json.get(at).unwrap_or(""),
                            order,
                        };
                        let status = (kind == Kind::AdOrder).then(|| {
                            statuses
                                .get(&s.target.key)
                                .copied()
                                .unwrap_or_default()
                                .word()
                        });
                        let fresh = index_row(
                            kind,
                            &s,
                            &labels,
                            &grandparents,
                            status.as_deref(),
                            &mut table.text,
                        )?;
                        table.push(fresh, &mut lineage_of);
                    }
                }
                Ok(table)
            });
            let mut batch = Batch::default();
            let read = ws.scan(kind, |s| {
                let at = batch.json.len();
                batch.json.push_str(s.json);
                batch
                    .rows
                    .push((s.target, s.parent, s.order, at..batch.json.len()));
                if batch.rows.len() == BATCH_ROWS && send.send(std::mem::take(&mut batch)).is_err()
                {
                    // The worker failed: its error is the one returned.
                    return Err(flightdeck_offline::Error::Corrupt("stopped".into()));
                }
                Ok(())
            });
            if !batch.rows.is_empty() {
                let _ = send.send(batch);
            }
            drop(send);
            let table = worker.join().map_err(|_| {
                flightdeck_offline::Error::Corrupt("the table index's build panicked".into())
            });
            table.and_then(|t| t).and_then(|t| read.map(|()| t))
        });
        let mut table = built?;
        table.finish();
        Ok(table)
    }

    /// Adds a row read into [`KindTable::text`] at the end, out of every order: for a
    /// build, which then calls [`KindTable::finish`].
    pub(in crate::query) fn push(&mut self, fresh: Fresh, lineage_of: &mut HashMap<Lineage, u32>) {
        let i = index(self.keys.len());
        let lineage = (fresh.parent, fresh.ancestor);
        let next = index(self.lineages.len());
        let l = *lineage_of.entry(lineage.clone()).or_insert_with(|| {
            self.lineages.push(lineage);
            next
        });
        self.push_row(i, fresh.target.key, fresh.order, l, fresh.span, fresh.types);
        for (slot, v) in self.hidden.iter_mut().enumerate() {
            v.push(fresh.hidden.get(slot).copied().unwrap_or_default());
        }
    }

    pub(super) fn push_row(
        &mut self,
        i: u32,
        key: Key,
        order: i64,
        lineage: u32,
        span: (u32, u32),
        t: u32,
    ) {
        room(&mut self.keys);
        room(&mut self.lineage);
        room(&mut self.spans);
        room(&mut self.types);
        if self.local.len() * 64 <= i as usize {
            room(&mut self.local);
            self.local.push(0);
        }
        match key {
            Key::Id(id) => self.keys.push(id),
            other => {
                self.keys.push(order);
                self.local[(i / 64) as usize] |= 1 << (i % 64);
                self.by_other.insert(other.clone(), i);
                self.others.insert(i, other);
            }
        }
        self.lineage.push(lineage);
        self.spans.push(span);
        self.types.push(t);
        if !self.findings.is_empty() {
            room(&mut self.findings);
            self.findings.push(None);
        }
    }

    /// Sheds spare capacity and computes the default order, once every row is in.
    pub(in crate::query) fn finish(&mut self) {
        self.text.shrink_to_fit();
        self.keys.shrink_to_fit();
        self.local.shrink_to_fit();
        self.lineage.shrink_to_fit();
        self.spans.shrink_to_fit();
        self.types.shrink_to_fit();
        for v in &mut self.hidden {
            v.shrink_to_fit();
        }
        let mut default: Vec<u32> = (0..index(self.len())).collect();
        default.sort_unstable_by_key(|&i| self.order_key(i));
        self.set_default(default);
    }
}
