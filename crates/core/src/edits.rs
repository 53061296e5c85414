//! Saving edits, shared by the hosts: a form's content through the workspace's one save
//! path ([`Account::save`]), and "duplicate as new". Each returns what it saved and the
//! rules the saved change still breaks, and brings the table indexes up to date in the
//! same lock.

use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, Creative, FieldError, SiteList,
};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{Draft, Workspace};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::query::Row;
use crate::{Account, Result};

/// A saved edit: where it went, and the rules it still breaks.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Saved {
    /// The entity (a new draft gets a local key).
    pub target: EntityRef,
    /// Broken rules; the edit is saved anyway and held back from posting.
    pub errors: Vec<FieldError>,
    /// Changes not applied yet, now: the one figure of the app's snapshot a save moves,
    /// so a host updates it without reading the snapshot again.
    pub pending_count: u32,
    /// The entity as its table shows it now, read in the save's own lock: a table
    /// showing the row can show the save at once, without asking for its window again.
    /// `None` for flight caps (no table of their own), or when the row could not be
    /// read back (the table then shows the save when its window comes).
    pub row: Option<SavedRow>,
}

/// A saved entity's table row, by kind.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", content = "row", rename_all = "snake_case")]
pub enum SavedRow {
    /// An advertiser's row.
    Advertiser(Box<Row<Advertiser>>),
    /// A campaign's row.
    Campaign(Box<Row<Campaign>>),
    /// An ad order's row.
    AdOrder(Box<Row<AdOrder>>),
    /// A creative's row.
    Creative(Box<Row<Creative>>),
    /// A site list's row.
    SiteList(Box<Row<SiteList>>),
    /// An audience segment's row.
    AudienceSegment(Box<Row<AudienceSegment>>),
}

impl SavedRow {
    /// `target`'s row as tables show it; `None` for a kind with no table of its own.
    fn read(ws: &Workspace, target: &EntityRef) -> Result<Option<SavedRow>> {
        fn boxed<T: DeserializeOwned>(
            ws: &Workspace,
            target: &EntityRef,
        ) -> Result<Option<Box<Row<T>>>> {
            Ok(crate::query::row(ws, target)?.map(Box::new))
        }
        Ok(match target.kind {
            Kind::Advertiser => boxed(ws, target)?.map(SavedRow::Advertiser),
            Kind::Campaign => boxed(ws, target)?.map(SavedRow::Campaign),
            Kind::AdOrder => boxed(ws, target)?.map(SavedRow::AdOrder),
            Kind::Creative => boxed(ws, target)?.map(SavedRow::Creative),
            Kind::SiteList => boxed(ws, target)?.map(SavedRow::SiteList),
            Kind::AudienceSegment => boxed(ws, target)?.map(SavedRow::AudienceSegment),
            Kind::Flight | Kind::FlightCaps => None,
        })
    }
}

/// A new draft copied from an entity, as the table row the form opens with.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", content = "row", rename_all = "snake_case")]
pub enum Duplicate {
    /// A creative draft.
    Creative(Box<Row<Creative>>),
    /// An audience segment draft.
    AudienceSegment(Box<Row<AudienceSegment>>),
}

impl Duplicate {
    /// The new draft.
    pub fn target(&self) -> &EntityRef {
        match self {
            Duplicate::Creative(r) => &r.target,
            Duplicate::AudienceSegment(r) => &r.target,
        }
    }
}

impl Account {
    /// Saves a form's content: `draft` is the form, `target` the entity it edits (`None`
    /// for a new one), `parent` what a new one hangs under (and the ad order of flight
    /// caps, the segment of an upload). See `Workspace::save_draft` for what is refused.
    pub fn save(
        &self,
        target: Option<&EntityRef>,
        parent: Option<&EntityRef>,
        draft: Draft,
    ) -> Result<Saved> {
        let (saved, _) = self.edit(|ws| {
            let (target, errors) = ws.save_draft(target, parent, draft)?;
            let pending_count = u32::try_from(ws.pending_count()?).unwrap_or(u32::MAX);
            // The save is in: a row that cannot be read back fails nothing, the table
            // shows it from its window instead.
            let row = SavedRow::read(ws, &target).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "a saved row could not be read back");
                None
            });
            let changed = vec![target.clone()];
            let saved = Saved {
                target,
                errors,
                pending_count,
                row,
            };
            Ok((saved, changed))
        })?;
        Ok(saved)
    }

    /// Copies a creative or segment into a new draft (the way to change a posted one:
    /// the service has no update for them). The copy keeps the parent and every field
    /// the buyer set; what the service assigns (id, status, counts) is left out.
    pub fn duplicate(&self, target: &EntityRef) -> Result<Duplicate> {
        // The way to change a posted entity of a kind with no update (`Kind::has_update`).
        if target.kind.has_update() {
            return Err(crate::error::State::NotDuplicated(target.kind.plural()).into());
        }
        let (copy, _) = self.edit(|ws| {
            let copy = ws.duplicate_as_new(target)?;
            Ok((copy.clone(), vec![copy]))
        })?;
        let missing = || crate::Error::from(crate::error::State::CopyUnreadable);
        Ok(match copy.kind {
            Kind::Creative => Duplicate::Creative(Box::new(self.row(&copy)?.ok_or_else(missing)?)),
            _ => Duplicate::AudienceSegment(Box::new(self.row(&copy)?.ok_or_else(missing)?)),
        })
    }
}
