//! Where the active profile stands, for a host's status line (the CLI's `status`): the
//! profile, who is signed in, the workspace file, what waits to be posted and why.

use std::path::PathBuf;

use serde::Serialize;

use crate::profiles::LastAccount;
use crate::{Account, Result};

/// The active profile's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// The profile's id.
    pub profile: String,
    /// What the buyer calls it.
    pub name: String,
    /// Its service root.
    pub service: String,
    /// Who is signed in, if anyone (also while the embedded sandbox is stopped).
    pub signed_in: Option<LastAccount>,
    /// The workspace file in use.
    pub workspace: PathBuf,
    /// Changes not applied yet.
    pub pending: usize,
    /// A post of this process runs.
    pub posting: bool,
    /// Why posting waits: the last post could not reach the service.
    pub post_waiting: Option<String>,
    /// Why the last account is not signed in after a start (a locked keyring).
    pub notice: Option<String>,
}

impl Account {
    /// Where this profile stands now.
    pub fn status(&self) -> Result<Status> {
        Ok(Status {
            profile: self.profile.id.clone(),
            name: self.profile.name.clone(),
            service: self.config.base_url.to_string(),
            signed_in: self.signed_in_as(),
            workspace: self.workspace_path()?,
            pending: self.pending_count()?,
            posting: self.is_posting(),
            post_waiting: self.post_waiting(),
            notice: self.restore_problem(),
        })
    }
}
