//! "Fetch and check" a VAST URL, only when the buyer asks: a plain GET (no credentials)
//! of the tag, then of each wrapper's next document, up to
//! [`WRAPPER_DEPTH_MAX`](flightdeck_workbench::WRAPPER_DEPTH_MAX) wrappers, each document
//! linted with the workbench's VAST rules. Every hop answers what it got, so one that
//! failed (a timeout, a 404, a document too large) still shows the hops before it.

use std::time::Duration;

use flightdeck_client::fetch::fetch_public;
use flightdeck_workbench::{Finding, VastSummary, WRAPPER_DEPTH_MAX, inspect_vast, vast};
use serde::Serialize;
use url::Url;

use crate::{Account, Error, Result};

/// How long one document may take, the whole exchange: a player gives a wrapper about
/// as long before it moves on.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest document read: a VAST document is a few KB; 1 MB is far past any real
/// one and keeps a hostile server from filling memory.
pub const FETCH_MAX_BYTES: usize = 1024 * 1024;

/// One document of a VAST chain, fetched and checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct VastHop {
    /// The URL fetched.
    pub url: String,
    /// The HTTP status, when an answer came.
    pub status: Option<u16>,
    /// Why the chain stopped here without a document to check, or could go no further
    /// (a wrapper past the limit, a loop, a next URL that is not http or https).
    pub problem: Option<String>,
    /// The document's warnings and infos, lines in this document.
    pub findings: Vec<Finding>,
    /// What the document holds, when one was read.
    pub summary: Option<VastSummary>,
}

/// A URL the fetch accepts: http or https, nothing else (no `file:`, no `data:`).
fn parse_http(url: &str) -> Result<Url> {
    let parsed = Url::parse(url.trim()).map_err(|e| {
        Error::invalid(
            "url",
            "INVALID_URL",
            &format!("\"{url}\" is not a URL: {e}"),
        )
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(Error::invalid(
            "url",
            "INVALID_URL",
            &format!(
                "only http:// and https:// VAST URLs are fetched, not {}:",
                parsed.scheme()
            ),
        ));
    }
    Ok(parsed)
}

/// Fetches `url` and the wrappers it leads to, with the given limits; findings are
/// placed at `path`, the field holding the URL.
pub async fn fetch_chain(
    path: &str,
    url: &str,
    timeout: Duration,
    max_bytes: usize,
) -> Result<Vec<VastHop>> {
    let mut next = parse_http(url)?;
    let mut hops: Vec<VastHop> = Vec::new();
    loop {
        let got = fetch_public(&next, timeout, max_bytes).await;
        let mut hop = VastHop {
            url: next.to_string(),
            status: got.status,
            problem: got.problem,
            findings: Vec::new(),
            summary: None,
        };
        let Some(body) = got.body.filter(|_| hop.problem.is_none()) else {
            hops.push(hop);
            break;
        };
        vast::check_vast_xml(path, &body, &mut hop.findings);
        let summary = inspect_vast(&body);
        let wrapper = flightdeck_workbench::vast_wrapper_uri(&summary).map(str::to_owned);
        hop.summary = Some(summary);
        let Some(wrapper) = wrapper else {
            hops.push(hop);
            break;
        };
        // The hops so far, this one included, less the first (the tag itself).
        if hops.len() >= WRAPPER_DEPTH_MAX {
            hop.problem = Some(format!(
                "more than {WRAPPER_DEPTH_MAX} wrappers: a player gives up here"
            ));
            hops.push(hop);
            break;
        }
        let resolved = next.join(wrapper.trim()).map_err(|e| e.to_string());
        match resolved {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {
                if u == next || hops.iter().any(|h| h.url == u.as_str()) {
                    hop.problem = Some(format!("the wrapper points back at {u}: a loop"));
                    hops.push(hop);
                    break;
                }
                hops.push(hop);
                next = u;
            }
            Ok(u) => {
                hop.problem = Some(format!(
                    "the wrapper's next document is not http or https: {}:",
                    u.scheme()
                ));
                hops.push(hop);
                break;
            }
            Err(e) => {
                hop.problem = Some(format!("the wrapper's VASTAdTagURI is not a URL: {e}"));
                hops.push(hop);
                break;
            }
        }
    }
    Ok(hops)
}

impl Account {
    /// "Fetch and check" the VAST URL in field `path`: the tag and up to
    /// [`WRAPPER_DEPTH_MAX`] wrappers, each fetched without credentials within
    /// [`FETCH_TIMEOUT`] and [`FETCH_MAX_BYTES`], and checked. Never run by itself.
    pub async fn fetch_vast(&self, path: &str, url: &str) -> Result<Vec<VastHop>> {
        fetch_chain(path, url, FETCH_TIMEOUT, FETCH_MAX_BYTES).await
    }
}
