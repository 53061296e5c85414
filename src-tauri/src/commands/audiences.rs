//! Audience data: identifiers read from the buyer's file, uploads queued in the
//! workspace, and each upload's outcome (published and bad-record counts).
//!
//! The form sends one country and the identifiers; the upload body the service documents
//! (an array of `{serviceSegmentId, countryCode, values}` records) is built here, so the
//! UI never names a segment id it may not know yet.

use flightdeck_model::validate;
use flightdeck_model::{
    AudienceDataRecord, AudienceDataResult, DataType, FieldError, ValidationErrors,
};
use flightdeck_offline::audience_file;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Key, Kind};
use flightdeck_offline::workspace::{PENDING_SEGMENT_ID, Workspace};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::State;

use super::forms::{Saved, with_saved, with_workspace};
use crate::error::{AppError, ErrorCode, Result};
use crate::state::AppState;

/// One upload as the segment form makes it.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct UploadRequest {
    /// ISO 3166-1 alpha-2 country of the identifiers, such as `US`.
    pub country_code: String,
    /// The identifiers, as read from the file.
    pub values: Vec<String>,
}

/// Identifiers read from a file.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct IdentifierFile {
    /// The identifiers, in file order, without blanks and exact duplicates.
    pub values: Vec<String>,
    /// The header's columns when the file is a CSV with several, for the buyer to pick
    /// one; empty for a plain list.
    pub columns: Vec<String>,
    /// The column asked for; `None` when the file's own header decided.
    pub column: Option<String>,
    /// Why no identifiers could be read (no column looks like identifiers, a malformed
    /// line); `columns` still lists the header so the buyer can pick one.
    pub problem: Option<String>,
}

/// One upload of a segment and where it stands.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct UploadView {
    /// Outbox order.
    pub seq: i64,
    /// Waiting, sent, applied, failed...
    pub status: ChangeStatus,
    /// Identifiers in the upload.
    pub values: u32,
    /// Their country.
    pub country_code: String,
    /// The service's answer (published, failed and bad-record counts) once it came.
    pub result: Option<AudienceDataResult>,
    /// Why it failed or waits, when it did.
    pub message: Option<String>,
}

/// The segment's `serviceSegmentId` (the workspace's stand-in while it is a draft) and
/// its data type, as the model's rules need them.
fn segment_facts(ws: &Workspace, segment: &EntityRef) -> Result<(String, Option<DataType>)> {
    if segment.kind != Kind::AudienceSegment {
        return Err(AppError::state(
            "identifiers are uploaded to an audience segment",
        ));
    }
    let data_type = ws.get(segment)?.and_then(|e| {
        e.working
            .get("dataType")
            .and_then(|v| v.as_str())
            .map(DataType::from_wire)
    });
    let id = match ws.resolve_remote(segment)? {
        Some(Key::Segment(s)) => s,
        _ => PENDING_SEGMENT_ID.to_owned(),
    };
    Ok((id, data_type))
}

/// The one record the form makes. An empty `serviceSegmentId` is the segment's: the
/// workspace fills it in, at once or when a draft segment lands. The country code goes
/// as typed: the workspace normalises it (trim, upper case), as for the CLI.
fn record(segment_id: String, upload: UploadRequest) -> AudienceDataRecord {
    AudienceDataRecord {
        service_segment_id: segment_id,
        country_code: upload.country_code,
        values: upload.values,
        ..AudienceDataRecord::default()
    }
}

/// Field errors of the one record the form makes, at the form's own paths
/// (`[0].values[3]` becomes `values[3]`).
fn form_paths(errors: Vec<FieldError>) -> Vec<FieldError> {
    errors
        .into_iter()
        .map(|mut e| {
            if let Some(rest) = e.field.strip_prefix('[')
                && let Some((index, tail)) = rest.split_once("].")
                && index.bytes().all(|b| b.is_ascii_digit())
            {
                e.field = tail.to_owned();
            }
            e
        })
        .collect()
}

/// Broken rules of an upload to `segment`, at the form's paths.
pub(crate) fn check_upload(
    ws: &Workspace,
    segment: &EntityRef,
    upload: UploadRequest,
) -> Result<Vec<FieldError>> {
    let (id, data_type) = segment_facts(ws, segment)?;
    let records = [record(id.clone(), upload)];
    let errors = validate::audience_data(&id, data_type.as_ref(), &records)
        .err()
        .map(|e| e.0)
        .unwrap_or_default();
    Ok(form_paths(errors))
}

/// Queues an upload of identifiers to a segment (downloaded or draft; a posted segment
/// takes uploads though its own fields are read-only). An upload that breaks the rules
/// is refused by the workspace with its field errors (at the form's paths), nothing
/// queued: it could never be posted.
#[tauri::command]
#[specta::specta]
pub fn upload_audience_data(
    state: State<'_, AppState>,
    segment: EntityRef,
    upload: UploadRequest,
) -> Result<Saved> {
    if segment.kind != Kind::AudienceSegment {
        return Err(AppError::state(
            "identifiers are uploaded to an audience segment",
        ));
    }
    let data = vec![record(String::new(), upload)];
    with_workspace(&state, |ws| ws.upload_audience_data(&segment, data)).map_err(|e| {
        // A refusal names the form's fields, in its sentence too.
        if e.code == ErrorCode::Invalid && !e.field_errors.is_empty() {
            AppError::from(ValidationErrors(form_paths(e.field_errors)))
        } else {
            e
        }
    })?;
    let mut saved = with_saved(&state, segment)?;
    saved.errors = form_paths(saved.errors);
    Ok(saved)
}

/// Reads identifiers from a file's text: one per line, or one column of a CSV
/// (`column` names it; without it the header decides). A file the buyer must pick a
/// column of answers its columns and the problem rather than an error.
#[tauri::command]
#[specta::specta]
pub fn read_identifiers(text: String, column: Option<String>) -> Result<IdentifierFile> {
    let columns = audience_file::columns(&text)?;
    let (values, problem) = match audience_file::identifiers(&text, column.as_deref()) {
        Ok(values) => (values, None),
        Err(flightdeck_offline::Error::Invalid(why)) => (Vec::new(), Some(why)),
        Err(other) => return Err(other.into()),
    };
    Ok(IdentifierFile {
        values,
        columns: if columns.len() > 1 {
            columns
        } else {
            Vec::new()
        },
        column,
        problem,
    })
}

/// The uploads of a segment, oldest first, with their counts.
#[tauri::command]
#[specta::specta]
pub fn audience_uploads(state: State<'_, AppState>, segment: EntityRef) -> Result<Vec<UploadView>> {
    let active = state.active()?;
    let ws = active.workspace()?;
    Ok(ws
        .audience_uploads(&segment)?
        .into_iter()
        .map(|u| UploadView {
            seq: u.seq,
            status: u.status,
            values: u32::try_from(u.values).unwrap_or(u32::MAX),
            country_code: u.country_code,
            result: u.result,
            message: u.message,
        })
        .collect())
}
