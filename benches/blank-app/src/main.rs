//! The floor of a Tauri v2 app's cold start: one window, one static page, nothing else.
//! `scripts/bench-ui.sh` starts it exactly as it starts Flightdeck.

use tauri::Manager;

/// Flightdeck's WebKit painting policy, the same file, so the floor page and the memory
/// baseline run in the same WebKit as the app.
#[path = "../../../src-tauri/src/webkit.rs"]
mod webkit;

fn main() {
    let app = tauri::Builder::default().setup(|app| {
        if let Some(window) = app.get_webview_window("main")
            && let Err(e) = webkit::paint_without_layers(&window)
        {
            eprintln!("the blank app keeps WebKit's compositing: {e}");
        }
        Ok(())
    });
    if let Err(e) = app.run(tauri::generate_context!()) {
        eprintln!("the blank app could not start: {e}");
        std::process::exit(1);
    }
}
