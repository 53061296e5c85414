//! The floor of a Tauri v2 app's cold start: one window, one static page, nothing else.
//! `scripts/bench-ui.sh` starts it exactly as it starts Flightdeck.

use tauri::Manager;

fn main() {
    let app = tauri::Builder::default().setup(|app| {
        if let Some(window) = app.get_webview_window("main") {
            paint_without_layers(&window);
        }
        Ok(())
    });
    if let Err(e) = app.run(tauri::generate_context!()) {
        eprintln!("the blank app could not start: {e}");
        std::process::exit(1);
    }
}

/// The WebKit painting policy Flightdeck sets (`src-tauri/src/webkit.rs`), so the floor
/// page and the memory baseline run in the same WebKit as the app; the same variable
/// keeps WebKit's own.
fn paint_without_layers(window: &tauri::WebviewWindow) {
    if std::env::var_os("FLIGHTDECK_WEBKIT_COMPOSITING").is_some() {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let set = window.with_webview(|webview| {
            use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
            if let Some(settings) = webview.inner().settings() {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        });
        if let Err(e) = set {
            eprintln!("the blank app keeps WebKit's compositing: {e}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = window;
}
