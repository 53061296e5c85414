//! What a download may fetch, by the kind of account signed in. One home for the rule,
//! so the app and the CLI download the same things for the same account.

use flightdeck_offline::workspace::PullOptions;

/// The download options for an account: data partners may use only the audience
/// endpoints, so their downloads skip advertisers, campaigns, ad orders and caps.
pub fn pull_options(partner: bool) -> PullOptions {
    if partner {
        PullOptions {
            business: false,
            ..PullOptions::default()
        }
    } else {
        PullOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partners_download_only_audiences() {
        let p = pull_options(true);
        assert!(!p.business);
        assert!(p.audiences);
        let u = pull_options(false);
        assert!(u.business && u.audiences && u.flight_caps);
    }
}
