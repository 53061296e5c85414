//! The floor of a Tauri v2 app's cold start: one window, one static page, nothing else.
//! `scripts/bench-ui.sh` starts it exactly as it starts Flightdeck.

fn main() {
    if let Err(e) = tauri::Builder::default().run(tauri::generate_context!()) {
        eprintln!("the blank app could not start: {e}");
        std::process::exit(1);
    }
}
