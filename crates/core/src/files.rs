//! Files the buyer chose in a host's file dialog, handed out as tokens. The desktop
//! app's page never names a path: it asks the host to show the dialog, gets a token for
//! what the buyer chose, and import and export take that token. A page that was made to
//! run someone else's script can then read or write only files the buyer picked since
//! the app started, and write only one picked in a save dialog.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{Error, Result};

/// What the buyer chose a file for: a token for one cannot be used for the other, so a
/// file picked to import is never overwritten by an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileUse {
    /// Picked in an open dialog: read by an import.
    Read,
    /// Picked in a save dialog: written by an export.
    Write,
}

/// The files chosen since the app started, by token.
#[derive(Debug, Default)]
pub struct ChosenFiles {
    chosen: Mutex<HashMap<String, (PathBuf, FileUse)>>,
}

impl ChosenFiles {
    /// No file chosen yet.
    pub fn new() -> ChosenFiles {
        ChosenFiles::default()
    }

    /// Records a file the buyer chose in the dialog; returns the token that stands for
    /// it. Call it only with what a dialog returned.
    pub fn choose(&self, path: PathBuf, use_: FileUse) -> String {
        let token = format!("{:032x}", rand::random::<u128>());
        self.lock().insert(token.clone(), (path, use_));
        token
    }

    /// The file a token stands for, if it was chosen for `use_`. A path, a made-up token
    /// or one chosen for the other use is refused without quoting what was sent.
    pub fn path(&self, token: &str, use_: FileUse) -> Result<PathBuf> {
        match self.lock().get(token) {
            Some((path, chosen)) if *chosen == use_ => Ok(path.clone()),
            _ => Err(match use_ {
                FileUse::Read => crate::error::State::NoFileToRead,
                FileUse::Write => crate::error::State::NoFileToWrite,
            }
            .into()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (PathBuf, FileUse)>> {
        // A panic while holding the lock leaves the map whole (inserts and reads only).
        self.chosen.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Writes `bytes` to `path` whole or not at all: into a temporary file beside it, synced
/// to disk, then renamed over it. A failure or a crash part-way leaves any earlier file
/// as it was, and a reader never sees half a file. A file replaced keeps its permissions.
pub fn replace_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| Error::storage(path, e);
    let mut tmp = tempfile::Builder::new()
        .prefix(".flightdeck-")
        .suffix(".part")
        .tempfile_in(dir)
        .map_err(fail)?;
    if let Ok(meta) = std::fs::metadata(path) {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(fail)?;
    }
    tmp.write_all(bytes).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// Writes `value` to `path` as pretty JSON through [`replace_file`], so a settings or
/// profiles file is never left half written by a crash.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_vec_pretty(value).map_err(|e| Error::storage(path, e))?;
    replace_file(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_stands_for_its_file_and_use_only() {
        let files = ChosenFiles::new();
        let read = files.choose(PathBuf::from("/data/in.csv"), FileUse::Read);
        let write = files.choose(PathBuf::from("/data/out.csv"), FileUse::Write);
        assert_ne!(read, write);
        assert_eq!(
            files.path(&read, FileUse::Read).ok(),
            Some(PathBuf::from("/data/in.csv"))
        );
        assert_eq!(
            files.path(&write, FileUse::Write).ok(),
            Some(PathBuf::from("/data/out.csv"))
        );
        // A file picked to import is not written, nor one picked to export read.
        assert!(files.path(&read, FileUse::Write).is_err());
        assert!(files.path(&write, FileUse::Read).is_err());
        // A path is not a token; the refusal does not quote it.
        let e = files
            .path("/data/in.csv", FileUse::Read)
            .expect_err("a path is refused");
        assert!(!e.to_string().contains("/data"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions_and_no_temporary_file_stays() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("out.csv");
        std::fs::write(&path, "old\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        replace_file(&path, b"new\n").expect("replace");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new\n");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.csv")]);
    }
}
