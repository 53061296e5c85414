//! Types shared by every resource: ids, the response envelope and its messages.

use serde::{Deserialize, Serialize};

/// Entity ids are JSON Numbers.
pub type Id = i64;
/// Dates are Unix time in milliseconds.
pub type Millis = i64;
/// Fields the service sends that this crate does not name. They are kept so that a
/// read-modify-write round trip does not drop them.
pub type Extra = serde_json::Map<String, serde_json::Value>;
/// A field where "absent" (`None`), "null" (`Some(None)`) and a value differ in meaning.
pub type Nullable<T> = Option<Option<T>>;

/// The `{messages, entity}` envelope every business endpoint answers with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Envelope<T> {
    /// Error or informational messages; empty when there are none.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// The resource object(s).
    pub entity: T,
}

impl<T> Envelope<T> {
    /// An envelope with no messages.
    pub fn new(entity: T) -> Self {
        Self {
            messages: Vec::new(),
            entity,
        }
    }
}

/// One entry of an envelope's `messages`.
///
/// Decoded from the usual `{level, code, message}` object or from a bare string, which
/// the service's reference shows for `adorder/updateStatus`: the string is the text,
/// with level `INFO` and an empty code (the answer's status says whether the call
/// failed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Message {
    /// How serious the message is.
    pub level: MessageLevel,
    /// Machine-readable code; may be empty.
    #[serde(default)]
    pub code: String,
    /// Human-readable text.
    pub message: String,
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Full {
            level: MessageLevel,
            #[serde(default)]
            code: String,
            message: String,
        }
        #[derive(Deserialize)]
        #[serde(untagged, expecting = "a message object or a string")]
        enum Raw {
            Text(String),
            Full(Full),
        }
        Ok(match Raw::deserialize(d)? {
            Raw::Text(message) => Message::info("", message),
            Raw::Full(Full {
                level,
                code,
                message,
            }) => Message {
                level,
                code,
                message,
            },
        })
    }
}

impl Message {
    /// An `ERROR` message.
    pub fn error(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            level: MessageLevel::Error,
            code: code.into(),
            message: message.into(),
        }
    }

    /// An `INFO` message.
    pub fn info(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            level: MessageLevel::Info,
            code: code.into(),
            message: message.into(),
        }
    }
}

open_enum! {
    /// Message levels the service uses.
    pub enum MessageLevel {
        /// Informational; the call succeeded.
        Info = "INFO",
        /// The call succeeded but something deserves attention.
        Warning = "WARNING",
        /// The call failed.
        Error = "ERROR",
    }
}

open_enum! {
    /// Frequency-cap period, shared by campaigns and ad orders.
    pub enum TimePeriod {
        /// Per minute.
        Minute = "MINUTE",
        /// Per hour.
        Hour = "HOUR",
        /// Per day.
        Day = "DAY",
    }
}

open_enum! {
    /// Pacing, shared by campaign `pacingMode` and ad-order `hourlyPacingMode`.
    pub enum PacingMode {
        /// Spend as fast as possible.
        Asap = "ASAP",
        /// Spread spend over the period.
        SpendEvenly = "SPEND_EVENLY",
    }
}
