//! The offer to download an account at once after its first sign-in, as Google Ads
//! Editor makes it: made while the account's workspace holds no download and the offer
//! was not answered yet (remembered in `settings.json`, [`Settings::answer_download_offer`]).
//!
//! Its size is what one cheap call tells: the service's listings carry no totals and
//! campaigns are listed per advertiser, so the advertisers' listing (one request) is
//! counted and the rest is said to be unknown until it downloads. A data partner's
//! audiences are paged without a total: no size is offered for them.

use serde::Serialize;

use crate::settings::{Settings, offer_key};
use crate::{Core, Result};

/// The offer as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct DownloadOffer {
    /// The account signed in (username or partner client id).
    pub account: String,
    /// How many advertisers the service lists for it; `None` when not known (a data
    /// partner, or the listing failed).
    pub advertisers: Option<u32>,
}

impl Core {
    /// The first-download offer for the account signed in on the active profile, or
    /// `None`: nobody signed in, the workspace was downloaded before, or the offer was
    /// answered for this account.
    pub async fn download_offer(&self) -> Result<Option<DownloadOffer>> {
        let account = self.active()?;
        let Some(who) = account.signed_in_as() else {
            return Ok(None);
        };
        let key = offer_key(&account.profile.id, &who);
        if Settings::read(self.dir())?
            .download_offers_answered
            .contains(&key)
        {
            return Ok(None);
        }
        let downloaded = account.workspace()?.meta("last_pull_at")?.is_some();
        if downloaded {
            return Ok(None);
        }
        let advertisers = match account.signed() {
            Some(s) if !s.partner => s
                .client
                .advertisers(None)
                .await
                .ok()
                .map(|r| u32::try_from(r.entity.len()).unwrap_or(u32::MAX)),
            _ => None,
        };
        Ok(Some(DownloadOffer {
            account: who.account,
            advertisers,
        }))
    }

    /// Remembers that the account signed in answered the offer (downloaded or "Later"),
    /// so it is not made again.
    pub fn answer_download_offer(&self) -> Result<()> {
        let account = self.active()?;
        match account.signed_in_as() {
            Some(who) => {
                Settings::answer_download_offer(self.dir(), &offer_key(&account.profile.id, &who))
            }
            None => Ok(()),
        }
    }
}
