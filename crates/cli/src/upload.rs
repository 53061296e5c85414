//! `audiences upload`: identifiers from a file, queued by the core
//! (`Account::upload_file`, the workspace's split into requests) and posted at once with
//! the app's post (`Account::push`), or left for `flightdeck push`.

use std::path::PathBuf;

use flightdeck_core::upload::UploadState;
use flightdeck_model::validate;
use flightdeck_offline::change::Kind;
use flightdeck_offline::sync::PushOptions;

use crate::kinds::target;
use crate::output::{self, spinner};
use crate::{CliError, Ctx};

/// Add the identifiers of a file to a segment: one per line, or one column of a CSV.
/// The upload is queued in the workspace and posted at once (with the segment, if it
/// is a draft); offline, or with `--offline`, it waits for `flightdeck push`.
#[derive(clap::Args)]
pub struct UploadArgs {
    /// The segment: its serviceSegmentId, or a draft's key as `changes` shows it.
    segment: String,
    /// The file of identifiers (hashed e-mails, phone hashes, mobile ids …).
    file: PathBuf,
    /// Country of the identifiers (ISO 3166 two letters).
    #[arg(long, default_value = "US")]
    country: String,
    /// The CSV column to take (default: the only one, or the one named like
    /// identifiers: value, identifier, email, phone …).
    #[arg(long)]
    column: Option<String>,
    /// Only queue it; `flightdeck push` posts it later.
    #[arg(long)]
    offline: bool,
}

/// `flightdeck audiences upload`: queues, posts (unless offline), prints the counts.
pub async fn upload(ctx: &Ctx, a: UploadArgs) -> Result<(), CliError> {
    let account = ctx.work()?;
    let segment = target(&*ctx.read()?, Kind::AudienceSegment, &a.segment)?;
    let post_now = !a.offline && signed_in(ctx)?;
    let queued = match account.upload_file(&segment, &a.file, &a.country, a.column.as_deref()) {
        Ok(q) => q,
        // Refused here as the service would refuse it: nothing is queued.
        Err(flightdeck_core::Error::Offline(flightdeck_offline::Error::Refused(errors))) => {
            for e in &errors.0 {
                eprintln!("  {e}");
            }
            return Err(CliError::Usage(format!(
                "{} of the upload's records would be refused by the ad platform; nothing was queued",
                validate::bad_records(&errors).max(1)
            )));
        }
        Err(e) => return Err(e.into()),
    };
    let seqs = &queued.seqs;
    let changes = match (seqs.first(), seqs.last()) {
        (Some(first), Some(last)) if first != last => {
            format!(
                "{} changes, {first} to {last} (one per request)",
                seqs.len()
            )
        }
        _ => format!("change {}", seqs.first().copied().unwrap_or_default()),
    };
    eprintln!(
        "Queued {} identifier(s) for {} as {changes}.",
        queued.identifiers,
        Kind::AudienceSegment.label()
    );
    if post_now {
        post(ctx, seqs).await?;
    }
    let shown = account.uploads_of(&segment, seqs)?;
    if ctx.json {
        // One object per request the upload took (usually one).
        output::json(&shown)?;
    } else {
        for (k, u) in shown.iter().enumerate() {
            let Some(r) = &u.result else { continue };
            let part = if shown.len() > 1 {
                format!("request {} of {}: ", k + 1, shown.len())
            } else {
                String::new()
            };
            println!(
                "{part}published {}, bad records {}, failed to publish {}: {}",
                r.published, r.bad_records, r.failed_publishes, r.message
            );
            if !r.bad_records_details.is_empty() {
                println!("{part}bad records: {}", r.bad_records_details);
            }
        }
    }
    let why = |m: Option<String>| m.map(|m| format!(" ({m})")).unwrap_or_default();
    match UploadState::of(&shown) {
        UploadState::Applied => Ok(()),
        UploadState::Refused(messages) => Err(CliError::Usage(format!(
            "the upload was not accepted: {}",
            messages.join("; ")
        ))),
        UploadState::NeedsReview(m) => {
            eprintln!("The upload needs your review{}.", why(m));
            Ok(())
        }
        UploadState::Waiting(m) => {
            eprintln!(
                "The upload waits in the workspace{}; `flightdeck push` posts it.",
                why(m)
            );
            Ok(())
        }
    }
}

/// Whether the upload can be posted now. Not signed in is "offline" here: the upload
/// waits in the workspace.
fn signed_in(ctx: &Ctx) -> Result<bool, CliError> {
    match ctx.account.require_signed().map_err(CliError::from) {
        Ok(_) => Ok(true),
        Err(e) if e.needs_sign_in() => {
            eprintln!("Not signed in ({e}); the upload waits in the workspace.");
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Posts the upload's changes (and a draft segment first).
async fn post(ctx: &Ctx, seqs: &[i64]) -> Result<(), CliError> {
    let options = PushOptions {
        only: Some(seqs.iter().copied().collect()),
        ..PushOptions::default()
    };
    let bar = spinner("the upload");
    let report = ctx
        .account
        .push(&options, |p| {
            bar.set_message(format!("posting: {} of {} done", p.done, p.total));
        })
        .await;
    bar.finish_and_clear();
    report?;
    Ok(())
}
