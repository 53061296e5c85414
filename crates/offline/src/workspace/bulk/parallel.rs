//! A large preview or plan read on two threads: half of the rows over a second connection
//! to the workspace file, each thread taking chunks in turn, the results back in order;
//! and an apply's edit rows worked out on a second connection ahead of it.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{Planned, RowPreview};
use crate::Result;
use crate::change::EntityRef;
use crate::workspace::Workspace;
use crate::workspace::edit::Batch;
use crate::workspace::kept::{MAX_BYTES, Write};

/// Rows below which a preview is carried out on one thread: a second connection costs
/// about as much as a few hundred rows.
pub(super) const SPLIT_MIN: usize = 256;

/// Rows a thread takes at a time from work shared by two (see [`Chunks`]).
const CHUNK: usize = 128;

/// Work shared by two threads a chunk at a time, each taking the next chunk when done
/// with its last: a thread slowed down (a cold cache, a core busy with something else)
/// takes fewer, and neither waits long for the other.
struct Chunks<I> {
    left: std::sync::Mutex<(usize, std::vec::IntoIter<I>)>,
}

impl<I> Chunks<I> {
    fn new(items: Vec<I>) -> Chunks<I> {
        Chunks {
            left: std::sync::Mutex::new((0, items.into_iter())),
        }
    }

    /// The next chunk and its number, in order.
    fn next(&self) -> Option<(usize, Vec<I>)> {
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        let chunk: Vec<I> = left.1.by_ref().take(CHUNK).collect();
        if chunk.is_empty() {
            return None;
        }
        left.0 += 1;
        Some((left.0 - 1, chunk))
    }

    /// Leaves no chunk for the other thread (this one failed).
    fn stop(&self) {
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        left.1.by_ref().for_each(drop);
    }

    /// Runs `each` on chunks until none is left, stopping both threads at its first
    /// failure; the results with their chunks' numbers.
    fn run<R>(&self, mut each: impl FnMut(Vec<I>) -> Result<R>) -> Result<Vec<(usize, R)>> {
        let mut done = Vec::new();
        while let Some((n, chunk)) = self.next() {
            match each(chunk) {
                Ok(r) => done.push((n, r)),
                Err(e) => {
                    self.stop();
                    return Err(e);
                }
            }
        }
        Ok(done)
    }
}

/// Results of chunks done by two threads, back in chunk order.
fn in_order<R>(
    mut mine: Vec<(usize, R)>,
    theirs: std::thread::Result<Result<Vec<(usize, R)>>>,
) -> Result<impl Iterator<Item = R>> {
    match theirs {
        Ok(done) => mine.extend(done?),
        Err(panic) => std::panic::resume_unwind(panic),
    }
    mine.sort_unstable_by_key(|(n, _)| *n);
    Ok(mine.into_iter().map(|(_, r)| r))
}

/// Bytes of writes both threads' chunks have noted so far. The writes are joined in
/// order only once every row is carried out; a preview keeps them only while they total
/// [`MAX_BYTES`] at most, so once past it a chunk's writes are dropped as the chunk ends
/// rather than held to the end (at 1,000,000 rows they were gigabytes, all thrown away).
#[derive(Default)]
struct Noted(AtomicUsize);

impl Noted {
    /// A chunk's writes, or `None` once the writes noted so far are more than a preview
    /// keeps (which makes the joined log too many to keep, as it would have been).
    fn keep(&self, writes: Option<Vec<Write>>) -> Option<Vec<Write>> {
        let writes = writes?;
        let bytes: usize = writes.iter().map(Write::size).sum();
        let total = self
            .0
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        (total <= MAX_BYTES).then_some(writes)
    }
}

/// Carries out an independent plan (see [`super::independent`]) for a preview that only notes
/// its writes on two threads: on `batch`, and at the same time on another thread over a
/// second connection to the workspace file at `path`, each taking chunks of rows in
/// turn. That connection's read transaction begins while `batch`'s holds the write lock,
/// so nothing can be committed in between: both read the same workspace. Rows and writes
/// come back in plan order, as if one batch had carried out every row.
pub(super) fn carry_out_split(
    batch: &mut Batch<'_>,
    plan: Vec<Planned>,
    path: &str,
) -> Result<Vec<RowPreview>> {
    let rows = plan.len();
    let chunks = Chunks::new(plan);
    let plan_current = batch.plan_current;
    let noted = Noted::default();
    let (mine, theirs) = std::thread::scope(|s| {
        let helper = s.spawn(|| {
            let apart = |mut conn: rusqlite::Connection| {
                let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Deferred)?;
                let mut apart = Batch::noting(tx);
                apart.plan_current = plan_current;
                chunks.run(|chunk| {
                    let rows = chunk
                        .into_iter()
                        .filter_map(|p| apart.carry_out(p).transpose())
                        .collect::<Result<Vec<_>>>()?;
                    Ok((rows, noted.keep(apart.take_noted())))
                })
            };
            // Without a second connection this thread takes no chunk, and the first does
            // them all.
            open_reader(path).map_or_else(|_| Ok(Vec::new()), apart)
        });
        let mine = chunks.run(|chunk| {
            let rows = chunk
                .into_iter()
                .filter_map(|p| batch.carry_out(p).transpose())
                .collect::<Result<Vec<_>>>()?;
            Ok((rows, noted.keep(batch.take_noted())))
        });
        (mine, helper.join())
    });
    let mut out = Vec::with_capacity(rows);
    for (rows, writes) in in_order(mine?, theirs)? {
        out.extend(rows);
        batch.note_all(writes);
    }
    Ok(out)
}

