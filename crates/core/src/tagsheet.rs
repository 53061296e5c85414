//! Tag-sheet import for both hosts: the file the buyer chose (the app hands a token's
//! path, the CLI the path typed), its preset detected or chosen, the preview (one row
//! per creative, a window at a time), and applying it as draft creatives under one
//! campaign or advertiser in one undo step. Reading the sheet and mapping its rows is
//! the workbench's (`flightdeck_workbench::tagsheet`, pure); the saved presets are
//! `settings::TagPresets`.

use std::path::Path;

use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_workbench::Level;
use flightdeck_workbench::tagsheet::{self, MappedRow, TagSheet};
use serde::{Deserialize, Serialize};

pub use flightdeck_workbench::tagsheet::{CellError, ColumnChoice, Field, Preset, SheetFormat};

use crate::bulk::{Changed, MAX_IMPORT_BYTES};
use crate::settings::TagPresets;
use crate::{Account, Error, Result};

/// Which columns hold which field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "by", rename_all = "camelCase")]
pub enum TagMapping {
    /// The first preset (the buyer's saved ones, then the shipped ones) that knows the
    /// sheet's header.
    Detect,
    /// A preset by name.
    Preset {
        /// Its name, as [`preset_names`] lists it.
        name: String,
    },
    /// The columns the buyer chose in the mapping dialog.
    Columns {
        /// One header per field mapped.
        columns: Vec<ColumnChoice>,
    },
}

/// What the preview draws for a row before anything is rendered: a tag at its size
/// (the preview frame's job), a video (a VAST tag), or nothing (a row to fix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum Thumbnail {
    /// An HTML tag, drawn at `width`×`height` when known.
    Tag,
    /// A VAST tag or document.
    Video,
    /// Nothing to draw.
    None,
}

/// One creative of the preview.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct TagPreviewRow {
    /// The row's number in the sheet.
    pub row: u32,
    /// The creative's name.
    pub name: Option<String>,
    /// `300x250`, when the row has one.
    pub size: Option<String>,
    /// Width, for the thumbnail.
    pub width: Option<i64>,
    /// Height, for the thumbnail.
    pub height: Option<i64>,
    /// `BANNER+TAG`, `VIDEO+VASTURL`; empty when the row has no tag.
    pub creative_type: String,
    /// The checks' findings.
    pub findings: u32,
    /// Of them, warnings.
    pub warnings: u32,
    /// The rules they are found by (`tag.http-resource`), each once, in the order found.
    pub rules: Vec<String>,
    /// Cells that cannot be read: the row is not applied.
    pub errors: Vec<CellError>,
    /// What to draw.
    pub thumbnail: Thumbnail,
}

/// A field the mapping dialog offers, with its label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct FieldChoice {
    /// The field.
    pub field: Field,
    /// What the dialog calls it.
    pub label: String,
    /// The creative's wire path it fills.
    pub path: String,
}

/// A tag sheet as the preview shows it: what was found, the counts, and a window of
/// rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct TagPreview {
    /// What the file was read as.
    pub format: SheetFormat,
    /// The worksheet read.
    pub sheet: Option<String>,
    /// The preset used; `None`: no preset knows the sheet, map its columns.
    pub preset: Option<String>,
    /// The header row's number.
    pub header_row: u32,
    /// The header's cells, for the dialog's column pickers.
    pub headers: Vec<String>,
    /// The columns used, by header.
    pub columns: Vec<ColumnChoice>,
    /// The fields a column can fill.
    pub fields: Vec<FieldChoice>,
    /// Every preset by name, saved first.
    pub presets: Vec<String>,
    /// Creatives in the sheet.
    pub total: u32,
    /// Of them, rows with a cell to fix (not applied).
    pub refused: u32,
    /// Findings in all rows.
    pub findings: u32,
    /// The first row's index in `rows`.
    pub offset: u32,
    /// The window of rows asked for.
    pub rows: Vec<TagPreviewRow>,
}

/// What applying made.
#[derive(Debug, Clone)]
pub struct TagImport {
    /// The drafts made, in sheet order.
    pub made: Vec<EntityRef>,
    /// Rows not applied (a cell to fix).
    pub refused: u32,
    /// The undo step ("Import tags spring.xlsx"); `None` when nothing was made.
    pub step: Option<i64>,
    /// For the host's change event.
    pub changed: Changed,
}

