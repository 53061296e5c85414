//! The client's one error type. Callers classify it by variant (or [`Error::kind`]),
//! never by matching text, and [`Error::is_retryable`] says whether trying again can help.
//! `Display` is written for a media buyer; details for a developer stay in the fields.

use flightdeck_model::{AudienceDataResult, Message, MessageLevel};

/// Result of client operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A message from the service, with the field it names when its text starts with a
/// wire path (`flights[1].startDate: …`), as the sandbox and the model's rules write them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerMessage {
    /// `INFO`, `WARNING` or `ERROR`.
    pub level: MessageLevel,
    /// Machine-readable code; may be empty.
    pub code: String,
    /// The text as the service sent it.
    pub message: String,
    /// The wire path the text names, if any.
    pub field: Option<String>,
}

impl ServerMessage {
    /// Wraps a wire message, extracting the field path from its text.
    pub fn from_wire(m: Message) -> Self {
        let field = field_of(&m.message);
        Self {
            level: m.level,
            code: m.code,
            message: m.message,
            field,
        }
    }
}

/// The leading `path: ` of a message, when it looks like a wire path.
fn field_of(text: &str) -> Option<String> {
    let (head, _) = text.split_once(": ")?;
    let looks_like_path = !head.is_empty()
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'));
    looks_like_path.then(|| head.to_owned())
}

/// How a transport failure happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// The connection could not be made.
    Connect,
    /// No answer in time.
    Timeout,
    /// TLS negotiation failed.
    Tls,
    /// Anything else below HTTP.
    Other,
}

/// Coarse classes of [`Error`], for callers that only branch on the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// See [`Error::Transport`].
    Transport,
    /// See [`Error::OutcomeUnknown`].
    OutcomeUnknown,
    /// See [`Error::Unauthenticated`].
    Unauthenticated,
    /// See [`Error::SignInRequired`].
    SignInRequired,
    /// See [`Error::Forbidden`].
    Forbidden,
    /// See [`Error::NotFound`].
    NotFound,
    /// See [`Error::Rejected`].
    Rejected,
    /// See [`Error::IdentifierConflict`].
    IdentifierConflict,
    /// See [`Error::Server`].
    Server,
    /// See [`Error::Token`].
    Token,
    /// See [`Error::Audience`].
    Audience,
    /// See [`Error::AudienceBadRecords`].
    AudienceBadRecords,
    /// See [`Error::Invalid`].
    Invalid,
    /// See [`Error::Decode`] and [`Error::ListingTooLarge`].
    Decode,
    /// See [`Error::Keyring`] and [`Error::KeyringEntryTooLarge`].
    Keyring,
    /// See [`Error::SignIn`].
    SignIn,
    /// See [`Error::Config`].
    Config,
}

