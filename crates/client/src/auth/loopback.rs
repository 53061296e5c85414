//! The RFC 8252 loopback redirect: a one-shot HTTP listener on `127.0.0.1:<random port>`
//! that receives the browser's `GET /callback?code=…&state=…`.
//!
//! It answers one kind of request, once, so it reads the request line by hand over a
//! tokio `TcpListener` rather than pulling in a server framework: the request head is
//! read with a size limit and a timeout, other paths get 404, and each connection is
//! handled in its own task so that a browser's idle pre-connection cannot hold up the
//! real one.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use url::Url;

use crate::error::{Error, Result};

/// Largest request head accepted.
const MAX_HEAD: usize = 8 * 1024;

/// The path the browser is sent back to.
const CALLBACK_PATH: &str = "/callback";

/// Listens on `127.0.0.1` for the browser's redirect.
#[derive(Debug)]
pub struct LoopbackListener {
    listener: TcpListener,
    addr: SocketAddr,
    redirect_uri: Url,
    header_timeout: Duration,
}

impl LoopbackListener {
    /// Binds `127.0.0.1:0` (a free port chosen by the OS).
    pub async fn bind() -> Result<LoopbackListener> {
        let unavailable = |e: std::io::Error| {
            Error::SignIn(format!(
                "could not open a local port to receive the browser's answer: {e}"
            ))
        };
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .map_err(unavailable)?;
        let addr = listener.local_addr().map_err(unavailable)?;
        let redirect_uri = Url::parse(&format!("http://{addr}{CALLBACK_PATH}"))
            .map_err(|e| Error::SignIn(format!("bad loopback address {addr}: {e}")))?;
        Ok(LoopbackListener {
            listener,
            addr,
            redirect_uri,
            header_timeout: Duration::from_secs(10),
        })
    }

    /// How long one connection may take to send its request head (10 s by default).
    pub fn with_header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// `http://127.0.0.1:PORT/callback`: the redirect URI to sign in with.
    pub fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    /// Waits up to `timeout` for `GET /callback?…` carrying `state` (the sign-in in
    /// progress), answers the browser with a short page, and returns the full redirect
    /// URL (to pass to [`PartnerAuth::finish`](super::PartnerAuth::finish)). Other
    /// requests, a callback with another `state` among them (forged, or an older
    /// attempt's), are answered (404, 405, 400) and waiting goes on.
    pub async fn wait(&self, timeout: Duration, state: &str) -> Result<Url> {
        let deadline = tokio::time::Instant::now() + timeout;
        let (tx, mut rx) = mpsc::channel::<Url>(1);
        // Dropping the set when this returns aborts connections still being served.
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    // A failed accept (e.g. out of descriptors) concerns one connection only.
                    if let Ok((stream, _)) = accepted {
                        let tx = tx.clone();
                        let addr = self.addr;
                        let header_timeout = self.header_timeout;
                        let state = state.to_owned();
                        connections.spawn(async move {
                            if let Some(url) = serve(stream, addr, header_timeout, &state).await {
                                let _ = tx.send(url).await;
                            }
                        });
                    }
                }
                Some(url) = rx.recv() => return Ok(url),
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
                () = tokio::time::sleep_until(deadline) => {
                    return Err(Error::SignIn(format!(
                        "no answer from the browser within {} seconds; start the sign-in again",
                        timeout.as_secs()
                    )));
                }
            }
        }
    }
}

/// Serves one connection; returns the redirect URL when it was the callback of the
/// sign-in whose `state` is `expected`.
async fn serve(
    mut stream: TcpStream,
    addr: SocketAddr,
    header_timeout: Duration,
    expected: &str,
) -> Option<Url> {
    let head = match tokio::time::timeout(header_timeout, read_head(&mut stream)).await {
        Ok(Some(head)) => head,
        // Timed out, closed early, or too large: drop the connection.
        Ok(None) | Err(_) => {
            let _ = respond(&mut stream, "400 Bad Request", "Bad request", "").await;
            return None;
        }
    };
    let Some((method, target)) = request_line(&head) else {
        let _ = respond(&mut stream, "400 Bad Request", "Bad request", "").await;
        return None;
    };
    let Ok(url) = Url::parse(&format!("http://{addr}{target}")) else {
        let _ = respond(&mut stream, "400 Bad Request", "Bad request", "").await;
        return None;
    };
    if url.path() != CALLBACK_PATH {
        let _ = respond(&mut stream, "404 Not Found", "Not found", "").await;
        return None;
    }
    if method != "GET" {
        let extra = "Allow: GET\r\n";
        let _ = respond(&mut stream, "405 Method Not Allowed", "Not allowed", extra).await;
        return None;
    }
    let state_matches = url
        .query_pairs()
        .any(|(k, v)| k == "state" && v.as_ref() == expected);
    if !state_matches {
        let page = "This link is not for the sign-in in progress — return to Flightdeck";
        let _ = respond(&mut stream, "400 Bad Request", page, "").await;
        return None;
    }
    let failed = url.query_pairs().any(|(k, _)| k == "error");
    let page = if failed {
        "Sign-in was not completed — return to Flightdeck"
    } else {
        "Signed in — you can close this window"
    };
    let _ = respond(&mut stream, "200 OK", page, "").await;
    Some(url)
}

/// Reads up to the blank line ending the request head. `None` when the peer closes
/// first or the head is too large.
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = find(&buf, b"\r\n\r\n").or_else(|| find(&buf, b"\n\n")) {
            buf.truncate(end);
            return String::from_utf8(buf).ok();
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `(method, origin-form target)` of an HTTP/1.x request line.
fn request_line(head: &str) -> Option<(&str, &str)> {
    let line = head.lines().next()?;
    let mut parts = line.split_ascii_whitespace();
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    let valid = parts.next().is_none() && target.starts_with('/') && version.starts_with("HTTP/1.");
    valid.then_some((method, target))
}

/// Writes a small HTML answer and closes the connection.
async fn respond(
    stream: &mut TcpStream,
    status: &str,
    message: &str,
    extra_headers: &str,
) -> std::io::Result<()> {
    let body = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Flightdeck</title></head>\n<body><p>{message}</p></body></html>\n"
    );
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n\
         Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\
         {extra_headers}\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines() {
        assert_eq!(
            request_line("GET /callback?code=a HTTP/1.1\r\nHost: x"),
            Some(("GET", "/callback?code=a"))
        );
        assert_eq!(request_line("GET http://evil/callback HTTP/1.1"), None);
        assert_eq!(request_line("GET /callback"), None);
        assert_eq!(request_line("GET /a b HTTP/1.1"), None);
        assert_eq!(request_line(""), None);
    }

    proptest::proptest! {
        /// Whatever a local process sends the listener, the request line is read
        /// without a panic, and only an origin-form target of HTTP/1.x is taken.
        #[test]
        fn any_request_head_is_read_without_a_panic(head in "\\PC{0,80}", crlf in "[\r\n]{0,3}") {
            let head = format!("{head}{crlf}Host: x");
            if let Some((method, target)) = request_line(&head) {
                proptest::prop_assert!(target.starts_with('/'));
                proptest::prop_assert!(!method.is_empty());
            }
        }
    }
}
