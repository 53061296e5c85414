//! `export` and `import`: the workspace as CSV or TSV, through the core's account
//! (`Account::export_sheet`, `export_to`, `import_file`), as the app's sheet commands.

use std::path::PathBuf;

use clap::builder::TypedValueParser as _;
use flightdeck_core::bulk::BulkScope;
use flightdeck_offline::bulk::plan::Scope;
use flightdeck_offline::bulk::sheet::{Delimiter, SheetFormat};
use flightdeck_offline::change::Kind;

use crate::bulk::{finish, print_preview};
use crate::kinds::{self, target};
use crate::{CliError, Ctx};

/// Write the workspace as CSV (or TSV): one kind, or the whole account with a kind
/// column. Cells: blank keeps a value on import, [] clears it.
#[derive(clap::Args)]
pub struct ExportArgs {
    /// Only this kind.
    #[arg(long, value_parser = kinds::EDITABLE)]
    kind: Option<Kind>,
    /// `sheet`: dates in the advertiser's timezone (2026-03-01T00:00:00-05:00), money
    /// with two decimals, lists as `a; b; c`, each parent's name beside its id (read by
    /// no one on import: the id says which parent). `wire`: as the service sends it,
    /// epoch milliseconds and JSON. Import reads either.
    #[arg(
        long,
        default_value = "sheet",
        value_parser = clap::builder::PossibleValuesParser::new(["sheet", "wire"])
            .map(|s| SheetFormat::parse(&s).unwrap_or_default()),
    )]
    format: SheetFormat,
    /// Tab-separated.
    #[arg(long)]
    tsv: bool,
    /// The file (default: standard output).
    #[arg(long, short)]
    output: Option<PathBuf>,
}

/// `flightdeck export`.
pub fn export(ctx: &Ctx, a: ExportArgs) -> Result<(), CliError> {
    let account = ctx.work()?;
    let scope = a.kind.map_or(Scope::Account, Scope::Kind);
    // A file is written as its name says (as import reads it back); `--tsv` forces tabs.
    let delimiter = match (a.tsv, &a.output) {
        (true, _) => Delimiter::Tab,
        (false, Some(path)) => Delimiter::of_path(path),
        (false, None) => Delimiter::Comma,
    };
    let scope: BulkScope = scope.into();
    match &a.output {
        Some(path) => {
            // Whole or not at all, as the app writes its exports.
            let rows = account.export_to(path, &scope, delimiter, a.format)?;
            eprintln!("Wrote {rows} rows to {}.", path.display());
        }
        None => print!("{}", account.export_sheet(&scope, delimiter, a.format)?),
    }
    Ok(())
}

/// Read a CSV or TSV file (.tsv, .txt) into the workspace as one undo step: rows with
/// an id change that entity, rows without one make drafts. Either export format reads:
/// a date cell may be epoch milliseconds or a date (without an offset, in the
/// advertiser's timezone), a list JSON or `a; b`, an amount may carry `$` and
/// thousands commas; a parent's name column is ignored.
#[derive(clap::Args)]
pub struct ImportArgs {
    /// The file.
    file: PathBuf,
    /// The kind of every row, when the file has no kind column.
    #[arg(long, value_parser = kinds::EDITABLE)]
    kind: Option<Kind>,
    /// Where new ad orders go (a campaign id or draft key) when a row names none.
    #[arg(long)]
    campaign: Option<String>,
    /// Where new campaigns and creatives go (an advertiser id) when a row names none.
    #[arg(long)]
    advertiser: Option<String>,
    /// Show the adds, updates and errors per row; save nothing.
    #[arg(long)]
    dry_run: bool,
}

/// `flightdeck import`.
pub fn import(ctx: &Ctx, a: ImportArgs) -> Result<(), CliError> {
    let parent = {
        let ws = ctx.read()?;
        match (&a.campaign, &a.advertiser) {
            (Some(c), _) => Some(target(&ws, Kind::Campaign, c)?),
            (None, Some(adv)) => Some(target(&ws, Kind::Advertiser, adv)?),
            _ => None,
        }
    };
    let preview = ctx
        .work()?
        .import_file(&a.file, a.kind, parent, !a.dry_run)?
        .preview;
    print_preview(&preview, ctx.json)?;
    finish(&preview, a.dry_run)
}
