//! Saving edits, shared by the hosts: a form's content through the workspace's one save
//! path ([`Account::save`]), and "duplicate as new". Each returns what it saved and the
//! rules the saved change still breaks, and brings the table indexes up to date in the
//! same lock.

use flightdeck_model::{AudienceSegment, Creative, FieldError};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::Draft;
use serde::{Deserialize, Serialize};

use crate::query::Row;
use crate::{Account, Result};

/// A saved edit: where it went, and the rules it still breaks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
            let changed = vec![target.clone()];
            let saved = Saved {
                target,
                errors,
                pending_count,
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
