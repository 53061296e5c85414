//! Which column holds which creative field: the fields a tag sheet can fill, the
//! presets for the common ad-server exports, and finding the header row under a
//! sheet's preamble.
//!
//! The ad servers document their tag-sheet columns only loosely (Campaign Manager
//! 360's bulk sheets name `Placement ID`, `Placement name` and dimensions; the others'
//! help centres show tag exports by example), so each preset lists the header
//! spellings its exports are known to use, and a header matches whatever its case,
//! spacing or punctuation (`Placement_ID` is `placement id`). Anything else is mapped
//! in the app's dialog, and can be saved as a preset of the buyer's own.

use serde::{Deserialize, Serialize};

use super::read::Grid;

/// Rows searched for the header: the preambles the ad servers write (advertiser,
/// campaign, dates, a note or two) are a handful of rows.
pub const HEADER_SEARCH_ROWS: usize = 30;

/// A creative field a tag sheet's column can fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum Field {
    /// `name`.
    Name,
    /// `size`, from dimensions such as `300x250`.
    Size,
    /// A JavaScript tag: `htmlAsset` of a BANNER+TAG creative.
    JsTag,
    /// An iframe tag: `htmlAsset` of a BANNER+TAG creative, when the row has no
    /// JavaScript tag.
    IframeTag,
    /// A VAST tag URL (`video.vastUrl`, VIDEO+VASTURL), or a VAST document pasted in
    /// the cell (`video.vastXml`, VIDEO+VASTXML).
    VastUrl,
    /// `landingPageUrl`.
    ClickThrough,
    /// `externalCreativeid`, at most 26 characters.
    PlacementId,
}

impl Field {
    /// Every field, in the order the mapping dialog lists them.
    pub const ALL: [Field; 7] = [
        Field::Name,
        Field::Size,
        Field::JsTag,
        Field::IframeTag,
        Field::VastUrl,
        Field::ClickThrough,
        Field::PlacementId,
    ];

    /// What the mapping dialog calls it.
    pub fn label(self) -> &'static str {
        match self {
            Field::Name => "Name",
            Field::Size => "Dimensions (size)",
            Field::JsTag => "JavaScript tag",
            Field::IframeTag => "Iframe tag",
            Field::VastUrl => "VAST tag URL",
            Field::ClickThrough => "Click-through URL",
            Field::PlacementId => "Placement ID",
        }
    }

    /// The creative's wire path it fills (a tag's, for the tag fields).
    pub fn wire_path(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Size => "size",
            Field::JsTag | Field::IframeTag => "htmlAsset",
            Field::VastUrl => "video.vastUrl",
            Field::ClickThrough => "landingPageUrl",
            Field::PlacementId => "externalCreativeid",
        }
    }

    /// A tag field: a row needs one of them to make a creative.
    pub fn is_tag(self) -> bool {
        matches!(self, Field::JsTag | Field::IframeTag | Field::VastUrl)
    }
}

/// One field's column, by its header text. A preset may list several for one field:
/// the first found in the sheet is taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ColumnChoice {
    /// The field.
    pub field: Field,
    /// The column's header, matched whatever its case, spacing and punctuation.
    pub header: String,
}

/// A named mapping of headers to fields: a preset shipped for an ad server's export,
/// or one the buyer saved from the mapping dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    /// Shown in the dialog, and what `--preset` names.
    pub name: String,
    /// The columns, by header.
    pub columns: Vec<ColumnChoice>,
}

impl Preset {
    /// A preset from (field, header) pairs.
    pub fn new(name: &str, columns: &[(Field, &str)]) -> Preset {
        Preset {
            name: name.to_owned(),
            columns: columns
                .iter()
                .map(|(field, header)| ColumnChoice {
                    field: *field,
                    header: (*header).to_owned(),
                })
                .collect(),
        }
    }
}

