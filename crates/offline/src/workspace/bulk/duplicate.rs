//! Copies of entities as new drafts, with what belongs to them: a campaign's flights, an
//! ad order's flight caps for the flights its new campaign has.

use flightdeck_model::validate::codes;
use flightdeck_model::{FieldError, FlightCap, ValidationErrors};
use serde_json::Value;

use super::decode;
use crate::change::{EntityRef, Kind};
use crate::workspace::edit::Batch;
use crate::{Error, Result};

const DAY_MS: i64 = 86_400_000;

/// Moves a date field (epoch milliseconds) by `days`.
fn shift(value: &mut Value, field: &str, days: i64) {
    if let Some(Value::Number(n)) = value.get(field)
        && let Some(ms) = n.as_i64()
    {
        value[field] = Value::from(ms + days * DAY_MS);
    }
}

impl Batch<'_> {
    /// Copies `source` as a new draft under `into` (or its own parent), dates moved by
    /// `shift_days`; an ad order brings its flight caps for the flights its new campaign
    /// has. Returns the copy and the rules it breaks; caps that cannot follow are errors
    /// on `caps` (the copy is made without them).
    pub fn duplicate_into(
        &mut self,
        source: &EntityRef,
        into: Option<&EntityRef>,
        shift_days: i64,
    ) -> Result<(EntityRef, Vec<FieldError>)> {
        let kind = source.kind;
        if let Some(p) = into
            && !kind.parent_kinds().contains(&p.kind)
        {
            let can: Vec<&str> = kind.parent_kinds().iter().map(|k| k.label()).collect();
            return Err(Error::Refused(ValidationErrors(vec![FieldError::new(
                "into",
                codes::INVALID,
                if can.is_empty() {
                    format!(
                        "a {} belongs to no {}; copy it beside the original",
                        kind.label(),
                        p.kind.label()
                    )
                } else {
                    format!(
                        "a {} goes into a {}, not a {}",
                        kind.label(),
                        can.join(" or "),
                        p.kind.label()
                    )
                },
            )])));
        }
        let working = self.working(source)?;
        let mut value = self.as_new(kind, working)?;
        if shift_days != 0 {
            shift(&mut value, "startDate", shift_days);
            shift(&mut value, "endDate", shift_days);
            if let Some(Value::Array(flights)) = value.get_mut("flights") {
                for f in flights.iter_mut() {
                    shift(f, "startDate", shift_days);
                    shift(f, "endDate", shift_days);
                }
            }
        }
        let parent = match into {
            Some(p) => Some(p.clone()),
            None => self.parent_of(source)?,
        };
        // A creative names its new parent only (an advertiser or a campaign, whose
        // advertiser the service resolves); `create_creative` fills that field in.
        if kind == Kind::Creative
            && parent.is_some()
            && let Value::Object(map) = &mut value
        {
            map.remove("advertiserId");
            map.remove("campaignId");
        }
        let copy = self.create_value(kind, parent.as_ref(), value)?;
        let mut errors = self.latest_errors(&copy)?;
        if kind == Kind::AdOrder {
            let caps_of = EntityRef::new(Kind::FlightCaps, source.key.clone());
            if self.exists(&caps_of)? {
                let caps: Vec<FlightCap> = decode(Kind::FlightCaps, self.working(&caps_of)?)?;
                if !caps.is_empty() {
                    let flights: Vec<i64> = match &parent {
                        Some(campaign) if campaign.kind == Kind::Campaign => self
                            .working(campaign)?
                            .get("flights")
                            .and_then(Value::as_array)
                            .map(|fs| {
                                fs.iter()
                                    .filter_map(|f| f.get("id").and_then(Value::as_i64))
                                    .collect()
                            })
                            .unwrap_or_default(),
                        _ => Vec::new(),
                    };
                    let (kept, dropped): (Vec<FlightCap>, Vec<FlightCap>) = caps
                        .into_iter()
                        .partition(|c| c.flight_id.is_some_and(|f| flights.contains(&f)));
                    if !dropped.is_empty() {
                        errors.push(FieldError::new(
                            "caps",
                            codes::BAD_REFERENCE,
                            format!(
                                "{} flight cap(s) were left out: their flights are not flights of the new campaign",
                                dropped.len()
                            ),
                        ));
                    }
                    if !kept.is_empty() {
                        let kept = kept
                            .into_iter()
                            .map(|mut c| {
                                c.id = None;
                                c.order_id = None;
                                c
                            })
                            .collect();
                        self.set_flight_caps(&copy, kept)?;
                    }
                }
            }
        }
        Ok((copy, errors))
    }
}
