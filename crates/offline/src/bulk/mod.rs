//! Bulk work on many entities at once: the pure parts (field edits, find and replace,
//! spreadsheet cells, money). The workspace turns them into plans and runs them
//! ([`crate::workspace::Workspace::run`]); see `workspace/bulk.rs`.

pub mod money;
pub mod ops;
pub mod plan;
pub mod replace;
pub mod sheet;
