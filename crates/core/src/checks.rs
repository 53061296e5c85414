//! Creative checks as the hosts show them: the warnings and infos of
//! `flightdeck-workbench` for one creative (saved, posted, or a form being edited), for
//! a selection ("Check all creatives"), for the pending changes (the Pending screen's
//! Check), and a VAST URL's chain fetched and checked on request ([`fetch`]).
//!
//! The rules are the workbench's; this module only reads creatives from the workspace,
//! counts, and pages. Errors stay the model's ([`Account::validate`]): nothing here
//! blocks a save or a post, it asks for a confirmation.

pub mod fetch;

use flightdeck_model::Creative;
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{Draft, Workspace};
use serde::Serialize;

pub use fetch::{FETCH_MAX_BYTES, FETCH_TIMEOUT, VastHop};
pub use flightdeck_workbench::{
    AdKind, Finding, Level, MediaFile, Tracker, VastAd, VastCreative, VastLinear, VastSummary,
    XmlError,
};

use crate::bulk::{BulkScope, FIRST_ROWS};
use crate::query::label_of;
use crate::{Account, Result};

/// What the creative form's "Checks" tab shows: every finding, and what each VAST
/// document holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CreativeChecks {
    /// Warnings and infos, in field order, each at its wire path (and line in XML or
    /// HTML). Never an error: those are the model's.
    pub findings: Vec<Finding>,
    /// Each VAST document of the creative (`video.vastXml`, …) as the inspector reads
    /// it: version, InLine or Wrapper, duration, media files, trackers, click-through.
    pub vast: Vec<VastDocument>,
}

/// One VAST document of a creative, read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct VastDocument {
    /// Wire path of the field holding it.
    pub path: String,
    /// What it holds.
    pub summary: VastSummary,
}

/// The checks of one creative.
pub fn of_creative(c: &Creative) -> CreativeChecks {
    CreativeChecks {
        findings: flightdeck_workbench::check_creative(c),
        vast: flightdeck_workbench::vast_xmls(c)
            .filter(|(_, xml)| !xml.trim().is_empty())
            .map(|(path, xml)| VastDocument {
                path: path.to_owned(),
                summary: flightdeck_workbench::inspect_vast(xml),
            })
            .collect(),
    }
}

/// A stored creative's JSON read as a creative; `None` for JSON that does not fit (it
/// has no findings: the model's errors say what is wrong with it).
pub(crate) fn creative_of(json: &str) -> Option<Creative> {
    serde_json::from_str(json).ok()
}

/// The findings of one stored entity: empty for anything but a creative.
pub(crate) fn findings_of(ws: &Workspace, target: &EntityRef) -> Result<Vec<Finding>> {
    if target.kind != Kind::Creative {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    ws.scan_one(target, |s| {
        out = findings_of_json(s.json);
        Ok(())
    })?;
    Ok(out)
}

/// How many warnings and infos a list holds.
pub fn count(findings: &[Finding]) -> (u32, u32) {
    let n = |level| {
        let c = findings.iter().filter(|f| f.level == level).count();
        u32::try_from(c).unwrap_or(u32::MAX)
    };
    (n(Level::Warning), n(Level::Info))
}

/// One creative's findings, as a selection's check lists them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CreativeFindings {
    /// Which creative.
    pub target: EntityRef,
    /// Its name, or its kind and key.
    pub label: String,
    /// Its warnings and infos.
    pub findings: Vec<Finding>,
}

/// How often one rule fired across a selection.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct RuleCount {
    /// The rule id (`tag.http-resource`).
    pub rule: String,
    /// Its level.
    pub level: Level,
    /// Creatives it fired on.
    pub creatives: u32,
}

/// What "Check all creatives" found in a selection.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct SelectionChecks {
    /// Creatives checked (other kinds in the selection are skipped).
    pub checked: u32,
    /// Of those, the ones with at least one finding.
    pub with_findings: u32,
    /// Warnings in all.
    pub warnings: u32,
    /// Infos in all.
    pub infos: u32,
    /// Each rule that fired, with how many creatives, most first.
    pub rules: Vec<RuleCount>,
    /// The creatives with findings, in the selection's order: the first
    /// [`FIRST_ROWS`] for the app (the table's filter `has:findings` lists them all),
    /// every one for the CLI.
    pub creatives: Vec<CreativeFindings>,
}

