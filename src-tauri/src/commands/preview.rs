//! Creative previews: the offline preview of a creative, and "Render live", which hands
//! the page a one-use URL on the preview scheme ([`LIVE_SCHEME`]) that [`serve_live`]
//! answers with the document the core built, under the core's policy ([`LIVE_CSP`]), and
//! for a VAST creative's chosen media file ([`render_media`]) a document of the media
//! element alone, under a media-only policy.
//!
//! Why the IPC is out of a live frame's reach (checked in Tauri 2.12 / wry 0.57 on
//! WebKitGTK, and by the end-to-end hostile tag): Tauri injects `__TAURI_INTERNALS__`,
//! its `ipc` global and the per-launch invoke key into the main frame only
//! (`for_main_frame_only` in its manager); `window.webkit.messageHandlers.ipc` does exist
//! in every frame, but Tauri drops any message that lacks the invoke key
//! (`Webview::on_message`), which a frame of an opaque origin cannot read from the app's
//! document; and the frame's policy allows no `ipc:` or `http://ipc.localhost` fetch. So
//! no isolation pattern is needed. The frame is `sandbox="allow-scripts"` without
//! `allow-same-origin`, `allow-popups` or `allow-top-navigation`.
//!
//! [`LIVE_SCHEME`]: flightdeck_core::preview::LIVE_SCHEME
//! [`LIVE_CSP`]: flightdeck_core::preview::LIVE_CSP

use flightdeck_core::preview::{self, LiveDocs};
use flightdeck_model::Creative;
use tauri::http::{Request, Response, header};
use tauri::{AppHandle, Manager, Runtime, State};

use crate::error::Result;
use crate::state::AppState;

pub use flightdeck_core::preview::{
    CreativePreview, PreviewContent, PreviewSize, Resource, Transport,
};

/// The offline preview of a creative (a form's draft or a table row's value): what it
/// shows, at which size, and every resource it would load live. Nothing is loaded.
#[tauri::command]
#[specta::specta]
pub async fn preview_creative(creative: Creative) -> CreativePreview {
    preview::preview(&creative)
}

/// "Render live": the URL of the creative's live document, good for one load.
#[tauri::command]
#[specta::specta]
pub async fn render_live(state: State<'_, AppState>, creative: Creative) -> Result<String> {
    let token = state.previews().issue(&creative)?;
    Ok(LiveDocs::url(
        &token,
        cfg!(any(windows, target_os = "android")),
    ))
}

/// "Render live" of a VAST creative's chosen media file: the URL of a document that
/// plays it alone, good for one load. Refused for an http file or one not in the creative.
#[tauri::command]
#[specta::specta]
pub async fn render_media(
    state: State<'_, AppState>,
    creative: Creative,
    url: String,
) -> Result<String> {
    let token = state.previews().issue_media(&creative, &url)?;
    Ok(LiveDocs::url(
        &token,
        cfg!(any(windows, target_os = "android")),
    ))
}

/// Answers a request on the preview scheme: the document once for its token, else 404,
/// always under the document's policy (the live one for a 404), never cached, never sniffed.
pub fn serve_live<R: Runtime>(app: &AppHandle<R>, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
    let answer = match app.try_state::<AppState>() {
        Some(state) => state.previews().serve(request.uri().path()),
        None => LiveDocs::new().serve(""),
    };
    Response::builder()
        .status(answer.status)
        .header(header::CONTENT_TYPE, answer.content_type)
        .header(header::CONTENT_SECURITY_POLICY, answer.csp)
        .header(header::CACHE_CONTROL, "no-store")
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::REFERRER_POLICY, "no-referrer")
        .body(answer.body.into_bytes())
        .unwrap_or_else(|_| Response::new(Vec::new()))
}
