// The cell-editing types the grid shares with the Rust side (`cellFacts`, `editCells`).
export type { CellEdit, CellEditor as CellEditorKind, CellFact, CellValue, Value as JsonValue } from "../../bindings";
import type { CellFact } from "../../bindings";

/**
 * Why a row's cell cannot be typed in, or null when it can: a fact's reason, which for
 * `oncePosted` facts holds only once the row is posted (a draft's start date can be typed).
 */
export function lockedWhy(fact: CellFact, draft: boolean): string | null {
  return fact.readOnly !== null && !(draft && fact.oncePosted) ? fact.readOnly : null;
}
