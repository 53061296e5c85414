//! Audience uploads: the one place an upload's records are normalised (country codes
//! trimmed and upper-cased, the segment's id filled in now or when its draft lands),
//! checked against the rules and split into requests, for every host and for live
//! validation alike (`Workspace::validate_draft` runs this same code, rolled back).

use flightdeck_client::upload;
use flightdeck_model::validate::{self, codes};
use flightdeck_model::{
    AUDIENCE_UPLOAD_MAX_BYTES, AudienceData, DataType, FieldError, ValidationErrors,
};
use serde_json::Value;

use super::*;
use crate::change::{EntityRef, Key, Kind, Op, ParentRef};
use crate::workspace::validate::PENDING_SEGMENT_ID;
use crate::workspace::{parse_json, to_value};
use crate::{Error, Result};

/// Bytes an upload's requests keep free per record for the `serviceSegmentId` of a draft
/// segment, filled in when it lands: ids the service issues (`fpsegm` and letters and
/// digits) are far shorter, so a request queued for a draft still fits when sent.
const SEGMENT_ID_ALLOWANCE: usize = 64;

impl Batch<'_> {
    /// Queues records of identifiers to add to a segment, downloaded or draft, posted or
    /// not, as requests of at most [`AUDIENCE_UPLOAD_MAX_BYTES`]. See
    /// [`Batch::upload_audience_data_split`], which this is with that limit; returns the
    /// `seq` of the **last** change it queued (posting it with
    /// [`crate::sync::PushOptions::only`] posts the earlier ones too: changes to one
    /// segment go in outbox order).
    pub fn upload_audience_data(&mut self, segment: &EntityRef, data: AudienceData) -> Result<i64> {
        let seqs = self.upload_audience_data_split(segment, data, AUDIENCE_UPLOAD_MAX_BYTES)?;
        seqs.last()
            .copied()
            .ok_or_else(|| Error::Invalid("the upload was queued as no change at all".to_owned()))
    }

    /// Queues records of identifiers to add to a segment as one change per request of at
    /// most `max_request_bytes` of JSON (capped at [`AUDIENCE_UPLOAD_MAX_BYTES`]), split
    /// now rather than when posted: each request is then its own change with its own
    /// exactly-once bookkeeping, so a request whose answer is lost waits for the buyer
    /// while those that applied stay applied, and none is ever sent twice. Returns the
    /// `seq` of every change, in order (one row each in
    /// [`Workspace::audience_uploads`]).
    ///
    /// Country codes are trimmed and upper-cased here, for every host. A record whose
    /// `serviceSegmentId` is empty gets the segment's: now when it has one, else when the
    /// draft lands (the changes wait for it).
    ///
    /// [`Error::Refused`], with nothing queued, when the upload breaks the service's
    /// rules (`flightdeck_model::validate::audience_data`, checked as if the records of
    /// a draft segment carried the id it will get) or a value cannot fit in any request.
    /// Fields index the records as passed: `values` (no records), `[i].serviceSegmentId`,
    /// `[i].countryCode`, `[i].values`, `[i].values[j]`, `[i]`.
    pub fn upload_audience_data_split(
        &mut self,
        segment: &EntityRef,
        mut data: AudienceData,
        max_request_bytes: usize,
    ) -> Result<Vec<i64>> {
        expect_kind(segment, Kind::AudienceSegment)?;
        let working: Value = parse_json(&self.require(segment)?)?;
        let remote = match &segment.key {
            Key::Local(_) => self.landed(segment)?,
            other => Some(other.clone()),
        };
        let segment_id = match &remote {
            Some(Key::Segment(id)) => Some(id.clone()),
            _ => None,
        };
        for record in &mut data {
            record.country_code = record.country_code.trim().to_uppercase();
            if record.service_segment_id.is_empty()
                && let Some(id) = &segment_id
            {
                record.service_segment_id.clone_from(id);
            }
        }
        // Checked as sent: a draft's records carry the id it will get (a stand-in here),
        // and for sizing an id as long as any the service issues.
        let stand_in = |id: &str| {
            let mut copy = data.clone();
            for r in copy.iter_mut().filter(|r| r.service_segment_id.is_empty()) {
                r.service_segment_id = id.to_owned();
            }
            copy
        };
        let data_type = working
            .get("dataType")
            .and_then(Value::as_str)
            .map(DataType::from_wire);
        let checked_id = segment_id.as_deref().unwrap_or(PENDING_SEGMENT_ID);
        validate::audience_data(checked_id, data_type.as_ref(), &stand_in(checked_id))
            .map_err(Error::Refused)?;
        let sized = stand_in(&"x".repeat(SEGMENT_ID_ALLOWANCE));
        let plan = upload::plan(&sized, max_request_bytes.min(AUDIENCE_UPLOAD_MAX_BYTES)).map_err(
            |e| match e {
                flightdeck_client::Error::Invalid { field, message } => Error::Refused(
                    ValidationErrors(vec![FieldError::new(field, codes::INVALID, message)]),
                ),
                other => Error::Client(other),
            },
        )?;
        let mut seqs = Vec::with_capacity(plan.len());
        let mut recorded = Vec::new();
        for pieces in &plan {
            let body = upload::body(&data, pieces);
            let parents: Vec<ParentRef> = body
                .iter()
                .enumerate()
                .filter(|(_, r)| r.service_segment_id.is_empty())
                .map(|(k, _)| ParentRef {
                    pointer: format!("/{k}/serviceSegmentId"),
                    target: segment.clone(),
                })
                .collect();
            seqs.push(self.append_row(segment, Op::AudienceData, &to_value(&body)?, &parents)?);
            recorded.extend(self.recorded.take().unwrap_or_default());
        }
        // Every request's errors, for the form (`Workspace::save_draft`).
        self.recorded = Some(recorded);
        Ok(seqs)
    }
}
