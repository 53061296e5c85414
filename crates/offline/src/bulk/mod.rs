//! Bulk work on many entities at once: the pure parts (field edits, find and replace,
//! spreadsheet cells, money), with no IO: nothing here opens the workspace. The
//! workspace reads the rows they work on (`workspace/bulk_plan.rs`, `sheet_io.rs`,
//! `money_review.rs`) and runs the plans ([`crate::workspace::Workspace::run`] in
//! `workspace/bulk.rs`).

pub mod cells;
pub mod money;
pub mod ops;
pub mod plan;
pub mod replace;
pub mod sheet;
