//! The API client: credentials, the request core, the mapping of answers to [`Error`],
//! and retries of safe requests. The typed endpoint methods live in `endpoints`.

use std::sync::Arc;

use flightdeck_model::{AudienceDataResult, AudienceError, Envelope, Message, MessageLevel};
use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use serde::de::DeserializeOwned;
use serde_json::Value;
use url::Url;

use crate::ServerMessage;
use crate::config::ClientConfig;
use crate::error::{Error, Result, TransportKind};
use crate::listing;
use crate::retry::{self, Decision, Outcome, RetryPolicy};
use crate::session::Session;

/// Message code the service uses when both client ids of an entity were sent.
const IDENTIFIER_CONFLICT: &str = "IDENTIFIER_CONFLICT";
/// Most bytes of an unreadable body kept in [`Error::Decode`]: enough for a log, without
/// holding a 60 MB listing in an error value.
pub(crate) const RAW_BODY_KEEP: usize = 64 * 1024;

/// How requests authenticate.
#[derive(Clone)]
pub enum Credentials {
    /// No credentials (token endpoints bring their own).
    None,
    /// HTTP Basic user credentials, as in the spec's examples.
    Basic {
        /// Login name.
        username: String,
        /// Password.
        password: SecretString,
    },
    /// A fixed access token sent as `Authorization: Bearer`, never renewed: for tokens
    /// managed elsewhere (scripts, tests). A 401 is simply reported.
    Bearer(SecretString),
    /// `Authorization: Bearer` from a session that renews itself.
    Session(Arc<Session>),
}

impl Credentials {
    /// Basic credentials from plain strings.
    pub fn basic(username: impl Into<String>, password: impl Into<String>) -> Self {
        Credentials::Basic {
            username: username.into(),
            password: SecretString::from(password.into()),
        }
    }
}

impl std::fmt::Debug for Credentials {
    /// Secrets are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credentials::None => f.write_str("None"),
            Credentials::Basic { username, .. } => f
                .debug_struct("Basic")
                .field("username", username)
                .field("password", &"<redacted>")
                .finish(),
            Credentials::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            Credentials::Session(_) => f.write_str("Session(..)"),
        }
    }
}

/// An unwrapped envelope: the entity and every message that came with it.
#[derive(Debug, Clone)]
pub struct Reply<T> {
    /// The resource(s).
    pub entity: T,
    /// `INFO` and `WARNING` messages of a successful call.
    pub messages: Vec<ServerMessage>,
}

impl<T> Reply<T> {
    /// The same messages with another entity, for methods that reshape the answer.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Reply<U> {
        Reply {
            entity: f(self.entity),
            messages: self.messages,
        }
    }
}

/// The API client. Cloning is cheap and clones share connections.
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
    credentials: Credentials,
    retry: RetryPolicy,
}

struct Shared {
    config: ClientConfig,
    http: reqwest::Client,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.shared.config.base_url.as_str())
            .field("credentials", &self.credentials)
            .field("retry", &self.retry)
            .finish()
    }
}

/// Which body shapes an endpoint answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `{messages, entity}` envelopes, success and failure alike.
    Business,
    /// Plain bodies on success, `{error}` on failure.
    Audience,
}

/// One request, kept whole so that it can be sent again (retry, renewed token).
pub(crate) struct Call {
    pub(crate) method: Method,
    pub(crate) url: Url,
    /// JSON body, already serialized (and compressed when `gzip`).
    pub(crate) body: Option<Vec<u8>>,
    /// The body is gzip-compressed: sent with `Content-Encoding: gzip`.
    pub(crate) gzip: bool,
    pub(crate) family: Family,
}

impl Call {
    /// `POST /v1/...`, as reported in [`Error::OutcomeUnknown`].
    fn describe(&self) -> String {
        format!("{} {}", self.method, self.url.path())
    }

    /// GETs change nothing, so repeating one is safe.
    fn idempotent(&self) -> bool {
        self.method == Method::GET
    }
}

/// An answer as received, before it is read as a result.
pub(crate) struct Raw {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Vec<u8>,
}

impl Raw {
    /// Reads the whole answer, refusing one longer than `limit` bytes (by its declared
    /// length before anything is read, else as it arrives).
    pub(crate) async fn read(
        mut response: reqwest::Response,
        limit: usize,
    ) -> Result<Raw, Failure> {
        let status = response.status();
        let headers = response.headers().clone();
        let body = read_capped(&mut response, limit)
            .await
            .map_err(Failure::from_reqwest)?
            .ok_or_else(|| Failure::Other(too_large(status, limit)))?;
        Ok(Raw {
            status,
            headers,
            body,
        })
    }
}

