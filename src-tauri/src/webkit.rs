//! How WebKitGTK paints the window on Linux.
//!
//! WebKitGTK composites pages in layers by default. Under Xvfb, on this project's 2-core
//! machine, the ad-order table at 100,000 rows measured (`scripts/bench-ui.sh`, saves
//! only, both apps alike): the web process 375 MB with the table shown in that mode and
//! 229 MB without it; the growth over 20 saves +64 MB and +27 MB; a save's repaint p95
//! 69–96 ms and 42–46 ms. A table app has no animation or 3D that layers pay for, so
//! the window paints without them. `FLIGHTDECK_WEBKIT_COMPOSITING=1` keeps WebKit's
//! own policy, for a machine where that paints better.
//!
//! The blank app of the benches (`benches/blank-app`) compiles this same file, so the
//! floor page and the memory baseline run in the same WebKit as the app. It depends on
//! tauri alone, so this file does too: the caller reports a failure.

/// Makes the window's WebKit paint without compositing layers, unless
/// `FLIGHTDECK_WEBKIT_COMPOSITING` is set. Other platforms' webviews are left as they are.
pub fn paint_without_layers<R: tauri::Runtime>(
    window: &tauri::WebviewWindow<R>,
) -> tauri::Result<()> {
    if std::env::var_os("FLIGHTDECK_WEBKIT_COMPOSITING").is_some() {
        return Ok(());
    }
    #[cfg(target_os = "linux")]
    window.with_webview(|webview| {
        use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
        if let Some(settings) = webview.inner().settings() {
            settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
        }
    })?;
    #[cfg(not(target_os = "linux"))]
    let _ = window;
    Ok(())
}