/// `f` on each item, in order, on every core when there are [`PARALLEL_CHECKS`] or more
/// (checking 10,000 VAST documents takes seconds on one). An item whose `f` panicked
/// answers `R::default()`.
pub(crate) fn par_map<T: Sync, R: Send + Default + Clone>(
    items: &[T],
    f: &(dyn Fn(&T) -> R + Sync),
) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if threads < 2 || items.len() < PARALLEL_CHECKS {
        return items.iter().map(f).collect();
    }
    let per = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(per)
            .map(|part| (part.len(), s.spawn(move || part.iter().map(f).collect())))
            .collect();
        parts
            .into_iter()
            .flat_map(|(len, h)| h.join().unwrap_or_else(|_| vec![R::default(); len]))
            .collect()
    })
}

/// Creatives checked on several threads from this many: below it, starting threads
/// costs about what it saves.
pub(crate) const PARALLEL_CHECKS: usize = 256;

/// The findings of a stored creative's JSON (none for JSON that is not a creative).
pub(crate) fn findings_of_json(json: &str) -> Vec<Finding> {
    creative_of(json)
        .map(|c| flightdeck_workbench::check_creative(&c))
        .unwrap_or_default()
}

/// Checks every creative of `targets`, keeping at most `keep` creatives' findings.
pub fn check_targets(
    ws: &Workspace,
    targets: &[EntityRef],
    keep: usize,
) -> Result<SelectionChecks> {
    let mut docs: Vec<(EntityRef, String)> = Vec::new();
    for target in targets.iter().filter(|t| t.kind == Kind::Creative) {
        let mut json = None;
        ws.scan_one(target, |s| {
            json = Some(s.json.to_owned());
            Ok(())
        })?;
        docs.push((target.clone(), json.unwrap_or_default()));
    }
    let found = par_map(&docs, &|(_, json): &(EntityRef, String)| {
        findings_of_json(json)
    });
    let mut out = SelectionChecks {
        checked: u32::try_from(docs.len()).unwrap_or(u32::MAX),
        ..SelectionChecks::default()
    };
    let mut rules: Vec<RuleCount> = Vec::new();
    for ((target, _), findings) in docs.iter().zip(found) {
        if findings.is_empty() {
            continue;
        }
        out.with_findings += 1;
        let (w, i) = count(&findings);
        out.warnings += w;
        out.infos += i;
        let mut seen: Vec<&str> = Vec::new();
        for f in &findings {
            if seen.contains(&f.rule.as_str()) {
                continue;
            }
            seen.push(&f.rule);
            match rules.iter_mut().find(|r| r.rule == f.rule) {
                Some(r) => r.creatives += 1,
                None => rules.push(RuleCount {
                    rule: f.rule.clone(),
                    level: f.level,
                    creatives: 1,
                }),
            }
        }
        if out.creatives.len() < keep {
            out.creatives.push(CreativeFindings {
                label: label_of(ws, target)?,
                target: target.clone(),
                findings,
            });
        }
    }
    rules.sort_by(|a, b| b.creatives.cmp(&a.creatives).then(a.rule.cmp(&b.rule)));
    out.rules = rules;
    Ok(out)
}

impl Account {
    /// The checks of a stored creative, a draft or a posted one, as its form's "Checks"
    /// tab shows them (nothing for another kind).
    pub fn creative_checks(&self, target: &EntityRef) -> Result<CreativeChecks> {
        if target.kind != Kind::Creative {
            return Ok(CreativeChecks::default());
        }
        let ws = self.workspace()?;
        let mut out = CreativeChecks::default();
        ws.scan_one(target, |s| {
            if let Some(c) = creative_of(s.json) {
                out = of_creative(&c);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The checks of a form's content while it is edited, as [`Account::validate`]
    /// gives its errors: nothing is saved (nothing for a draft of another kind).
    pub fn draft_checks(&self, draft: &Draft) -> CreativeChecks {
        match draft {
            Draft::Creative { value } => of_creative(value),
            _ => CreativeChecks::default(),
        }
    }

    /// "Check all creatives" on a selection: counts, each rule's count, and the first
    /// [`FIRST_ROWS`] creatives with findings.
    pub fn check_creatives(&self, scope: &BulkScope) -> Result<SelectionChecks> {
        self.check_creatives_keeping(scope, FIRST_ROWS)
    }

    /// [`Account::check_creatives`] keeping up to `keep` creatives' findings (the CLI
    /// prints them all).
    pub fn check_creatives_keeping(
        &self,
        scope: &BulkScope,
        keep: usize,
    ) -> Result<SelectionChecks> {
        let ws = self.workspace()?;
        let targets = scope.targets(&self.tables, &ws)?;
        check_targets(&ws, &targets, keep)
    }
}
