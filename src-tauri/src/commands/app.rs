//! The app itself: Settings, About, the logs folder and updates.

use std::path::Path;

use flightdeck_core::logging::{self, LevelSource};
use flightdeck_core::offer::DownloadOffer;
use flightdeck_core::settings::Settings;
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_opener::OpenerExt;

use crate::error::{AppError, Result};
use crate::state::AppState;
use crate::updates::{self, UpdateInfo, UpdateRoute};

/// What Settings and About show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    /// The app's version.
    pub version: String,
    /// Where profiles, workspaces and settings live (`FLIGHTDECK_DATA_DIR` moves it).
    pub data_dir: String,
    /// Where the log files are.
    pub log_dir: String,
    /// Whether Settings rules the log level, or `FLIGHTDECK_LOG` does for this run.
    pub log_source: LevelSource,
    /// The saved settings.
    pub settings: Settings,
    /// How this copy gets new versions.
    pub update_route: UpdateRoute,
}

/// The settings in `dir` (the defaults on a first run).
pub fn read_settings(dir: &Path) -> Result<Settings> {
    Settings::read(dir).map_err(AppError::from)
}

fn log_dir() -> Result<std::path::PathBuf> {
    match logging::current() {
        Some(l) => Ok(l.dir().to_owned()),
        None => flightdeck_core::paths::log_dir().map_err(AppError::from),
    }
}

fn info<R: Runtime>(app: &AppHandle<R>, dir: &Path) -> Result<AppInfo> {
    let settings = read_settings(dir)?;
    let feed = flightdeck_core::updates::feed(settings.update_channel)
        .ok()
        .flatten();
    Ok(AppInfo {
        version: app.package_info().version.to_string(),
        data_dir: dir.display().to_string(),
        log_dir: log_dir()?.display().to_string(),
        log_source: logging::current().map_or(LevelSource::Settings, |l| l.source()),
        settings,
        update_route: updates::route(feed.is_some()),
    })
}

/// Settings and About: the version, the directories, the settings.
#[tauri::command]
#[specta::specta]
pub fn app_info<R: Runtime>(app: AppHandle<R>, state: State<'_, AppState>) -> Result<AppInfo> {
    info(&app, state.dir())
}

/// Saves the settings form's choices (what the window remembers stays); the log level
/// applies at once.
#[tauri::command]
#[specta::specta]
pub fn save_settings<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    settings: Settings,
) -> Result<AppInfo> {
    Settings::save_choices(state.dir(), &settings)?;
    if let Some(l) = logging::current() {
        l.set_level(settings.log_level)?;
    }
    info(&app, state.dir())
}

/// Remembers the edit panel's width, dragged by the buyer, for the next start.
#[tauri::command]
#[specta::specta]
pub fn remember_panel_width(state: State<'_, AppState>, width: u32) -> Result<()> {
    Ok(Settings::remember_panel_width(state.dir(), width)?)
}

/// The offer to download the account after its first sign-in, if one is due.
#[tauri::command]
#[specta::specta]
pub async fn download_offer(state: State<'_, AppState>) -> Result<Option<DownloadOffer>> {
    Ok(state.core().await?.download_offer().await?)
}

/// The offer was answered (downloaded or "Later"): it is not made again.
#[tauri::command]
#[specta::specta]
pub async fn answer_download_offer(state: State<'_, AppState>) -> Result<()> {
    Ok(state.core().await?.answer_download_offer()?)
}

/// Opens the logs folder in the file manager (Help → Open logs folder).
pub fn open_logs<R: Runtime>(app: &AppHandle<R>) -> Result<()> {
    let dir = log_dir()?;
    flightdeck_core::paths::create_private_dir(&dir)?;
    app.opener()
        .open_path(dir.display().to_string(), None::<&str>)
        .map_err(|e| {
            AppError::state(format!(
                "the logs folder ({}) could not be opened: {e}",
                dir.display()
            ))
        })
}

/// Help → Open logs folder, for the UI's own button.
#[tauri::command]
#[specta::specta]
pub fn open_logs_folder<R: Runtime>(app: AppHandle<R>) -> Result<()> {
    open_logs(&app)
}

/// Asks the update feed for a newer version (at start, and from Help).
#[tauri::command]
#[specta::specta]
pub async fn check_for_update<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Option<UpdateInfo>> {
    updates::check(&app, state.dir()).await
}

/// Downloads, verifies, installs the update found, then restarts the app.
#[tauri::command]
#[specta::specta]
pub async fn install_update<R: Runtime>(app: AppHandle<R>) -> Result<()> {
    updates::install(&app).await
}
