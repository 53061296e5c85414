//! When to try a request again, and after how long.
//!
//! [`decide`] is a pure function of the request and what happened to it, so the policy
//! is tested as a table; the client draws the jitter and sleeps. Only requests that are
//! safe to repeat (GETs) are retried: a change that was sent may already be applied, and
//! repeating it blindly could apply it twice.

use std::time::Duration;

use crate::error::TransportKind;

/// How hard to retry. Applies to safe (idempotent) requests only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included; 1 disables retries.
    pub max_attempts: u32,
    /// Wait before the second attempt; doubles for each further one.
    pub base_delay: Duration,
    /// Longest wait between attempts, `Retry-After` included, so a call never hangs
    /// silently for long in an interactive app.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 4 attempts, 200 ms doubling, at most 5 s between attempts.
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }
}

/// What happened to one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The service answered with this HTTP status.
    Status(u16),
    /// No answer arrived.
    Transport(TransportKind),
}

/// What to do after an attempt that did not succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Give up and report the failure.
    Stop,
    /// Wait this long, then try again.
    RetryAfter(Duration),
}

/// Decides whether to retry after attempt number `attempt` (1-based) ended in `outcome`.
///
/// * Requests that are not `idempotent` are never retried.
/// * Retried: connection failures, timeouts and other dropped connections (not TLS
///   failures, which do not heal by themselves), 429, and 5xx. Never another 4xx.
/// * The wait is capped exponential backoff, `base_delay * 2^(attempt-1)` up to
///   `max_delay`, of which the upper half is scaled by `jitter` (0.0 to 1.0, drawn by the
///   caller) so that many clients failing together do not come back together.
/// * A `Retry-After` from the service is honoured as the least wait, but cut to
///   `max_delay`: the error cannot carry the wait back to the user, and a further try
///   beats a long silent hang.
pub fn decide(
    policy: &RetryPolicy,
    idempotent: bool,
    attempt: u32,
    outcome: Outcome,
    retry_after: Option<Duration>,
    jitter: f64,
) -> Decision {
    if !idempotent || attempt >= policy.max_attempts {
        return Decision::Stop;
    }
    let transient = match outcome {
        Outcome::Status(status) => status == 429 || (500..=599).contains(&status),
        Outcome::Transport(kind) => !matches!(kind, TransportKind::Tls),
    };
    if !transient {
        return Decision::Stop;
    }
    let backoff = backoff(policy, attempt);
    let jitter = if jitter.is_finite() {
        jitter.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let jittered = backoff / 2 + (backoff / 2).mul_f64(jitter);
    let wait = match retry_after {
        Some(asked) => asked.max(jittered),
        None => jittered,
    };
    Decision::RetryAfter(wait.min(policy.max_delay))
}

/// `base_delay * 2^(attempt-1)`, capped at `max_delay`, without overflow.
fn backoff(policy: &RetryPolicy, attempt: u32) -> Duration {
    let exponent = attempt.saturating_sub(1).min(31);
    policy
        .base_delay
        .checked_mul(1u32 << exponent)
        .unwrap_or(policy.max_delay)
        .min(policy.max_delay)
}

/// Reads a `Retry-After` header given in seconds. The HTTP-date form is ignored (the
/// backoff applies instead): services answering 429 send seconds in practice.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            base_delay: MS(100),
            max_delay: MS(1000),
        }
    }

    #[test]
    fn decisions_table() {
        use Decision::{RetryAfter, Stop};
        use Outcome::{Status, Transport};
        use TransportKind::{Connect, Other, Timeout, Tls};
        let p = policy();
        let secs = Duration::from_secs;
        // (idempotent, attempt, outcome, retry_after, jitter, expected)
        let table: Vec<(bool, u32, Outcome, Option<Duration>, f64, Decision)> = vec![
            // Transient failures of a GET: backoff 100, 200, 400 ms; jitter scales the upper half.
            (true, 1, Status(503), None, 1.0, RetryAfter(MS(100))),
            (true, 1, Status(503), None, 0.0, RetryAfter(MS(50))),
            (true, 2, Status(500), None, 1.0, RetryAfter(MS(200))),
            (true, 3, Status(502), None, 0.5, RetryAfter(MS(300))),
            (true, 1, Transport(Connect), None, 1.0, RetryAfter(MS(100))),
            (true, 1, Transport(Timeout), None, 1.0, RetryAfter(MS(100))),
            (true, 1, Transport(Other), None, 1.0, RetryAfter(MS(100))),
            (true, 1, Status(429), None, 1.0, RetryAfter(MS(100))),
            // The attempt budget is spent.
            (true, 4, Status(503), None, 1.0, Stop),
            (true, 9, Transport(Timeout), None, 1.0, Stop),
            // Retry-After is the least wait, capped at max_delay.
            (
                true,
                1,
                Status(429),
                Some(MS(700)),
                1.0,
                RetryAfter(MS(700)),
            ),
            (
                true,
                1,
                Status(429),
                Some(secs(3600)),
                1.0,
                RetryAfter(MS(1000)),
            ),
            (true, 3, Status(503), Some(MS(10)), 1.0, RetryAfter(MS(400))),
            // Never retried: other 4xx, TLS failures, and anything not idempotent.
            (true, 1, Status(400), None, 1.0, Stop),
            (true, 1, Status(401), None, 1.0, Stop),
            (true, 1, Status(403), None, 1.0, Stop),
            (true, 1, Status(404), None, 1.0, Stop),
            (true, 1, Status(422), None, 1.0, Stop),
            (true, 1, Transport(Tls), None, 1.0, Stop),
            (false, 1, Status(503), None, 1.0, Stop),
            (false, 1, Status(429), Some(MS(10)), 1.0, Stop),
            (false, 1, Transport(Connect), None, 1.0, Stop),
            (false, 1, Transport(Timeout), None, 1.0, Stop),
            // Odd jitter values are clamped rather than trusted.
            (true, 1, Status(503), None, 7.0, RetryAfter(MS(100))),
            (true, 1, Status(503), None, f64::NAN, RetryAfter(MS(50))),
        ];
        for (i, (idem, attempt, outcome, ra, jitter, expected)) in table.into_iter().enumerate() {
            assert_eq!(
                decide(&p, idem, attempt, outcome, ra, jitter),
                expected,
                "row {i}: idempotent {idem}, attempt {attempt}, {outcome:?}, {ra:?}, jitter {jitter}"
            );
        }
    }

    #[test]
    fn backoff_is_capped_and_never_overflows() {
        let p = RetryPolicy {
            max_attempts: u32::MAX,
            ..policy()
        };
        assert_eq!(
            decide(&p, true, 5, Outcome::Status(503), None, 1.0),
            Decision::RetryAfter(MS(1000))
        );
        assert_eq!(
            decide(&p, true, 200, Outcome::Status(503), None, 1.0),
            Decision::RetryAfter(MS(1000))
        );
    }

    #[test]
    fn one_attempt_means_no_retry() {
        assert_eq!(
            decide(
                &RetryPolicy::none(),
                true,
                1,
                Outcome::Status(503),
                None,
                1.0
            ),
            Decision::Stop
        );
    }

    #[test]
    fn retry_after_is_read_in_seconds() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(" 0 "), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }
}
