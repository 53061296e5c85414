//! The core's one error type. Hosts map it: the app to a code the UI branches on, the
//! CLI to a message and an exit status. Each variant carries what went wrong as data
//! (which profile, which state, the source error); its text is what the buyer reads.

use std::path::PathBuf;

use flightdeck_model::FieldError;

/// Why a core operation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Input the buyer gave is unusable; names the field.
    #[error("{}: {}", .0.field, .0.message)]
    Invalid(FieldError),
    /// What was asked for does not exist.
    #[error("there is no {what} {id}")]
    NotFound {
        /// What it is ("profile").
        what: &'static str,
        /// The id asked for.
        id: String,
    },
    /// The request does not fit the current state.
    #[error(transparent)]
    State(#[from] State),
    /// Nobody is signed in on the active profile; pending work is kept.
    #[error("sign in to {service} to talk to the ad platform; your pending changes are kept")]
    SignInRequired {
        /// The profile's service.
        service: url::Url,
    },
    /// The app's local sandbox is stopped: nothing is sent to its address until it is
    /// started again.
    #[error(
        "the local sandbox is stopped; start it to post, download or sign in (pending changes are kept)"
    )]
    SandboxStopped,
    /// A settings file, the data directory or a file written for the buyer could not be
    /// read or written.
    #[error("{}: {source}", path.display())]
    Storage {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A file Flightdeck keeps (`profiles.json`, `settings.json`) is not JSON it reads.
    #[error("{} is damaged: {source}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What the decoder found.
        source: serde_json::Error,
    },
    /// Something Flightdeck keeps could not be written as JSON.
    #[error("{what}: {source}")]
    Encode {
        /// What it is ("profiles", "settings").
        what: &'static str,
        /// Why.
        source: serde_json::Error,
    },
    /// The system names no per-user directory for Flightdeck's data or logs.
    #[error(
        "this system names no per-user {what} directory; set {}",
        crate::paths::DATA_DIR_ENV
    )]
    NoDirectory {
        /// "data" or "log".
        what: &'static str,
    },
    /// A file the buyer named could not be read.
    #[error("reading {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file the buyer named does not hold what it should (an identifier file with no
    /// clear column).
    #[error("{}: {why}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// An identifier file holds no identifiers.
    #[error("{} holds no identifiers", path.display())]
    NoIdentifiers {
        /// The file.
        path: PathBuf,
    },
    /// The service, the network or the keyring.
    #[error(transparent)]
    Client(#[from] flightdeck_client::Error),
    /// The local workspace.
    #[error(transparent)]
    Offline(#[from] flightdeck_offline::Error),
}

/// Which state a request does not fit.
#[derive(Debug, thiserror::Error)]
pub enum State {
    /// A post of this account runs already.
    #[error("changes are already being posted")]
    Posting,
    /// A lock was poisoned by an earlier panic: what it guards ("the workspace", "the
    /// table index", "the profile list") is not used again.
    #[error("{0} is unavailable after an earlier failure")]
    Unavailable(&'static str),
    /// No profile is saved (or active).
    #[error("no profile is saved")]
    NoProfile,
    /// A sign-in redirect or page was asked for with no data-partner sign-in waiting.
    #[error("no data-partner sign-in is waiting")]
    NoPartnerSignIn,
    /// The waiting sign-in's page is on another service than the profile's.
    #[error("the sign-in page is not on this profile's service ({0})")]
    ForeignSignInPage(url::Url),
    /// Identifiers were sent to something that is not an audience segment.
    #[error("identifiers are uploaded to an audience segment")]
    NotASegment,
    /// An upload was discarded while it was being posted.
    #[error("the upload is no longer in the workspace")]
    UploadGone,
    /// "Duplicate as new" of a kind that has an update (and so is edited in place).
    #[error("only creatives and audience segments are duplicated here, not {0}")]
    NotDuplicated(&'static str),
    /// A copy was saved but its row could not be read back.
    #[error("the copy was saved but cannot be read back")]
    CopyUnreadable,
    /// A file token that no dialog handed out for this use.
    #[error(
        "Choose the file to import with Import… first: only a file picked in its dialog can be read."
    )]
    NoFileToRead,
    /// A file token that no dialog handed out for this use.
    #[error(
        "Choose where to export with Export… first: only a file picked in its dialog can be written."
    )]
    NoFileToWrite,
    /// "Render live" of a creative with no tag, image or media to run.
    #[error("this creative has nothing to render yet: add its tag, image or media")]
    NothingToPreview,
    /// A media file asked to be played that is not one of the creative's own `https:`
    /// VAST media files: http is never played (the frame's policy allows https only).
    #[error("only the creative's own https:// media files are played")]
    MediaNotPlayable,
    /// The log was set up already in this process.
    #[error("the log is already set up: {0}")]
    LogSetUp(String),
    /// The log level could not be applied.
    #[error("the log level could not change: {0}")]
    LogLevel(String),
}

/// Result of core operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Input refused at `field`.
    pub fn invalid(field: &str, code: &str, message: &str) -> Error {
        Error::Invalid(FieldError::new(field, code, message))
    }

    /// A file or directory failed.
    pub fn storage(
        what: &std::path::Path,
        e: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Error {
        Error::Storage {
            path: what.to_owned(),
            source: e.into(),
        }
    }
}
