//! Spreadsheet export, import and paste over the workspace: the rows a sheet names are
//! read here, and [`crate::bulk::sheet`] turns them into cells and cells into plans.

use std::collections::HashMap;

use serde_json::Value;

use super::{Asked, Planned, Preview, Workspace, parse_json};
use crate::Result;
use crate::bulk::sheet::{self, Delimiter, ImportOptions, SheetRows};
use crate::change::{EntityRef, Kind};

/// Selections up to this size read their rows one by one; larger ones scan their kinds.
const SCAN_FROM: usize = 1_000;

impl Workspace {
    /// The entities as a sheet: `targets` in their order, one row each, with a `kind`
    /// column when `with_kind` (a whole account). Columns come in the order they are
    /// first met, `id` first.
    pub fn export_sheet(
        &self,
        targets: &[EntityRef],
        delimiter: Delimiter,
        with_kind: bool,
    ) -> Result<String> {
        let mut rows = SheetRows::with_capacity(targets.len());
        let statuses = if targets.iter().any(|t| t.kind == Kind::AdOrder) {
            self.ad_order_statuses()?
        } else {
            HashMap::new()
        };
        let mut add = |target: &EntityRef, parent: Option<&EntityRef>, json: &str| -> Result<()> {
            let status = match target.kind {
                Kind::AdOrder => statuses.get(&target.key).and_then(|s| s.shown()),
                _ => None,
            };
            rows.add(target, parent, &parse_json::<Value>(json)?, status);
            Ok(())
        };
        if targets.len() < SCAN_FROM {
            for target in targets {
                self.scan_one(target, |s| add(target, s.parent.as_ref(), s.json))?;
            }
        } else {
            // One pass per kind, then the rows in the order asked.
            let wanted: HashMap<&EntityRef, usize> =
                targets.iter().enumerate().map(|(i, t)| (t, i)).collect();
            let mut kinds: Vec<Kind> = targets.iter().map(|t| t.kind).collect();
            kinds.sort();
            kinds.dedup();
            let mut found: Vec<Option<(Option<EntityRef>, String)>> = vec![None; targets.len()];
            for kind in kinds {
                self.scan(kind, |s| {
                    if let Some(&i) = wanted.get(&s.target) {
                        found[i] = Some((s.parent, s.json.to_owned()));
                    }
                    Ok(())
                })?;
            }
            for (target, row) in targets.iter().zip(found) {
                if let Some((parent, json)) = row {
                    add(target, parent.as_ref(), &json)?;
                }
            }
        }
        rows.write(delimiter, with_kind)
    }

    /// The plan of a sheet: rows with an `id` change that entity, rows without one
    /// create drafts. Rows that change nothing stay out of the plan; a row that cannot
    /// be read is refused with the field at fault. Returns the plan and how many rows
    /// were unchanged.
    pub fn plan_sheet(&self, text: &str, options: &ImportOptions) -> Result<(Vec<Planned>, u32)> {
        sheet::plan_sheet(
            text,
            options,
            |target| self.working_of(target),
            |target| Ok(self.ad_order_status(target)?.shown()),
        )
    }

    /// Import or paste: previews the sheet, or applies it as one undo step.
    pub fn import_sheet(
        &mut self,
        text: &str,
        options: &ImportOptions,
        label: &str,
        apply: bool,
    ) -> Result<Preview> {
        let asked = Asked::of_keyed("sheet", &text, &(options, label))?;
        self.run_asked(asked, apply, |ws| {
            let (plan, unchanged) = ws.plan_sheet(text, options)?;
            Ok((plan, label.to_owned(), move |p: &mut Preview| {
                p.unchanged += unchanged;
            }))
        })
    }
}
