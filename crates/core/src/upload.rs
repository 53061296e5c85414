//! Uploads of identifiers to audience segments, for both hosts: the app's form (one
//! country and the identifiers it read) and the CLI's file. Both queue through the
//! workspace, which splits an upload into requests the service takes and refuses one it
//! would refuse, so neither host decides what an upload is.

use std::path::{Path, PathBuf};

use flightdeck_model::{AUDIENCE_UPLOAD_MAX_BYTES, AudienceDataRecord};
use flightdeck_offline::audience_file;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Kind};

use crate::error::State;
use crate::forms::UploadView;
use crate::{Account, Error, Result};

/// An upload queued from a file: how many identifiers, and its changes (one per request,
/// in order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// Identifiers read from the file (blanks and repeats left out).
    pub identifiers: usize,
    /// The changes that carry them.
    pub seqs: Vec<i64>,
}

/// Where the changes of one upload stand, worst first, as a host tells the buyer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UploadState {
    /// Every request was applied.
    Applied,
    /// The service refused some (failed, invalid or blocked): their messages.
    Refused(Vec<String>),
    /// A request's answer was lost and the service cannot be asked: the buyer checks.
    NeedsReview(Option<String>),
    /// Some wait in the workspace for the next post (offline, not signed in).
    Waiting(Option<String>),
}

impl UploadState {
    /// The state of the uploads of one queued upload.
    pub fn of(uploads: &[UploadView]) -> UploadState {
        let refused: Vec<String> = uploads
            .iter()
            .filter(|u| {
                matches!(
                    u.status,
                    ChangeStatus::Failed | ChangeStatus::Invalid | ChangeStatus::Blocked
                )
            })
            .map(|u| u.message.clone().unwrap_or_default())
            .collect();
        if !refused.is_empty() {
            return UploadState::Refused(refused);
        }
        match uploads.iter().find(|u| u.status != ChangeStatus::Applied) {
            None => UploadState::Applied,
            Some(u) if u.status == ChangeStatus::NeedsReview => {
                UploadState::NeedsReview(u.message.clone())
            }
            Some(u) => UploadState::Waiting(u.message.clone()),
        }
    }
}

fn segment_only(segment: &EntityRef) -> Result<()> {
    if segment.kind == Kind::AudienceSegment {
        Ok(())
    } else {
        Err(State::NotASegment.into())
    }
}

impl Account {
    /// Queues the identifiers of a file (one per line, or one `column` of a CSV) to
    /// `segment`, split into requests the service takes. An upload the service would
    /// refuse is refused here with the record paths (`[0].values[3]`), nothing queued.
    pub fn upload_file(
        &self,
        segment: &EntityRef,
        file: &Path,
        country: &str,
        column: Option<&str>,
    ) -> Result<Queued> {
        segment_only(segment)?;
        let text = std::fs::read_to_string(file).map_err(|e| Error::Read {
            path: file.to_owned(),
            source: e,
        })?;
        let values = audience_file::identifiers(&text, column).map_err(|e| Error::File {
            path: file.to_owned(),
            why: e.to_string(),
        })?;
        if values.is_empty() {
            return Err(Error::NoIdentifiers {
                path: PathBuf::from(file),
            });
        }
        let identifiers = values.len();
        // The workspace normalises the country code (trim, upper case) for every host.
        let record = AudienceDataRecord {
            country_code: country.to_owned(),
            values,
            ..AudienceDataRecord::default()
        };
        let (seqs, _) = self.edit(|ws| {
            let seqs =
                ws.upload_audience_data_split(segment, vec![record], AUDIENCE_UPLOAD_MAX_BYTES)?;
            Ok((seqs, vec![segment.clone()]))
        })?;
        Ok(Queued { identifiers, seqs })
    }

    /// The uploads among `seqs` of `segment`, in order; an error when one of them is
    /// no longer in the workspace (discarded meanwhile).
    pub fn uploads_of(&self, segment: &EntityRef, seqs: &[i64]) -> Result<Vec<UploadView>> {
        let shown: Vec<UploadView> = self
            .audience_uploads(segment)?
            .into_iter()
            .filter(|u| seqs.contains(&u.seq))
            .collect();
        if shown.len() != seqs.len() {
            return Err(State::UploadGone.into());
        }
        Ok(shown)
    }
}
