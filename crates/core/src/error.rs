//! The core's one error type. Hosts map it: the app to a code the UI branches on, the
//! CLI to a message and an exit status.

use flightdeck_model::FieldError;

/// Why a core operation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Input the buyer gave is unusable; names the field.
    #[error("{}: {}", .0.field, .0.message)]
    Invalid(FieldError),
    /// What was asked for does not exist (a profile id).
    #[error("{0}")]
    NotFound(String),
    /// The request does not fit the current state (posting twice, a callback with no
    /// sign-in pending, no session).
    #[error("{0}")]
    State(String),
    /// Nobody is signed in on the active profile; pending work is kept.
    #[error("{0}")]
    SignInRequired(String),
    /// The app's local sandbox is stopped: nothing is sent to its address until it is
    /// started again.
    #[error(
        "the local sandbox is stopped; start it to post, download or sign in (pending changes are kept)"
    )]
    SandboxStopped,
    /// Settings or the data directory could not be read or written.
    #[error("{0}")]
    Storage(String),
    /// A file the buyer named could not be read.
    #[error("reading {}: {source}", path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file the buyer named does not hold what it should (an identifier file with no
    /// clear column).
    #[error("{}: {why}", path.display())]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// An identifier file holds no identifiers.
    #[error("{} holds no identifiers", path.display())]
    NoIdentifiers {
        /// The file.
        path: std::path::PathBuf,
    },
    /// The service, the network or the keyring.
    #[error(transparent)]
    Client(#[from] flightdeck_client::Error),
    /// The local workspace.
    #[error(transparent)]
    Offline(#[from] flightdeck_offline::Error),
}

/// Result of core operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Input refused at `field`.
    pub fn invalid(field: &str, code: &str, message: &str) -> Error {
        Error::Invalid(FieldError::new(field, code, message))
    }

    /// A settings file or directory failed.
    pub fn storage(what: &std::path::Path, e: impl std::fmt::Display) -> Error {
        Error::Storage(format!("{}: {e}", what.display()))
    }
}
