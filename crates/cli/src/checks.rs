//! `flightdeck check`: every pending change validated again (errors hold a change back
//! and make the command fail), then each pending creative's warnings and infos (they
//! never do); `--creatives` checks every creative of the workspace, and `--fetch URL`
//! fetches a VAST URL and the wrappers it leads to and checks each document. The checks
//! are the core's (`flightdeck_core::checks`); this only prints them.

use flightdeck_core::bulk::BulkScope;
use flightdeck_core::checks::{Finding, Level, SelectionChecks, VastHop};
use flightdeck_offline::change::Kind;
use serde::Serialize;

use crate::CliError;
use crate::context::Ctx;
use crate::output;

/// Validate every pending change ("check changes") and list each pending creative's
/// warnings and infos. Fails only for errors: warnings never hold a post back.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// Also check every creative of the workspace, pending or not ("Check all
    /// creatives").
    #[arg(long)]
    creatives: bool,
    /// Fetch this VAST URL (no credentials sent) and the wrappers it leads to, up to 5,
    /// and check each document; nothing else is checked.
    #[arg(long, value_name = "URL")]
    fetch: Option<String>,
}

/// What `--json` prints for a check of the pending changes.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CheckJson<'a> {
    /// Changes that break a rule, with their errors (as `check` printed before).
    invalid: &'a [(i64, Vec<flightdeck_model::FieldError>)],
    /// Pending creatives with warnings or infos.
    findings: &'a [flightdeck_core::pending::PendingFindings],
    /// Every creative, with `--creatives`.
    #[serde(skip_serializing_if = "Option::is_none")]
    creatives: Option<&'a SelectionChecks>,
}

/// `flightdeck check`.
pub async fn check(ctx: &Ctx, args: CheckArgs) -> Result<(), CliError> {
    if let Some(url) = &args.fetch {
        let hops = ctx.account.fetch_vast("vastUrl", url).await?;
        if ctx.json {
            output::json(&hops)?;
        } else {
            print_hops(&hops);
        }
        return Ok(());
    }
    let account = ctx.work()?;
    let found = account.check_all()?;
    let every = if args.creatives {
        Some(account.check_creatives_keeping(&BulkScope::Kind(Kind::Creative), usize::MAX)?)
    } else {
        None
    };
    let invalid = &found.broken;
    if ctx.json {
        output::json(&CheckJson {
            invalid,
            findings: &found.findings,
            creatives: every.as_ref(),
        })?;
    } else {
        if invalid.is_empty() {
            println!("{} pending change(s), all valid.", found.checked);
        } else {
            for (seq, errors) in invalid {
                println!("change {seq}:");
                for e in errors {
                    println!("  {e}");
                }
            }
        }
        let (warnings, infos) = found.counts();
        if !found.findings.is_empty() {
            println!(
                "{} pending creative(s) with findings: {warnings} warning(s), {infos} info(s); \
                 they do not hold a post back.",
                found.findings.len()
            );
            for p in &found.findings {
                println!("change {} ({}):", p.seq, p.label);
                print_findings(&p.findings);
            }
        }
        if let Some(every) = &every {
            print_selection(every);
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

fn level(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Info => "info",
    }
}

/// One finding a line: level, rule, the field (and line), and what it says.
fn print_findings(findings: &[Finding]) {
    for f in findings {
        let at = match f.line {
            Some(line) => format!("{}:{line}", f.path),
            None => f.path.clone(),
        };
        println!("  {} {} {at}: {}", level(f.level), f.rule, f.message);
    }
}

fn print_selection(s: &SelectionChecks) {
    println!(
        "{} creative(s) checked, {} with findings: {} warning(s), {} info(s).",
        s.checked, s.with_findings, s.warnings, s.infos
    );
    for r in &s.rules {
        println!(
            "  {} {}: {} creative(s)",
            level(r.level),
            r.rule,
            r.creatives
        );
    }
    for c in &s.creatives {
        println!("{} {} ({}):", c.target.kind.name(), c.target.key, c.label);
        print_findings(&c.findings);
    }
}

fn print_hops(hops: &[VastHop]) {
    for (i, hop) in hops.iter().enumerate() {
        let status = hop
            .status
            .map_or_else(|| "no answer".to_owned(), |s| format!("HTTP {s}"));
        println!("{}. {} ({status})", i + 1, hop.url);
        if let Some(problem) = &hop.problem {
            println!("  stopped: {problem}");
        }
        print_findings(&hop.findings);
    }
}
