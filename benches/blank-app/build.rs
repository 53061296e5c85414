fn main() {
    // `generate_context!` embeds dist/ when the crate compiles; a rerun of this script
    // recompiles it, so the app CSS that scripts/bench-ui.sh copies in (dist/app.css, for
    // the floor page) is embedded whenever it changes.
    println!("cargo:rerun-if-changed=dist");
    tauri_build::build()
}
