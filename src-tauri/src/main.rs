// No console window behind the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

/// Bulk work allocates and frees many small JSON values; glibc's malloc took a fifth of
/// a 10,000-row edit (`crates/offline/benches/bulk.rs` measures with this allocator).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    flightdeck_app::run();
}
