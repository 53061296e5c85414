//! The wall clock, read in one place. Token expiry, the workspace's timestamps and the
//! money review all count Unix milliseconds from here; the model never reads a clock (it
//! is handed the time), and the sandbox keeps its own settable clock for tests.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in Unix milliseconds. A system clock set before 1970 reads as 0 rather than
/// failing: every caller compares or stores the figure, and none can act on an error.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
