//! Sign-in against an in-process sandbox over real HTTP, and the token store in a real
//! OS keyring: user sign-in and refresh, the data-partner login with PKCE and `state`,
//! the loopback redirect listener, sessions that renew (single-flight) or end, and
//! keyring persistence without plaintext secrets.
//!
//! Run inside a private Secret Service: `scripts/with-keyring.sh cargo test -p
//! flightdeck-client --test signin` (`scripts/test.sh` does this). Tests that need the
//! keyring fail with that hint when run bare, rather than touch the desktop's keyring.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "signin/support.rs"]
mod support;

#[path = "signin/keyring.rs"]
mod keyring_store;
#[path = "signin/loopback.rs"]
mod loopback;
#[path = "signin/partner.rs"]
mod partner;
#[path = "signin/session.rs"]
mod session;
#[path = "signin/user.rs"]
mod user;
