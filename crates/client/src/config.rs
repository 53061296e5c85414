//! Client configuration, shared by the API client and the token flows so that both
//! talk to the service the same way.

use std::time::Duration;

use url::Url;

use crate::error::{Error, Result};

/// How to reach the service.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Service root, such as `http://127.0.0.1:8700` (paths carry `/v1`).
    pub base_url: Url,
    /// Time to establish a connection.
    pub connect_timeout: Duration,
    /// Time for a whole request, answer included.
    pub request_timeout: Duration,
    /// `User-Agent` header.
    pub user_agent: String,
    /// Largest answer read whole (an entity, messages). Reading stops beyond it, so a
    /// hostile or broken server cannot exhaust memory. Token answers have their own,
    /// smaller cap (1 MB).
    pub max_answer_bytes: usize,
    /// Largest listing (every ad order of an account, downloaded at once). Beyond it the
    /// download stops with [`Error::ListingTooLarge`].
    pub max_listing_bytes: usize,
}

/// [`ClientConfig::max_answer_bytes`] by default: far above any entity or message list.
pub const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;
/// [`ClientConfig::max_listing_bytes`] by default: 1 GiB. The largest listing measured,
/// 100,000 ad orders in the client bench, is 50 MB (about 500 bytes an ad order), and the
/// UI bench loads a million (about 500 MB); 1 GiB is twice that, about two million ad
/// orders, and, held once as decoded items, still fits a desktop's memory.
pub const MAX_LISTING_BYTES: usize = 1024 * 1024 * 1024;

/// Whether `url` names this machine: a loopback address, or `localhost`.
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

impl ClientConfig {
    /// Defaults for `base_url`: 10 s to connect, 60 s per request.
    pub fn new(base_url: &str) -> Result<Self> {
        let mut base_url = Url::parse(base_url)
            .map_err(|e| Error::Config(format!("base URL \"{base_url}\" is not a URL: {e}")))?;
        match base_url.scheme() {
            "https" => {}
            // The password goes out as Basic on sign-in and on every renewal: in the clear
            // only to this machine (the embedded sandbox, a local test service).
            "http" if is_loopback(&base_url) => {}
            "http" => {
                return Err(Error::Config(format!(
                    "base URL \"{base_url}\" must use https:// (plain http:// only reaches this \
                     machine: 127.0.0.1, [::1] or localhost); the password would cross the \
                     network unencrypted"
                )));
            }
            _ => {
                return Err(Error::Config(format!(
                    "base URL \"{base_url}\" must start with https://"
                )));
            }
        }
        // Joining relative paths needs a trailing slash on the root.
        if !base_url.path().ends_with('/') {
            let path = format!("{}/", base_url.path());
            base_url.set_path(&path);
        }
        Ok(Self {
            base_url,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            user_agent: format!("flightdeck/{}", env!("CARGO_PKG_VERSION")),
            max_answer_bytes: MAX_ANSWER_BYTES,
            max_listing_bytes: MAX_LISTING_BYTES,
        })
    }

    /// The absolute URL of a service path such as `/v1/advertiser`.
    pub fn url(&self, path: &str) -> Result<Url> {
        self.base_url
            .join(path.trim_start_matches('/'))
            .map_err(|e| Error::Config(format!("bad path {path}: {e}")))
    }

    /// An HTTP client that never follows redirects (so credentials and codes cannot be
    /// sent to a third party) and applies the timeouts.
    pub fn http_client(&self) -> Result<reqwest::Client> {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(self.connect_timeout)
            .timeout(self.request_timeout)
            .user_agent(self.user_agent.clone())
            .build()
            .map_err(|e| Error::Config(format!("building the HTTP client: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_reaches_only_this_machine() {
        for ok in [
            "https://ads.example.com",
            "http://127.0.0.1:8700",
            "http://127.1.2.3",
            "http://[::1]:8700/",
            "http://localhost:8700",
            "http://LOCALHOST",
        ] {
            assert!(ClientConfig::new(ok).is_ok(), "{ok}");
        }
        for refused in [
            "http://ads.example.com",
            "http://10.0.0.5:8700",
            "http://localhost.example.com",
            "http://127.0.0.1.nip.io",
            "ftp://ads.example.com",
        ] {
            let e = ClientConfig::new(refused).err().map(|e| e.to_string());
            assert!(
                e.as_deref().is_some_and(|m| m.contains("https://")),
                "{refused}: {e:?}"
            );
        }
    }
}