/// What applying made, as a host answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct TagApplied {
    /// Drafts made.
    pub made: u32,
    /// Rows not applied (a cell to fix).
    pub refused: u32,
    /// The undo step; `None` when nothing was made.
    #[cfg_attr(feature = "specta", specta(type = Option<f64>))]
    pub step: Option<i64>,
}

impl TagImport {
    /// The counts a host answers.
    pub fn applied(&self) -> TagApplied {
        TagApplied {
            made: u32::try_from(self.made.len()).unwrap_or(u32::MAX),
            refused: self.refused,
            step: self.step,
        }
    }
}

/// The preview of the tag sheet at `path`, for a host: the presets of data directory
/// `dir`, `mapping`, and `limit` rows from `offset`. Each page reads the file again
/// (25 ms for 1,000 rows in a release build), so nothing is kept between pages.
pub fn preview_file(
    dir: &Path,
    path: &Path,
    mapping: &TagMapping,
    offset: u32,
    limit: u32,
) -> Result<TagPreview> {
    let presets = presets(dir)?;
    let sheet = read_sheet(&read_file(path)?, mapping, &presets)?;
    Ok(preview(&sheet, &presets, offset, limit))
}

/// The fields, labelled, in the dialog's order.
pub fn fields() -> Vec<FieldChoice> {
    Field::ALL
        .iter()
        .map(|&field| FieldChoice {
            field,
            label: field.label().to_owned(),
            path: field.wire_path().to_owned(),
        })
        .collect()
}

/// Every preset: the buyer's saved ones (in `dir`), then the shipped ones.
pub fn presets(dir: &Path) -> Result<Vec<Preset>> {
    let mut all = TagPresets::read(dir)?.presets;
    all.extend(tagsheet::builtin_presets());
    Ok(all)
}

/// Their names, saved first.
pub fn preset_names(presets: &[Preset]) -> Vec<String> {
    presets.iter().map(|p| p.name.clone()).collect()
}

/// Saves the dialog's columns as a preset of the buyer's (replacing one of that name).
/// A shipped preset's name is refused: it would hide the shipped one.
pub fn save_preset(dir: &Path, name: &str, columns: Vec<ColumnChoice>) -> Result<()> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::invalid("name", "REQUIRED", "Name the preset."));
    }
    if tagsheet::builtin_presets()
        .iter()
        .any(|p| p.name.eq_ignore_ascii_case(name))
    {
        return Err(Error::invalid(
            "name",
            "TAKEN",
            &format!("“{name}” is a preset Flightdeck ships; choose another name."),
        ));
    }
    if !columns.iter().any(|c| c.field.is_tag()) {
        return Err(Error::invalid(
            "columns",
            "REQUIRED",
            "Choose the column of the JavaScript, iframe or VAST tag.",
        ));
    }
    TagPresets::save(
        dir,
        Preset {
            name: name.to_owned(),
            columns,
        },
    )
}

/// The bytes of a tag sheet, refused past [`MAX_IMPORT_BYTES`] as other imports are.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::storage(path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_IMPORT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::storage(path, e))?;
    if bytes.len() as u64 > MAX_IMPORT_BYTES {
        return Err(Error::invalid(
            "path",
            "TOO_LARGE",
            &format!(
                "{} is larger than the {} MB an import reads",
                path.display(),
                MAX_IMPORT_BYTES / (1024 * 1024)
            ),
        ));
    }
    Ok(bytes)
}

/// Reads a tag sheet with `mapping` (`presets` as [`presets`] lists them).
pub fn read_sheet(bytes: &[u8], mapping: &TagMapping, presets: &[Preset]) -> Result<TagSheet> {
    let chosen = match mapping {
        TagMapping::Detect => None,
        TagMapping::Preset { name } => Some(
            presets
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name))
                .cloned()
                .ok_or_else(|| unreadable(tagsheet::Error::NoPreset(name.clone())))?,
        ),
        TagMapping::Columns { columns } => Some(Preset {
            name: "Columns chosen".to_owned(),
            columns: columns.clone(),
        }),
    };
    tagsheet::read_tag_sheet(bytes, chosen.as_ref(), presets).map_err(unreadable)
}

fn unreadable(e: tagsheet::Error) -> Error {
    Error::invalid("file", "INVALID", &e.to_string())
}