/// Everything a call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request did not reach the service, or no answer came back for a request
    /// that is safe to repeat.
    #[error("{}", transport_text(*kind))]
    Transport {
        /// How it failed.
        kind: TransportKind,
        /// Technical detail, for logs.
        detail: String,
    },
    /// A change was sent but no answer arrived (timeout or dropped connection): it may or
    /// may not have been applied. Never retried blindly; the sync engine resolves it.
    #[error(
        "the connection was lost after the change was sent, so it is not known whether the ad platform saved it"
    )]
    OutcomeUnknown {
        /// `POST /v1/...` that was sent.
        request: String,
        /// Technical detail, for logs.
        detail: String,
    },
    /// 401: credentials are missing, wrong or expired.
    #[error("the ad platform did not accept your sign-in: {}", first_text(.messages, "please sign in again"))]
    Unauthenticated {
        /// The service's messages.
        messages: Vec<ServerMessage>,
    },
    /// The session could not be renewed; the user has to sign in again. Nothing queued is lost.
    #[error("your session has ended; sign in again to continue ({reason})")]
    SignInRequired {
        /// Why renewal failed.
        reason: String,
    },
    /// 403: signed in, but not allowed to do this.
    #[error("you do not have permission to do this: {}", first_text(.messages, "access denied"))]
    Forbidden {
        /// The service's messages.
        messages: Vec<ServerMessage>,
    },
    /// 404: the id is unknown, or belongs to another account.
    #[error("not found: {}", first_text(.messages, "the item does not exist or is not in your account"))]
    NotFound {
        /// The service's messages.
        messages: Vec<ServerMessage>,
    },
    /// 400/422: the service rejected the values; each message names its field where it can.
    #[error("the ad platform rejected the change: {}", join_texts(.messages))]
    Rejected {
        /// HTTP status.
        status: u16,
        /// The service's messages, with field paths.
        messages: Vec<ServerMessage>,
    },
    /// 400 because both `ioNumber` and `externalAdOrderId` (or `externalCampaignId`) were sent.
    #[error("send only one client id (ioNumber or the external id), not both")]
    IdentifierConflict {
        /// The service's messages.
        messages: Vec<ServerMessage>,
    },
    /// 5xx: the service failed. Safe requests may be retried.
    #[error("the ad platform had a problem (HTTP {status}); try again in a moment")]
    Server {
        /// HTTP status.
        status: u16,
        /// The service's messages, when it sent any.
        messages: Vec<ServerMessage>,
    },
    /// A token endpoint refused: `{error, error_description}`.
    #[error("sign-in failed: {error_description} ({error})")]
    Token {
        /// HTTP status.
        status: u16,
        /// OAuth2 error code.
        error: String,
        /// The service's description.
        error_description: String,
    },
    /// An audience endpoint refused: `{error}`.
    #[error("the audience request failed: {error}")]
    Audience {
        /// HTTP status.
        status: u16,
        /// The service's text.
        error: String,
    },
    /// An audience upload was refused for bad records (`invalid payload: N bad record(s)`):
    /// the refused request stored nothing. `result` adds up every request of the upload
    /// up to and including the refused one, so `published` counts what earlier requests
    /// of a split upload did store.
    #[error("the ad platform refused the upload: {}", refusal_text(.result))]
    AudienceBadRecords {
        /// HTTP status of the refusal.
        status: u16,
        /// The service's answer: `bad_records`, `bad_records_details` and `message`. Boxed
        /// so that every `Result` of the crate stays small.
        result: Box<AudienceDataResult>,
    },
    /// Flightdeck did not send the request: the value at `field` cannot be sent as it is.
    #[error("{field}: {message}")]
    Invalid {
        /// Wire path of the value, such as `[0].values[3]`.
        field: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// The answer could not be read. The raw body is kept for the log, never shown.
    #[error("the ad platform sent an answer Flightdeck could not read (HTTP {status})")]
    Decode {
        /// HTTP status.
        status: u16,
        /// What did not fit.
        detail: String,
        /// The body as received.
        raw_body: String,
    },
    /// A listing is larger than the listing limit
    /// ([`ClientConfig::max_listing_bytes`](crate::ClientConfig::max_listing_bytes)), so
    /// it was not downloaded; nothing of it is kept. Never retried: the same listing is
    /// as large next time.
    #[error(
        "the listing {listing} is larger than {} MB, the listing size limit, so it was not \
         downloaded; if the account really holds this much, raise the limit",
        limit / (1024 * 1024)
    )]
    ListingTooLarge {
        /// The listing's path, such as `/v1/adorder/getAllAdOrders`.
        listing: String,
        /// The limit in bytes.
        limit: usize,
    },
    /// The OS keyring failed or is missing.
    #[error("{message}")]
    Keyring {
        /// Plain-language description.
        message: String,
    },
    /// A sign-in token is larger than one OS keyring entry holds on every platform
    /// (Windows Credential Manager's 2,560 bytes), so it is not kept anywhere. Names the
    /// token, never its value.
    #[error(
        "the {entry} the ad platform issued is {bytes} bytes, more than the {limit} bytes an \
         OS keyring entry can hold, so Flightdeck cannot keep you signed in"
    )]
    KeyringEntryTooLarge {
        /// Which token: `access token` or `refresh token`.
        entry: &'static str,
        /// Its size as it would be stored.
        bytes: usize,
        /// The most an entry holds.
        limit: usize,
    },
    /// A sign-in flow failed before reaching the service (state mismatch, callback
    /// timeout, malformed redirect).
    #[error("sign-in failed: {0}")]
    SignIn(String),
    /// The client was configured wrongly (bad base URL, bad header value).
    #[error("configuration error: {0}")]
    Config(String),
}

fn transport_text(kind: TransportKind) -> &'static str {
    match kind {
        TransportKind::Connect => {
            "could not reach the ad platform; check your network connection and try again"
        }
        TransportKind::Timeout => "the ad platform did not answer in time; try again",
        TransportKind::Tls => "a secure connection to the ad platform could not be made",
        TransportKind::Other => "the connection to the ad platform failed; try again",
    }
}