/// Chunks of rows a reader works out ahead of an apply at most (see [`carry_out_ahead`]).
const AHEAD: usize = 4;

/// An apply of [`Planned::Edit`] rows (`lazy_edits` in `bulk_plan.rs`): a second
/// connection reads each row's entity and works its edit out, a chunk at a time and at
/// most [`AHEAD`] chunks ahead, while the batch carries the rows out in order on its own
/// connection, which alone writes. The reader begins once the batch holds the write
/// lock, so it reads the last commit, which is what the batch reads of each entity
/// before writing it: no row of such a plan writes another's entity.
///
/// Planned up front, every row's parsed copies were in memory at once (14 GB for an edit
/// of 1,000,000 ad orders); worked out by the batch alone, the apply lost the second
/// core (100,000 rows: 10.4 s planned up front, 13.3 s on one thread).
pub(super) fn carry_out_ahead(
    batch: &mut Batch<'_>,
    plan: Vec<Planned>,
    path: &str,
) -> Result<Vec<RowPreview>> {
    let mut conn = match open_reader(path) {
        Ok(conn) => conn,
        Err(_) => {
            return plan
                .into_iter()
                .filter_map(|p| batch.carry_out(p).transpose())
                .collect();
        }
    };
    let rows = plan.len();
    let (send, receive) = std::sync::mpsc::sync_channel::<Result<Vec<Planned>>>(AHEAD);
    std::thread::scope(|s| {
        s.spawn(move || {
            let work = || -> Result<()> {
                let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Deferred)?;
                let mut plan = plan.into_iter();
                loop {
                    let chunk: Vec<Planned> = plan.by_ref().take(CHUNK).collect();
                    if chunk.is_empty() {
                        return Ok(());
                    }
                    let mut worked = Vec::with_capacity(chunk.len());
                    for p in chunk {
                        let p = match p {
                            Planned::Edit { target, edits } => {
                                crate::workspace::bulk_plan::work_out(&tx, &target, &edits)?
                            }
                            other => Some(other),
                        };
                        worked.extend(p);
                    }
                    if send.send(Ok(worked)).is_err() {
                        // The batch stopped: nothing more to work out.
                        return Ok(());
                    }
                }
            };
            if let Err(e) = work() {
                let _ = send.send(Err(e));
            }
        });
        // What the reader worked out it read just now, as the batch would (above).
        let plan_current = std::mem::replace(&mut batch.plan_current, true);
        let mut out = Vec::with_capacity(rows);
        // Leaving early drops `receive`, which stops the reader at its next chunk.
        let carried = receive.into_iter().try_for_each(|chunk| {
            for p in chunk? {
                out.extend(batch.carry_out(p)?);
            }
            Ok(())
        });
        batch.plan_current = plan_current;
        carried.map(|()| out)
    })
}

/// A second connection to the workspace file at `path`, which only reads.
fn open_reader(path: &str) -> Result<rusqlite::Connection> {
    let conn = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    // A write through it (none is meant to be made) fails rather than lands.
    conn.pragma_update(None, "query_only", true)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(conn)
}

impl Workspace {
    /// `read` of every target, in order, each in its own read as a plan makes them: with
    /// a second core and enough targets, the second half at the same time on another
    /// thread, over a second connection.
    pub(crate) fn read_each<T: Send>(
        &self,
        targets: &[EntityRef],
        read: impl Fn(&rusqlite::Connection, &EntityRef) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let path = (targets.len() >= SPLIT_MIN)
            .then(|| self.second_reader())
            .flatten();
        let Some(path) = path else {
            return targets.iter().map(|t| read(&self.conn, t)).collect();
        };
        let chunks = Chunks::new(targets.iter().collect());
        let read_all = |conn: &rusqlite::Connection| {
            chunks.run(|chunk| {
                chunk
                    .into_iter()
                    .map(|t| read(conn, t))
                    .collect::<Result<Vec<T>>>()
            })
        };
        let (mine, theirs) = std::thread::scope(|s| {
            let helper = s.spawn(|| {
                open_reader(&path).map_or_else(|_| Ok(Vec::new()), |conn| read_all(&conn))
            });
            (read_all(&self.conn), helper.join())
        });
        Ok(in_order(mine?, theirs)?.flatten().collect())
    }

    /// The workspace file, for a second connection that reads it on another thread; `None`
    /// when there is no second core or the workspace is not a file in WAL mode (where
    /// readers see the last commit while a writer holds its lock).
    pub(super) fn second_reader(&self) -> Option<String> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let path = self.conn.path().filter(|p| !p.is_empty())?;
        (cores > 1 && self.upkeep.is_some()).then(|| path.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::kept::Arg;

    fn write(bytes: usize) -> Write {
        Write {
            sql: "",
            args: vec![Arg::from("a".repeat(bytes))],
            changed: Some(1),
            inserted: None,
        }
    }

    #[test]
    fn chunks_drop_their_writes_once_all_noted_pass_what_a_preview_keeps() {
        let noted = Noted::default();
        let half = MAX_BYTES / 2;
        assert_eq!(
            noted.keep(Some(vec![write(half)])).map(|w| w.len()),
            Some(1)
        );
        assert_eq!(
            noted
                .keep(Some(vec![write(half - 1), write(1)]))
                .map(|w| w.len()),
            Some(2),
            "exactly what a preview keeps is kept"
        );
        assert!(
            noted.keep(Some(vec![write(1)])).is_none(),
            "one byte past it"
        );
        assert!(
            noted.keep(Some(vec![])).is_none(),
            "and every chunk after it"
        );
        assert!(noted.keep(None).is_none());
    }
}