/// A whole answer's body; `None` when it is longer than `limit` bytes, by its declared
/// length before anything is read, else as it arrives, so a hostile or broken server
/// cannot exhaust memory.
pub(crate) async fn read_capped(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    if response.content_length().is_some_and(|n| n > limit as u64) {
        return Ok(None);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// An answer longer than Flightdeck reads: refused, never retried.
pub(crate) fn too_large(status: StatusCode, limit: usize) -> Error {
    Error::Decode {
        status: status.as_u16(),
        detail: format!(
            "the answer is longer than {} MB, the most Flightdeck reads",
            limit / (1024 * 1024)
        ),
        raw_body: String::new(),
    }
}

impl Client {
    /// A client of the service at `config.base_url`, authenticating with `credentials`.
    pub fn new(config: ClientConfig, credentials: Credentials) -> Result<Client> {
        let http = config.http_client()?;
        Ok(Client {
            shared: Arc::new(Shared { config, http }),
            credentials,
            retry: RetryPolicy::default(),
        })
    }

    /// The same service and connections with other credentials (another user, or the
    /// session obtained after signing in).
    pub fn with_credentials(&self, credentials: Credentials) -> Client {
        Client {
            shared: Arc::clone(&self.shared),
            credentials,
            retry: self.retry,
        }
    }

    /// The same client with another retry policy for safe requests.
    pub fn with_retry_policy(&self, retry: RetryPolicy) -> Client {
        Client {
            retry,
            ..self.clone()
        }
    }

    /// How this client reaches the service.
    pub fn config(&self) -> &ClientConfig {
        &self.shared.config
    }

    /// The credentials requests carry.
    pub fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    /// The retry policy of safe requests.
    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }

    /// The absolute URL of `path`, with `segments` appended percent-encoded (ids chosen
    /// by users, such as audience segment ids, must not change the path's shape) and
    /// `query` pairs.
    pub(crate) fn url(
        &self,
        path: &str,
        segments: &[&str],
        query: &[(&str, String)],
    ) -> Result<Url> {
        let mut url = self.shared.config.url(path)?;
        if !segments.is_empty() {
            url.path_segments_mut()
                .map_err(|()| Error::Config("the base URL cannot take a path".into()))?
                .pop_if_empty()
                .extend(segments);
        }
        if !query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
        }
        Ok(url)
    }

    /// Serializes a request body.
    pub(crate) fn json_body<B: serde::Serialize + ?Sized>(body: &B) -> Result<Vec<u8>> {
        serde_json::to_vec(body)
            .map_err(|e| Error::Config(format!("the request could not be written as JSON: {e}")))
    }

    /// Sends a business call and unwraps its envelope.
    pub(crate) async fn call_business<T>(&self, call: Call) -> Result<Reply<T>>
    where
        T: DeserializeOwned + Send + 'static,
    {
        let limit = self.shared.config.max_answer_bytes;
        let raw = self.run(&call, |r| Raw::read(r, limit)).await?;
        decode_off_runtime(raw, decode_envelope).await
    }

    /// Sends a business call whose entity is a list, decoding it while it downloads
    /// (see `listing`).
    pub(crate) async fn call_listing<E>(&self, call: Call) -> Result<Reply<Vec<E>>>
    where
        E: DeserializeOwned + Send + 'static,
    {
        let limit = self.shared.config.max_listing_bytes;
        let path = call.url.path();
        self.run(&call, |r| listing::read::<E>(r, limit, path))
            .await
    }

    /// Sends an audience call and reads its plain body.
    pub(crate) async fn call_audience<T>(&self, call: Call) -> Result<T>
    where
        T: DeserializeOwned + Send + 'static,
    {
        let limit = self.shared.config.max_answer_bytes;
        let raw = self.run(&call, |r| Raw::read(r, limit)).await?;
        decode_off_runtime(raw, decode_plain).await
    }

    /// Sends `call`, retrying safe requests per the policy, and reads a 2xx answer with
    /// `read`. Reading is part of the attempt, so an answer cut off while it downloads is
    /// retried like one that never came. Returns what `read` made of the answer, or the
    /// error of the last attempt.
    async fn run<T, R, F>(&self, call: &Call, read: R) -> Result<T>
    where
        R: Fn(reqwest::Response) -> F,
        F: Future<Output = Result<T, Failure>>,
    {
        use tracing::Instrument;
        // The path only: a query may carry a filter a buyer typed, and never belongs in a log.
        let span = tracing::debug_span!("request", method = %call.method, path = %call.url.path());
        self.run_attempts(call, read).instrument(span).await
    }

    async fn run_attempts<T, R, F>(&self, call: &Call, read: R) -> Result<T>
    where
        R: Fn(reqwest::Response) -> F,
        F: Future<Output = Result<T, Failure>>,
    {
        let mut attempt = 1;
        loop {
            let failure = match self.send_authenticated(call).await {
                Ok(response) if response.status().is_success() => {
                    tracing::debug!(attempt, status = response.status().as_u16(), "answered");
                    match read(response).await {
                        Ok(value) => return Ok(value),
                        Err(failure) => failure,
                    }
                }
                Ok(response) => {
                    match Raw::read(response, self.shared.config.max_answer_bytes).await {
                        Ok(raw) => Failure::Status(raw),
                        Err(failure) => failure,
                    }
                }
                Err(failure) => failure,
            };
            let (outcome, retry_after, error) = match failure {
                Failure::Status(raw) => (
                    Outcome::Status(raw.status.as_u16()),
                    raw.headers
                        .get(RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(retry::parse_retry_after),
                    error_of(call.family, &raw),
                ),
                Failure::Transport { kind, detail } => (
                    Outcome::Transport(kind),
                    None,
                    transport_error(call, kind, detail),
                ),
                Failure::Other(e) => return Err(e),
            };
            let jitter = rand::random::<f64>();
            match retry::decide(
                &self.retry,
                call.idempotent(),
                attempt,
                outcome,
                retry_after,
                jitter,
            ) {
                Decision::Stop => {
                    tracing::debug!(attempt, outcome = ?outcome, "request failed");
                    return Err(error);
                }
                Decision::RetryAfter(wait) => {
                    tracing::warn!(
                        attempt,
                        outcome = ?outcome,
                        wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                        "request failed; trying again"
                    );
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
            }
        }
    }

    /// One attempt with the credentials applied. With a session, a 401 renews the token
    /// once and sends the request again: a 401 means the service did nothing, so this is
    /// safe for changes too.
    async fn send_authenticated(&self, call: &Call) -> Result<reqwest::Response, Failure> {
        match &self.credentials {
            Credentials::None => self.send(call, None).await,
            Credentials::Basic { username, password } => {
                let value = format!(
                    "Basic {}",
                    base64_encode(&format!("{username}:{}", password.expose_secret()))
                );
                self.send(call, Some(value)).await
            }
            Credentials::Bearer(token) => {
                let value = format!("Bearer {}", token.expose_secret());
                self.send(call, Some(value)).await
            }
            Credentials::Session(session) => {
                let token = session.bearer().await.map_err(Failure::Other)?;
                let value = format!("Bearer {}", token.expose_secret());
                let response = self.send(call, Some(value)).await?;
                if response.status() != StatusCode::UNAUTHORIZED {
                    return Ok(response);
                }
                let renewed = session
                    .renew_after_rejection(&token)
                    .await
                    .map_err(Failure::Other)?;
                let value = format!("Bearer {}", renewed.expose_secret());
                self.send(call, Some(value)).await
            }
        }
    }

    /// Sends once; answers when the status and headers are in, the body still to read.
    async fn send(
        &self,
        call: &Call,
        authorization: Option<String>,
    ) -> Result<reqwest::Response, Failure> {
        let mut request = self
            .shared
            .http
            .request(call.method.clone(), call.url.clone())
            .header(reqwest::header::ACCEPT, "application/json");
        if let Some(value) = authorization {
            let mut value = reqwest::header::HeaderValue::from_str(&value).map_err(|_| {
                Failure::Other(Error::Config(
                    "the credentials contain characters that cannot be sent in a header".into(),
                ))
            })?;
            value.set_sensitive(true);
            request = request.header(reqwest::header::AUTHORIZATION, value);
        }
        if let Some(body) = &call.body {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone());
            if call.gzip {
                request = request.header(reqwest::header::CONTENT_ENCODING, "gzip");
            }
        }
        request.send().await.map_err(Failure::from_reqwest)
    }
}

/// Why an attempt did not give a result.
pub(crate) enum Failure {
    /// A non-2xx answer.
    Status(Raw),
    /// Nothing came back, or the answer was cut off.
    Transport { kind: TransportKind, detail: String },
    /// The attempt could not be made (session renewal failed, bad header), or its answer
    /// could not be read as a result: not worth repeating.
    Other(Error),
}

impl Failure {
    pub(crate) fn from_reqwest(e: reqwest::Error) -> Self {
        // A connect error means nothing was sent; a timeout or a connection lost later
        // may have reached the service. Connect timeouts count as connect errors.
        let kind = if e.is_connect() {
            TransportKind::Connect
        } else if e.is_timeout() {
            TransportKind::Timeout
        } else {
            TransportKind::Other
        };
        Failure::Transport {
            kind,
            detail: error_chain(&e),
        }
    }
}

/// The error and its sources on one line, for logs (reqwest's own text hides the cause).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// A transport failure as the caller sees it: for a change, anything past connecting
/// leaves the outcome unknown.
fn transport_error(call: &Call, kind: TransportKind, detail: String) -> Error {
    if call.idempotent() || kind == TransportKind::Connect {
        Error::Transport { kind, detail }
    } else {
        Error::OutcomeUnknown {
            request: call.describe(),
            detail,
        }
    }
}

fn base64_encode(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn decode_error(raw: &Raw, detail: impl std::fmt::Display) -> Error {
    let keep = raw.body.len().min(RAW_BODY_KEEP);
    Error::Decode {
        status: raw.status.as_u16(),
        detail: detail.to_string(),
        raw_body: String::from_utf8_lossy(&raw.body[..keep]).into_owned(),
    }
}

/// Bodies above this size are decoded on a blocking thread: decoding a full listing
/// (50 MB for 100,000 ad orders) takes a few hundred milliseconds, which would stall
/// every other request sharing the async worker.
pub(crate) const DECODE_INLINE_MAX: usize = 1024 * 1024;

pub(crate) async fn decode_off_runtime<T>(raw: Raw, decode: fn(&Raw) -> Result<T>) -> Result<T>
where
    T: Send + 'static,
{
    if raw.body.len() <= DECODE_INLINE_MAX {
        return decode(&raw);
    }
    let status = raw.status.as_u16();
    tokio::task::spawn_blocking(move || decode(&raw))
        .await
        .unwrap_or_else(|e| {
            Err(Error::Decode {
                status,
                detail: format!("the decoding task failed: {e}"),
                raw_body: String::new(),
            })
        })
}

/// Reads a 2xx envelope.
pub(crate) fn decode_envelope<T: DeserializeOwned>(raw: &Raw) -> Result<Reply<T>> {
    let envelope: Envelope<T> =
        serde_json::from_slice(&raw.body).map_err(|e| decode_error(raw, e))?;
    Ok(Reply {
        entity: envelope.entity,
        messages: envelope
            .messages
            .into_iter()
            .map(ServerMessage::from_wire)
            .collect(),
    })
}

/// Reads a 2xx plain body.
fn decode_plain<T: DeserializeOwned>(raw: &Raw) -> Result<T> {
    serde_json::from_slice(&raw.body).map_err(|e| decode_error(raw, e))
}

/// The error for a non-2xx answer.
///
/// The status decides the class; the body only adds the service's messages. An error
/// body that cannot be read (a proxy's HTML page, an empty body) therefore still gives
/// `Unauthenticated` for a 401 or `Server` for a 502, with no messages, so sign-in
/// prompts and retries keep working.
fn error_of(family: Family, raw: &Raw) -> Error {
    let status = raw.status.as_u16();
    if raw.status.is_redirection() {
        let location = raw
            .headers
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("nowhere");
        return decode_error(raw, format!("unexpected redirect to {location}"));
    }
    match family {
        Family::Business => business_error(status, envelope_messages(&raw.body)),
        Family::Audience => audience_error(status, &raw.body),
    }
}

/// The messages of an error envelope; none when the body is not one.
fn envelope_messages(body: &[u8]) -> Vec<ServerMessage> {
    serde_json::from_slice::<Envelope<Value>>(body)
        .map(|e| {
            e.messages
                .into_iter()
                .map(ServerMessage::from_wire)
                .collect()
        })
        .unwrap_or_default()
}

fn business_error(status: u16, messages: Vec<ServerMessage>) -> Error {
    match status {
        401 => Error::Unauthenticated { messages },
        403 => Error::Forbidden { messages },
        404 => Error::NotFound { messages },
        429 | 500..=599 => Error::Server { status, messages },
        _ if messages.iter().any(|m| m.code == IDENTIFIER_CONFLICT) => {
            Error::IdentifierConflict { messages }
        }
        _ => Error::Rejected { status, messages },
    }
}

/// Audience endpoints answer `{error}`. 401, 403 and 404 mean the same as on business
/// endpoints, so they become the same variants (the text as one `ERROR` message) and
/// callers handle sign-in, permission and missing items in one place. A 4xx in the
/// upload answer's shape with bad records is [`Error::AudienceBadRecords`]; every other
/// status is [`Error::Audience`], whose text is the whole story.
fn audience_error(status: u16, body: &[u8]) -> Error {
    if (400..500).contains(&status)
        && let Ok(result) = serde_json::from_slice::<AudienceDataResult>(body)
        && result.bad_records > 0
    {
        return Error::AudienceBadRecords {
            status,
            result: Box::new(result),
        };
    }
    let text = serde_json::from_slice::<AudienceError>(body)
        .map(|e| e.error)
        .unwrap_or_else(|_| format!("the service answered HTTP {status}"));
    let messages = || {
        vec![ServerMessage::from_wire(Message {
            level: MessageLevel::Error,
            code: String::new(),
            message: text.clone(),
        })]
    };
    match status {
        401 => Error::Unauthenticated {
            messages: messages(),
        },
        403 => Error::Forbidden {
            messages: messages(),
        },
        404 => Error::NotFound {
            messages: messages(),
        },
        _ => Error::Audience {
            status,
            error: text,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(status: u16, body: &str) -> Raw {
        Raw {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::IM_A_TEAPOT),
            headers: HeaderMap::new(),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn business_statuses_map_to_variants() {
        let env = |code: &str| {
            format!(
                r#"{{"messages":[{{"level":"ERROR","code":"{code}","message":"name: is required"}}],"entity":null}}"#
            )
        };
        let kind = |s, b: &str| error_of(Family::Business, &raw(s, b)).kind();
        use crate::ErrorKind as K;
        assert_eq!(kind(400, &env("REQUIRED")), K::Rejected);
        assert_eq!(kind(422, &env("REQUIRED")), K::Rejected);
        assert_eq!(kind(400, &env(IDENTIFIER_CONFLICT)), K::IdentifierConflict);
        assert_eq!(kind(401, &env("UNAUTHORIZED")), K::Unauthenticated);
        assert_eq!(kind(403, "<html>"), K::Forbidden);
        assert_eq!(kind(404, ""), K::NotFound);
        assert_eq!(kind(429, ""), K::Server);
        assert_eq!(kind(503, &env("UNAVAILABLE")), K::Server);
        assert_eq!(kind(302, ""), K::Decode);
        let e = error_of(Family::Business, &raw(400, &env("REQUIRED")));
        assert_eq!(e.messages()[0].field.as_deref(), Some("name"));
    }

    #[test]
    fn audience_statuses_map_to_variants() {
        let body = r#"{"error":"a valid access token (JWT) is required"}"#;
        let e = error_of(Family::Audience, &raw(401, body));
        assert!(
            matches!(&e, Error::Unauthenticated { messages } if messages[0].message.contains("JWT"))
        );
        assert!(matches!(
            error_of(Family::Audience, &raw(403, body)),
            Error::Forbidden { .. }
        ));
        assert!(matches!(
            error_of(Family::Audience, &raw(404, body)),
            Error::NotFound { .. }
        ));
        assert!(matches!(
            error_of(Family::Audience, &raw(400, body)),
            Error::Audience { status: 400, .. }
        ));
        let e = error_of(Family::Audience, &raw(500, "oops"));
        assert!(matches!(&e, Error::Audience { status: 500, .. }) && e.is_retryable());

        let refusal = r#"{"message":"invalid payload: 2 bad record(s)","published":0,"failed_publishes":0,"bad_records":2,"bad_records_details":"[0].countryCode: bad; [1].values[0]: bad"}"#;
        let e = error_of(Family::Audience, &raw(400, refusal));
        let Error::AudienceBadRecords { status, result } = &e else {
            panic!("{e:?}")
        };
        assert_eq!((*status, result.bad_records), (400, 2));
        assert!(
            e.to_string()
                .contains("2 bad record(s): [0].countryCode: bad"),
            "{e}"
        );
        // The answer's shape without bad records is not a refusal for them.
        let e = error_of(
            Family::Audience,
            &raw(
                400,
                r#"{"message":"x","bad_records":0,"error":"body: not valid JSON"}"#,
            ),
        );
        assert!(matches!(&e, Error::Audience { status: 400, error } if error.contains("JSON")));
    }

    #[test]
    fn undecodable_success_bodies_are_decode_errors() {
        let e = decode_envelope::<Vec<i64>>(&raw(200, "not json")).err();
        assert!(
            matches!(e, Some(Error::Decode { status: 200, raw_body, .. }) if raw_body == "not json")
        );
    }
}
