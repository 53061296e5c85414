//! Profiles, sign-in and the embedded sandbox.

use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_opener::OpenerExt;

use flightdeck_core::PartnerCallback;

use super::{AppSnapshot, announce, snapshot};
use crate::error::{AppError, Result};
use crate::state::AppState;

/// The shell's state: profiles, session, connectivity, pending count.
#[tauri::command]
#[specta::specta]
pub async fn app_snapshot(state: State<'_, AppState>) -> Result<AppSnapshot> {
    snapshot(&state).await
}

/// Adds a profile for another service and switches to it.
#[tauri::command]
#[specta::specta]
pub async fn add_profile(
    state: State<'_, AppState>,
    name: String,
    base_url: String,
) -> Result<AppSnapshot> {
    state.core().await?.add_profile(&name, &base_url).await?;
    snapshot(&state).await
}

/// Switches to another profile (its own workspace and sign-in).
#[tauri::command]
#[specta::specta]
pub async fn switch_profile(state: State<'_, AppState>, id: String) -> Result<AppSnapshot> {
    state.core().await?.switch(&id).await?;
    snapshot(&state).await
}

/// Signs an advertiser or agency user in; the password and tokens go to the OS keyring.
#[tauri::command]
#[specta::specta]
pub async fn sign_in(
    state: State<'_, AppState>,
    username: String,
    password: String,
) -> Result<AppSnapshot> {
    state.sign_in_user(&username, password).await?;
    snapshot(&state).await
}

/// Starts a data partner's sign-in in the system browser. It completes when the
/// service redirects to the app's sign-in link (see `handle_urls`).
#[tauri::command]
#[specta::specta]
pub async fn partner_sign_in<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    client_id: String,
    client_secret: String,
) -> Result<PartnerStarted> {
    let url = state.begin_partner(&client_id, client_secret).await?;
    // Tests and headless machines have no browser; the URL is returned either way.
    let opened = app.opener().open_url(url.as_str(), None::<&str>).is_ok();
    Ok(PartnerStarted {
        authorize_url: url.to_string(),
        opened,
    })
}

/// Opens the waiting partner sign-in's login page in the system browser again (the
/// sign-in screen's link): only that page, on the active profile's own service.
#[tauri::command]
#[specta::specta]
pub async fn open_sign_in_page<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<()> {
    let page = state.core().await?.sign_in_page()?;
    app.opener()
        .open_url(page.as_str(), None::<&str>)
        .map_err(|e| AppError::state(format!("the browser could not be opened: {e}")))
}

/// A partner sign-in that waits for the browser.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PartnerStarted {
    /// The login page (with `state` and the PKCE challenge).
    pub authorize_url: String,
    /// Whether the system browser was opened on it.
    pub opened: bool,
}

/// Signs out: the keyring entries are deleted; drafts and pending changes stay.
#[tauri::command]
#[specta::specta]
pub async fn sign_out(state: State<'_, AppState>) -> Result<AppSnapshot> {
    state.core().await?.sign_out().await?;
    snapshot(&state).await
}

/// Stops or starts the embedded sandbox (to work offline and come back).
#[tauri::command]
#[specta::specta]
pub async fn set_sandbox_running<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    running: bool,
) -> Result<AppSnapshot> {
    if !state.active().await?.profile.embedded {
        return Err(AppError::state(
            "only the Local sandbox profile runs a sandbox inside the app",
        ));
    }
    state.set_sandbox_running(running).await?;
    crate::probe::probe_now(&app, &state).await;
    snapshot(&state).await
}

/// Completes a partner sign-in from the redirect URL handed over by the OS (deep link,
/// or a second instance's command line). A link that does not answer the waiting
/// sign-in is ignored, not reported: its text may be anybody's.
pub async fn complete_partner_sign_in<R: Runtime>(
    app: &AppHandle<R>,
    state: &AppState,
    url: &str,
) -> Result<PartnerCallback> {
    let outcome = state.core().await?.finish_partner(url).await;
    if matches!(outcome, Ok(PartnerCallback::SignedIn) | Err(_)) {
        announce(app, state).await;
    }
    Ok(outcome?)
}
