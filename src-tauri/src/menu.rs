//! The window's menu bar: File, Edit, View and Help, with each OS's standard
//! accelerators (`CmdOrCtrl` is ⌘ on macOS, Ctrl elsewhere).
//!
//! Cut, copy, paste and select all are the OS's own items, so they act on whatever has
//! the focus. Undo and redo act on the workspace's undo history, or on the text field
//! being typed in (see [`build`] for how each OS gets its shortcuts). Every item but
//! Quit and "Open logs folder" reaches the UI as a [`MenuAction`] event; the UI owns
//! what it opens.

use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::menu::{Menu, MenuBuilder, MenuEvent, MenuItem, PredefinedMenuItem, SubmenuBuilder};
use tauri::{AppHandle, Manager, Runtime};
use tauri_specta::Event;

/// What a menu item asks the UI to do. The item's id is the command's name, so the
/// two cannot drift apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum MenuCommand {
    /// File → New profile…
    NewProfile,
    /// File → Import… (into the table on screen).
    Import,
    /// File → Import tag sheet… (an ad server's tag sheet as draft creatives).
    ImportTags,
    /// File → Export… (the whole account).
    Export,
    /// Edit → Undo.
    Undo,
    /// Edit → Redo.
    Redo,
    /// View → Command palette.
    Palette,
    /// View → one of the screens.
    ShowAdvertisers,
    /// View → Campaigns.
    ShowCampaigns,
    /// View → Ad orders.
    ShowAdOrders,
    /// View → Creatives.
    ShowCreatives,
    /// View → Site lists.
    ShowSiteLists,
    /// View → Audience segments.
    ShowAudienceSegments,
    /// View → Pending changes.
    ShowPending,
    /// File → Settings (Preferences on macOS).
    Settings,
    /// Help → About Flightdeck.
    About,
    /// Help → Check for updates…
    CheckForUpdates,
}

impl MenuCommand {
    fn id(self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(s)) => s,
            _ => format!("{self:?}"),
        }
    }

    fn from_id(id: &str) -> Option<MenuCommand> {
        serde_json::from_value(serde_json::Value::String(id.to_owned())).ok()
    }
}

/// A menu item was chosen.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct MenuAction {
    /// Which.
    pub command: MenuCommand,
}

const QUIT: &str = "quit";
const OPEN_LOGS: &str = "openLogs";

fn item<R: Runtime>(
    app: &AppHandle<R>,
    command: MenuCommand,
    text: &str,
    accelerator: Option<&str>,
) -> tauri::Result<MenuItem<R>> {
    MenuItem::with_id(app, command.id(), text, true, accelerator)
}

/// The menu bar.
pub fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<Menu<R>> {
    use MenuCommand as C;
    let settings_text = if cfg!(target_os = "macos") {
        "Preferences…"
    } else {
        "Settings…"
    };
    let file = SubmenuBuilder::new(app, "&File")
        .item(&item(app, C::NewProfile, "New profile…", None)?)
        .separator()
        .item(&item(app, C::Import, "Import…", None)?)
        .item(&item(app, C::ImportTags, "Import tag sheet…", None)?)
        .item(&item(app, C::Export, "Export account…", None)?)
        .separator()
        .item(&item(app, C::Settings, settings_text, Some("CmdOrCtrl+,"))?)
        .separator()
        .item(&MenuItem::with_id(
            app,
            QUIT,
            "Quit",
            true,
            Some("CmdOrCtrl+Q"),
        )?)
        .build()?;
    // Undo and redo, per OS. On macOS the standard items (⌘Z, ⇧⌘Z): the page sees the
    // key first, so outside text fields it undoes the workspace's step (and stops the
    // key there), and in a text field the standard item undoes the typing. Elsewhere
    // they are ours, with Ctrl+Z and Ctrl+Shift+Z; a GTK or Win32 menu takes the key
    // from the page, so the UI sends the command to the field being typed in, or to
    // the workspace.
    #[cfg(target_os = "macos")]
    let edit = SubmenuBuilder::new(app, "&Edit")
        .item(&PredefinedMenuItem::undo(app, None)?)
        .item(&PredefinedMenuItem::redo(app, None)?);
    #[cfg(not(target_os = "macos"))]
    let edit = SubmenuBuilder::new(app, "&Edit")
        .item(&item(app, C::Undo, "Undo", Some("Ctrl+Z"))?)
        .item(&item(app, C::Redo, "Redo", Some("Ctrl+Shift+Z"))?);
    let edit = edit
        .separator()
        .item(&PredefinedMenuItem::cut(app, None)?)
        .item(&PredefinedMenuItem::copy(app, None)?)
        .item(&PredefinedMenuItem::paste(app, None)?)
        .item(&PredefinedMenuItem::select_all(app, None)?)
        .build()?;
    let view = SubmenuBuilder::new(app, "&View")
        .item(&item(app, C::Palette, "Command palette…", None)?)
        .separator()
        .item(&item(app, C::ShowAdvertisers, "Advertisers", None)?)
        .item(&item(app, C::ShowCampaigns, "Campaigns", None)?)
        .item(&item(app, C::ShowAdOrders, "Ad orders", None)?)
        .item(&item(app, C::ShowCreatives, "Creatives", None)?)
        .item(&item(app, C::ShowSiteLists, "Site lists", None)?)
        .item(&item(
            app,
            C::ShowAudienceSegments,
            "Audience segments",
            None,
        )?)
        .item(&item(app, C::ShowPending, "Pending changes", None)?)
        .build()?;
    let help = SubmenuBuilder::new(app, "&Help")
        .item(&MenuItem::with_id(
            app,
            OPEN_LOGS,
            "Open logs folder",
            true,
            None::<&str>,
        )?)
        .item(&item(app, C::CheckForUpdates, "Check for updates…", None)?)
        .separator()
        .item(&item(app, C::About, "About Flightdeck", None)?)
        .build()?;
    MenuBuilder::new(app)
        .items(&[&file, &edit, &view, &help])
        .build()
}

/// What a chosen item does.
pub fn on_event<R: Runtime>(app: &AppHandle<R>, event: MenuEvent) {
    let id = event.id().as_ref();
    match id {
        QUIT => app.exit(0),
        OPEN_LOGS => {
            if let Err(e) = crate::commands::app::open_logs(app) {
                tracing::warn!(error = %e.message, "opening the logs folder failed");
            }
        }
        _ => match MenuCommand::from_id(id) {
            Some(command) => {
                if let Some(w) = app.get_webview_window("main") {
                    let _ = w.set_focus();
                }
                let _ = MenuAction { command }.emit(app);
            }
            None => tracing::warn!(id, "a menu item with no action"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_round_trips_through_its_menu_id() {
        use MenuCommand as C;
        for c in [
            C::NewProfile,
            C::Import,
            C::ImportTags,
            C::Export,
            C::Undo,
            C::Redo,
            C::Palette,
            C::ShowAdvertisers,
            C::ShowCampaigns,
            C::ShowAdOrders,
            C::ShowCreatives,
            C::ShowSiteLists,
            C::ShowAudienceSegments,
            C::ShowPending,
            C::Settings,
            C::About,
            C::CheckForUpdates,
        ] {
            assert_eq!(MenuCommand::from_id(&c.id()), Some(c));
        }
        assert_eq!(MenuCommand::from_id(QUIT), None);
        assert_eq!(MenuCommand::from_id(OPEN_LOGS), None);
    }
}
