//! Flightdeck's client of the advertising service: one typed method per endpoint, both
//! sign-in flows, a session that renews its tokens, and a token store in the OS keyring.
//!
//! It works the same against the real service and the sandbox; only the base URL
//! differs. Requests and answers are `flightdeck-model` types; the `{messages, entity}`
//! envelope is unwrapped into [`Reply`], which keeps `INFO` and `WARNING` messages.

pub mod auth;
mod client;
mod clock;
mod config;
mod endpoints;
mod error;
pub mod fetch;
mod listing;
pub mod retry;
pub mod session;
pub mod token_store;
pub mod upload;

pub use client::{Client, Credentials, Reply};
pub use clock::now_ms;
pub use config::{ClientConfig, MAX_ANSWER_BYTES, MAX_LISTING_BYTES};
pub use error::{Error, ErrorKind, Result, ServerMessage, TransportKind};
pub use secrecy::{ExposeSecret, SecretString};
pub use upload::AUDIENCE_GZIP_MIN_BYTES;