/// The presets shipped for the common ad-server exports, in the order detection
/// prefers them on a tie.
pub fn builtin_presets() -> Vec<Preset> {
    use Field::*;
    vec![
        Preset::new(
            "Campaign Manager 360",
            &[
                (Name, "Placement Name"),
                (PlacementId, "Placement ID"),
                (Size, "Dimensions"),
                (Size, "Placement Dimensions"),
                (JsTag, "JavaScript Tag"),
                (JsTag, "JavaScript Tags"),
                (IframeTag, "iFrames/JavaScript Tag"),
                (IframeTag, "Iframe/JavaScript Tag"),
                (VastUrl, "VAST 4 Tag"),
                (VastUrl, "VAST 3 Tag"),
                (VastUrl, "In-stream Video Tag"),
                (ClickThrough, "Click-through URL"),
            ],
        ),
        Preset::new(
            "Flashtalking",
            &[
                (Name, "Placement Name"),
                (PlacementId, "FT Placement ID"),
                (PlacementId, "Placement ID"),
                (Size, "Size"),
                (JsTag, "JS Tag"),
                (IframeTag, "iFrame Tag"),
                (VastUrl, "VAST URL"),
                (ClickThrough, "Click Through URL"),
                (ClickThrough, "Landing Page"),
            ],
        ),
        Preset::new(
            "Innovid",
            &[
                (Name, "Placement Name"),
                (PlacementId, "Innovid Placement ID"),
                (PlacementId, "Placement ID"),
                (Size, "Player Size"),
                (Size, "Dimensions"),
                (VastUrl, "VAST Tag URL"),
                (VastUrl, "Tag URL"),
                (ClickThrough, "Click-Through URL"),
            ],
        ),
        Preset::new(
            "Amazon/Sizmek",
            &[
                (Name, "Placement Name"),
                (PlacementId, "Placement ID"),
                (Size, "Placement Dimensions"),
                (Size, "Dimensions"),
                (JsTag, "Script Tag"),
                (IframeTag, "IFrame Tag"),
                (VastUrl, "VAST Tag"),
                (ClickThrough, "Click URL"),
            ],
        ),
    ]
}

/// A header as it is compared: lower case, every run of other characters than letters
/// and digits one space (`Click-through URL` is `click through url`).
pub fn normalize(header: &str) -> String {
    let mut out = String::with_capacity(header.len());
    for word in header
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Each field found, with its column (0-based).
pub type Columns = Vec<(Field, usize)>;

/// The column of each field a preset finds in a header row, in [`Field::ALL`] order:
/// for each field, the first of its headers the row holds.
pub fn columns_in(preset: &Preset, header: &[String]) -> Columns {
    let cells: Vec<String> = header.iter().map(|h| normalize(h)).collect();
    let mut found = Vec::new();
    for field in Field::ALL {
        let col = preset
            .columns
            .iter()
            .filter(|c| c.field == field)
            .find_map(|c| {
                let want = normalize(&c.header);
                cells.iter().position(|h| !want.is_empty() && *h == want)
            });
        if let Some(col) = col {
            found.push((field, col));
        }
    }
    found
}

/// The row (0-based) among the first [`HEADER_SEARCH_ROWS`] where `preset` finds the
/// most fields, with those columns; `None` when no row holds a tag column of it.
pub fn header_for(preset: &Preset, grid: &Grid) -> Option<(usize, Columns)> {
    let mut best: Option<(usize, Columns)> = None;
    for (r, row) in grid.rows.iter().take(HEADER_SEARCH_ROWS).enumerate() {
        let cols = columns_in(preset, row);
        if !cols.iter().any(|(f, _)| f.is_tag()) {
            continue;
        }
        if best.as_ref().is_none_or(|(_, b)| cols.len() > b.len()) {
            best = Some((r, cols));
        }
    }
    best
}

/// The preset whose header row finds the most fields (two at least, a tag among
/// them); on a tie, the earlier one.
pub fn detect<'p>(presets: &'p [Preset], grid: &Grid) -> Option<(&'p Preset, usize, Columns)> {
    let mut best: Option<(&Preset, usize, Columns)> = None;
    for preset in presets {
        let Some((row, cols)) = header_for(preset, grid) else {
            continue;
        };
        if cols.len() >= 2 && best.as_ref().is_none_or(|(_, _, b)| cols.len() > b.len()) {
            best = Some((preset, row, cols));
        }
    }
    best
}

/// The row that most looks like a header when no preset knows the sheet, for the
/// mapping dialog to offer its cells: the first of the rows with the most non-empty
/// short cells (a preamble row holds a label and a value; the header, every column).
pub fn guess_header(grid: &Grid) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (r, row) in grid.rows.iter().take(HEADER_SEARCH_ROWS).enumerate() {
        let n = row
            .iter()
            .filter(|c| !c.trim().is_empty() && c.chars().count() <= 64)
            .count();
        if n > 0 && best.is_none_or(|(_, b)| n > b) {
            best = Some((r, n));
        }
    }
    best.map(|(r, _)| r)
}
