//! Bulk commands: multi-row edit, find and replace, export and import, duplicate, undo
//! and redo. Each calls one workspace function; `--dry-run` prints its preview.

use std::path::Path;

use flightdeck_offline::bulk::money::{Budgets, MoneySummary};
use flightdeck_offline::bulk::ops::{Change, FieldEdit, parse_value};
use flightdeck_offline::bulk::plan::{DuplicateOptions, Scope};
use flightdeck_offline::bulk::replace::Find;
use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{Preview, RowOutcome, Workspace};
use serde_json::Value;

use crate::CliError;
use crate::work::target;

/// The fields of `flightdeck edit` that say what to change.
pub struct EditArgs<'a> {
    pub set: &'a [String],
    pub clear: &'a [String],
    pub add: &'a [String],
    pub percent: &'a [String],
    pub prefix: &'a [String],
    pub suffix: &'a [String],
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
pub fn edits(a: &EditArgs<'_>) -> Result<Vec<FieldEdit>, CliError> {
    let mut out = Vec::new();
    let mut push = |field: &str, change: Change| {
        out.push(FieldEdit {
            field: field.to_owned(),
            change,
        });
    };
    for s in a.set {
        let (f, v) = split("set", s)?;
        push(f, Change::Set(parse_value(v)));
    }
    for f in a.clear {
        push(f, Change::Clear);
    }
    for s in a.add {
        let (f, v) = split("add", s)?;
        push(f, Change::Add(number("add", s, v)?));
    }
    for s in a.percent {
        let (f, v) = split("percent", s)?;
        push(f, Change::Percent(number("percent", s, v)?));
    }
    for s in a.prefix {
        let (f, v) = split("prefix", s)?;
        push(f, Change::Prefix(v.to_owned()));
    }
    for s in a.suffix {
        let (f, v) = split("suffix", s)?;
        push(f, Change::Suffix(v.to_owned()));
    }
    if out.is_empty() {
        return Err(CliError::Usage(
            "say what to change: --set, --clear, --add, --percent, --prefix or --suffix".into(),
        ));
    }
    Ok(out)
}

/// The entities an edit names: ids (positional and `--ids`), narrowed or found by
/// `--where FIELD=VALUE`.
pub fn targets(
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
        let text = serde_json::to_string_pretty(p).map_err(|e| CliError::Usage(e.to_string()))?;
        println!("{text}");
        return Ok(());
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
                        println!("  {}: {} -> {}", d.path, shown(&d.before), shown(&d.after));
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

pub fn edit(
    mut ws: Workspace,
    kind: Kind,
    ids: &[String],
    wheres: &[String],
    args: &EditArgs<'_>,
    dry_run: bool,
    json: bool,
) -> Result<(), CliError> {
    let targets = targets(&ws, kind, ids, wheres)?;
    let edits = edits(args)?;
    let preview = ws.bulk_edit(&targets, &edits, !dry_run)?;
    print_preview(&preview, json)?;
    if preview.refused > 0
        && preview.step.is_none()
        && !dry_run
        && matches!(kind, Kind::Creative | Kind::AudienceSegment)
    {
        eprintln!(
            "`flightdeck duplicate {} ID` makes an editable copy.",
            if kind == Kind::Creative {
                "creative"
            } else {
                "segment"
            }
        );
    }
    finish(&preview, dry_run)
}

/// What `flightdeck replace` was asked.
pub struct ReplaceArgs {
    pub find: Find,
    pub kind: Option<Kind>,
    pub ids: Vec<String>,
}

pub fn replace(
    mut ws: Workspace,
    a: ReplaceArgs,
    dry_run: bool,
    json: bool,
) -> Result<(), CliError> {
    let scope = match (a.kind, a.ids.is_empty()) {
        (Some(kind), false) => Scope::Selection(targets(&ws, kind, &a.ids, &[])?),
        (Some(kind), true) => Scope::Kind(kind),
        (None, true) => Scope::Account,
        (None, false) => return Err(CliError::Usage("--ids needs --kind".into())),
    };
    let preview = ws.replace(&scope, &a.find, !dry_run)?;
    print_preview(&preview, json)?;
    finish(&preview, dry_run)
}

pub fn export(
    ws: Workspace,
    kind: Option<Kind>,
    tsv: bool,
    out: Option<&Path>,
) -> Result<(), CliError> {
    let scope = kind.map_or(Scope::Account, Scope::Kind);
    let targets = ws.targets(&scope)?;
    // A file is written as its name says (as import reads it back); `--tsv` forces tabs.
    let delimiter = match (tsv, out) {
        (true, _) => Delimiter::Tab,
        (false, Some(path)) => Delimiter::of_path(path),
        (false, None) => Delimiter::Comma,
    };
    let text = ws.export_sheet(&targets, delimiter, kind.is_none())?;
    match out {
        Some(path) => {
            // Whole or not at all, as the app writes its exports.
            flightdeck_core::files::replace_file(path, text.as_bytes())?;
            eprintln!("Wrote {} rows to {}.", targets.len(), path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

pub fn import(
    mut ws: Workspace,
    file: &Path,
    kind: Option<Kind>,
    parent: Option<EntityRef>,
    dry_run: bool,
    json: bool,
) -> Result<(), CliError> {
    let text = flightdeck_core::bulk::read_import_file(file)?;
    let options = ImportOptions {
        delimiter: Delimiter::of_path(file),
        kind,
        parent,
    };
    let label = format!(
        "Import {}",
        file.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    );
    let preview = ws.import_sheet(&text, &options, &label, !dry_run)?;
    print_preview(&preview, json)?;
    finish(&preview, dry_run)
}

pub fn duplicate(
    mut ws: Workspace,
    sources: &[EntityRef],
    options: &DuplicateOptions,
    dry_run: bool,
    json: bool,
) -> Result<(), CliError> {
    let preview = ws.duplicate(sources, options, !dry_run)?;
    if json {
        return print_preview(&preview, true);
    }
    for row in &preview.rows {
        match (&row.target, row.outcome) {
            (Some(t), RowOutcome::Create) if !dry_run => {
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
    finish(&preview, dry_run)
}

pub fn undo(mut ws: Workspace, redo: bool) -> Result<(), CliError> {
    let done = if redo { ws.redo() } else { ws.undo() };
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
        Err(flightdeck_offline::Error::Posted { step, label }) => Err(CliError::Usage(format!(
            "“{label}” was already posted, so it cannot be undone here; \
             `flightdeck revert {step}` makes a new edit that puts the old values back"
        ))),
        Err(e) => Err(e.into()),
    }
}

pub fn history(ws: Workspace, json: bool) -> Result<(), CliError> {
    let steps = ws.history(50)?;
    crate::output(json, &steps, &["step", "what", "undone"], |s| {
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

pub fn revert(mut ws: Workspace, step: i64, dry_run: bool, json: bool) -> Result<(), CliError> {
    let preview = ws.revert(step, !dry_run)?;
    print_preview(&preview, json)?;
    finish(&preview, dry_run)
}

fn line(label: &str, b: &Budgets, a: &Budgets) -> String {
    let d = |x: f64, y: f64| {
        if (x - y).abs() < 0.005 {
            format!("{y:.2}")
        } else {
            format!("{x:.2} -> {y:.2} ({:+.2})", y - x)
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
    if m.campaigns.is_empty() && m.bids.is_empty() && m.warnings.is_empty() {
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
    println!("{}", line("total", &m.total.before, &m.total.after));
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
