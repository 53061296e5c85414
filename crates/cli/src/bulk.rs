//! Bulk commands: multi-row edit, find and replace, duplicate, undo and redo, history
//! and revert. Each calls the core's account (`Account::bulk_edit`, `replace`,
//! `duplicate_many`, `undo`, `redo`, `revert`), the functions the app's commands call;
//! `--dry-run` prints their preview.

use flightdeck_offline::bulk::money::{Budgets, MoneySummary};
use flightdeck_offline::bulk::ops::{Change, FieldEdit, parse_value};
use flightdeck_offline::bulk::plan::{DuplicateOptions, Scope};
use flightdeck_offline::bulk::replace::Find;
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{
    Preview, RowOutcome, StatusChoice, Workspace, no_status, status_word,
};
use serde_json::Value;

use crate::kinds::{self, target};
use crate::output::{self, output};
use crate::{CliError, Ctx};

/// Edit entities in the workspace, offline, as one undo step; `push` posts them later.
/// Name them by id (`flightdeck edit ad_order 12 --set max_bid=2.5`), by `--ids 1,2,3`,
/// or by `--where FIELD=VALUE`. Fields the ad platform ignores on update, and posted
/// creatives and segments (which it cannot update), are refused with the reason.
#[derive(clap::Args)]
pub struct EditArgs {
    /// The kind (`caps`: an ad order's flight caps; `segment`: an audience segment).
    #[arg(value_parser = kinds::EDITABLE)]
    kind: Kind,
    /// Its id (a segment's serviceSegmentId), or a draft's key as `changes` shows it
    /// (`draft 1a2b3c4d`, or just `1a2b3c4d`).
    id: Option<String>,
    /// More entities, comma-separated.
    #[arg(long, value_delimiter = ',')]
    ids: Vec<String>,
    /// Only entities whose field has this value (`--where optimizationGoal=CPM`).
    #[arg(long = "where", value_name = "FIELD=VALUE")]
    wheres: Vec<String>,
    /// A field (its wire path or the label the app shows) and its new value, as JSON or
    /// plain text (`--set name="Spring sale"`, `--set 'Max bid=2.5'`,
    /// `--set frequencyCap.limit=3`, `--set flights[*].maxBudget=500`). A name the kind
    /// does not have is refused, with the nearest ones.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    set: Vec<String>,
    /// Set a member the kind does not have, exactly as typed: one the ad platform added
    /// that Flightdeck does not know yet. The next push sends it.
    #[arg(long = "set-unknown", value_name = "FIELD=VALUE")]
    set_unknown: Vec<String>,
    /// Clear a field (null, or an empty list).
    #[arg(long, value_name = "FIELD")]
    clear: Vec<String>,
    /// Add an amount to a number, rounded to cents (`--add max_bid=-0.25`).
    #[arg(long, value_name = "FIELD=AMOUNT", allow_hyphen_values = true)]
    add: Vec<String>,
    /// Change a number by a percentage, rounded to cents (`--percent max_bid=10`).
    #[arg(long, value_name = "FIELD=PERCENT", allow_hyphen_values = true)]
    percent: Vec<String>,
    /// Put text before a field's text.
    #[arg(long, value_name = "FIELD=TEXT")]
    prefix: Vec<String>,
    /// Put text after a field's text.
    #[arg(long, value_name = "FIELD=TEXT")]
    suffix: Vec<String>,
    /// Show what would change; save nothing.
    #[arg(long)]
    dry_run: bool,
}

/// `flightdeck edit`.
pub fn edit(ctx: &Ctx, args: EditArgs) -> Result<(), CliError> {
    let ids: Vec<String> = args.id.iter().chain(&args.ids).cloned().collect();
    let targets = targets(&*ctx.read()?, args.kind, &ids, &args.wheres)?;
    let edits = edits(&args)?;
    let forced = args
        .set_unknown
        .iter()
        .map(|s| split("set-unknown", s).map(|(f, _)| f.to_owned()))
        .collect::<Result<Vec<_>, _>>()?;
    let preview = ctx
        .work()?
        .bulk_edit_forced(&targets.into(), &edits, &forced, !args.dry_run)?
        .preview;
    print_preview(&preview, ctx.json)?;
    if preview.refused > 0 && preview.step.is_none() && !args.dry_run && !args.kind.has_update() {
        eprintln!(
            "`flightdeck duplicate {} ID` makes an editable copy.",
            args.kind.name()
        );
    }
    finish(&preview, args.dry_run)
}

