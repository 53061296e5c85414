//! Where Flightdeck keeps its files. Both hosts resolve the same directory, so the CLI
//! sees the profiles, sign-ins and workspaces of the desktop app and the other way round.

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Overrides the data directory (tests, end-to-end runs, portable setups).
pub const DATA_DIR_ENV: &str = "FLIGHTDECK_DATA_DIR";

/// The app's bundle identifier: the data directory's name, as Tauri's `app_data_dir`
/// derives it (`~/.local/share/com.flightdeck.desktop` on Linux,
/// `~/Library/Application Support/…` on macOS, `%APPDATA%\…` on Windows).
pub const APP_IDENTIFIER: &str = "com.flightdeck.desktop";

/// The data directory: `$FLIGHTDECK_DATA_DIR`, or the OS's per-user data directory.
pub fn data_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::data_dir()
        .map(|d| d.join(APP_IDENTIFIER))
        .ok_or_else(|| Error::NoDirectory { what: "data" })
}

/// The log directory: `logs` under `$FLIGHTDECK_DATA_DIR` when that is set, otherwise
/// the OS's, as Tauri's `app_log_dir` names it: `~/.local/share/com.flightdeck.desktop/logs`
/// on Linux, `~/Library/Logs/com.flightdeck.desktop` on macOS,
/// `%LOCALAPPDATA%\com.flightdeck.desktop\logs` on Windows.
pub fn log_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir).join("logs"));
    }
    #[cfg(target_os = "macos")]
    let dir = dirs::home_dir().map(|h| h.join("Library/Logs").join(APP_IDENTIFIER));
    #[cfg(not(target_os = "macos"))]
    let dir = dirs::data_local_dir().map(|d| d.join(APP_IDENTIFIER).join("logs"));
    dir.ok_or_else(|| Error::NoDirectory { what: "log" })
}

/// The tag-sheet presets the buyer saved from the mapping dialog, in the data
/// directory beside `settings.json`: both hosts read them (`import-tags --preset`).
pub fn tag_presets_file(data: &Path) -> PathBuf {
    data.join("tag-sheet-presets.json")
}

/// Creates `dir` and its parents. On Unix the directories Flightdeck creates are private
/// to the user (0700): workspaces hold the account's data. One that exists already
/// (made by an older version, or by hand) is made private too.
pub fn create_private_dir(dir: &Path) -> Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        builder.mode(0o700);
        builder.create(dir).map_err(|e| Error::storage(dir, e))?;
        let mode = std::fs::metadata(dir)
            .map_err(|e| Error::storage(dir, e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| Error::storage(dir, e))?;
        }
        Ok(())
    }
    #[cfg(not(unix))]
    builder.create(dir).map_err(|e| Error::storage(dir, e))
}

/// The workspaces' directory under the data directory.
pub fn workspaces_dir(data: &Path) -> PathBuf {
    data.join("workspaces")
}

/// The workspace file of one account of a profile: one per account, so a data partner
/// never sees an agency user's downloads on the same service.
///
/// Injective, so two accounts never share a file (`a.b` and `a_b` included): every byte
/// outside `[A-Za-z0-9._-]` is `%`-escaped, `%` itself included, and the escaped profile
/// never holds `--` (profile ids are made without it; a hand-edited one that has it gets
/// its dashes escaped), so the first `--` always ends the profile.
pub fn workspace_file(profile: &str, account: &str, partner: bool) -> String {
    let mut name = escape_profile(profile);
    name.push_str(if partner { "--partner-" } else { "--user-" });
    name.push_str(&escape(account));
    name.push_str(".db");
    name
}

fn escape_profile(profile: &str) -> String {
    let escaped = escape(profile);
    if escaped.contains("--") {
        escaped.replace('-', "%2d")
    } else {
        escaped
    }
}

/// The workspace of a profile before anyone signed in on it.
pub fn anonymous_workspace_file(profile: &str) -> String {
    format!("{}.db", escape_profile(profile))
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn data_directories_are_private_even_when_they_existed() -> Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir()
            .map_err(|e| Error::storage(Path::new("a temporary directory"), e))?;
        let fresh = tmp.path().join("a/b");
        create_private_dir(&fresh)?;
        let old = tmp.path().join("old");
        std::fs::create_dir(&old).map_err(|e| Error::storage(&old, e))?;
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::storage(&old, e))?;
        create_private_dir(&old)?;
        for dir in [fresh, old] {
            let mode = std::fs::metadata(&dir)
                .map_err(|e| Error::storage(&dir, e))?
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700, "{}", dir.display());
        }
        Ok(())
    }

    #[test]
    fn accounts_that_differ_get_different_files() {
        let names = [
            workspace_file("p", "a.b", false),
            workspace_file("p", "a_b", false),
            workspace_file("p", "a/b", false),
            workspace_file("p", "a%2fb", false),
            workspace_file("p", "a.b", true),
            workspace_file("q", "a.b", false),
            // A profile id with `--` cannot pose as another profile's account.
            workspace_file("a--user-b", "c", false),
            workspace_file("a", "b--user-c", false),
        ];
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        for n in &names {
            assert!(!n.contains('/') && !n.contains('\\'), "{n}");
        }
    }

    #[test]
    fn names_stay_what_the_app_wrote_before() {
        // Existing workspaces must still be found after an upgrade.
        assert_eq!(
            workspace_file("local-sandbox", "agency_demo", false),
            "local-sandbox--user-agency_demo.db"
        );
        assert_eq!(
            workspace_file("acme", "partner@x.com", true),
            "acme--partner-partner%40x.com.db"
        );
    }
}
