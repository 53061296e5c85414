//! Workspace commands: download, edit offline, review, check and post.

use std::path::{Path, PathBuf};

use flightdeck_client::Client;
use flightdeck_core::{Account, Signed, pending};
use flightdeck_model::validate;
use flightdeck_model::{AUDIENCE_UPLOAD_MAX_BYTES, AudienceDataRecord};
use flightdeck_offline::audience_file;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Key, Kind, PendingChange};
use flightdeck_offline::sync::{self, PushOptions};
use flightdeck_offline::workspace::{PullScope, Review, Workspace};
use serde_json::Value;

use crate::{CliError, EditKind, output, spinner};

/// The workspace file: the one given, or the profile's current account's, the same file
/// the desktop app uses.
pub fn open(account: &Account, path: Option<PathBuf>) -> Result<Workspace, CliError> {
    if let Some(path) = path {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| CliError::Usage(format!("creating {}: {e}", dir.display())))?;
        }
        return Ok(Workspace::open(&path)?);
    }
    if account.profile.last_account.is_none() {
        return Err(CliError::Usage(
            "no workspace yet: run `flightdeck login`, then `flightdeck pull`".into(),
        ));
    }
    Ok(account.open_workspace()?)
}

pub async fn pull(
    mut ws: Workspace,
    signed: &Signed,
    advertiser: Option<i64>,
    json: bool,
) -> Result<(), CliError> {
    let scope = advertiser.map_or(PullScope::All, PullScope::Advertiser);
    let bar = spinner("the account");
    let report = ws
        .pull_with(&signed.client, scope, signed.pull_options(), |p| {
            bar.set_message(format!("downloading {}: {}", p.kind.label(), p.done));
        })
        .await;
    bar.finish_and_clear();
    let report = report?;
    if json {
        let text =
            serde_json::to_string_pretty(&report).map_err(|e| CliError::Usage(e.to_string()))?;
        println!("{text}");
        return Ok(());
    }
    for kind in [
        Kind::Advertiser,
        Kind::Campaign,
        Kind::AdOrder,
        Kind::FlightCaps,
        Kind::AudienceSegment,
    ] {
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
    Ok(())
}

pub fn kind_of(kind: EditKind) -> Kind {
    match kind {
        EditKind::Advertiser => Kind::Advertiser,
        EditKind::Campaign => Kind::Campaign,
        EditKind::Adorder => Kind::AdOrder,
        EditKind::Caps => Kind::FlightCaps,
        EditKind::Creative => Kind::Creative,
        EditKind::Sitelist => Kind::SiteList,
        EditKind::Segment => Kind::AudienceSegment,
    }
}

/// The entity a command names: a numeric id (a segment's serviceSegmentId), or a draft by
/// the start of its key, as `changes` shows it (`draft 1a2b3c4d`, `1a2b3c4d`).
pub fn target(ws: &Workspace, kind: Kind, id: &str) -> Result<EntityRef, CliError> {
    let id = id.trim();
    let draft = id
        .strip_prefix("draft")
        .map(|rest| rest.trim_start_matches([' ', ':']));
    if draft.is_none() {
        let remote = match kind {
            Kind::AudienceSegment => Some(Key::Segment(id.to_owned())),
            _ => id.parse().ok().map(Key::Id),
        };
        if let Some(key) = remote {
            let t = EntityRef::new(kind, key);
            if ws.get(&t)?.is_some() {
                return Ok(t);
            }
        }
    }
    let prefix = draft.unwrap_or(id);
    let drafts: Vec<EntityRef> = if prefix.is_empty() {
        Vec::new()
    } else {
        ws.list(kind)?
            .into_iter()
            .map(|e| e.target)
            .filter(|t| matches!(&t.key, Key::Local(l) if l.starts_with(prefix)))
            .collect()
    };
    match drafts.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(CliError::Usage(format!(
            "{} {id} is not in the workspace: run `flightdeck pull` first \
             (drafts are named as `flightdeck changes` shows them)",
            kind.label()
        ))),
        _ => Err(CliError::Usage(format!(
            "{} drafts start with {prefix}; give more of the key",
            drafts.len()
        ))),
    }
}