/// With no KIND: the profile, who is signed in there, the workspace file and its
/// pending changes. With a KIND: set the status of its entities, offline, as one undo
/// step (`flightdeck status ad_order --ids 12,13 --set paused`); `push` posts them
/// through `updateStatus`, after any create or save of the same ad order. Only ad
/// orders have a status; a move the ad platform refuses (out of archived) is refused
/// with the reason.
#[derive(clap::Args)]
pub struct StatusArgs {
    /// The kind whose status to set (only `ad_order` has one); none: the profile's status.
    #[arg(value_parser = kinds::TABLES)]
    kind: Option<Kind>,
    /// Its id, or a draft's key as `changes` shows it.
    id: Option<String>,
    /// More entities, comma-separated.
    #[arg(long, value_delimiter = ',')]
    ids: Vec<String>,
    /// Only entities whose field has this value (`--where campaignId=12`).
    #[arg(long = "where", value_name = "FIELD=VALUE")]
    wheres: Vec<String>,
    /// The status to set: active (launch), paused, archived or inactive.
    #[arg(long = "set", value_name = "STATUS")]
    set: Option<String>,
    /// Show what would change; save nothing.
    #[arg(long)]
    dry_run: bool,
}

impl StatusArgs {
    /// `flightdeck status` alone: the profile's status, as before the setter existed.
    pub fn is_profile_status(&self) -> bool {
        self.kind.is_none()
            && self.id.is_none()
            && self.ids.is_empty()
            && self.wheres.is_empty()
            && self.set.is_none()
            && !self.dry_run
    }
}

