//! The crate's one error type.

use crate::change::{Key, Kind};

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        match &e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DiskFull => {
                Error::DiskFull
            }
            _ => Error::Db(e),
        }
    }
}

/// Result of workspace operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything the workspace can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The workspace file could not be read or written.
    #[error("the local workspace could not be read or written: {0}")]
    Db(rusqlite::Error),
    /// The disk holding the workspace is full. What was being written (an edit, a
    /// download, a push's outcome) was not saved; everything saved before it is intact
    /// (the transaction was rolled back).
    #[error(
        "the disk holding the local workspace is full: the last step was not saved, and everything saved before it is kept; free some space and try again"
    )]
    DiskFull,
    /// The workspace file is not a database Flightdeck can read. It was moved aside (kept
    /// for recovery) so the next start begins with an empty workspace.
    #[error(
        "the local workspace {path} is damaged and cannot be opened ({detail}); it was moved aside to {kept} so nothing more is lost, and the next start begins with an empty workspace: download the account again. Changes not yet posted stay in {kept} only"
    )]
    Damaged {
        /// The file that was damaged.
        path: String,
        /// Where it was moved.
        kept: String,
        /// What SQLite said.
        #[source]
        detail: rusqlite::Error,
    },
    /// The workspace file is damaged, as for [`Error::Damaged`], and moving it aside
    /// failed too: it is left where it was, and the next start meets it again.
    #[error(
        "the local workspace {path} is damaged ({detail}) and could not be moved aside ({io}); move or delete it to start with an empty workspace"
    )]
    NotMovedAside {
        /// The file that was damaged.
        path: String,
        /// What SQLite said.
        detail: rusqlite::Error,
        /// Why the rename failed.
        #[source]
        io: std::io::Error,
    },
    /// The workspace's schema could not be brought up to this version of Flightdeck.
    /// Nothing was changed: each upgrade step is one transaction.
    #[error("the local workspace could not be upgraded to this version of Flightdeck: {0}")]
    Upgrade(#[source] rusqlite_migration::Error),
    /// An exported sheet could not be written (the `csv` writer failed). Nothing was
    /// written to the file the buyer chose.
    #[error("the sheet could not be written: {0}")]
    SheetWrite(#[source] csv::Error),
    /// A value could not be written as JSON (serde refused it). A fault of Flightdeck,
    /// never of the stored data: nothing of the value was saved.
    #[error("a value could not be written as JSON: {0}")]
    Encode(#[source] serde_json::Error),
    /// A value nests its lists and objects deeper than the workspace can read back (more
    /// than `limit` levels). Refused before anything of it is written: stored, it would
    /// fail every read of its row, every push among them.
    #[error(
        "a value nests lists and objects more than {limit} levels deep, deeper than the local workspace can read back; nothing of it was saved"
    )]
    TooDeep {
        /// The deepest nesting the workspace reads back.
        limit: usize,
    },
    /// A stored value is damaged or of an unexpected shape.
    #[error("the local workspace holds damaged data: {0}")]
    Corrupt(String),
    /// The service (through the client) failed.
    #[error(transparent)]
    Client(#[from] flightdeck_client::Error),
    /// A pending change Flightdeck cannot turn into its request: its stored payload does
    /// not fit its resource, the service has no endpoint for its operation, or what it
    /// targets has no id on the service. Found before anything is sent, so, unlike
    /// [`Error::Client`], it never stands for an answer of the service. A push records it
    /// on the change, as a message with this `code`, rather than returning it.
    #[error("{message}")]
    Unpostable {
        /// The code of the message the change is recorded with.
        code: &'static str,
        /// Why, in the buyer's words.
        message: String,
    },
    /// The service answered a change to an entity it already has (an update, a site-list
    /// operation) with another entity's id. Nothing was recorded: taking the answer would
    /// move this entity onto the other one's row and lose that one's edits. A push records
    /// it on the change, which fails.
    #[error(
        "the ad platform answered this change to {} {sent} with the id of {} {answered}; nothing was recorded here, so {} {answered} is untouched: check {} {sent} on the ad platform before posting this change again",
        .kind.label(), .kind.label(), .kind.label(), .kind.label()
    )]
    WrongId {
        /// What the change is to.
        kind: Kind,
        /// The id the change was sent for.
        sent: Key,
        /// The id the answer carried.
        answered: Key,
    },
    /// An id given for a new entity (by the service's answer, by the look-up of a lost
    /// answer, or typed by the buyer) already belongs to another entity of the workspace
    /// with a working copy or changes not posted: taking it over would delete those.
    /// Nothing was recorded.
    #[error(
        "id {id} already belongs to another {} in this workspace, with edits of its own: check the id the ad platform shows for this one (if it is this id after all, the two are one: discard the edits of one of them first)",
        .kind.label()
    )]
    IdTaken {
        /// The kind of both (an ad order's, for its flight caps).
        kind: Kind,
        /// The id in question.
        id: Key,
    },
    /// The caller asked for something that does not exist in the workspace.
    #[error("{0}")]
    NotFound(String),
    /// The request cannot be carried out as asked (for example editing a removed draft).
    #[error("{0}")]
    Invalid(String),
    /// An edit the service would ignore or could not apply (a field it ignores on
    /// update, a posted creative or segment), refused when it is made so it is never
    /// silently lost after posting. Nothing was saved; each error names its field and why.
    #[error("{0}")]
    Refused(flightdeck_model::ValidationErrors),
    /// An undo of a step whose change was posted (or is being posted) since: the service
    /// has it, so only a new edit that puts the old values back can change it back
    /// ([`crate::workspace::Workspace::revert`]).
    #[error(
        "“{label}” was already posted to the ad platform, so it cannot be undone here; revert it instead, which makes a new edit that puts the old values back"
    )]
    Posted {
        /// The step.
        step: i64,
        /// What the step was.
        label: String,
    },
}
