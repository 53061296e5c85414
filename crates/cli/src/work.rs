//! Workspace commands over the core's account, as the app runs them: download
//! (`Account::download`), list pending changes, discard, post
//! (`Account::push`) and settle reviews.

use std::time::Duration;

use flightdeck_core::query::TableQuery;
use flightdeck_model::validate;
use flightdeck_offline::change::{ChangeStatus, Kind};
use flightdeck_offline::sync::PushOptions;
use flightdeck_offline::workspace::{PullScope, Review};

use crate::output::{self, output, shown, spinner};
use crate::{CliError, Ctx};

/// Download the account into the local workspace (entities with pending changes are kept).
#[derive(clap::Args)]
pub struct PullArgs {
    /// Only this advertiser, its campaigns, ad orders and caps.
    #[arg(long, conflicts_with = "campaign")]
    advertiser: Option<i64>,
    /// Only this campaign's ad orders and creatives, through the campaign-scoped
    /// listings (the campaign must have been downloaded).
    #[arg(long)]
    campaign: Option<i64>,
}

/// `flightdeck pull`.
pub async fn pull(ctx: &Ctx, args: PullArgs) -> Result<(), CliError> {
    ctx.account.require_signed()?;
    let account = ctx.work()?;
    let scope = args
        .advertiser
        .map_or(PullScope::All, PullScope::Advertiser);
    let bar = spinner("the account");
    let report = match args.campaign {
        Some(campaign) => account.download_campaign(campaign).await,
        None => {
            account
                .download(scope, |p| {
                    bar.set_message(format!("downloading {}: {}", p.kind.label(), p.done));
                })
                .await
        }
    };
    bar.finish_and_clear();
    let report = report?;
    if ctx.json {
        return output::json(&report);
    }
    let kinds: &[Kind] = match args.campaign {
        Some(_) => &[Kind::AdOrder, Kind::Creative],
        None => &flightdeck_core::scope::DOWNLOADED,
    };
    for &kind in kinds {
        let c = report.of(kind);
        println!(
            "{:<18} {} added, {} changed, {} removed on the server, {} kept (pending changes)",
            kind.label(),
            c.added,
            c.changed,
            c.removed,
            c.skipped_pending
        );
    }
    for notice in &report.notices {
        println!("{}", notice.text());
    }
    Ok(())
}

/// List the workspace's pending changes.
#[derive(clap::Args)]
pub struct ChangesArgs {
    /// Show each change's fields: before and after.
    #[arg(long)]
    diff: bool,
}

/// `flightdeck changes`: the app's review views, then the money review.
pub fn changes(ctx: &Ctx, args: ChangesArgs) -> Result<(), CliError> {
    let account = ctx.work()?;
    if ctx.json {
        return output::json(&account.pending_changes()?);
    }
    let views = account.pending_window(&TableQuery::all())?.rows;
    let what = |kind: &str, key: &dyn std::fmt::Display| format!("{kind} {key}");
    output(
        false,
        &views,
        &["change", "what", "operation", "status", "problems"],
        |c| {
            vec![
                c.seq.to_string(),
                what(&c.kind_label, &c.target.key),
                format!("{:?}", c.op).to_lowercase(),
                format!("{:?}", c.status).to_lowercase(),
                c.errors.len().to_string(),
            ]
        },
    )?;
    if args.diff {
        for c in &views {
            println!("change {} ({}):", c.seq, what(&c.kind_label, &c.target.key));
            for d in &c.diff {
                let before = d.before_text.clone().unwrap_or_else(|| shown(&d.before));
                let after = d.after_text.clone().unwrap_or_else(|| shown(&d.after));
                println!("  {}: {before} -> {after}", d.path);
            }
            // The three values are what the buyer needs to choose: edit or discard.
            if c.status == ChangeStatus::Conflict {
                println!("  in conflict with the ad platform:");
                for f in &c.conflicts {
                    println!(
                        "    {}: base {}, mine {}, theirs {}",
                        f.path,
                        shown(&f.base),
                        shown(&f.mine),
                        shown(&f.theirs)
                    );
                }
            }
        }
    }
    crate::bulk::print_money(&account.money_summary()?);
    Ok(())
}

/// Drop pending changes (with the drafts that depend on them).
#[derive(clap::Args)]
pub struct DiscardArgs {
    /// Change numbers, as `changes` shows them.
    #[arg(required = true)]
    changes: Vec<i64>,
}

/// `flightdeck discard`.
pub fn discard(ctx: &Ctx, args: DiscardArgs) -> Result<(), CliError> {
    let gone = ctx.work()?.discard(&args.changes)?;
    eprintln!("Discarded {} change(s): {gone:?}", gone.len());
    Ok(())
}

/// Post the pending changes, each exactly once.
#[derive(clap::Args)]
pub struct PushArgs {
    /// Requests in flight at once.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Give up on an answer after this many seconds (default 60). A create whose
    /// answer is lost is believed absent only twice this long after it was sent.
    #[arg(long, value_name = "SECONDS")]
    request_timeout: Option<f64>,
}

impl PushArgs {
    /// `--request-timeout`, checked.
    pub fn timeout(&self) -> Result<Option<Duration>, CliError> {
        self.request_timeout
            .map(|seconds| {
                Duration::try_from_secs_f64(seconds)
                    .ok()
                    .filter(|t| !t.is_zero())
                    .ok_or_else(|| {
                        CliError::Usage(
                            "--request-timeout must be a number of seconds above 0".into(),
                        )
                    })
            })
            .transpose()
    }
}

