//! The Flightdeck desktop app: a Tauri shell over the workspace crates.
//!
//! - `commands`: thin adapters (parse, call a crate, map the error), typed for the UI
//!   by tauri-specta; `ui/src/bindings.ts` is generated from them (see [`specta_builder`]).
//! - `state`: profiles, the active profile's session and workspace, the embedded sandbox.
//! - `probe`: online/offline.
//!
//! Data partners come back from the browser through the sign-in redirect link: the
//! deep-link plugin delivers it, and single-instance forwards it when the OS starts a
//! second copy of the app with the URL.

pub mod commands;
pub mod error;
pub mod menu;
pub mod probe;
pub mod state;
pub mod updates;
pub mod webkit;

use tauri::{AppHandle, Manager, Runtime};
use tauri_specta::Builder;

use crate::state::AppState;

/// When `run` began, for the start's step timings in the log (`since_start`).
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Milliseconds since `run` began: each step of the start logs it ("start: …"), so the
/// time to the first screen can be split from a log (docs/performance.md).
pub fn since_start() -> f64 {
    STARTED
        .get()
        .map_or(0.0, |t| t.elapsed().as_secs_f64() * 1000.0)
}

/// Where the app keeps its data when `FLIGHTDECK_DATA_DIR` does not say otherwise
/// (tests and e2e runs point it at a temporary directory). The CLI reads the same.
pub use flightdeck_core::paths::DATA_DIR_ENV;

/// Every command and event on runtime `$r`. A macro because `collect_commands!` cannot
/// name a generic parameter: the app uses `tauri::Wry`, the command tests the mock runtime.
#[macro_export]
macro_rules! specta_builder {
    ($r:ty) => {{
        use $crate::commands::{
            self, app, audiences, bulk, cells, checks, forms, pending, preview, session, tables,
            tags, trafficking,
        };
        tauri_specta::Builder::<$r>::new()
            .commands(tauri_specta::collect_commands![
                session::app_snapshot,
                session::add_profile,
                session::switch_profile,
                session::sign_in,
                session::partner_sign_in::<$r>,
                session::open_sign_in_page::<$r>,
                session::sign_out,
                session::set_sandbox_running::<$r>,
                tables::refresh::<$r>,
                tables::query_advertisers,
                tables::query_campaigns,
                tables::query_ad_orders,
                tables::query_creatives,
                tables::query_site_lists,
                tables::query_audience_segments,
                tables::list_flight_caps,
                tables::table_columns,
                trafficking::refresh_campaign::<$r>,
                trafficking::ad_order_creatives,
                trafficking::creative_note,
                forms::validate,
                forms::save::<$r>,
                forms::flight_cap_choices,
                forms::duplicate_as_new::<$r>,
                audiences::read_identifiers,
                audiences::audience_uploads,
                forms::creative_matrix,
                forms::timezones,
                forms::flight_timeline,
                preview::preview_creative,
                preview::render_live,
                preview::render_media,
                pending::query_pending_changes,
                pending::pending_seqs,
                pending::check_changes::<$r>,
                pending::discard_changes::<$r>,
                pending::resolve_conflict::<$r>,
                pending::review_change,
                pending::settle_review::<$r>,
                pending::post_changes::<$r>,
                bulk::bulk_edit::<$r>,
                bulk::set_status::<$r>,
                bulk::find_replace::<$r>,
                bulk::import_sheet::<$r>,
                bulk::export_sheet,
                bulk::duplicate_many::<$r>,
                bulk::undo::<$r>,
                bulk::redo::<$r>,
                bulk::revert_step::<$r>,
                bulk::edit_history,
                bulk::edit_fields,
                bulk::required_fields,
                bulk::money_summary,
                bulk::pick_import_file::<$r>,
                bulk::pick_export_file::<$r>,
                bulk::import_file::<$r>,
                bulk::export_file,
                bulk::preview_rows,
                bulk::parent_kinds,
                cells::cell_facts,
                cells::edit_cells::<$r>,
                checks::creative_checks,
                checks::draft_checks,
                checks::check_creatives,
                checks::fetch_vast,
                tags::pick_tag_sheet::<$r>,
                tags::preview_tag_sheet,
                tags::apply_tag_sheet::<$r>,
                tags::save_tag_preset,
                app::app_info::<$r>,
                app::save_settings::<$r>,
                app::remember_panel_width,
                app::download_offer,
                app::answer_download_offer,
                app::open_logs_folder::<$r>,
                app::check_for_update::<$r>,
                app::install_update::<$r>,
            ])
            .events(tauri_specta::collect_events![
                commands::SyncProgress,
                commands::SyncFinished,
                commands::SessionChanged,
                commands::SignInRequired,
                commands::PartnerSignInFailed,
                commands::DownloadProgress,
                commands::WorkspaceChanged,
                $crate::menu::MenuAction,
                $crate::updates::UpdateProgress,
            ])
            // Every kind's words and facts, for the UI's navigation, titles and forms.
            .typ::<flightdeck_offline::change::KindInfo>()
            .constant("KINDS", flightdeck_offline::change::KindInfo::all())
            // The creatives table's filter words for rows whose checks found something.
            .constant("HAS_FINDINGS", flightdeck_core::query::HAS_FINDINGS)
            .constant("HAS_WARNINGS", flightdeck_core::query::HAS_WARNINGS)
            // Ids and Unix-ms dates are i64 on the wire; both stay far below 2^53.
            .dangerously_cast_bigints_to_number()
            // One type per resource in TypeScript: the UI reads rows and sends them back.
            .disable_serde_phases()
    }};
}

