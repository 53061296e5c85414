//! Flightdeck's local-first workspace. Every edit is saved at once to a SQLite file,
//! shows as a pending change, and is posted when the buyer chooses.
//!
//! - [`change`]: the vocabulary shared by the store, the planner and the sync engine.
//! - [`diff`], [`merge`], [`plan`]: pure functions (field diffs, three-way merge,
//!   posting order), unit-tested without IO.
//! - [`bulk`]: the pure parts of bulk work (field edits, find and replace, sheet cells,
//!   money review); the workspace reads the rows they work on and runs their plans.
//! - [`workspace`]: the SQLite store: snapshot, drafts, outbox, id map; download.

pub mod audience_file;
pub mod bulk;
pub mod change;
pub mod diff;
mod error;
pub mod merge;
pub mod plan;
pub mod sync;
pub mod workspace;

pub use error::{Error, Result};

#[cfg(all(test, feature = "specta"))]
mod specta_tests {
    use specta::Types;

    /// Every type the desktop app hands to its UI resolves, with what it contains.
    #[test]
    fn ui_types_are_described() {
        let types = Types::default()
            .register::<crate::change::Kind>()
            .register::<crate::change::Key>()
            .register::<crate::change::EntityRef>()
            .register::<crate::change::Op>()
            .register::<crate::change::ChangeStatus>()
            .register::<crate::change::PendingChange>()
            .register::<crate::diff::FieldDiff>()
            .register::<crate::merge::FieldConflict>()
            .register::<crate::workspace::ChangeMessage>()
            .register::<crate::workspace::Entity>()
            .register::<crate::workspace::Marker>()
            .register::<crate::workspace::Pick>()
            .register::<crate::workspace::PullReport>()
            .register::<crate::workspace::Progress>()
            .register::<crate::workspace::AudienceUpload>()
            .register::<crate::sync::PushProgress>()
            .register::<crate::sync::PushReport>()
            .register::<crate::plan::Held>();
        let names: Vec<String> = types
            .into_unsorted_iter()
            .map(|t| t.name.to_string())
            .collect();
        for name in [
            "EntityRef",
            "Key",
            "Kind",
            "Marker",
            "Pick",
            "Held",
            "FieldError",
            "AudienceUpload",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
    }
}