/// `flightdeck status KIND … --set STATUS`.
pub fn set_status(ctx: &Ctx, args: StatusArgs) -> Result<(), CliError> {
    let Some(kind) = args.kind else {
        return Err(CliError::Usage(
            "name the kind whose status to set: `flightdeck status ad_order --ids … --set paused`"
                .into(),
        ));
    };
    if let Some(why) = no_status(kind) {
        return Err(CliError::Usage(why));
    }
    let choices = || {
        StatusChoice::ALL
            .iter()
            .map(|c| status_word((*c).into()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let status = match args.set.as_deref() {
        None => {
            return Err(CliError::Usage(format!(
                "--set is required: one of {}",
                choices()
            )));
        }
        Some(text) => StatusChoice::parse(text).ok_or_else(|| {
            CliError::Usage(format!("--set {text}: the status is one of {}", choices()))
        })?,
    };
    let ids: Vec<String> = args.id.iter().chain(&args.ids).cloned().collect();
    let targets = targets(&*ctx.read()?, kind, &ids, &args.wheres)?;
    let preview = ctx
        .work()?
        .set_status(&targets.into(), status.into(), !args.dry_run)?
        .preview;
    print_preview(&preview, ctx.json)?;
    finish(&preview, args.dry_run)
}

/// Find and replace in names, URLs, pixels and other text, as one undo step.
#[derive(clap::Args)]
pub struct ReplaceArgs {
    /// The text to find (a regular expression with --regex).
    #[arg(long)]
    find: String,
    /// What replaces it (with --regex, $1 inserts a group).
    #[arg(long = "with")]
    with: String,
    /// Only this kind (default: the whole account).
    #[arg(long, value_parser = kinds::EDITABLE)]
    kind: Option<Kind>,
    /// Only these entities of --kind.
    #[arg(long, value_delimiter = ',')]
    ids: Vec<String>,
    /// Only these fields (`name`, `landingPageUrl`); default: every text field.
    #[arg(long = "field")]
    fields: Vec<String>,
    /// Upper and lower case differ.
    #[arg(long)]
    match_case: bool,
    /// Whole words only.
    #[arg(long)]
    whole_word: bool,
    /// --find is a regular expression.
    #[arg(long)]
    regex: bool,
    /// Show what would change; save nothing.
    #[arg(long)]
    dry_run: bool,
}

/// `flightdeck replace`.
pub fn replace(ctx: &Ctx, a: ReplaceArgs) -> Result<(), CliError> {
    let scope = match (a.kind, a.ids.is_empty()) {
        (Some(kind), false) => Scope::Selection(targets(&*ctx.read()?, kind, &a.ids, &[])?),
        (Some(kind), true) => Scope::Kind(kind),
        (None, true) => Scope::Account,
        (None, false) => return Err(CliError::Usage("--ids needs --kind".into())),
    };
    let find = Find {
        find: a.find,
        replace: a.with,
        match_case: a.match_case,
        whole_word: a.whole_word,
        regex: a.regex,
        fields: a.fields,
    };
    let preview = ctx
        .work()?
        .replace(&scope.into(), &find, !a.dry_run)?
        .preview;
    print_preview(&preview, ctx.json)?;
    finish(&preview, a.dry_run)
}

/// Copy entities as new drafts: the way to change what the ad platform cannot update,
/// and to reuse a campaign (with its flights) or an ad order (with its flight caps and
/// audiences). `push` posts the copies.
#[derive(clap::Args)]
pub struct DuplicateArgs {
    /// The kind of the entities to copy.
    #[arg(value_parser = kinds::EDITABLE)]
    kind: Kind,
    /// Its id (a segment's serviceSegmentId), or a draft's key as `changes` shows it;
    /// comma-separated for several.
    #[arg(value_delimiter = ',')]
    ids: Vec<String>,
    /// Into this advertiser (campaigns, creatives).
    #[arg(long, conflicts_with = "into_campaign")]
    into_advertiser: Option<String>,
    /// Into this campaign (ad orders, creatives).
    #[arg(long)]
    into_campaign: Option<String>,
    /// Move every date by this many days (a new flight must start in the future).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    shift_days: i64,
    /// Show the copies; save nothing.
    #[arg(long)]
    dry_run: bool,
}

/// `flightdeck duplicate`.
pub fn duplicate(ctx: &Ctx, a: DuplicateArgs) -> Result<(), CliError> {
    let (sources, into) = {
        let ws = ctx.read()?;
        let sources = a
            .ids
            .iter()
            .map(|id| target(&ws, a.kind, id))
            .collect::<Result<Vec<_>, _>>()?;
        let into = match (&a.into_advertiser, &a.into_campaign) {
            (Some(id), _) => Some(target(&ws, Kind::Advertiser, id)?),
            (None, Some(id)) => Some(target(&ws, Kind::Campaign, id)?),
            _ => None,
        };
        (sources, into)
    };
    let options = DuplicateOptions {
        into,
        shift_days: Some(a.shift_days),
    };
    let preview = ctx
        .work()?
        .duplicate_many(&sources.into(), &options, !a.dry_run)?
        .preview;
    if ctx.json {
        return print_preview(&preview, true);
    }
    for row in &preview.rows {
        match (&row.target, row.outcome) {
            (Some(t), RowOutcome::Create) if !a.dry_run => {
                println!("{} {} \"{}\"", row.kind.label(), t.key, row.label);
            }
            (_, RowOutcome::Create) => println!("new {} \"{}\"", row.kind.label(), row.label),
            _ => {}
        }
        for e in &row.errors {
            eprintln!(
                "{}{e}",
                if row.outcome == RowOutcome::Refused {
                    "refused: "
                } else {
                    "  cannot be posted until fixed: "
                }
            );
        }
    }
    finish(&preview, a.dry_run)
}

/// `flightdeck undo` and `flightdeck redo`.
pub fn undo(ctx: &Ctx, redo: bool) -> Result<(), CliError> {
    let account = ctx.work()?;
    let done = if redo { account.redo() } else { account.undo() };
    match done {
        Ok(Some(d)) => {
            eprintln!(
                "{} “{}” ({} entit{}).",
                if redo { "Redid" } else { "Undid" },
                d.step.label,
                d.targets.len(),
                if d.targets.len() == 1 { "y" } else { "ies" }
            );
            Ok(())
        }
        Ok(None) => {
            eprintln!("Nothing to {}.", if redo { "redo" } else { "undo" });
            Ok(())
        }
        Err(flightdeck_core::Error::Offline(flightdeck_offline::Error::Posted { step, label })) => {
            Err(CliError::Usage(format!(
                "“{label}” was already posted, so it cannot be undone here; \
                 `flightdeck revert {step}` makes a new edit that puts the old values back"
            )))
        }
        Err(e) => Err(e.into()),
    }
}

/// `flightdeck history`.
pub fn history(ctx: &Ctx) -> Result<(), CliError> {
    let steps = ctx.work()?.history(50)?;
    output(ctx.json, &steps, &["step", "what", "undone"], |s| {
        vec![
            s.id.to_string(),
            s.label.clone(),
            if s.undone {
                "undone".into()
            } else {
                String::new()
            },
        ]
    })
}

/// Put back the values a posted step changed, as a new edit (undo cannot: the ad
/// platform has it).
#[derive(clap::Args)]
pub struct RevertArgs {
    /// The step, as `history` numbers it.
    step: i64,
    /// Show what would change; save nothing.
    #[arg(long)]
    dry_run: bool,
}

/// `flightdeck revert`.
pub fn revert(ctx: &Ctx, a: RevertArgs) -> Result<(), CliError> {
    let preview = ctx.work()?.revert(a.step, !a.dry_run)?.preview;
    print_preview(&preview, ctx.json)?;
    finish(&preview, a.dry_run)
}

fn split<'a>(flag: &str, arg: &'a str) -> Result<(&'a str, &'a str), CliError> {
    arg.split_once('=')
        .ok_or_else(|| CliError::Usage(format!("--{flag} {arg}: expected FIELD=VALUE")))
}

fn number(flag: &str, arg: &str, raw: &str) -> Result<f64, CliError> {
    raw.trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| CliError::Usage(format!("--{flag} {arg}: {raw} is not a number")))
}

/// The field edits the flags ask for, in the order of the flags' kinds.
fn edits(a: &EditArgs) -> Result<Vec<FieldEdit>, CliError> {
    let mut out = Vec::new();
    let mut push = |field: &str, change: Change| {
        out.push(FieldEdit {
            field: field.to_owned(),
            change,
        });
    };
    for s in &a.set {
        let (f, v) = split("set", s)?;
        push(f, Change::Set(parse_value(v)));
    }
    for s in &a.set_unknown {
        let (f, v) = split("set-unknown", s)?;
        push(f, Change::Set(parse_value(v)));
    }
    for f in &a.clear {
        push(f, Change::Clear);
    }
    for s in &a.add {
        let (f, v) = split("add", s)?;
        push(f, Change::Add(number("add", s, v)?));
    }
    for s in &a.percent {
        let (f, v) = split("percent", s)?;
        push(f, Change::Percent(number("percent", s, v)?));
    }
    for s in &a.prefix {
        let (f, v) = split("prefix", s)?;
        push(f, Change::Prefix(v.to_owned()));
    }
    for s in &a.suffix {
        let (f, v) = split("suffix", s)?;
        push(f, Change::Suffix(v.to_owned()));
    }
    if out.is_empty() {
        return Err(CliError::Usage(
            "say what to change: --set, --set-unknown, --clear, --add, --percent, --prefix or --suffix".into(),
        ));
    }
    Ok(out)
}

/// The entities an edit names: ids (positional and `--ids`), narrowed or found by
/// `--where FIELD=VALUE`.
fn targets(
    ws: &Workspace,
    kind: Kind,
    ids: &[String],
    wheres: &[String],
) -> Result<Vec<EntityRef>, CliError> {
    let mut named = Vec::new();
    for id in ids
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        named.push(target(ws, kind, id)?);
    }
    if wheres.is_empty() {
        if named.is_empty() {
            return Err(CliError::Usage(
                "name the entities: an id, --ids or --where".into(),
            ));
        }
        return Ok(named);
    }
    let filters = wheres
        .iter()
        .map(|w| split("where", w).map(|(f, v)| (f.to_owned(), parse_value(v))))
        .collect::<Result<Vec<_>, _>>()?;
    let found = ws.find_where(kind, &filters)?;
    Ok(if named.is_empty() {
        found
    } else {
        named.into_iter().filter(|t| found.contains(t)).collect()
    })
}

