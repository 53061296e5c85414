//! Listings from the ad platform (`advertisers list`, `campaigns list`, `adorders list`,
//! `audiences list`), printed in the columns of the core's tables
//! (`flightdeck_core::query::columns` and `cells`, the app's columns), and `columns`,
//! which prints those columns.

use clap::Subcommand;
use flightdeck_client::{Client, ServerMessage};
use flightdeck_core::query::{cells, columns};
use flightdeck_offline::change::Kind;
use futures_util::StreamExt;
use serde::Serialize;

use crate::kinds;
use crate::output::{self, output, spinner, wire_text, with_spinner};
use crate::upload::UploadArgs;
use crate::{CliError, Ctx};

/// A listing's one action.
#[derive(Subcommand)]
pub enum List {
    /// List them.
    List,
}

/// The campaigns' listing, of one advertiser.
#[derive(Subcommand)]
pub enum CampaignList {
    /// List them.
    List {
        /// Advertiser id.
        #[arg(long)]
        advertiser: i64,
    },
}

/// What `audiences` does.
#[derive(Subcommand)]
pub enum AudienceAction {
    /// List the account's segments (from the ad platform).
    List,
    /// Add the identifiers of a file to a segment: one per line, or one column of a CSV.
    /// The upload is queued in the workspace and posted at once (with the segment, if it
    /// is a draft); offline, or with `--offline`, it waits for `flightdeck push`.
    Upload(UploadArgs),
}

/// The columns of a kind's table, as the app's tables and these listings show them.
#[derive(clap::Args)]
pub struct ColumnsArgs {
    /// The kind.
    #[arg(value_parser = kinds::TABLES)]
    kind: Kind,
}

/// `flightdeck columns`: the core's column list of a kind, ids and headers.
pub fn columns_of(ctx: &Ctx, a: ColumnsArgs) -> Result<(), CliError> {
    let list = columns(a.kind);
    output(ctx.json, &list, &["id", "header"], |c| {
        vec![c.id.clone(), c.header.clone()]
    })
}

/// `flightdeck advertisers list`.
pub async fn advertisers(ctx: &Ctx) -> Result<(), CliError> {
    let client = client(ctx)?;
    let reply = with_spinner(Kind::Advertiser.plural(), client.advertisers(None)).await?;
    print_messages(&reply.messages);
    listing(ctx.json, Kind::Advertiser, &reply.entity, |_| None)
}

/// `flightdeck campaigns list --advertiser ID`.
pub async fn campaigns(ctx: &Ctx, advertiser: i64) -> Result<(), CliError> {
    let client = client(ctx)?;
    let reply = with_spinner(
        Kind::Campaign.plural(),
        client.campaigns_by_advertiser(advertiser),
    )
    .await?;
    print_messages(&reply.messages);
    let parent = advertiser.to_string();
    listing(ctx.json, Kind::Campaign, &reply.entity, |_| {
        Some(parent.clone())
    })
}

/// `flightdeck adorders list`.
pub async fn ad_orders(ctx: &Ctx) -> Result<(), CliError> {
    let client = client(ctx)?;
    let reply = with_spinner(Kind::AdOrder.plural(), client.all_ad_orders()).await?;
    print_messages(&reply.messages);
    listing(ctx.json, Kind::AdOrder, &reply.entity, |o| {
        o.campaign_id.map(|id| id.to_string())
    })
}

/// `flightdeck audiences list`.
pub async fn audiences(ctx: &Ctx) -> Result<(), CliError> {
    let client = client(ctx)?;
    let bar = spinner(Kind::AudienceSegment.plural());
    let mut stream = std::pin::pin!(client.audiences_stream(100));
    let mut segments = Vec::new();
    while let Some(item) = stream.next().await {
        segments.push(item?);
        bar.set_message(format!(
            "{}: {}",
            Kind::AudienceSegment.plural(),
            segments.len()
        ));
    }
    bar.finish_and_clear();
    listing(ctx.json, Kind::AudienceSegment, &segments, |_| None)
}

/// The client of the profile's signed-in session.
fn client(ctx: &Ctx) -> Result<Client, CliError> {
    Ok(ctx.account.require_signed()?.client)
}

fn print_messages(messages: &[ServerMessage]) {
    for m in messages {
        eprintln!("{}: {}", wire_text(&m.level).to_lowercase(), m.message);
    }
}

/// `items` as JSON, or as a table in the core's columns of `kind`; `parent` is what
/// the parent column shows for an item (the service names parents by id).
fn listing<T: Serialize>(
    json: bool,
    kind: Kind,
    items: &[T],
    parent: impl Fn(&T) -> Option<String>,
) -> Result<(), CliError> {
    if json {
        return output::json(items);
    }
    let headers: Vec<String> = columns(kind).into_iter().map(|c| c.header).collect();
    let header: Vec<&str> = headers.iter().map(String::as_str).collect();
    output(false, items, &header, |item| {
        let text = serde_json::to_string(item).unwrap_or_default();
        cells(kind, &text, parent(item).as_deref())
    })
}
