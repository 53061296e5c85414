//! The campaign- and ad-order-scoped listings of the service's reference, as hosts use
//! them: refreshing one campaign, an ad order's associated creatives (kept in the
//! workspace for offline), and what a creative's form says when it came from a listing.

use std::sync::Arc;

use flightdeck_model::Id;
use flightdeck_model::trafficking::ListedCreative;
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{PullReport, creative_from_listing};
use serde::{Deserialize, Serialize};

use super::{Account, PullSummary};
use crate::bulk::Changed;
use crate::{Error, Result};

/// What a creative's form says when the creative came from the service's listing,
/// which carries none of the type-specific content.
pub const LISTED_CREATIVE_NOTE: &str = "Downloaded from the ad platform's creative listing. \
     The listing does not carry the creative's type or its content (HTML, image, video, \
     audio or native assets), so they are not available from the service.";

/// One creative associated with an ad order, as its form lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct AssociatedCreative {
    /// The service's id.
    pub id: Option<Id>,
    /// Its name, or `creative <id>`.
    pub name: String,
    /// Its review status as the service lists it (`APPROVED`, `PENDING` …), or
    /// `unknown`.
    pub status: String,
}

/// An ad order's associated creatives: fetched now, or as last fetched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct AdOrderCreatives {
    /// The creatives, in the service's order.
    pub creatives: Vec<AssociatedCreative>,
    /// When the list was fetched (Unix ms); `None` when it never was.
    pub fetched_at: Option<i64>,
    /// Why the list is not fresh from the service (offline, not signed in, the service
    /// does not list them); `None` when it is.
    pub stale: Option<String>,
}

fn associated(c: &ListedCreative) -> AssociatedCreative {
    let status = c
        .status
        .as_ref()
        .and_then(|s| serde_json::to_value(s).ok())
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned());
    AssociatedCreative {
        id: c.id,
        name: c.name.clone().unwrap_or_else(|| match c.id {
            Some(id) => format!("creative {id}"),
            None => "creative".to_owned(),
        }),
        status,
    }
}

/// Why an ad order's creatives could not be fetched, in the buyer's words.
fn stale_because(e: &Error) -> String {
    use flightdeck_client::Error as C;
    match e {
        // Older deployments lack the listing (as the download's notice says).
        Error::Client(C::Rejected { status: 405, .. }) => {
            "The ad platform does not list an ad order's creatives (HTTP 405).".to_owned()
        }
        Error::Client(C::NotFound { .. }) => {
            "The ad platform does not list this ad order's creatives (HTTP 404): it may \
             not offer the listing, or the ad order is gone."
                .to_owned()
        }
        other => format!("Not fetched now: {other}"),
    }
}

impl Account {
    /// The creatives associated with ad order `ad_order` (`getCreativesByAdOrder`).
    /// Online, fetched and kept in the workspace; when the service cannot be asked or
    /// answers with an error, the list as last fetched, with why it is not fresh.
    pub async fn ad_order_creatives(&self, ad_order: Id) -> Result<AdOrderCreatives> {
        let fetched = match self.require_signed() {
            Ok(signed) => signed
                .client
                .creatives_by_ad_order(ad_order)
                .await
                .map_err(Error::from),
            Err(e) => Err(e),
        };
        match fetched {
            Ok(reply) => {
                let now = flightdeck_client::now_ms();
                self.workspace()?
                    .keep_ad_order_creatives(ad_order, &reply.entity, now)?;
                Ok(AdOrderCreatives {
                    creatives: reply.entity.iter().map(associated).collect(),
                    fetched_at: Some(now),
                    stale: None,
                })
            }
            Err(e) => {
                let kept = self.workspace()?.kept_ad_order_creatives(ad_order)?;
                let (creatives, fetched_at) = match kept {
                    Some((list, at)) => (list.iter().map(associated).collect(), Some(at)),
                    None => (Vec::new(), None),
                };
                Ok(AdOrderCreatives {
                    creatives,
                    fetched_at,
                    stale: Some(stale_because(&e)),
                })
            }
        }
    }

    /// Downloads one campaign's ad orders and creatives through the campaign-scoped
    /// listings ([`flightdeck_offline::workspace::Workspace::pull_campaign`]), on a
    /// connection of its own, as [`Account::download`] does for the account.
    pub async fn download_campaign(self: &Arc<Self>, campaign: Id) -> Result<PullReport> {
        let mut halt = self.halt.subscribe();
        let signed = self.require_signed()?;
        let mut ws = self.open_workspace()?;
        let report = tokio::select! {
            r = ws.pull_campaign(&signed.client, campaign) => r.map_err(Error::from),
            _ = halt.changed() => Err(Error::SandboxStopped),
        };
        drop(signed);
        self.tables.clear();
        self.warm_tables();
        report
    }

    /// [`Account::download_campaign`] as the app's "Refresh this campaign" reports it:
    /// what it found summed over the kinds, and the entities it changed.
    pub async fn refresh_campaign(
        self: &Arc<Self>,
        campaign: Id,
    ) -> Result<(PullSummary, Changed)> {
        let report = self.download_campaign(campaign).await?;
        Ok((PullSummary::of(&report), Changed::pulled(&report)))
    }

    /// The note a creative's form shows about what the service does not give, or
    /// `None`: a creative downloaded from the listing has no type nor content.
    pub fn creative_note(&self, target: &EntityRef) -> Result<Option<&'static str>> {
        if target.kind != Kind::Creative {
            return Ok(None);
        }
        let ws = self.workspace()?;
        let Some(entity) = ws.get(target)? else {
            return Ok(None);
        };
        let listed = entity.base.as_ref().is_some_and(creative_from_listing);
        Ok(listed.then_some(LISTED_CREATIVE_NOTE))
    }
}
