//! The app's one error type, as the UI receives it: a stable code to branch on, a
//! sentence for the buyer, and the fields it names. The UI never parses message text.

use flightdeck_model::{FieldError, ValidationErrors};
use serde::Serialize;
use specta::Type;

/// What kind of failure, for the UI to branch on (sign-in screen, inline errors, banner).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum ErrorCode {
    /// The session ended or never started: show the sign-in screen. Pending changes stay.
    SignInRequired,
    /// Signed in, but this account may not do it.
    Forbidden,
    /// The entity does not exist (or belongs to another account).
    NotFound,
    /// The service or the model's rules refused the input; see `fieldErrors`.
    Invalid,
    /// The service could not be reached: work continues offline.
    Offline,
    /// The service failed; trying again later may work.
    Service,
    /// The OS keyring refused to keep or give back a secret.
    Keyring,
    /// The local workspace or settings could not be read or written.
    Storage,
    /// The request makes no sense in the app's current state (no profile, posting twice).
    State,
    /// An undo of a step that was posted since: offer a revert (a new edit that puts the
    /// old values back) instead.
    Posted,
}

/// An error as the UI receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Type, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct AppError {
    /// What kind of failure.
    pub code: ErrorCode,
    /// A sentence for the buyer. Never holds a secret.
    pub message: String,
    /// The fields the failure names, by wire path (`flights[1].startDate`).
    pub field_errors: Vec<FieldError>,
}

/// Result of every command.
pub type Result<T, E = AppError> = std::result::Result<T, E>;

impl AppError {
    /// An error with no field.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        AppError {
            code,
            message: message.into(),
            field_errors: Vec::new(),
        }
    }

    /// A request that does not fit the app's state.
    pub fn state(message: impl Into<String>) -> Self {
        AppError::new(ErrorCode::State, message)
    }

    /// The local workspace or settings failed.
    pub fn storage(message: impl Into<String>) -> Self {
        AppError::new(ErrorCode::Storage, message)
    }
}

impl From<flightdeck_client::Error> for AppError {
    fn from(e: flightdeck_client::Error) -> Self {
        use flightdeck_client::ErrorKind as K;
        let code = match e.kind() {
            K::Transport | K::OutcomeUnknown => ErrorCode::Offline,
            K::Unauthenticated | K::SignInRequired => ErrorCode::SignInRequired,
            K::Forbidden => ErrorCode::Forbidden,
            K::NotFound => ErrorCode::NotFound,
            K::Rejected
            | K::IdentifierConflict
            | K::Audience
            | K::AudienceBadRecords
            | K::Invalid
            | K::SignIn
            | K::Config => ErrorCode::Invalid,
            K::Server | K::Decode => ErrorCode::Service,
            // A busy, timed-out or failing token endpoint is the service failing; its
            // other answers (invalid_grant, invalid_client) refuse what the buyer typed.
            K::Token if e.token_endpoint_busy() => ErrorCode::Service,
            K::Token => ErrorCode::Invalid,
            K::Keyring => ErrorCode::Keyring,
        };
        let mut field_errors: Vec<FieldError> = e
            .messages()
            .iter()
            .filter_map(|m| {
                m.field.as_ref().map(|field| FieldError {
                    field: field.clone(),
                    code: m.code.clone(),
                    message: m.message.clone(),
                })
            })
            .collect();
        // A value the client would not send names its field itself.
        if let flightdeck_client::Error::Invalid { field, message } = &e {
            field_errors.push(FieldError::new(
                field.as_str(),
                flightdeck_model::validate::codes::INVALID,
                message.as_str(),
            ));
        }
        AppError {
            code,
            message: e.to_string(),
            field_errors,
        }
    }
}

impl From<flightdeck_offline::Error> for AppError {
    fn from(e: flightdeck_offline::Error) -> Self {
        use flightdeck_offline::Error as E;
        match e {
            E::Client(c) => c.into(),
            E::NotFound(m) => AppError::new(ErrorCode::NotFound, m),
            E::Invalid(m) => AppError::new(ErrorCode::State, m),
            // An edit the service would ignore or turn into a duplicate: the buyer sees
            // why at the fields, like any other refused input.
            E::Refused(errors) => errors.into(),
            e @ E::Posted { .. } => AppError::new(ErrorCode::Posted, e.to_string()),
            // What the buyer typed or pasted, refused before it was saved: not a fault
            // of the disk.
            e @ E::TooDeep { .. } => AppError::new(ErrorCode::Invalid, e.to_string()),
            // An id that belongs to another entity with edits of its own, or an answer for
            // another entity: refused as the workspace stands, like an invalid request.
            e @ (E::IdTaken { .. } | E::WrongId { .. }) => {
                AppError::new(ErrorCode::State, e.to_string())
            }
            other => AppError::storage(other.to_string()),
        }
    }
}

impl From<flightdeck_core::Error> for AppError {
    fn from(e: flightdeck_core::Error) -> Self {
        use flightdeck_core::Error as E;
        match e {
            E::Client(c) => c.into(),
            E::Offline(o) => o.into(),
            E::Invalid(field) => ValidationErrors(vec![field]).into(),
            e @ E::NotFound { .. } => AppError::new(ErrorCode::NotFound, e.to_string()),
            e @ E::State(_) => AppError::state(e.to_string()),
            e @ E::SignInRequired { .. } => AppError::new(ErrorCode::SignInRequired, e.to_string()),
            // Nothing was sent: to the buyer, the sandbox's service is offline.
            e @ E::SandboxStopped => AppError::new(ErrorCode::Offline, e.to_string()),
            e @ (E::Storage { .. }
            | E::Damaged { .. }
            | E::Encode { .. }
            | E::NoDirectory { .. }
            | E::Read { .. }) => AppError::storage(e.to_string()),
            e @ (E::File { .. } | E::NoIdentifiers { .. }) => {
                AppError::new(ErrorCode::Invalid, e.to_string())
            }
        }
    }
}

impl From<ValidationErrors> for AppError {
    fn from(e: ValidationErrors) -> Self {
        let field_errors = e.0;
        let message = match field_errors.as_slice() {
            [one] => format!("{}: {}", one.field, one.message),
            many => format!("{} fields need attention", many.len()),
        };
        AppError {
            code: ErrorCode::Invalid,
            message,
            field_errors,
        }
    }
}

impl From<flightdeck_sandbox::Error> for AppError {
    fn from(e: flightdeck_sandbox::Error) -> Self {
        AppError::storage(format!("the local sandbox failed: {e}"))
    }
}

impl From<tauri::Error> for AppError {
    fn from(e: tauri::Error) -> Self {
        AppError::state(e.to_string())
    }
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        AppError::storage(e.to_string())
    }
}

impl From<serde_json::Error> for AppError {
    fn from(e: serde_json::Error) -> Self {
        AppError::storage(format!("stored data has an unexpected shape: {e}"))
    }
}
