//! Online/offline: a cheap request to the active profile's service every few seconds.
//! Any HTTP answer means online; only a failure to connect means offline.

use std::time::Duration;

use tauri::{AppHandle, Manager, Runtime};

use crate::commands::announce;
use crate::state::AppState;

/// How often the service is probed.
const EVERY: Duration = Duration::from_secs(3);

/// Probes the active service now; announces a change of connectivity.
pub async fn probe_now<R: Runtime>(app: &AppHandle<R>, state: &AppState) {
    let Ok(active) = state.active().await else {
        return;
    };
    let online = active.probe().await;
    if active.set_online(online) {
        announce(app, state).await;
    }
}

/// Starts the probe loop for the app's lifetime.
pub fn start<R: Runtime>(app: AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        loop {
            if let Some(state) = app.try_state::<AppState>() {
                probe_now(&app, &state).await;
            }
            tokio::time::sleep(EVERY).await;
        }
    });
}