/// `invalid payload: 2 bad record(s): [0].countryCode: …`: the service's own words.
fn refusal_text(result: &AudienceDataResult) -> String {
    let message = if result.message.is_empty() {
        format!("{} bad record(s)", result.bad_records)
    } else {
        result.message.clone()
    };
    if result.bad_records_details.is_empty() {
        message
    } else {
        format!("{message}: {}", result.bad_records_details)
    }
}

fn first_text(messages: &[ServerMessage], fallback: &str) -> String {
    messages
        .first()
        .map(|m| m.message.clone())
        .unwrap_or_else(|| fallback.to_owned())
}

fn join_texts(messages: &[ServerMessage]) -> String {
    if messages.is_empty() {
        return "no reason given".to_owned();
    }
    messages
        .iter()
        .map(|m| m.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

impl Error {
    /// A token endpoint's answer that may pass if asked again: busy (429), timed out
    /// (408) or failing (5xx). Its other answers (`invalid_grant`, `invalid_client`, …)
    /// refuse what was sent, and end a session.
    pub fn token_endpoint_busy(&self) -> bool {
        matches!(self, Error::Token { status, .. } if *status == 429 || *status == 408 || *status >= 500)
    }

    /// The coarse class of the error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Transport { .. } => ErrorKind::Transport,
            Error::OutcomeUnknown { .. } => ErrorKind::OutcomeUnknown,
            Error::Unauthenticated { .. } => ErrorKind::Unauthenticated,
            Error::SignInRequired { .. } => ErrorKind::SignInRequired,
            Error::Forbidden { .. } => ErrorKind::Forbidden,
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::Rejected { .. } => ErrorKind::Rejected,
            Error::IdentifierConflict { .. } => ErrorKind::IdentifierConflict,
            Error::Server { .. } => ErrorKind::Server,
            Error::Token { .. } => ErrorKind::Token,
            Error::Audience { .. } => ErrorKind::Audience,
            Error::AudienceBadRecords { .. } => ErrorKind::AudienceBadRecords,
            Error::Invalid { .. } => ErrorKind::Invalid,
            Error::Decode { .. } | Error::ListingTooLarge { .. } => ErrorKind::Decode,
            Error::Keyring { .. } | Error::KeyringEntryTooLarge { .. } => ErrorKind::Keyring,
            Error::SignIn(_) => ErrorKind::SignIn,
            Error::Config(_) => ErrorKind::Config,
        }
    }

    /// Whether repeating the same call later can succeed. `OutcomeUnknown` is not: the
    /// change may already be applied, so it must be looked up first.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Transport { .. } | Error::Server { .. } => true,
            Error::Audience { status, .. } => *status >= 500 || *status == 429,
            _ => false,
        }
    }

    /// The service's messages carried by the error, if any.
    pub fn messages(&self) -> &[ServerMessage] {
        match self {
            Error::Unauthenticated { messages }
            | Error::Forbidden { messages }
            | Error::NotFound { messages }
            | Error::Rejected { messages, .. }
            | Error::IdentifierConflict { messages }
            | Error::Server { messages, .. } => messages,
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_are_taken_from_message_text() {
        assert_eq!(
            field_of("flights[1].startDate: overlaps"),
            Some("flights[1].startDate".into())
        );
        assert_eq!(
            field_of("[0].flightId: is not a flight"),
            Some("[0].flightId".into())
        );
        assert_eq!(field_of("Invalid username or password"), None);
        assert_eq!(field_of("the segment is archived: sorry"), None);
    }

    #[test]
    fn a_bad_records_refusal_shows_the_service_message_and_details() {
        let e = Error::AudienceBadRecords {
            status: 400,
            result: Box::new(AudienceDataResult {
                message: "invalid payload: 2 bad record(s)".into(),
                bad_records: 2,
                bad_records_details: "[0].countryCode: must be a two-letter ISO 3166 country code"
                    .into(),
                ..AudienceDataResult::default()
            }),
        };
        assert_eq!(
            e.to_string(),
            "the ad platform refused the upload: invalid payload: 2 bad record(s): [0].countryCode: must be a two-letter ISO 3166 country code"
        );
        assert_eq!(e.kind(), ErrorKind::AudienceBadRecords);
        assert!(!e.is_retryable());
    }
}
