//! Cell editing in every table: what each column's cells edit, and cells typed, filled
//! down or pasted as one undo step (`flightdeck_core::cells`). An answer is bulk edit's:
//! a preview, or the applied result, with the same change events and pending count.

use tauri::{AppHandle, Runtime, State};

use super::bulk::changed;
use super::on_pool;
use crate::error::Result;
use crate::state::AppState;

pub use flightdeck_core::cells::{CellChoice, CellEdit, CellEditor, CellFact, CellValue};
use flightdeck_offline::change::Kind;
use flightdeck_offline::workspace::Preview;

/// One fact per column of `kind`'s table, in its order: the wire path, label, control,
/// and why a cell cannot be typed in.
#[tauri::command]
#[specta::specta]
pub fn cell_facts(kind: Kind) -> Vec<CellFact> {
    flightdeck_core::cells::cell_facts(kind)
}

/// Cells typed, filled down or pasted: previews them, or applies them as one undo step.
#[tauri::command]
#[specta::specta]
pub async fn edit_cells<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    cells: Vec<CellEdit>,
    apply: bool,
) -> Result<Preview> {
    let active = state.active().await?;
    let done = on_pool(move || active.edit_cells(&cells, apply)).await?;
    Ok(changed(&app, &state, done).await)
}
