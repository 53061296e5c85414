//! The app's own settings (`settings.json` in the data directory, beside the profiles):
//! how much goes into the log file and which update channel the app follows. Only the
//! desktop app reads it (the CLI writes no log file and installs no updates); it holds
//! no secret.
//!
//! Beside it, the tag-sheet presets the buyer saved ([`TagPresets`],
//! `paths::tag_presets_file`), which both hosts read. They are a file of their own, not
//! a member of [`Settings`]: the Settings screen saves its whole form, and would drop a
//! preset saved while it was open.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// How much the log file records. Flightdeck's own crates log at this level; libraries
/// stay at warnings, so a `trace` log never carries a library's dump of a request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Failures only.
    Error,
    /// Failures and what was retried or refused.
    Warn,
    /// Sign-ins, downloads, posts and their outcome.
    #[default]
    Info,
    /// Each request and each sync step.
    Debug,
    /// Everything Flightdeck records.
    Trace,
}

impl LogLevel {
    /// The level as `tracing`'s filters spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
            LogLevel::Trace => "trace",
        }
    }

    /// Parses a bare level (`debug`, `WARN`); `None` for anything else.
    pub fn parse(text: &str) -> Option<LogLevel> {
        match text.trim().to_ascii_lowercase().as_str() {
            "error" => Some(LogLevel::Error),
            "warn" | "warning" => Some(LogLevel::Warn),
            "info" => Some(LogLevel::Info),
            "debug" => Some(LogLevel::Debug),
            "trace" => Some(LogLevel::Trace),
            _ => None,
        }
    }
}

/// Which releases the app offers to install.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum UpdateChannel {
    /// Releases only.
    #[default]
    Stable,
    /// Release candidates as well, ahead of the stable channel.
    Beta,
}

impl UpdateChannel {
    /// The channel's name in the update feed's address (`{channel}`).
    pub fn as_str(self) -> &'static str {
        match self {
            UpdateChannel::Stable => "stable",
            UpdateChannel::Beta => "beta",
        }
    }
}

/// The contents of `settings.json`. Members missing from the file take their defaults,
/// so a file written by an older version still reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The log file's level (`FLIGHTDECK_LOG` overrides it for one run).
    #[serde(default)]
    pub log_level: LogLevel,
    /// The update channel.
    #[serde(default)]
    pub update_channel: UpdateChannel,
    /// The edit panel's width in CSS pixels as the buyer last dragged it; `None` until
    /// then (the window's default). Remembered by the window, not chosen in the form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panel_width: Option<u32>,
    /// The accounts (`profile id/account`, see [`offer_key`]) whose offer to download
    /// after the first sign-in was answered, by a download or a "Later": it is made once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub download_offers_answered: Vec<String>,
}

impl Settings {
    /// Reads the file in `dir`, or the defaults when there is none. A damaged file is
    /// reported and left as it is, so nothing the buyer chose is overwritten unseen.
    pub fn read(dir: &Path) -> Result<Settings> {
        let path = path(dir);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| Error::Damaged {
                path: path.clone(),
                source,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(Error::storage(&path, e)),
        }
    }

    /// Written whole or not at all ([`crate::files::write_json`]), so a crash never
    /// leaves half a file.
    pub fn write(&self, dir: &Path) -> Result<()> {
        crate::paths::create_private_dir(dir)?;
        crate::files::write_json(&path(dir), self)
    }

    /// Saves what the Settings form chooses (log level, update channel) and keeps what
    /// the window remembered in the file: the form sends its whole value, read when it
    /// opened, which would otherwise put back an older panel width or offer answered.
    pub fn save_choices(dir: &Path, form: &Settings) -> Result<Settings> {
        let mut saved = Settings::read(dir)?;
        saved.log_level = form.log_level;
        saved.update_channel = form.update_channel;
        saved.write(dir)?;
        Ok(saved)
    }

    /// Remembers the edit panel's width (read, changed, written whole).
    pub fn remember_panel_width(dir: &Path, width: u32) -> Result<()> {
        let mut saved = Settings::read(dir)?;
        if saved.panel_width == Some(width) {
            return Ok(());
        }
        saved.panel_width = Some(width);
        saved.write(dir)
    }

    /// Records that the first-download offer of `key` ([`offer_key`]) was answered.
    pub fn answer_download_offer(dir: &Path, key: &str) -> Result<()> {
        let mut saved = Settings::read(dir)?;
        if saved.download_offers_answered.iter().any(|k| k == key) {
            return Ok(());
        }
        saved.download_offers_answered.push(key.to_owned());
        saved.write(dir)
    }
}

