//! Signed updates through `tauri-plugin-updater`: the feed comes from the core (the
//! release build's, or `FLIGHTDECK_UPDATE_FEED`, for the channel chosen in Settings); the
//! plugin checks it, downloads the package and verifies its minisign signature against
//! the public key in `tauri.conf.json` before anything is installed.
//!
//! How this copy can update depends on how it was installed (the bundler writes that
//! into the binary): AppImage, `.deb` and `.rpm` on Linux (packages through the system's
//! own installer, which asks for the administrator's password), `.msi` and NSIS on
//! Windows, the `.app` on macOS. A copy built from source, or installed where it cannot
//! replace itself, is told that updates come through its package manager.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::utils::config::BundleType;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_updater::{Update, UpdaterExt};
use tauri_specta::Event;

use crate::error::{AppError, ErrorCode, Result};

/// How this copy of the app gets new versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase", tag = "how")]
pub enum UpdateRoute {
    /// The app downloads, verifies and installs them itself.
    InApp,
    /// It cannot replace itself: the buyer updates through the package manager (or
    /// rebuilds); `reason` says why, for Settings and Help.
    PackageManager {
        /// The sentence shown.
        reason: String,
    },
    /// This build names no update feed (a development or CI build without
    /// `FLIGHTDECK_UPDATE_FEED`).
    NotConfigured,
}

/// A newer version the feed offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct UpdateInfo {
    /// The version offered.
    pub version: String,
    /// The version running.
    pub current_version: String,
    /// What is new (the release notes).
    pub notes: Option<String>,
    /// When it was published (RFC 3339), if the feed says.
    pub date: Option<String>,
}

/// Bytes of the update downloaded so far.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct UpdateProgress {
    /// Bytes received.
    pub downloaded: u32,
    /// The package's size, when the server says.
    pub total: Option<u32>,
}

/// The update last found, kept between "check" and "install" so the buyer installs
/// exactly what was shown.
#[derive(Default)]
pub struct Updates {
    found: Mutex<Option<Update>>,
}

/// How this copy updates: by the bundle it came in (patched into the binary by the
/// bundler) and whether the build has a feed.
pub fn route(feed_configured: bool) -> UpdateRoute {
    if !feed_configured {
        return UpdateRoute::NotConfigured;
    }
    match tauri::utils::platform::bundle_type() {
        Some(
            BundleType::Deb
            | BundleType::Rpm
            | BundleType::AppImage
            | BundleType::Msi
            | BundleType::Nsis
            | BundleType::App
            | BundleType::Dmg,
        ) => UpdateRoute::InApp,
        _ => UpdateRoute::PackageManager {
            reason: "This copy of Flightdeck was not installed from one of its packages, so it \
                     cannot replace itself: update it through your package manager, or build \
                     the new version."
                .into(),
        },
    }
}

fn feed_error(e: flightdeck_core::Error) -> AppError {
    AppError::new(ErrorCode::State, e.to_string())
}

fn updater_error(e: tauri_plugin_updater::Error) -> AppError {
    use tauri_plugin_updater::Error as E;
    let message = match &e {
        E::Minisign(_)
        | E::Base64(_)
        | E::SignatureUtf8(_)
        | E::SignedVersionMismatch { .. }
        | E::MissingSignedVersion => {
            "The update's signature does not match Flightdeck's signing key, so it was not \
             installed. Your copy is unchanged."
                .to_owned()
        }
        E::PackageInstallFailed | E::DebInstallFailed | E::AuthenticationFailed => {
            "The update was downloaded and verified, but the system did not install it (the \
             administrator's password was refused or the package manager failed). Install \
             it with your package manager."
                .to_owned()
        }
        E::Reqwest(_) | E::Network(_) => format!("The update server could not be reached: {e}"),
        _ => format!("The update failed: {e}"),
    };
    tracing::warn!(error = %e, "update failed");
    AppError::new(ErrorCode::Service, message)
}

/// Asks the feed whether a newer version exists; keeps it for [`install`].
pub async fn check<R: Runtime>(
    app: &AppHandle<R>,
    dir: &std::path::Path,
) -> Result<Option<UpdateInfo>> {
    let settings = crate::commands::app::read_settings(dir)?;
    let Some(feed) = flightdeck_core::updates::feed(settings.update_channel).map_err(feed_error)?
    else {
        return Err(AppError::state(
            "This build of Flightdeck has no update feed (set FLIGHTDECK_UPDATE_FEED).",
        ));
    };
    if let UpdateRoute::PackageManager { reason } = route(true) {
        return Err(AppError::state(reason));
    }
    let updates = app
        .try_state::<Updates>()
        .ok_or_else(|| AppError::state("updates are not available in this window"))?;
    tracing::info!(
        channel = settings.update_channel.as_str(),
        "checking for updates"
    );
    let updater = app
        .updater_builder()
        .endpoints(vec![feed])
        .map_err(updater_error)?
        .build()
        .map_err(updater_error)?;
    let found = updater.check().await.map_err(updater_error)?;
    let info = found.as_ref().map(|u| UpdateInfo {
        version: u.version.clone(),
        current_version: u.current_version.clone(),
        notes: u.body.clone(),
        date: u
            .raw_json
            .get("pub_date")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
    });
    match &info {
        Some(i) => tracing::info!(version = %i.version, "update found"),
        None => tracing::info!("no update"),
    }
    *updates
        .found
        .lock()
        .map_err(|_| AppError::state("the update state was poisoned"))? = found;
    Ok(info)
}

/// Downloads the update found last (progress as [`UpdateProgress`]), verifies its
/// signature, installs it, and restarts the app. Nothing is installed unless the
/// signature matches.
pub async fn install<R: Runtime>(app: &AppHandle<R>) -> Result<()> {
    let update = app
        .try_state::<Updates>()
        .and_then(|u| u.found.lock().ok().and_then(|mut f| f.take()))
        .ok_or_else(|| {
            AppError::state("No update was found to install: check for updates first.")
        })?;
    tracing::info!(version = %update.version, "downloading update");
    let mut downloaded: u64 = 0;
    let progress = app.clone();
    let bytes = update
        .download(
            |chunk, total| {
                downloaded += chunk as u64;
                let bytes = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
                let _ = UpdateProgress {
                    downloaded: bytes(downloaded),
                    total: total.map(bytes),
                }
                .emit(&progress);
            },
            || {},
        )
        .await
        .map_err(updater_error)?;
    // `install` verifies the signature before it touches anything.
    let installing = update.clone();
    tauri::async_runtime::spawn_blocking(move || installing.install(bytes))
        .await
        .map_err(|e| AppError::state(format!("the install stopped: {e}")))?
        .map_err(updater_error)?;
    tracing::info!(version = %update.version, "update installed; restarting");
    app.restart()
}
