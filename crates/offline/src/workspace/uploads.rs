//! Audience uploads as the buyer follows them: what each one sent and what the service
//! answered (published, bad records), kept with its change.

use flightdeck_model::AudienceDataResult;
use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Workspace, key_text, parse_json, status_from_text};
use crate::change::{ChangeStatus, EntityRef, Kind};
use crate::workspace::ChangeMessage;
use crate::{Error, Result};

/// One upload to a segment, queued or answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct AudienceUpload {
    /// The change (outbox order).
    pub seq: i64,
    /// Where it stands: pending until posted, applied once the service took it, failed
    /// when it refused it (bad records, an archived segment).
    pub status: ChangeStatus,
    /// Identifiers sent, over every record.
    pub values: usize,
    /// Countries of its records, comma-separated (usually one, such as `US`).
    pub country_code: String,
    /// The service's answer (`published`, `bad_records` …) once it answered with one:
    /// applied, or refused for bad records.
    pub result: Option<AudienceDataResult>,
    /// The last message about it: why it failed or waits, else the answer's message.
    pub message: Option<String>,
}

impl Workspace {
    /// Every upload to `segment` (a draft's key, or the key it has since it landed), in
    /// the order they were queued, applied ones included.
    pub fn audience_uploads(&self, segment: &EntityRef) -> Result<Vec<AudienceUpload>> {
        if segment.kind != Kind::AudienceSegment {
            return Err(Error::Invalid(
                "uploads belong to audience segments".to_owned(),
            ));
        }
        let mut keys = vec![key_text(&segment.key)];
        if let Some(remote) = self.resolve_remote(segment)? {
            keys.push(key_text(&remote));
        }
        let mut stmt = self.conn.prepare(
            "SELECT seq, status, payload, result, messages FROM outbox \
             WHERE kind = 'audience_segment' AND op = 'audience_data' AND key IN (?1, ?2) \
             ORDER BY seq",
        )?;
        let last = keys.last().cloned().unwrap_or_default();
        let rows = stmt.query_map(params![keys[0], last], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, status, payload, result, messages) = row?;
            let payload: Value = parse_json(&payload)?;
            let records = payload.as_array().map(Vec::as_slice).unwrap_or_default();
            // An applied upload keeps only the count of what it sent (see
            // `purge_identifiers`).
            let values = records
                .iter()
                .filter_map(|r| {
                    r.get("valueCount")
                        .and_then(Value::as_u64)
                        .and_then(|n| usize::try_from(n).ok())
                        .or_else(|| r.get("values")?.as_array().map(Vec::len))
                })
                .sum();
            let mut countries: Vec<&str> = Vec::new();
            for c in records
                .iter()
                .filter_map(|r| r.get("countryCode")?.as_str())
            {
                if !countries.contains(&c) {
                    countries.push(c);
                }
            }
            let result: Option<AudienceDataResult> =
                result.as_deref().map(parse_json).transpose()?;
            let messages: Vec<ChangeMessage> = parse_json(&messages)?;
            let message = messages
                .last()
                .map(|m| m.message.clone())
                .or_else(|| result.as_ref().map(|r| r.message.clone()))
                .filter(|m| !m.is_empty());
            out.push(AudienceUpload {
                seq,
                status: status_from_text(&status)?,
                values,
                country_code: countries.join(","),
                result,
                message,
            });
        }
        Ok(out)
    }
}