fn shown(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(Value::String(s)) => format!("\"{s}\""),
        Some(other) => other.to_string(),
    }
}

/// Prints a preview: what changes per entity, and every refusal with its field.
pub fn print_preview(p: &Preview, json: bool) -> Result<(), CliError> {
    if json {
        return output::json(p);
    }
    for row in &p.rows {
        let at = row.line.map(|l| format!("line {l}: ")).unwrap_or_default();
        let key = row
            .target
            .as_ref()
            .filter(|t| !t.key.is_local() || row.outcome != RowOutcome::Create)
            .map(|t| format!(" {}", t.key))
            .unwrap_or_default();
        match row.outcome {
            RowOutcome::Refused => {
                for e in &row.errors {
                    eprintln!(
                        "refused: {at}{}{key} \"{}\": {e}",
                        row.kind.label(),
                        row.label
                    );
                }
            }
            RowOutcome::Unchanged => {}
            RowOutcome::Create | RowOutcome::Update => {
                let verb = if row.outcome == RowOutcome::Create {
                    "new "
                } else {
                    ""
                };
                println!("{at}{verb}{}{key} \"{}\"", row.kind.label(), row.label);
                if row.outcome == RowOutcome::Update {
                    for d in &row.diffs {
                        // As the core writes them for a buyer (dates in the advertiser's
                        // timezone, money with cents), else as JSON.
                        let before = d.before_text.clone().unwrap_or_else(|| shown(&d.before));
                        let after = d.after_text.clone().unwrap_or_else(|| shown(&d.after));
                        println!("  {}: {before} -> {after}", d.path);
                    }
                }
                for e in &row.errors {
                    println!("  cannot be posted until fixed: {e}");
                }
            }
        }
    }
    for (field, n) in &p.matches {
        println!("{n} match{} in {field}", if *n == 1 { "" } else { "es" });
    }
    Ok(())
}

