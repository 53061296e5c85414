//! The service's clock. Tests start it at a chosen instant and move it, so that
//! flight status, token expiry and segment ttl can be exercised without waiting.

use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A wall clock that runs on from a settable instant.
#[derive(Debug)]
pub struct Clock {
    anchor: Mutex<(Instant, i64)>,
}

impl Clock {
    /// A clock that reads `start_ms` now, or the system time when `None`.
    pub fn new(start_ms: Option<i64>) -> Self {
        let start = start_ms.unwrap_or_else(system_now_ms);
        Self {
            anchor: Mutex::new((Instant::now(), start)),
        }
    }

    /// Current service time in Unix milliseconds.
    pub fn now_ms(&self) -> i64 {
        let (at, ms) = *self.lock();
        ms + i64::try_from(at.elapsed().as_millis()).unwrap_or(i64::MAX / 2)
    }

    /// Sets the current time; the clock runs on from there.
    pub fn set(&self, ms: i64) {
        *self.lock() = (Instant::now(), ms);
    }

    /// Moves the clock forward (or back, with a negative delta).
    pub fn advance(&self, delta_ms: i64) {
        let now = self.now_ms();
        self.set(now.saturating_add(delta_ms));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (Instant, i64)> {
        // A poisoned clock still holds a valid instant.
        self.anchor.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn system_now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
