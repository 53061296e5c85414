//! Saving edits: one function per operation, shared by the hosts. Each returns what it
//! saved and the rules the saved change still breaks, read from that change itself, and
//! brings the table indexes up to date in the same lock.

use flightdeck_model::{AudienceSegment, Creative, FieldError, FlightCap, SiteList};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{SiteListEdit, Workspace};
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
}

/// One cap as the flight-caps form saves it, with the flight it is for.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CapOnFlight {
    /// The cap (`flightId` is filled in from `flight`).
    pub cap: FlightCap,
    /// The flight (a new flight has a local key until its campaign lands), or `None`
    /// when the buyer has not chosen one.
    pub flight: Option<EntityRef>,
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
    /// Runs one edit of the workspace; `f` returns the entity it saved.
    pub fn save(
        &self,
        f: impl FnOnce(&mut Workspace) -> flightdeck_offline::Result<EntityRef>,
    ) -> Result<Saved> {
        let (saved, _) = self.edit(|ws| {
            let target = f(ws)?;
            let errors = ws
                .latest_change(&target)?
                .map(|c| c.errors)
                .unwrap_or_default();
            let changed = vec![target.clone()];
            Ok((Saved { target, errors }, changed))
        })?;
        Ok(saved)
    }

    /// One site-list call: `add` makes a new list; the others need `target`. Every call
    /// carries the list's `name` (the service requires it and renames the list with it).
    pub fn save_site_list(
        &self,
        target: Option<EntityRef>,
        op: SiteListEdit,
        value: SiteList,
    ) -> Result<Saved> {
        self.save(|ws| match (op, target) {
            (SiteListEdit::Add, _) => ws.create_site_list(value),
            (SiteListEdit::Append, Some(t)) => ws.append_sites(&t, value).map(|_| t),
            (SiteListEdit::Overwrite, Some(t)) => ws.overwrite_sites(&t, value).map(|_| t),
            (SiteListEdit::Remove, Some(t)) => ws.remove_sites(&t, value).map(|_| t),
            (_, None) => Err(flightdeck_offline::Error::Invalid(
                "choose the site list to change".into(),
            )),
        })
    }

    /// Copies a creative or segment into a new draft (the way to change a posted one:
    /// the service has no update for them). The copy keeps the parent and every field
    /// the buyer set; what the service assigns (id, status, counts) is left out.
    pub fn duplicate(&self, target: &EntityRef) -> Result<Duplicate> {
        if !matches!(target.kind, Kind::Creative | Kind::AudienceSegment) {
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

    /// Sets the flight caps of an ad order, each with the flight it is for (see
    /// `Workspace::set_flight_caps_chosen` for the rule on caps with no flight chosen).
    pub fn save_flight_caps(&self, ad_order: &EntityRef, caps: Vec<CapOnFlight>) -> Result<Saved> {
        let caps_of = EntityRef::new(Kind::FlightCaps, ad_order.key.clone());
        let pairs = caps.into_iter().map(|c| (c.cap, c.flight)).collect();
        self.save(|ws| ws.set_flight_caps_chosen(ad_order, pairs).map(|_| caps_of))
    }
}
