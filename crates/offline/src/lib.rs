//! Flightdeck's local-first workspace. Every edit is saved at once to a SQLite file,
//! shows as a pending change, and is posted when the buyer chooses.
//!
//! - [`change`]: the vocabulary shared by the store, the planner and the sync engine.
//! - [`diff`], [`merge`], [`plan`]: pure functions (field diffs, three-way merge,
//!   posting order), unit-tested without IO.
//! - [`workspace`]: the SQLite store: snapshot, drafts, outbox, id map; download.

pub mod change;
pub mod diff;
mod error;
pub mod merge;
pub mod plan;
pub mod sync;
pub mod workspace;

pub use error::{Error, Result};