/// The preview of a sheet read: its counts and the rows from `offset`, `limit` of
/// them.
pub fn preview(sheet: &TagSheet, presets: &[Preset], offset: u32, limit: u32) -> TagPreview {
    let rows = sheet
        .rows
        .iter()
        .skip(offset as usize)
        .take(limit as usize)
        .map(preview_row)
        .collect();
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    TagPreview {
        format: sheet.format,
        sheet: sheet.sheet.clone(),
        preset: sheet.preset.clone(),
        header_row: sheet.header_row,
        headers: sheet.headers.clone(),
        columns: sheet.columns.clone(),
        fields: fields(),
        presets: preset_names(presets),
        total: count(sheet.rows.len()),
        refused: count(sheet.rows.iter().filter(|r| !r.errors.is_empty()).count()),
        findings: count(sheet.rows.iter().map(|r| r.findings.len()).sum()),
        offset: offset.min(count(sheet.rows.len())),
        rows,
    }
}

fn preview_row(r: &MappedRow) -> TagPreviewRow {
    let c = &r.creative;
    let (width, height) = c
        .size
        .as_ref()
        .map_or((None, None), |s| (s.width, s.height));
    let creative_type = match (&c.creative_type, &c.creative_subtype) {
        (Some(t), Some(s)) => format!("{t}+{s}"),
        _ => String::new(),
    };
    let thumbnail = if !r.errors.is_empty() {
        Thumbnail::None
    } else if c.html_asset.is_some() {
        Thumbnail::Tag
    } else if c.video.is_some() {
        Thumbnail::Video
    } else {
        Thumbnail::None
    };
    TagPreviewRow {
        row: r.row,
        name: c.name.clone(),
        size: width.zip(height).map(|(w, h)| format!("{w}x{h}")),
        width,
        height,
        creative_type,
        findings: u32::try_from(r.findings.len()).unwrap_or(u32::MAX),
        warnings: u32::try_from(
            r.findings
                .iter()
                .filter(|f| f.level == Level::Warning)
                .count(),
        )
        .unwrap_or(u32::MAX),
        rules: r.findings.iter().fold(Vec::new(), |mut rules, f| {
            if !rules.contains(&f.rule) {
                rules.push(f.rule.clone());
            }
            rules
        }),
        errors: r.errors.clone(),
        thumbnail,
    }
}

/// The undo step's name for a file: "Import tags spring.xlsx".
fn label(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    format!("Import tags {name}")
}

impl Account {
    /// Makes a draft creative of every row of `sheet` without a cell to fix, under
    /// `parent` (a campaign or an advertiser, downloaded or draft), as one undo step
    /// named after `path`. The drafts keep the rules they break, as any draft does.
    pub fn apply_tags(
        &self,
        path: &Path,
        sheet: &TagSheet,
        parent: &EntityRef,
    ) -> Result<TagImport> {
        if !matches!(parent.kind, Kind::Campaign | Kind::Advertiser) {
            return Err(Error::invalid(
                "parent",
                "INVALID",
                "Tag sheets are imported under a campaign or an advertiser.",
            ));
        }
        let ready: Vec<&MappedRow> = sheet.rows.iter().filter(|r| r.errors.is_empty()).collect();
        let refused = u32::try_from(sheet.rows.len() - ready.len()).unwrap_or(u32::MAX);
        let ((made, step), _) = self.edit(|ws| {
            let mut batch = ws.batch()?;
            batch.label(label(path));
            let mut made = Vec::with_capacity(ready.len());
            for row in &ready {
                made.push(batch.create_creative(parent, row.creative.clone())?);
            }
            let step = batch.commit_step()?;
            let touched = made.clone();
            Ok(((made, step), touched))
        })?;
        let changed = Changed {
            targets: made.clone(),
            added_or_removed: !made.is_empty(),
        };
        Ok(TagImport {
            made,
            refused,
            step,
            changed,
        })
    }

    /// Reads the tag sheet at `path` with `mapping` and applies it ([`Account::apply_tags`]).
    pub fn import_tags(
        &self,
        path: &Path,
        mapping: &TagMapping,
        presets: &[Preset],
        parent: &EntityRef,
    ) -> Result<TagImport> {
        let sheet = read_sheet(&read_file(path)?, mapping, presets)?;
        if sheet.preset.is_none() {
            return Err(Error::invalid(
                "mapping",
                "REQUIRED",
                "No preset knows this sheet's columns: choose them, or name a preset.",
            ));
        }
        self.apply_tags(path, &sheet, parent)
    }
}
