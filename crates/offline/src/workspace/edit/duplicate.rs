//! "Duplicate as new": a draft copied from an entity, without what the service assigned.

use flightdeck_model::{AdOrder, Campaign};
use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::*;
use crate::change::{EntityRef, Kind};
use crate::workspace::{key_from_text, key_text, kind_from_text, parse_json, to_value};
use crate::{Error, Result};

impl Batch<'_> {
    /// A new draft copied from `target`'s working copy, under the same parent (a draft
    /// parent stays linked), for kinds the service cannot update once posted and for
    /// "save as new" elsewhere. What the service assigned is left out (id, status,
    /// counts; a segment's `serviceSegmentId`), as are references Flightdeck generated
    /// for exactly-once posting; the name gets " (copy)", and a segment's
    /// `externalAudienceId` a suffix that no other segment in the workspace has.
    pub fn duplicate_as_new(&mut self, target: &EntityRef) -> Result<EntityRef> {
        let working: Value = parse_json(&self.require(target)?)?;
        let mut payload = self.as_new(target.kind, working)?;
        let parent: Option<(String, String)> = self
            .row(
                "SELECT parent_kind, parent_key FROM entities WHERE kind = ?1 AND key = ?2",
                params![target.kind.name(), key_text(&target.key)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .and_then(|(k, key): (Option<String>, Option<String>)| Some((k?, key?)));
        let parent = parent
            .map(|(k, key)| -> Result<EntityRef> {
                Ok(EntityRef::new(kind_from_text(&k)?, key_from_text(&key)?))
            })
            .transpose()?;
        let pointer = match (target.kind, parent.as_ref().map(|p| p.kind)) {
            (Kind::Campaign, Some(Kind::Advertiser)) => Some("/advertiserId"),
            (Kind::AdOrder, Some(Kind::Campaign)) => Some("/campaignId"),
            (Kind::Creative, Some(Kind::Advertiser)) => Some("/advertiserId"),
            (Kind::Creative, Some(Kind::Campaign)) => Some("/campaignId"),
            _ => None,
        };
        let links = match (parent, pointer) {
            (Some(parent), Some(pointer)) if self.exists(&parent)? => {
                self.link(&parent, pointer, &mut payload)?
            }
            _ => Links::default(),
        };
        self.create(target.kind, payload, links)
    }

    /// `value` as the body of a new draft of `kind`: see [`Batch::duplicate_as_new`].
    pub(in crate::workspace) fn as_new(&self, kind: Kind, value: Value) -> Result<Value> {
        let mut value = match kind {
            // One identifier of the two the service returns, without the output spelling.
            Kind::Campaign => {
                let c: Campaign = serde_json::from_value(value)
                    .map_err(|e| Error::Corrupt(format!("stored campaign: {e}")))?;
                to_value(&c.request_body(Some(&c)))?
            }
            Kind::AdOrder => {
                let o: AdOrder = serde_json::from_value(value)
                    .map_err(|e| Error::Corrupt(format!("stored ad order: {e}")))?;
                to_value(&o.request_body(Some(&o)))?
            }
            Kind::Flight | Kind::FlightCaps => {
                return Err(Error::Invalid(format!(
                    "a {} cannot be duplicated on its own; duplicate its {} instead",
                    kind.name(),
                    if kind == Kind::Flight {
                        "campaign"
                    } else {
                        "ad order"
                    }
                )));
            }
            _ => value,
        };
        let Value::Object(map) = &mut value else {
            return Err(Error::Corrupt(format!(
                "the stored {} is not an object",
                kind.name()
            )));
        };
        map.remove("id");
        let assigned: &[&str] = match kind {
            Kind::Campaign => &["hasFlights"],
            // The listing's facts the service derives (`adTagId`, and `duration` and
            // `bitRate` read from the media) are not the copy's to send.
            Kind::Creative => &["status", "adTagId", "duration", "bitRate"],
            Kind::SiteList => &["insertedCount"],
            Kind::AudienceSegment => &["serviceSegmentId", "status", "dataCount", "message"],
            _ => &[],
        };
        for field in assigned {
            map.remove(*field);
        }
        // The vendor name a listing shows beside the type id: display text, not sent.
        if kind == Kind::Creative
            && let Some(Value::Object(t)) = map.get_mut("type")
        {
            t.remove("vendor");
        }
        if let Some(Value::Array(flights)) = map.get_mut("flights") {
            for f in flights.iter_mut().filter_map(Value::as_object_mut) {
                for field in ["id", "status", "remainingBudget"] {
                    f.remove(field);
                }
            }
        }
        // A reference Flightdeck generated would make the copy's exactly-once look-up
        // find the original; a new one is generated when the copy is posted.
        for field in [
            "externalAdvertiserId",
            "externalCampaignId",
            "externalAdOrderId",
            "ioNumber",
            "externalCreativeid",
            "externalAudienceId",
        ] {
            if map
                .get(field)
                .and_then(Value::as_str)
                .is_some_and(|s| s.starts_with(crate::sync::REF_PREFIX))
            {
                map.remove(field);
            }
        }
        if let Some(Value::String(name)) = map.get_mut("name") {
            name.push_str(" (copy)");
        }
        if kind == Kind::AudienceSegment
            && let Some(ext) = map.get("externalAudienceId").and_then(Value::as_str)
        {
            let unique = self.unused_audience_id(ext)?;
            map.insert("externalAudienceId".into(), Value::from(unique));
        }
        Ok(value)
    }

    /// `{base}-copy`, or `{base}-copy-N`, whichever no segment in the workspace uses.
    pub(super) fn unused_audience_id(&self, base: &str) -> Result<String> {
        let mut n = 1;
        loop {
            let candidate = if n == 1 {
                format!("{base}-copy")
            } else {
                format!("{base}-copy-{n}")
            };
            let taken: bool = self.row(
                "SELECT EXISTS(SELECT 1 FROM entities WHERE kind = 'audience_segment' \
                 AND json_extract(COALESCE(working_json, remote_json), '$.externalAudienceId') = ?1)",
                params![candidate],
                |r| r.get(0),
            )?;
            if !taken {
                return Ok(candidate);
            }
            n += 1;
        }
    }
}
