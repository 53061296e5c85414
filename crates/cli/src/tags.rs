//! `import-tags`: an ad server's tag sheet as draft creatives, through the core's
//! tag-sheet import (`flightdeck_core::tagsheet`), as the app's Import tag sheet…
//! dialog does: the preset detected (or named), a preview with `--dry-run`, and the
//! rows applied as one undo step.

use std::path::PathBuf;

use flightdeck_core::tagsheet::{self, TagMapping, TagPreview};
use flightdeck_offline::change::Kind;

use crate::kinds::target;
use crate::output;
use crate::{CliError, Ctx};

/// Read an ad server's tag sheet (XLSX, CSV or TSV) into draft creatives, one per
/// placement row, as one undo step: a JavaScript or iframe tag makes a BANNER+TAG, a
/// VAST tag URL a VIDEO+VASTURL.
#[derive(clap::Args)]
pub struct ImportTagsArgs {
    /// The tag sheet.
    file: PathBuf,
    /// The campaign the creatives go under (an id, or a draft's key).
    #[arg(long, conflicts_with = "advertiser", required_unless_present_any = ["advertiser", "dry_run"])]
    campaign: Option<String>,
    /// The advertiser the creatives go under, instead of a campaign.
    #[arg(long)]
    advertiser: Option<String>,
    /// The preset: "Campaign Manager 360", "Flashtalking", "Innovid", "Amazon/Sizmek",
    /// or one saved in the app's mapping dialog (default: the one that knows the
    /// sheet's header).
    #[arg(long)]
    preset: Option<String>,
    /// Print the preview (one row per creative); save nothing.
    #[arg(long)]
    dry_run: bool,
}

/// `flightdeck import-tags`.
pub fn import_tags(ctx: &Ctx, a: ImportTagsArgs) -> Result<(), CliError> {
    let account = ctx.work()?;
    let presets = tagsheet::presets(ctx.core.dir())?;
    let mapping = a
        .preset
        .map_or(TagMapping::Detect, |name| TagMapping::Preset { name });
    let sheet = tagsheet::read_sheet(&tagsheet::read_file(&a.file)?, &mapping, &presets)?;
    let preview = tagsheet::preview(&sheet, &presets, 0, u32::MAX);
    if sheet.preset.is_none() {
        return Err(CliError::Usage(format!(
            "no preset knows this sheet's columns (its header, row {}: {}); name one with \
             --preset, or map the columns in the app's Import tag sheet… dialog and save them \
             as a preset",
            preview.header_row,
            preview.headers.join(", ")
        )));
    }
    if a.dry_run {
        print_preview(&preview, ctx.json)?;
        eprintln!(
            "Preview only ({} creatives, {} with a cell to fix, {} findings); nothing was saved.",
            preview.total, preview.refused, preview.findings
        );
        return Ok(());
    }
    let parent = {
        let ws = ctx.read()?;
        match (&a.campaign, &a.advertiser) {
            (Some(c), _) => target(&ws, Kind::Campaign, c)?,
            (None, Some(adv)) => target(&ws, Kind::Advertiser, adv)?,
            (None, None) => return Err(CliError::Usage("name --campaign or --advertiser".into())),
        }
    };
    for row in preview.rows.iter().filter(|r| !r.errors.is_empty()) {
        for e in &row.errors {
            eprintln!("refused: row {} {}: {}", row.row, e.cell, e.message);
        }
    }
    let done = account.apply_tags(&a.file, &sheet, &parent)?;
    if ctx.json {
        let made: Vec<String> = done
            .made
            .iter()
            .map(|t| flightdeck_offline::bulk::sheet::id_cell(&t.key))
            .collect();
        output::json(&serde_json::json!({
            "made": made,
            "refused": done.refused,
            "step": done.step,
        }))?;
    }
    eprintln!(
        "Made {} draft creatives under {} {} as one step ({} rows refused); `flightdeck undo` \
         takes it back, `flightdeck push` posts them.",
        done.made.len(),
        parent.kind.label(),
        parent.key,
        done.refused
    );
    if done.made.is_empty() && done.refused > 0 {
        return Err(CliError::Usage(
            "every row has a cell to fix; nothing was saved".into(),
        ));
    }
    Ok(())
}

fn print_preview(p: &TagPreview, json: bool) -> Result<(), CliError> {
    if json {
        return output::json(p);
    }
    eprintln!(
        "{} preset, header on row {}{}",
        p.preset.as_deref().unwrap_or("No"),
        p.header_row,
        p.sheet
            .as_deref()
            .map(|s| format!(" of sheet “{s}”"))
            .unwrap_or_default()
    );
    output::output(
        false,
        &p.rows,
        &["row", "name", "size", "type", "findings", "to fix"],
        |r| {
            vec![
                r.row.to_string(),
                r.name.clone().unwrap_or_default(),
                r.size.clone().unwrap_or_default(),
                r.creative_type.clone(),
                if r.warnings > 0 {
                    format!("{} ({} warnings)", r.findings, r.warnings)
                } else {
                    r.findings.to_string()
                },
                r.errors
                    .iter()
                    .map(|e| format!("{}: {}", e.cell, e.message))
                    .collect::<Vec<_>>()
                    .join("; "),
            ]
        },
    )
}