/// What `flightdeck audiences upload` was asked to send.
pub struct Upload<'a> {
    /// The segment, as the command line names it.
    pub segment: &'a str,
    /// The file of identifiers.
    pub file: &'a Path,
    /// ISO 3166 country of the identifiers.
    pub country: &'a str,
    /// The CSV column to take.
    pub column: Option<&'a str>,
}

/// `flightdeck audiences upload`: reads the file, queues the upload in the workspace and,
/// with a client, posts it (and a draft segment first) like `push`; prints the counts.
pub async fn upload(
    mut ws: Workspace,
    client: Option<&Client>,
    upload: &Upload<'_>,
    json: bool,
) -> Result<(), CliError> {
    let segment = target(&ws, Kind::AudienceSegment, upload.segment)?;
    let text = std::fs::read_to_string(upload.file)
        .map_err(|e| CliError::Usage(format!("reading {}: {e}", upload.file.display())))?;
    let values = audience_file::identifiers(&text, upload.column)
        .map_err(|e| CliError::Usage(format!("{}: {e}", upload.file.display())))?;
    if values.is_empty() {
        return Err(CliError::Usage(format!(
            "{} holds no identifiers",
            upload.file.display()
        )));
    }
    let count = values.len();
    // The workspace normalises the country code (trim, upper case) for every host.
    let record = AudienceDataRecord {
        country_code: upload.country.to_owned(),
        values,
        ..AudienceDataRecord::default()
    };
    let seqs = match ws.upload_audience_data_split(
        &segment,
        vec![record],
        AUDIENCE_UPLOAD_MAX_BYTES,
    ) {
        Ok(seqs) => seqs,
        // Refused here as the service would refuse it: nothing is queued.
        Err(flightdeck_offline::Error::Refused(errors)) => {
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
        "Queued {count} identifier(s) for {} as {changes}.",
        Kind::AudienceSegment.label()
    );
    if let Some(client) = client {
        let options = PushOptions {
            only: Some(seqs.iter().copied().collect()),
            ..PushOptions::default()
        };
        let bar = spinner("the upload");
        let report = sync::push(&mut ws, client, &options, |p| {
            bar.set_message(format!("posting: {} of {} done", p.done, p.total));
        })
        .await;
        bar.finish_and_clear();
        report?;
    }
    let shown: Vec<_> = ws
        .audience_uploads(&segment)?
        .into_iter()
        .filter(|u| seqs.contains(&u.seq))
        .collect();
    if shown.len() != seqs.len() {
        return Err(CliError::Usage(
            "the upload is no longer in the workspace".to_owned(),
        ));
    }
    if json {
        // One object per request the upload took (usually one).
        let text =
            serde_json::to_string_pretty(&shown).map_err(|e| CliError::Usage(e.to_string()))?;
        println!("{text}");
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
    let not_accepted: Vec<String> = shown
        .iter()
        .filter(|u| {
            matches!(
                u.status,
                ChangeStatus::Failed | ChangeStatus::Invalid | ChangeStatus::Blocked
            )
        })
        .map(|u| u.message.clone().unwrap_or_default())
        .collect();
    if !not_accepted.is_empty() {
        return Err(CliError::Usage(format!(
            "the upload was not accepted: {}",
            not_accepted.join("; ")
        )));
    }
    if let Some(waiting) = shown.iter().find(|u| u.status != ChangeStatus::Applied) {
        let why = waiting
            .message
            .as_ref()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default();
        if waiting.status == ChangeStatus::NeedsReview {
            eprintln!("The upload needs your review{why}.");
        } else {
            eprintln!("The upload waits in the workspace{why}; `flightdeck push` posts it.");
        }
    }
    Ok(())
}

pub fn changes(ws: Workspace, diff: bool, json: bool) -> Result<(), CliError> {
    let pending = ws.pending()?;
    if json {
        return output(true, &pending, &[], |_| Vec::new());
    }
    output(
        false,
        &pending,
        &["change", "what", "operation", "status", "problems"],
        |c| {
            vec![
                c.seq.to_string(),
                describe(c),
                format!("{:?}", c.op).to_lowercase(),
                format!("{:?}", c.status).to_lowercase(),
                c.errors.len().to_string(),
            ]
        },
    )?;
    if diff {
        let show = |v: &Option<Value>| v.as_ref().map_or("(absent)".to_owned(), Value::to_string);
        for c in &pending {
            println!("change {} ({}):", c.seq, describe(c));
            for d in ws.pending_diff(c.seq)? {
                println!("  {}: {} -> {}", d.path, show(&d.before), show(&d.after));
            }
            // The three values are what the buyer needs to choose: edit or discard.
            if c.status == ChangeStatus::Conflict {
                println!("  in conflict with the ad platform:");
                for f in ws.conflicts(c.seq)? {
                    println!(
                        "    {}: base {}, mine {}, theirs {}",
                        f.path,
                        show(&f.base),
                        show(&f.mine),
                        show(&f.theirs)
                    );
                }
            }
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    crate::bulk::print_money(&ws.money_summary(now)?);
    Ok(())
}

pub fn check(mut ws: Workspace, json: bool) -> Result<(), CliError> {
    let problems = ws.check()?;
    let invalid: Vec<_> = problems.iter().filter(|(_, e)| !e.is_empty()).collect();
    if json {
        let text =
            serde_json::to_string_pretty(&invalid).map_err(|e| CliError::Usage(e.to_string()))?;
        println!("{text}");
    } else if invalid.is_empty() {
        println!("{} pending change(s), all valid.", problems.len());
    } else {
        for (seq, errors) in &invalid {
            println!("change {seq}:");
            for e in errors.iter() {
                println!("  {e}");
            }
        }
    }
    if invalid.is_empty() {
        Ok(())
    } else {
        Err(CliError::Usage(format!(
            "{} change(s) cannot be posted until fixed",
            invalid.len()
        )))
    }
}

pub fn discard(mut ws: Workspace, seqs: &[i64]) -> Result<(), CliError> {
    let gone = ws.discard_many(seqs)?;
    eprintln!("Discarded {} change(s): {gone:?}", gone.len());
    Ok(())
}

pub async fn push(
    mut ws: Workspace,
    client: &Client,
    concurrency: usize,
    json: bool,
) -> Result<(), CliError> {
    let bar = spinner("pending changes");
    let options = PushOptions {
        concurrency: concurrency.max(1),
        ..PushOptions::default()
    };
    let report = sync::push(&mut ws, client, &options, |p| {
        bar.set_message(format!("posting: {} of {} done", p.done, p.total));
    })
    .await;
    bar.finish_and_clear();
    let report = report?;
    if json {
        let text =
            serde_json::to_string_pretty(&report).map_err(|e| CliError::Usage(e.to_string()))?;
        println!("{text}");
    } else {
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
    if report.is_complete() {
        Ok(())
    } else {
        Err(CliError::Usage(
            "some changes were not posted; see above".into(),
        ))
    }
}

/// `flightdeck review`: the changes that need review with what is known, one in full,
/// or one settled with the buyer's verdict.
pub fn review(
    mut ws: Workspace,
    change: Option<i64>,
    verdict: Option<Review>,
    json: bool,
) -> Result<(), CliError> {
    let Some(seq) = change else {
        let all = pending::reviews(&ws)?;
        if json {
            return output(true, &all, &[], |_| Vec::new());
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
        return Ok(());
    };
    if let Some(verdict) = verdict {
        let label = pending::review(&ws, seq)?.label;
        ws.settle_review(seq, verdict)?;
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
    let r = pending::review(&ws, seq)?;
    if json {
        let text = serde_json::to_string_pretty(&r).map_err(|e| CliError::Usage(e.to_string()))?;
        println!("{text}");
        return Ok(());
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
    let show = |v: &Option<Value>| v.as_ref().map_or("(absent)".to_owned(), Value::to_string);
    for d in &r.sent {
        println!("  {}: {}", d.path, show(&d.after));
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

fn describe(c: &PendingChange) -> String {
    format!("{} {}", c.target.kind.label(), c.target.key)
}
