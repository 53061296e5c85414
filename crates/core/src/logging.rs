//! The log file: one file a day in the OS log directory ([`crate::paths::log_dir`]),
//! the last [`KEEP_FILES`] kept. Flightdeck's crates log at the level the buyer chose in
//! Settings, or at `FLIGHTDECK_LOG` for one run; libraries stay at warnings, so a `trace`
//! log carries our spans (sync steps, requests by method and path) and never a library's
//! dump of a request body.
//!
//! Nothing secret is ever logged: no password, token, client secret or audience
//! identifier (the app's tests read a `trace` log of a whole session to prove it).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry, reload};

use crate::settings::LogLevel;
use crate::{Error, Result};

/// Overrides the Settings level for one run: a level (`debug`), or `tracing` filter
/// directives (`info,flightdeck_offline=trace`) for a developer.
pub const LOG_ENV: &str = "FLIGHTDECK_LOG";

/// Days of log files kept.
pub const KEEP_FILES: usize = 14;

/// The crates whose records the level applies to.
const OWN_TARGETS: [&str; 8] = [
    "flightdeck_app",
    "flightdeck_core",
    "flightdeck_offline",
    "flightdeck_client",
    "flightdeck_sandbox",
    "flightdeck_model",
    "flightdeck_cli",
    // The embedded sandbox's request spans (method, path and status; never a query).
    "tower_http",
];

/// Where the level in force comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum LevelSource {
    /// The Settings screen (`settings.json`).
    Settings,
    /// `FLIGHTDECK_LOG`, which Settings cannot change.
    Environment,
}

/// The running log: change its level, find its files.
pub struct Logging {
    filter: reload::Handle<EnvFilter, Registry>,
    dir: PathBuf,
    file_prefix: String,
    env: Option<String>,
}

static LOGGING: OnceLock<Logging> = OnceLock::new();

/// The filter for `level`: Flightdeck at `level`, libraries at warnings (the updater,
/// which says what it checked and installed, at `info` when the level allows).
fn filter_for(level: LogLevel) -> EnvFilter {
    let mut directives = vec!["warn".to_owned()];
    directives.extend(
        OWN_TARGETS
            .iter()
            .map(|t| format!("{t}={}", level.as_str())),
    );
    let updater = match level {
        LogLevel::Error | LogLevel::Warn => level,
        _ => LogLevel::Info,
    };
    directives.push(format!("tauri_plugin_updater={}", updater.as_str()));
    EnvFilter::new(directives.join(","))
}

/// The filter `FLIGHTDECK_LOG` asks for, or why it cannot be used.
fn env_filter(text: &str) -> std::result::Result<EnvFilter, String> {
    match LogLevel::parse(text) {
        Some(level) => Ok(filter_for(level)),
        None => EnvFilter::try_new(text)
            .map_err(|e| format!("{LOG_ENV}={text:?} is not a level or a filter: {e}")),
    }
}

/// Starts the log in `dir` (files `{file_prefix}.YYYY-MM-DD.log`) at `level`, unless
/// `FLIGHTDECK_LOG` says otherwise. Once per process: a second call is refused.
///
/// Writes are synchronous, so the lines before a crash are on disk; panics are logged
/// too.
pub fn init(dir: &Path, file_prefix: &str, level: LogLevel) -> Result<&'static Logging> {
    crate::paths::create_private_dir(dir)?;
    let appender = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(file_prefix)
        .filename_suffix("log")
        .max_log_files(KEEP_FILES)
        .build(dir)
        .map_err(|e| Error::storage(dir, e))?;
    let env = std::env::var(LOG_ENV).ok().filter(|v| !v.trim().is_empty());
    let mut refused = None;
    let filter = match env.as_deref().map(env_filter) {
        Some(Ok(f)) => f,
        Some(Err(why)) => {
            refused = Some(why);
            filter_for(level)
        }
        None => filter_for(level),
    };
    let (filter, handle) = reload::Layer::new(filter);
    let file = tracing_subscriber::fmt::layer()
        .with_writer(appender)
        .with_ansi(false)
        .with_target(true)
        .with_thread_names(true);
    // Warnings also go to standard error, where a terminal or a test run shows them.
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(LevelFilter::WARN);
    tracing_subscriber::registry()
        .with(filter)
        .with(file)
        .with(stderr)
        .try_init()
        .map_err(|e| crate::error::State::LogSetUp(e.to_string()))?;
    let logging = Logging {
        filter: handle,
        dir: dir.to_owned(),
        file_prefix: file_prefix.to_owned(),
        env: refused.is_none().then_some(env).flatten(),
    };
    let logging = LOGGING.get_or_init(|| logging);
    if let Some(why) = refused {
        tracing::warn!("{why}; logging at the Settings level ({})", level.as_str());
    }
    log_panics();
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        level = %logging.level_text(level),
        "log started"
    );
    Ok(logging)
}

/// The log set up by [`init`], if any.
pub fn current() -> Option<&'static Logging> {
    LOGGING.get()
}

impl Logging {
    /// The directory the files are in (Help → Open logs folder).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The newest file, for a test or a bug report.
    pub fn latest_file(&self) -> Option<PathBuf> {
        let entries = std::fs::read_dir(&self.dir).ok()?;
        entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&self.file_prefix) && n.ends_with(".log"))
            })
            .max()
    }

    /// Where the level in force comes from.
    pub fn source(&self) -> LevelSource {
        if self.env.is_some() {
            LevelSource::Environment
        } else {
            LevelSource::Settings
        }
    }

    fn level_text(&self, settings: LogLevel) -> String {
        match &self.env {
            Some(env) => format!("{env} ({LOG_ENV})"),
            None => settings.as_str().to_owned(),
        }
    }

    /// Applies a level chosen in Settings at once. `FLIGHTDECK_LOG`, when set, keeps
    /// ruling this run (the change still applies from the next start without it).
    pub fn set_level(&self, level: LogLevel) -> Result<()> {
        if self.env.is_some() {
            return Ok(());
        }
        self.filter
            .reload(filter_for(level))
            .map_err(|e| crate::error::State::LogLevel(e.to_string()))?;
        tracing::info!(level = level.as_str(), "log level changed");
        Ok(())
    }
}

fn log_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        tracing::error!(target: "flightdeck_core::panic", "{info}");
        previous(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_level_applies_to_flightdeck_only() {
        let text = filter_for(LogLevel::Trace).to_string();
        assert!(text.contains("flightdeck_offline=trace"), "{text}");
        assert!(text.contains("tauri_plugin_updater=info"), "{text}");
        // Libraries stay at warnings: a trace log never holds a library's request dump.
        assert!(text.split(',').any(|d| d == "warn"), "{text}");
        assert!(
            !text.contains("tauri=trace") && !text.contains("reqwest"),
            "{text}"
        );
    }

    #[test]
    fn the_environment_takes_a_level_or_directives_and_names_itself_when_wrong() {
        assert!(
            env_filter("DEBUG").is_ok_and(|f| f.to_string().contains("flightdeck_client=debug"))
        );
        assert!(env_filter("info,flightdeck_offline=trace").is_ok());
        let why = env_filter("flightdeck_offline=loud")
            .err()
            .unwrap_or_default();
        assert!(why.starts_with("FLIGHTDECK_LOG="), "{why}");
    }
}