/// `flightdeck push`: the app's post, waited for.
pub async fn push(ctx: &Ctx, args: PushArgs) -> Result<(), CliError> {
    ctx.account.require_signed()?;
    let account = ctx.work()?;
    let bar = spinner("pending changes");
    let options = PushOptions {
        concurrency: args.concurrency.max(1),
        ..PushOptions::default()
    };
    let report = account
        .push(&options, |p| {
            bar.set_message(format!("posting: {} of {} done", p.done, p.total));
        })
        .await;
    bar.finish_and_clear();
    let report = report?;
    if ctx.json {
        output::json(&report)?;
    } else {
        print_push(&report);
    }
    if report.is_complete() {
        Ok(())
    } else {
        Err(CliError::Usage(
            "some changes were not posted; see above".into(),
        ))
    }
}

fn print_push(report: &flightdeck_offline::sync::PushReport) {
    println!(
        "{} applied, {} rejected, {} to review, {} in conflict, {} held, {} still pending",
        report.applied.len(),
        report.failed.len(),
        report.needs_review.len(),
        report.conflicts.len(),
        report.held.len(),
        report.unsent.len()
    );
    let lists = [
        ("rejected", &report.failed),
        ("to review", &report.needs_review),
        ("still pending", &report.unsent),
    ];
    for (what, outcomes) in lists {
        for o in outcomes {
            let texts: Vec<&str> = o.messages.iter().map(|m| m.message.as_str()).collect();
            println!("change {} {what}: {}", o.seq, texts.join("; "));
        }
    }
    for c in &report.conflicts {
        let fields: Vec<&str> = c.fields.iter().map(|f| f.path.as_str()).collect();
        println!("change {} in conflict on {}", c.seq, fields.join(", "));
    }
    for h in &report.held {
        println!("change {} held: {}", h.seq, h.reason);
    }
    if let Some(why) = &report.stopped {
        println!("stopped: {why}");
    }
    if let Some(why) = &report.unreachable {
        println!(
            "not posted: the ad platform cannot be reached ({why}); nothing failed, every \
             change waits: run `flightdeck push` again once it is back"
        );
    }
}

/// Settle changes that need review (sent, the answer lost, and the ad platform offers
/// no way to look them up). Alone it lists them with what is known; with a change it
/// shows it, or settles it with --post-again or --created ID.
#[derive(clap::Args)]
pub struct ReviewArgs {
    /// The change, as `changes` numbers it.
    change: Option<i64>,
    /// The ad platform does not have it: post it again with the next push.
    #[arg(long, requires = "change", conflicts_with = "created")]
    post_again: bool,
    /// The ad platform has it, under this id: record it as created, so what waits on
    /// it can be posted.
    #[arg(long, requires = "change", value_name = "ID")]
    created: Option<i64>,
}

/// `flightdeck review`: the changes that need review with what is known, one in full,
/// or one settled with the buyer's verdict.
pub fn review(ctx: &Ctx, args: ReviewArgs) -> Result<(), CliError> {
    let account = ctx.work()?;
    let Some(seq) = args.change else {
        return list_reviews(ctx);
    };
    let verdict = match (args.post_again, args.created) {
        (true, _) => Some(Review::PostAgain),
        (false, Some(id)) => Some(Review::Created { id }),
        (false, None) => None,
    };
    if let Some(verdict) = verdict {
        let label = account.review(seq)?.label;
        account.settle_review(seq, verdict)?;
        match verdict {
            Review::PostAgain => {
                eprintln!("Change {seq} ({label}) will be posted again by the next push.");
            }
            Review::Created { id } => {
                eprintln!("Change {seq} ({label}) is recorded as created, with id {id}.");
            }
        }
        return Ok(());
    }
    let r = account.review(seq)?;
    if ctx.json {
        return output::json(&r);
    }
    println!(
        "change {}: {} {} ({:?})",
        r.seq, r.kind_label, r.label, r.op
    );
    if let (Some(reference), Some(field)) = (&r.reference, &r.reference_field) {
        println!("reference: {field} = {reference}");
    }
    if let Some(at) = r.sent_at {
        println!("sent: {}", validate::format_millis(at));
    }
    for m in &r.messages {
        println!("{}: {}", m.code, m.message);
    }
    println!("what was sent:");
    for d in &r.sent {
        println!("  {}: {}", d.path, shown(&d.after));
    }
    println!("{}.", r.how_to_check);
    if r.can_mark_created {
        println!(
            "Then: flightdeck review {seq} --post-again (it is not there), or --created ID (it is)"
        );
    } else {
        println!("Then: flightdeck review {seq} --post-again, or discard it");
    }
    Ok(())
}

fn list_reviews(ctx: &Ctx) -> Result<(), CliError> {
    let all = ctx.work()?.reviews()?;
    if ctx.json {
        return output::json(&all);
    }
    output(
        false,
        &all,
        &["change", "what", "reference", "sent", "how to check"],
        |r| {
            vec![
                r.seq.to_string(),
                format!("{} {}", r.kind_label, r.label),
                r.reference.clone().unwrap_or_default(),
                r.sent_at.map(validate::format_millis).unwrap_or_default(),
                r.how_to_check.clone(),
            ]
        },
    )?;
    if !all.is_empty() {
        println!("Settle one: flightdeck review CHANGE --post-again, or --created ID");
    }
    Ok(())
}
