//! Which `Host` the sandbox answers for.
//!
//! The sandbox runs inside the desktop app on a loopback port, with the demo accounts
//! and their well-known passwords. A web page the buyer visits cannot reach it directly
//! (the browser's same-origin rule), but it can with DNS rebinding: the page's own name
//! is made to resolve to 127.0.0.1, and the browser then sends requests to the sandbox
//! as same-origin ones, with that name in `Host`. Answering only loopback names defeats
//! it, because the attacker's page never has one of them as its origin.
//!
//! Loopback names are `localhost`, IPv4 addresses in 127.0.0.0/8 and `[::1]`, with any
//! port. A sandbox bound to another interface answers the names given with
//! `--allow-host` ([`crate::Sandbox::allow_hosts`]) too. Everything else is 421
//! Misdirected Request, and a request without `Host` is 400, in the error shape of the
//! endpoint family the path belongs to.

use std::net::{IpAddr, Ipv6Addr};

use axum::extract::{Request, State};
use axum::http::header::HOST;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::error::Error;

/// Answers 421 (400 without `Host`) unless the request names a host the sandbox serves.
pub async fn middleware(State(state): State<AppState>, req: Request, next: Next) -> Response {
    // An absolute-form target (`GET http://name/ HTTP/1.1`) names the host the client
    // means; RFC 9112 §3.2.2 has it win over the header, so both must be acceptable.
    let target = req.uri().authority().map(|a| a.as_str().to_owned());
    let header = req
        .headers()
        .get(HOST)
        .map(|v| v.to_str().map(str::to_owned));
    let refusal = match header {
        None if target.is_none() => Some(Error::Malformed(
            "Host: the header is required (HTTP/1.1)".into(),
        )),
        Some(Err(_)) => Some(Error::Malformed("Host: not readable text".into())),
        _ => target
            .into_iter()
            .chain(header.and_then(Result::ok))
            .find(|h| !allowed(h, &state.allowed_hosts))
            .map(|h| Error::Misdirected(misdirected(&h))),
    };
    match refusal {
        None => next.run(req).await,
        Some(e) => in_family_shape(req.uri().path(), e),
    }
}

fn misdirected(host: &str) -> String {
    let shown = crate::extract::shown(host);
    format!(
        "Host: this sandbox answers only for loopback names (localhost, 127.0.0.1, [::1]); \
         got \"{shown}\". Start it with --allow-host NAME to serve another name"
    )
}

/// The error in the body shape of the family `path` belongs to: `{error}` on audience
/// endpoints, `{error, error_description}` on the token endpoints, the envelope elsewhere.
fn in_family_shape(path: &str, e: Error) -> Response {
    if path.starts_with("/v1/audiences") {
        return e.into_audience().into_response();
    }
    if path == "/v1/oauth2/token" || path == "/v1/oauth2/authenticate" {
        let status = e.status();
        return Error::Token {
            status,
            error: "invalid_request",
            description: e.to_string(),
        }
        .into_response();
    }
    e.into_response()
}

/// Whether `host` (a `Host` value: name or address, optional port) is served.
pub fn allowed(host: &str, extra: &[String]) -> bool {
    let name = strip_port(host.trim());
    if name.is_empty() {
        return false;
    }
    if name.eq_ignore_ascii_case("localhost") {
        return true;
    }
    if let Some(inner) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        if inner.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback()) {
            return true;
        }
    } else if name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()) {
        return true;
    }
    extra
        .iter()
        .any(|allowed| strip_port(allowed.trim()).eq_ignore_ascii_case(name))
}

/// `name` without a trailing `:port` (bracketed IPv6 keeps its brackets).
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(end) => &host[..=end],
            None => host,
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_with_any_port() {
        for ok in [
            "127.0.0.1",
            "127.0.0.1:8700",
            "127.1.2.3:1",
            "localhost",
            "LOCALHOST:80",
            "[::1]",
            "[::1]:8700",
        ] {
            assert!(allowed(ok, &[]), "{ok}");
        }
        for bad in [
            "",
            ":8700",
            "evil.example",
            "evil.example:8700",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "10.0.0.5:8700",
            "[::2]:8700",
            "[::1",
            "0.0.0.0",
        ] {
            assert!(!allowed(bad, &[]), "{bad}");
        }
    }

    #[test]
    fn allowed_hosts_match_by_name_whatever_the_port() {
        let extra = ["sandbox.lan".to_owned(), "10.0.0.5:8700".to_owned()];
        assert!(allowed("sandbox.lan:8700", &extra));
        assert!(allowed("SANDBOX.LAN", &extra));
        assert!(allowed("10.0.0.5:9999", &extra));
        assert!(!allowed("other.lan", &extra));
    }
}
