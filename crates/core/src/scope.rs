//! What a download may fetch, by the kind of account signed in. One home for the rule,
//! so the app and the CLI download the same things for the same account.

use flightdeck_offline::change::Kind;
use flightdeck_offline::workspace::PullOptions;

/// The kinds a download fetches, in the order hosts list their counts. Creatives come
/// through each campaign's listing (those tied only to an advertiser are not listed);
/// site lists have no listing on the service: the workspace is their only record.
pub const DOWNLOADED: [Kind; 6] = [
    Kind::Advertiser,
    Kind::Campaign,
    Kind::AdOrder,
    Kind::FlightCaps,
    Kind::Creative,
    Kind::AudienceSegment,
];

/// The download options for an account: data partners may use only the audience
/// endpoints, so their downloads skip advertisers, campaigns, ad orders, caps and
/// creatives; agencies fetch them all.
pub fn pull_options(partner: bool) -> PullOptions {
    if partner {
        PullOptions {
            business: false,
            creatives: false,
            ..PullOptions::default()
        }
    } else {
        PullOptions {
            creatives: true,
            ..PullOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partners_download_only_audiences() {
        let p = pull_options(true);
        assert!(!p.business && !p.creatives);
        assert!(p.audiences);
        let u = pull_options(false);
        assert!(u.business && u.audiences && u.flight_caps && u.creatives);
    }
}
