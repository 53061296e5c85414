//! A plain GET of a third party's document (a VAST tag a buyer asks to "fetch and
//! check"), on the client's HTTP stack (reqwest, rustls) but with nothing of the
//! service's: no credentials, no cookies, no base URL. It answers what came back or why
//! nothing did, in words about that URL, never as a service error (whose texts speak of
//! the ad platform).

use std::time::Duration;

use url::Url;

/// What a fetch got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The HTTP status of the last answer, when one came.
    pub status: Option<u16>,
    /// The body as text (lossy UTF-8), when it was read whole within the cap.
    pub body: Option<String>,
    /// Why there is no usable body: the scheme, the connection, the time, the size or
    /// the status.
    pub problem: Option<String>,
}

impl Fetched {
    fn failed(status: Option<u16>, problem: impl Into<String>) -> Fetched {
        Fetched {
            status,
            body: None,
            problem: Some(problem.into()),
        }
    }
}

/// Redirects a fetch follows: ad servers answer tag URLs with a 302 to a CDN.
const REDIRECTS_MAX: usize = 5;

/// GETs `url` (http or https only) with no authentication, within `timeout` for the
/// whole exchange, reading at most `max_bytes` of the body: a larger document is refused
/// rather than cut, since half a document would check as broken XML.
pub async fn fetch_public(url: &Url, timeout: Duration, max_bytes: usize) -> Fetched {
    if !matches!(url.scheme(), "http" | "https") {
        return Fetched::failed(
            None,
            format!(
                "only http:// and https:// URLs are fetched, not {}:",
                url.scheme()
            ),
        );
    }
    let client = match reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::limited(REDIRECTS_MAX))
        .timeout(timeout)
        .connect_timeout(timeout)
        .user_agent(format!("flightdeck/{}", env!("CARGO_PKG_VERSION")))
        .build()
    {
        Ok(c) => c,
        Err(e) => return Fetched::failed(None, format!("the HTTP client could not start: {e}")),
    };
    let secs = timeout.as_secs_f64();
    let transport = |e: reqwest::Error| {
        if e.is_timeout() {
            format!("no answer within {secs} s")
        } else if e.is_connect() {
            "the server could not be reached".to_owned()
        } else if e.is_redirect() {
            format!("more than {REDIRECTS_MAX} redirects")
        } else {
            "the connection failed".to_owned()
        }
    };
    let mut response = match client.get(url.clone()).send().await {
        Ok(r) => r,
        Err(e) => return Fetched::failed(None, transport(e)),
    };
    let status = response.status().as_u16();
    if response
        .content_length()
        .is_some_and(|n| n > max_bytes as u64)
    {
        return Fetched::failed(Some(status), too_large(max_bytes));
    }
    let mut bytes = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if bytes.len() + chunk.len() > max_bytes {
                    return Fetched::failed(Some(status), too_large(max_bytes));
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => return Fetched::failed(Some(status), transport(e)),
        }
    }
    let body = String::from_utf8_lossy(&bytes).into_owned();
    if !(200..300).contains(&status) {
        return Fetched {
            status: Some(status),
            body: Some(body),
            problem: Some(format!("the server answered HTTP {status}")),
        };
    }
    Fetched {
        status: Some(status),
        body: Some(body),
        problem: None,
    }
}

fn too_large(max_bytes: usize) -> String {
    format!("the document is larger than {} KB", max_bytes / 1024)
}