/// Prints the outcome line and makes an all-refused operation the command's failure.
pub fn finish(p: &Preview, dry_run: bool) -> Result<(), CliError> {
    let counts = format!(
        "{} new, {} changed, {} unchanged, {} refused",
        p.creates, p.updates, p.unchanged, p.refused
    );
    if dry_run {
        eprintln!("Preview only ({counts}); nothing was saved.");
        return Ok(());
    }
    if p.step.is_some() {
        eprintln!(
            "Saved as one step ({counts}); `flightdeck undo` takes it back, `flightdeck push` posts it."
        );
        return Ok(());
    }
    if p.refused > 0 {
        return Err(CliError::Usage(format!(
            "the edit was refused; nothing was saved ({counts})"
        )));
    }
    eprintln!("Nothing to change ({counts}).");
    Ok(())
}

/// An amount at cents; one that rounds to zero is `0.00`, never `-0.00` (a sum's -0.001).
fn cents(v: f64) -> String {
    format!("{:.2}", if v.abs() < 0.005 { 0.0 } else { v })
}

fn line(label: &str, b: &Budgets, a: &Budgets) -> String {
    let d = |x: f64, y: f64| {
        if (x - y).abs() < 0.005 {
            cents(y)
        } else {
            format!("{} -> {} ({:+.2})", cents(x), cents(y), y - x)
        }
    };
    format!(
        "  {label}: lifetime {}, daily {}, flights {}, ad orders {} (daily {})",
        d(b.lifetime, a.lifetime),
        d(b.daily, a.daily),
        d(b.flights, a.flights),
        d(b.order_lifetime, a.order_lifetime),
        d(b.order_daily, a.order_daily)
    )
}

/// The money review under `flightdeck changes`.
pub fn print_money(m: &MoneySummary) {
    if m.campaigns.is_empty()
        && m.bids.is_empty()
        && m.warnings.is_empty()
        && m.going_live.is_empty()
    {
        return;
    }
    println!("Money:");
    for r in &m.advertisers {
        println!(
            "{}",
            line(&format!("advertiser \"{}\"", r.label), &r.before, &r.after)
        );
    }
    for r in &m.campaigns {
        println!(
            "{}",
            line(&format!("campaign \"{}\"", r.label), &r.before, &r.after)
        );
    }
    // A status change alone moves no budget: no total line for it.
    if !(m.campaigns.is_empty() && m.bids.is_empty() && m.warnings.is_empty()) {
        println!("{}", line("total", &m.total.before, &m.total.after));
    }
    for g in &m.going_live {
        println!(
            "  goes live: \"{}\" ({}), lifetime budget {:.2}",
            g.label, g.campaign, g.lifetime_budget
        );
    }
    if !m.going_live.is_empty() {
        println!(
            "  going live in all: {} ad orders, lifetime budgets {:.2}",
            m.going_live.len(),
            m.going_live_budget
        );
    }
    for b in &m.bids {
        let f = |v: Option<f64>| v.map_or_else(|| "none".to_owned(), |v| format!("{v:.2}"));
        println!(
            "  max bid of \"{}\" ({}): {} -> {}",
            b.label,
            b.campaign,
            f(b.before),
            f(b.after)
        );
    }
    for w in &m.warnings {
        println!("  warning: \"{}\" {}: {}", w.label, w.field, w.message);
    }
}
