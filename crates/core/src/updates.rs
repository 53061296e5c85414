//! Where the app looks for new versions. The release workflow builds the feed's address
//! into the app (`FLIGHTDECK_UPDATE_FEED` at build time); the same variable at run time
//! overrides it, for a company mirror or a test server. `{channel}` in the address
//! stands for the channel chosen in Settings. What the feed offers is trusted only once
//! its signature matches the key built into the app, wherever the feed is.

use url::Url;

use crate::settings::UpdateChannel;
use crate::{Error, Result};

/// Overrides the build's update feed (an address with an optional `{channel}`).
pub const UPDATE_FEED_ENV: &str = "FLIGHTDECK_UPDATE_FEED";

/// The feed built into a release (unset in development and CI builds).
const BUILT_IN_FEED: Option<&str> = option_env!("FLIGHTDECK_UPDATE_FEED");

/// The feed for `channel`, or `None` when this build names none.
pub fn feed(channel: UpdateChannel) -> Result<Option<Url>> {
    let runtime = std::env::var(UPDATE_FEED_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty());
    let Some(template) = runtime.or_else(|| BUILT_IN_FEED.map(str::to_owned)) else {
        return Ok(None);
    };
    feed_from(&template, channel).map(Some)
}

fn feed_from(template: &str, channel: UpdateChannel) -> Result<Url> {
    let address = template.trim().replace("{channel}", channel.as_str());
    Url::parse(&address)
        .ok()
        .filter(|u| matches!(u.scheme(), "https" | "http"))
        .ok_or_else(|| {
            Error::invalid(
                UPDATE_FEED_ENV,
                flightdeck_model::validate::codes::INVALID,
                &format!("not an http(s) address: {address:?}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_channel_goes_into_the_address() -> Result<()> {
        let t = "https://updates.example.com/flightdeck/{channel}/latest.json";
        assert_eq!(
            feed_from(t, UpdateChannel::Beta)?.as_str(),
            "https://updates.example.com/flightdeck/beta/latest.json"
        );
        assert_eq!(
            feed_from("https://x.example/latest.json", UpdateChannel::Stable)?.as_str(),
            "https://x.example/latest.json"
        );
        Ok(())
    }

    #[test]
    fn a_bad_address_names_the_variable() {
        let err = feed_from("file:///etc/passwd", UpdateChannel::Stable)
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|m| m.starts_with("FLIGHTDECK_UPDATE_FEED: not an http(s) address")),
            "{err:?}"
        );
    }
}