/// The TypeScript bindings, exactly as committed in `ui/src/bindings.ts`.
pub fn export_bindings(path: &std::path::Path) -> Result<(), String> {
    specta_builder!(tauri::Wry)
        .export(
            specta_typescript::Typescript::default().header(
                "// Generated from src-tauri by `cargo run -p flightdeck-app --example export-bindings`. Do not edit.\n",
            ),
            path,
        )
        .map_err(|e| e.to_string())
}

/// Handles sign-in redirects (`flightdeck_client::auth::DESKTOP_REDIRECT_URI`), whichever
/// way they arrived. Other URLs, and links that answer no waiting sign-in, are ignored
/// and only logged; a real sign-in's failure reaches the sign-in screen on its own event.
pub fn handle_urls<R: Runtime>(app: &AppHandle<R>, urls: Vec<String>) {
    for url in urls {
        if !url.starts_with(flightdeck_client::auth::DESKTOP_REDIRECT_URI) {
            tracing::warn!("a link that is not a sign-in redirect was ignored");
            continue;
        }
        let task_app = app.clone();
        tauri::async_runtime::spawn(async move {
            let app = task_app;
            let Some(state) = app.try_state::<AppState>() else {
                return;
            };
            use tauri_specta::Event;
            match commands::session::complete_partner_sign_in(&app, &state, &url).await {
                Ok(outcome) => {
                    if let Some(why) = outcome.ignored_because() {
                        tracing::warn!(why, "a sign-in link was ignored");
                    } else {
                        tracing::info!("a data partner signed in through the browser");
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e.message, "a data partner's sign-in failed");
                    let _ = commands::PartnerSignInFailed { message: e.message }.emit(&app);
                }
            }
        });
        if let Some(w) = app.get_webview_window("main") {
            let _ = w.set_focus();
        }
    }
}

/// Sets up state, plugins and events on any runtime (the mock runtime in tests).
pub fn setup<R: Runtime>(
    app: &mut tauri::App<R>,
    builder: &Builder<R>,
) -> Result<(), Box<dyn std::error::Error>> {
    builder.mount_events(app);
    let handle = app.handle().clone();
    // The core's directory, not Tauri's `app_data_dir`: the same one on every OS (it
    // is built the same way), and the one the CLI reads.
    let dir = flightdeck_core::paths::data_dir()?;
    flightdeck_core::paths::create_private_dir(&dir)?;
    // Started beside the window rather than before it: the page loads while the sandbox
    // and the session come up, and its first command waits for them.
    app.manage(AppState::new(&dir));
    let starting = handle.clone();
    tauri::async_runtime::spawn(async move {
        if let Some(state) = starting.try_state::<AppState>() {
            // A failure reaches the buyer as the answer to the page's first command.
            let _ = state.start().await;
        }
    });
    app.manage(updates::Updates::default());
    probe::start(handle);
    Ok(())
}

/// Starts the log file at the level saved in Settings. A log that cannot start is
/// reported on standard error; the app runs on without it.
fn start_logging() {
    let level = flightdeck_core::paths::data_dir()
        .and_then(|dir| flightdeck_core::settings::Settings::read(&dir))
        .map(|s| s.log_level)
        .unwrap_or_default();
    let started = flightdeck_core::paths::log_dir()
        .and_then(|dir| flightdeck_core::logging::init(&dir, "flightdeck", level));
    if let Err(e) = started {
        eprintln!("Flightdeck's log file could not start: {e}");
    }
}

/// Whether this copy came in a Linux package (`.deb`, `.rpm`): the package's own
/// desktop entry then handles the sign-in links (`com.flightdeck.desktop:`) for every
/// user, and nothing is written in the user's home. A copy run from a build directory
/// (or an AppImage) registers itself.
#[cfg(target_os = "linux")]
fn installed_by_package() -> bool {
    use tauri::utils::config::BundleType;
    matches!(
        tauri::utils::platform::bundle_type(),
        Some(BundleType::Deb | BundleType::Rpm)
    )
}