/// The name an account's first-download offer is remembered by: its profile and the
/// account, a partner's client id marked apart (the two have separate workspaces).
pub fn offer_key(profile_id: &str, account: &crate::profiles::LastAccount) -> String {
    let partner = if account.partner { " (partner)" } else { "" };
    format!("{profile_id}/{}{partner}", account.account)
}

fn path(dir: &Path) -> PathBuf {
    dir.join("settings.json")
}

/// The tag-sheet presets the buyer saved from the mapping dialog, in the order they
/// were first saved. Detection tries them before the shipped ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TagPresets {
    /// The presets.
    #[serde(default)]
    pub presets: Vec<flightdeck_workbench::tagsheet::Preset>,
}

impl TagPresets {
    /// Reads the file in `dir`, or none saved. A damaged file is reported and left as
    /// it is.
    pub fn read(dir: &Path) -> Result<TagPresets> {
        let path = crate::paths::tag_presets_file(dir);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| Error::Damaged {
                path: path.clone(),
                source,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(TagPresets::default()),
            Err(e) => Err(Error::storage(&path, e)),
        }
    }

    /// Adds `preset`, or replaces the saved one of the same name (case aside), and
    /// writes the file whole ([`crate::files::write_json`]).
    pub fn save(dir: &Path, preset: flightdeck_workbench::tagsheet::Preset) -> Result<()> {
        let mut saved = TagPresets::read(dir)?;
        match saved
            .presets
            .iter_mut()
            .find(|p| p.name.eq_ignore_ascii_case(&preset.name))
        {
            Some(p) => *p = preset,
            None => saved.presets.push(preset),
        }
        crate::paths::create_private_dir(dir)?;
        crate::files::write_json(&crate::paths::tag_presets_file(dir), &saved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_run_has_the_defaults_and_a_save_survives() -> Result<()> {
        let dir = tempfile::tempdir()
            .map_err(|e| Error::storage(Path::new("a temporary directory"), e))?;
        assert_eq!(Settings::read(dir.path())?, Settings::default());
        let chosen = Settings {
            log_level: LogLevel::Debug,
            update_channel: UpdateChannel::Beta,
            ..Settings::default()
        };
        chosen.write(dir.path())?;
        assert_eq!(Settings::read(dir.path())?, chosen);
        Ok(())
    }

    #[test]
    fn the_form_keeps_what_the_window_remembered() -> Result<()> {
        let dir = tempfile::tempdir()
            .map_err(|e| Error::storage(Path::new("a temporary directory"), e))?;
        // The Settings form opened before the panel was dragged and the offer answered.
        let form = Settings::read(dir.path())?;
        Settings::remember_panel_width(dir.path(), 512)?;
        Settings::answer_download_offer(dir.path(), "local/demo")?;
        Settings::save_choices(
            dir.path(),
            &Settings {
                log_level: LogLevel::Warn,
                ..form
            },
        )?;
        let read = Settings::read(dir.path())?;
        assert_eq!(read.log_level, LogLevel::Warn);
        assert_eq!(read.panel_width, Some(512));
        assert_eq!(read.download_offers_answered, vec!["local/demo".to_owned()]);
        Ok(())
    }

    #[test]
    fn a_damaged_file_is_reported_not_replaced() -> Result<()> {
        let dir = tempfile::tempdir()
            .map_err(|e| Error::storage(Path::new("a temporary directory"), e))?;
        let file = dir.path().join("settings.json");
        std::fs::write(&file, "{\"logLevel\": \"loud\"}").map_err(|e| Error::storage(&file, e))?;
        let err = Settings::read(dir.path()).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|m| m.contains("settings.json is damaged")),
            "{err:?}"
        );
        let kept = std::fs::read_to_string(&file).map_err(|e| Error::storage(&file, e))?;
        assert_eq!(kept, "{\"logLevel\": \"loud\"}");
        Ok(())
    }

    #[test]
    fn an_older_file_without_the_newer_members_still_reads() -> Result<()> {
        let dir = tempfile::tempdir()
            .map_err(|e| Error::storage(Path::new("a temporary directory"), e))?;
        let file = dir.path().join("settings.json");
        std::fs::write(&file, "{\"logLevel\": \"warn\"}").map_err(|e| Error::storage(&file, e))?;
        let read = Settings::read(dir.path())?;
        assert_eq!(read.log_level, LogLevel::Warn);
        assert_eq!(read.update_channel, UpdateChannel::Stable);
        Ok(())
    }
}
