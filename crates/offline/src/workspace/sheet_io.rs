//! Spreadsheet export, import and paste over the workspace: the rows a sheet names are
//! read here, and [`crate::bulk::sheet`] turns them into cells and cells into plans.

use std::collections::HashMap;

use flightdeck_model::TimezoneName;
use serde::Deserialize;
use serde_json::Value;

use super::{Asked, Planned, Preview, Workspace, parse_json};
use crate::Result;
use crate::bulk::sheet::{self, Delimiter, ImportOptions, RowFacts, SheetFormat, SheetRows};
use crate::change::{EntityRef, Key, Kind};

/// Selections up to this size read their rows one by one; larger ones scan their kinds.
const SCAN_FROM: usize = 1_000;

impl Workspace {
    /// The entities as a sheet in the wire format: see [`Workspace::export_sheet_as`].
    pub fn export_sheet(
        &self,
        targets: &[EntityRef],
        delimiter: Delimiter,
        with_kind: bool,
    ) -> Result<String> {
        self.export_sheet_as(targets, delimiter, with_kind, SheetFormat::Wire)
    }

    /// The entities as a sheet: `targets` in their order, one row each, with a `kind`
    /// column when `with_kind` (a whole account). Columns come in the order they are
    /// first met, `id` first; `format` says how cells are written.
    pub fn export_sheet_as(
        &self,
        targets: &[EntityRef],
        delimiter: Delimiter,
        with_kind: bool,
        format: SheetFormat,
    ) -> Result<String> {
        let mut rows = SheetRows::with_capacity(targets.len(), format);
        let mut facts = Facts::default();
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
            let value = parse_json::<Value>(json)?;
            let row_facts = match rows.format() {
                SheetFormat::Sheet => facts.of(self, target, parent, &value)?,
                SheetFormat::Wire => RowFacts::default(),
            };
            rows.add(target, parent, &value, status, &row_facts);
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
            |target| self.timezone_of(target),
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

/// The timezones and names of the parents an export's rows share (a file of ad orders
/// often has few campaigns), each read once.
#[derive(Default)]
struct Facts {
    timezones: HashMap<EntityRef, Option<TimezoneName>>,
    names: HashMap<EntityRef, Option<String>>,
}

impl Facts {
    /// The row's timezone (its advertiser's: its parent's, or its own for an advertiser)
    /// and its parents' names.
    fn of(
        &mut self,
        ws: &Workspace,
        target: &EntityRef,
        parent: Option<&EntityRef>,
        value: &Value,
    ) -> Result<RowFacts> {
        let zone_of = parent.unwrap_or(target);
        let tz = match self.timezones.get(zone_of) {
            Some(tz) => tz.clone(),
            None => {
                let tz = ws.timezone_of(zone_of)?;
                self.timezones.insert(zone_of.clone(), tz.clone());
                tz
            }
        };
        let mut names = Vec::new();
        for (field, _, kind) in sheet::name_columns(target.kind) {
            // The id the row names, or its draft parent (which has none yet).
            let by_id = value
                .get(field)
                .and_then(Value::as_i64)
                .map(|id| EntityRef::new(*kind, Key::Id(id)));
            let Some(of) = by_id.or_else(|| parent.filter(|p| p.kind == *kind).cloned()) else {
                continue;
            };
            if let Some(name) = self.name(ws, &of)? {
                names.push((*field, name));
            }
        }
        Ok(RowFacts { tz, names })
    }

    fn name(&mut self, ws: &Workspace, of: &EntityRef) -> Result<Option<String>> {
        if let Some(name) = self.names.get(of) {
            return Ok(name.clone());
        }
        #[derive(Deserialize)]
        struct Named {
            name: Option<String>,
        }
        let mut name = None;
        ws.scan_one(of, |s| {
            name = serde_json::from_str::<Named>(s.json)
                .ok()
                .and_then(|n| n.name);
            Ok(())
        })?;
        self.names.insert(of.clone(), name.clone());
        Ok(name)
    }
}