/// Whether this copy already handles the sign-in links: its desktop entry in the user's
/// data directory runs this binary for the scheme, and the user's `mimeapps.list` names
/// that entry. Two small files read instead of the deep-link plugin's `register_all`,
/// which starts `update-desktop-database` and `xdg-mime` (a shell script of a dozen
/// processes, about 300 ms on this 2-core machine) on every start, beside the page's
/// first load.
#[cfg(target_os = "linux")]
fn link_handler_registered<R: Runtime>(app: &AppHandle<R>) -> bool {
    let Some(scheme) = flightdeck_client::auth::DESKTOP_REDIRECT_URI
        .split(':')
        .next()
    else {
        return false;
    };
    let Ok(exe) = tauri::utils::platform::current_exe() else {
        return false;
    };
    let Some(name) = exe.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return false;
    };
    let entry = format!("{name}-handler.desktop");
    let exec = app
        .env()
        .appimage
        .clone()
        .unwrap_or_else(|| exe.into_os_string());
    let exec_line = format!("Exec=\"{}\" %u", exec.to_string_lossy());
    let mime = format!("x-scheme-handler/{scheme}");
    let (Ok(data), Ok(config)) = (app.path().data_dir(), app.path().config_dir()) else {
        return false;
    };
    let desktop =
        std::fs::read_to_string(data.join("applications").join(&entry)).unwrap_or_default();
    let defaults = std::fs::read_to_string(config.join("mimeapps.list")).unwrap_or_default();
    let runs_this = desktop.lines().any(|l| l.trim() == exec_line)
        && desktop
            .lines()
            .any(|l| l.starts_with("MimeType=") && l.split(['=', ';']).any(|m| m == mime));
    let named = defaults.lines().any(|l| {
        l.split_once('=').is_some_and(|(k, v)| {
            k.trim() == mime && v.split(';').next().map(str::trim) == Some(entry.as_str())
        })
    });
    runs_this && named
}

/// Runs the desktop app.
pub fn run() {
    let _ = STARTED.set(std::time::Instant::now());
    start_logging();
    tracing::info!(ms = since_start(), "start: logging");
    let builder = specta_builder!(tauri::Wry);
    tracing::info!(ms = since_start(), "start: commands");
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| {
            // A second start (often the OS handing over a deep link) focuses this one.
            // Its URL arrives through the deep-link plugin's `on_open_url` (the plugin's
            // `deep-link` feature forwards argv), so it is not handled here a second time.
            if let Some(w) = app.get_webview_window("main") {
                let _ = w.set_focus();
            }
        }))
        .plugin(tauri_plugin_deep_link::init())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_updater::Builder::new().build())
        .invoke_handler(builder.invoke_handler())
        // Live previews of creatives, on an origin of their own (`commands::preview`).
        .register_uri_scheme_protocol(flightdeck_core::preview::LIVE_SCHEME, |ctx, request| {
            commands::preview::serve_live(ctx.app_handle(), &request)
        })
        .menu(menu::build)
        .on_menu_event(menu::on_event)
        .setup(move |app| {
            tracing::info!(ms = since_start(), "start: plugins");
            setup(app, &builder)?;
            tracing::info!(ms = since_start(), "start: state");
            match app.get_webview_window("main") {
                Some(window) => {
                    if let Err(e) = webkit::paint_without_layers(&window) {
                        tracing::warn!(error = %e, "the window keeps WebKit's compositing");
                    }
                }
                None => tracing::warn!("no main window to set WebKit's painting on"),
            }
            {
                use tauri_plugin_deep_link::DeepLinkExt;
                // Per OS: macOS registers the scheme from the bundle's Info.plist and
                // Windows from the installer; Linux packages from their desktop entry.
                // Elsewhere (a Linux build run in place, a Windows debug build) the app
                // registers itself.
                #[cfg(target_os = "linux")]
                let register = !installed_by_package() && !link_handler_registered(app.handle());
                #[cfg(all(debug_assertions, windows))]
                let register = true;
                #[cfg(any(target_os = "linux", all(debug_assertions, windows)))]
                if register {
                    // Registration needs xdg-utils; without it only the command line works.
                    // It runs helper programs, so not on the thread that opens the window.
                    let handle = app.handle().clone();
                    std::thread::spawn(move || {
                        if let Err(e) = handle.deep_link().register_all() {
                            tracing::warn!(error = %e, "registering the sign-in link scheme failed");
                        }
                    });
                }
                let handle = app.handle().clone();
                app.deep_link().on_open_url(move |event| {
                    handle_urls(
                        &handle,
                        event.urls().iter().map(|u| u.to_string()).collect(),
                    );
                });
                if let Ok(Some(urls)) = app.deep_link().get_current() {
                    handle_urls(app.handle(), urls.iter().map(|u| u.to_string()).collect());
                }
            }
            tracing::info!(ms = since_start(), "start: links");
            Ok(())
        })
        .on_page_load(|_, payload| {
            tracing::info!(ms = since_start(), event = ?payload.event(), "start: page");
        })
        .build(tauri::generate_context!());
    tracing::info!(ms = since_start(), "start: window");
    match app {
        Ok(app) => app.run(|handle, event| {
            if let tauri::RunEvent::Ready = event {
                tracing::info!(ms = since_start(), "start: event loop");
            }
            if let tauri::RunEvent::Exit = event
                && let Some(state) = handle.try_state::<AppState>()
            {
                tauri::async_runtime::block_on(state.shutdown());
            }
        }),
        Err(e) => {
            tracing::error!(error = %e, "Flightdeck could not start");
            eprintln!("Flightdeck could not start: {e}");
            std::process::exit(1);
        }
    }
}
