//! Upkeep of the workspace file from a connection of its own, on a background thread:
//! copying the write-ahead log back into the file, and removing dropped undo steps.
//!
//! SQLite does this on the committing connection once the log passes a size, so an edit
//! that writes a lot (a bulk step over 10,000 rows) would also pay for copying it all
//! into the database file before it returns, most of its commit time. Here a background
//! thread does it instead: nudged after each edit, and every few seconds for what other
//! writes (downloads, posts) leave. The SQLite documentation suggests this arrangement.
//! A `PASSIVE` checkpoint never blocks the writer or waits for readers; what it cannot
//! copy now, the next one does. The committing connection keeps its own automatic
//! checkpoint, at a much larger size, only as a backstop.
//!
//! Undo steps a new edit replaced (or that passed the history's length) are only marked
//! when that edit commits; their rows, as large as the step was, are deleted here in
//! small transactions, so the edit that drops a 10,000-row step stays quick.

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

/// Pages (of 4 KB) the log may reach before the committing connection copies it itself.
pub(super) const BACKSTOP_PAGES: i64 = 100_000;

/// How often the thread looks for work it was not nudged for.
const EVERY: Duration = Duration::from_secs(5);

/// The background upkeep of one workspace file; stops (after a last round) when
/// dropped.
pub(super) struct Upkeep {
    nudge: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Upkeep {
    /// `None` when the thread or its connection cannot be had: the backstop then does
    /// the work, as SQLite would by default.
    pub(super) fn start(path: &Path) -> Option<Upkeep> {
        let conn = Connection::open(path).ok()?;
        conn.busy_timeout(Duration::from_secs(1)).ok()?;
        // It deletes undo steps, whose images may hold an upload's identifiers.
        super::secure(&conn).ok()?;
        let (nudge, nudged) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("workspace-upkeep".into())
            .spawn(move || {
                loop {
                    let last = matches!(
                        nudged.recv_timeout(EVERY),
                        Err(RecvTimeoutError::Disconnected)
                    );
                    while nudged.try_recv().is_ok() {}
                    // Failures lose nothing and are tried again next round: a step left
                    // to purge stays out of the history, and the log keeps every page
                    // until a checkpoint copies it.
                    let _ = super::history::purge_dropped(&conn);
                    let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                    if last {
                        break;
                    }
                }
            })
            .ok()?;
        Some(Upkeep {
            nudge: Some(nudge),
            thread: Some(thread),
        })
    }

    /// Asks for a round soon (after an edit committed).
    pub(super) fn nudge(&self) {
        if let Some(n) = &self.nudge {
            // The thread only stops when this is dropped.
            let _ = n.send(());
        }
    }
}

impl Drop for Upkeep {
    fn drop(&mut self) {
        self.nudge.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
