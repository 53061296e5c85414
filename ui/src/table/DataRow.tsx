/**
 * One row of the DataTable, memoised: it renders again only when its row object, its
 * place or its state (active, selected, the cell cursor, the cell range, a cell editor or
 * a cell's error) changes. The window cache keeps the object of a row an answer repeats
 * unchanged (`sameJson`), so a refetch after a save renders only the saved row, and a
 * keystroke that has not been answered yet renders no row at all. Every prop a row the
 * cursor and the range do not touch gets is the same primitive or object from render to
 * render, so moving the cursor renders the two rows it leaves and enters.
 */
import { type MouseEvent, type ReactNode, memo } from "react";
import type { Marker } from "../api/types";
import { type CellFact, lockedWhy } from "./cells/types";
import { type Column, displayValue } from "./columns";

export const ROW_HEIGHT = 26;

const MARKER_TEXT: Record<Marker, string> = {
  new: "New",
  changed: "Changed",
  invalid: "Invalid",
  conflict: "Conflict",
  failed: "Failed",
};
const MARKER_ICON: Record<Marker, string> = {
  new: "+",
  changed: "Δ",
  invalid: "!",
  conflict: "⇄",
  failed: "✕",
};

export function MarkerBadge({ marker }: { marker: Marker | null }) {
  if (!marker) return null;
  return (
    <span className={`marker marker-${marker}`} title={MARKER_TEXT[marker]}>
      <span className="marker-icon" aria-hidden="true">
        {MARKER_ICON[marker]}
      </span>
      {MARKER_TEXT[marker]}
    </span>
  );
}

/** What a row does when used: one object for the whole table, stable across renders. */
export type RowActions<T> = {
  click: (e: MouseEvent<HTMLElement>, row: T, id: string, index: number) => void;
  open: (e: MouseEvent<HTMLElement>, row: T, index: number) => void;
  toggle: (id: string, index: number) => void;
  /** The row's open button (in its first cell, where cells are edited in place). */
  openRow: (row: T) => void;
};


export type DataRowProps<T> = {
  row: T;
  index: number;
  id: string;
  label: string;
  marker: Marker | null;
  pending: boolean;
  active: boolean;
  selected: boolean;
  /** A checkbox cell first. */
  selectable: boolean;
  /** A State cell with the marker. */
  markerColumn: boolean;
  /** `data-index` is set (the row window measures a row's tbody instead when rows expand). */
  indexed: boolean;
  /** The visible columns (the same array while they do not change). */
  columns: Column<T>[];
  actions: RowActions<T>;
  /** The cells' facts by column id, where cells are edited in place (the same map for every row). */
  facts?: ReadonlyMap<string, CellFact> | null;
  /** An open button in the first cell (cells are edited in place, so a double click no longer opens the row). */
  openButton?: boolean;
  /** Where the cell cursor, the range or an editor is in this row. */
  cursor?: string | null;
  rangeFrom?: number;
  rangeTo?: number;
  editing?: string | null;
  editor?: ReactNode;
  cellErrors?: Readonly<Record<string, string>> | null;
  /** The row is a draft never posted: facts read-only `oncePosted` can be typed in. */
  draft?: boolean;
};

function cellClass(align: Column<unknown>["align"], frozen: boolean, inRange: boolean, editing: boolean, locked: boolean): string | undefined {
  const names = [align === "right" ? "num" : "", frozen ? "dt-frozen" : "", inRange ? "in-range" : "", editing ? "dt-editing" : "", locked ? "locked" : ""].filter(Boolean);
  return names.length > 0 ? names.join(" ") : undefined;
}

function DataRowOf<T>(p: DataRowProps<T>) {
  const { row, index, id, label } = p;
  return (
    <tr
      data-index={p.indexed ? index : undefined}
      data-row=""
      data-row-id={id}
      data-label={label}
      data-marker={p.marker ?? undefined}
      aria-rowindex={index + 2}
      aria-selected={p.selected}
      className={[p.pending ? "pending" : "", p.active ? "active" : "", p.selected ? "selected" : ""].join(" ").trim() || undefined}
      style={{ height: ROW_HEIGHT }}
      onClick={(e) => p.actions.click(e, row, id, index)}
      onDoubleClick={(e) => p.actions.open(e, row, index)}
    >
      {p.selectable && (
        <td className="dt-check">
          <input type="checkbox" aria-label={`Select ${label}`} checked={p.selected} onChange={() => p.actions.toggle(id, index)} />
        </td>
      )}
      {p.markerColumn && (
        <td className="dt-marker">
          <MarkerBadge marker={p.marker} />
        </td>
      )}
      {p.columns.map((c, i) => {
        const fact = p.facts?.get(c.id);
        const locked = fact ? lockedWhy(fact, p.draft === true) : null;
        const error = p.cellErrors?.[c.id];
        const inRange = p.rangeFrom !== undefined && p.rangeTo !== undefined && i >= p.rangeFrom && i <= p.rangeTo;
        const editing = p.editing === c.id;
        return (
          <td
            key={c.id}
            data-col={c.id}
            data-cell={c.id}
            data-cursor={p.cursor === c.id || undefined}
            data-error={error !== undefined ? "" : undefined}
            data-read-only={locked !== null ? "" : undefined}
            title={error ?? locked ?? undefined}
            className={cellClass(c.align, i === 0, inRange, editing, locked !== null)}
          >
            {editing ? (
              p.editor
            ) : (
              <>
                {i === 0 && p.openButton && (
                  <button type="button" className="dt-open" data-action="open-row" tabIndex={-1} aria-label={`Open ${label}`} title="Open in the edit panel (Ctrl+Enter)" onClick={() => p.actions.openRow(row)}>
                    ↗
                  </button>
                )}
                {c.render ? c.render(row) : displayValue(c.value(row))}
              </>
            )}
          </td>
        );
      })}
    </tr>
  );
}

export const DataRow = memo(DataRowOf) as typeof DataRowOf;
