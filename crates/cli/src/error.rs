//! Everything a command can fail with, and which failures send the buyer to sign in.

use flightdeck_client::Error;

/// Everything a command can fail with.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// From the service or the sign-in.
    #[error(transparent)]
    Client(#[from] Error),
    /// From the local workspace.
    #[error(transparent)]
    Workspace(#[from] flightdeck_offline::Error),
    /// From the shared core (profiles, sessions, files).
    #[error(transparent)]
    Core(flightdeck_core::Error),
    /// Output that could not be written as JSON.
    #[error("writing JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Bad arguments, or a command whose outcome is a failure (refused, not posted).
    #[error("{0}")]
    Usage(String),
}

impl From<flightdeck_core::Error> for CliError {
    fn from(e: flightdeck_core::Error) -> Self {
        match e {
            flightdeck_core::Error::Client(c) => CliError::Client(c),
            flightdeck_core::Error::Offline(o) => CliError::Workspace(o),
            other => CliError::Core(other),
        }
    }
}

impl CliError {
    /// The failure is that nobody is signed in (or the session ended): `flightdeck
    /// login` is the way on.
    pub fn needs_sign_in(&self) -> bool {
        matches!(
            self,
            CliError::Client(Error::SignInRequired { .. } | Error::Unauthenticated { .. })
                | CliError::Workspace(flightdeck_offline::Error::Client(
                    Error::SignInRequired { .. } | Error::Unauthenticated { .. }
                ))
                | CliError::Core(flightdeck_core::Error::SignInRequired { .. })
        )
    }
}
