//! The sandbox's one error type. It renders itself in the body shape of the endpoint
//! family that raised it: the `{messages, entity}` envelope on business endpoints,
//! `{error, error_description}` on token endpoints, and `{error}` on audience endpoints
//! (except an upload refused for bad records, which answers the upload answer).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use flightdeck_model::{
    AudienceDataResult, AudienceError, Envelope, FieldError, Message, TokenError, ValidationErrors,
};
use serde_json::Value;

/// Result of sandbox operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything a request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The body breaks validation rules: 400 with one `ERROR` message per broken rule.
    #[error("{0}")]
    Invalid(#[from] ValidationErrors),
    /// The body is not JSON of the expected shape: 400 naming the field.
    #[error("{0}")]
    Malformed(String),
    /// Missing or invalid credentials: 401.
    #[error("{0}")]
    Unauthorized(String),
    /// Valid credentials without permission: 403.
    #[error("{0}")]
    Forbidden(String),
    /// A body sent with a `Content-Type` the endpoint does not read: 415.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// A `Host` the sandbox does not answer for (DNS rebinding): 421.
    #[error("{0}")]
    Misdirected(String),
    /// Unknown id, or one of another account: 404.
    #[error("{0}")]
    NotFound(String),
    /// A fault injected through `/_sandbox/faults`.
    #[error("injected fault")]
    Injected,
    /// Failure of a token endpoint, rendered as `{error, error_description}`.
    #[error("{error}: {description}")]
    Token {
        /// HTTP status.
        status: StatusCode,
        /// OAuth2 error code.
        error: &'static str,
        /// Detail for the caller.
        description: String,
    },
    /// Failure of an audience endpoint, rendered as `{error}`.
    #[error("{message}")]
    Audience {
        /// HTTP status.
        status: StatusCode,
        /// Text for the caller.
        message: String,
    },
    /// An audience upload refused for bad records: 400 with the upload answer
    /// (`published` 0, `bad_records` N), not `{error}`, as the service answers it.
    #[error("{}", .0.message)]
    BadRecords(Box<AudienceDataResult>),
    /// Storage failure; the detail is logged, never sent.
    #[error("database: {0}")]
    Db(#[from] rusqlite::Error),
    /// Stored or generated JSON that serde could not read or write; logged, never sent.
    #[error("JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// The database's schema could not be brought up to date; never a response.
    #[error("migrating the database: {0}")]
    Migrate(#[source] rusqlite_migration::Error),
    /// The listening socket could not be bound or read; never a response.
    #[error("binding {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// What the system said.
        source: std::io::Error,
    },
    /// A blocking task panicked or was cancelled; logged, never sent.
    #[error("a background task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// A token could not be signed; logged, never sent.
    #[error("signing a token: {0}")]
    Jwt(#[source] jsonwebtoken::errors::Error),
    /// A secret could not be hashed; logged, never sent.
    #[error("hashing a secret: {0}")]
    Hash(argon2::password_hash::Error),
    /// Any other internal failure; the detail is logged, never sent.
    #[error("internal: {0}")]
    Internal(String),
    /// A start-up setting that cannot be used (a short admin token); never a response.
    #[error("{0}")]
    Config(String),
}

impl Error {
    /// One field error, for rules that need the database (references to other entities).
    pub fn field(field: impl Into<String>, code: &str, message: impl Into<String>) -> Self {
        Error::Invalid(ValidationErrors(vec![FieldError::new(
            field, code, message,
        )]))
    }

    /// A failure of the sandbox itself rather than of the request: answered as 500
    /// with no detail, which goes to the log.
    pub fn is_internal(&self) -> bool {
        // A token or audience failure carries its own status and body, 500 or not.
        !matches!(self, Error::Token { .. } | Error::Audience { .. })
            && self.status() == StatusCode::INTERNAL_SERVER_ERROR
    }

    /// Re-shapes an error raised on an audience endpoint into `{error}`.
    pub fn into_audience(self) -> Self {
        let status = self.status();
        match self {
            Error::Audience { .. } | Error::BadRecords(_) => self,
            e if e.is_internal() => Error::Audience {
                status,
                message: "internal server error".into(),
            },
            other => Error::Audience {
                status,
                message: other.to_string(),
            },
        }
    }

    /// HTTP status of the error.
    pub fn status(&self) -> StatusCode {
        match self {
            Error::Invalid(_) | Error::Malformed(_) | Error::BadRecords(_) => {
                StatusCode::BAD_REQUEST
            }
            Error::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Error::Forbidden(_) => StatusCode::FORBIDDEN,
            Error::NotFound(_) => StatusCode::NOT_FOUND,
            Error::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Error::Misdirected(_) => StatusCode::MISDIRECTED_REQUEST,
            Error::Injected => StatusCode::SERVICE_UNAVAILABLE,
            Error::Token { status, .. } | Error::Audience { status, .. } => *status,
            Error::Db(_)
            | Error::Json(_)
            | Error::Migrate(_)
            | Error::Bind { .. }
            | Error::Task(_)
            | Error::Jwt(_)
            | Error::Hash(_)
            | Error::Internal(_)
            | Error::Config(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status = self.status();
        match self {
            Error::Token {
                error, description, ..
            } => {
                let mut resp = (
                    status,
                    [(axum::http::header::CACHE_CONTROL, "no-store")],
                    Json(TokenError {
                        error: error.to_owned(),
                        error_description: description,
                    }),
                )
                    .into_response();
                // RFC 6749 §5.2: a failed client authentication names the scheme to use.
                if status == StatusCode::UNAUTHORIZED {
                    resp.headers_mut().insert(
                        axum::http::header::WWW_AUTHENTICATE,
                        axum::http::HeaderValue::from_static("Basic realm=\"sandbox\""),
                    );
                }
                resp
            }
            Error::Audience { message, .. } => {
                let mut resp = (status, Json(AudienceError { error: message })).into_response();
                // RFC 6750 §3: a resource that takes only bearer tokens names the scheme.
                if status == StatusCode::UNAUTHORIZED {
                    resp.headers_mut().insert(
                        axum::http::header::WWW_AUTHENTICATE,
                        axum::http::HeaderValue::from_static("Bearer realm=\"sandbox\""),
                    );
                }
                resp
            }
            Error::BadRecords(result) => (status, Json(*result)).into_response(),
            other => {
                let messages = match &other {
                    Error::Invalid(errors) => errors
                        .0
                        .iter()
                        .map(|e| Message::error(e.code.clone(), e.to_string()))
                        .collect(),
                    e if e.is_internal() => {
                        tracing::error!(error = %other, "sandbox: internal error");
                        vec![Message::error("INTERNAL", "internal server error")]
                    }
                    Error::Malformed(_) => vec![Message::error("MALFORMED", other.to_string())],
                    Error::Unauthorized(_) => {
                        vec![Message::error("UNAUTHORIZED", other.to_string())]
                    }
                    Error::Forbidden(_) => vec![Message::error("FORBIDDEN", other.to_string())],
                    Error::NotFound(_) => vec![Message::error("NOT_FOUND", other.to_string())],
                    Error::UnsupportedMediaType(_) => {
                        vec![Message::error("UNSUPPORTED_MEDIA_TYPE", other.to_string())]
                    }
                    Error::Misdirected(_) => {
                        vec![Message::error("MISDIRECTED_REQUEST", other.to_string())]
                    }
                    _ => vec![Message::error("UNAVAILABLE", other.to_string())],
                };
                let body = Envelope {
                    messages,
                    entity: Value::Null,
                };
                let mut resp = (status, Json(body)).into_response();
                if status == StatusCode::UNAUTHORIZED {
                    resp.headers_mut().insert(
                        axum::http::header::WWW_AUTHENTICATE,
                        axum::http::HeaderValue::from_static("Bearer, Basic realm=\"sandbox\""),
                    );
                }
                resp
            }
        }
    }
}
