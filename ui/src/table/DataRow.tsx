/**
 * One row of the DataTable, memoised: it renders again only when its row object, its
 * place or its state (active, selected) changes. The window cache keeps the object of a
 * row an answer repeats unchanged (`sameJson`), so a refetch after a save renders only the
 * saved row, and a keystroke that has not been answered yet renders no row at all.
 */
import { type MouseEvent, memo } from "react";
import type { Marker } from "../api/types";
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
  open: (e: MouseEvent<HTMLElement>, row: T) => void;
  toggle: (id: string, index: number) => void;
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
};

function DataRowOf<T>(p: DataRowProps<T>) {
  const { row, index, id, label } = p;
  return (
    <tr
      data-index={p.indexed ? index : undefined}
      data-row=""
      data-label={label}
      data-marker={p.marker ?? undefined}
      aria-rowindex={index + 2}
      aria-selected={p.selected}
      className={[p.pending ? "pending" : "", p.active ? "active" : "", p.selected ? "selected" : ""].join(" ").trim() || undefined}
      style={{ height: ROW_HEIGHT }}
      onClick={(e) => p.actions.click(e, row, id, index)}
      onDoubleClick={(e) => p.actions.open(e, row)}
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
      {p.columns.map((c) => (
        <td key={c.id} data-col={c.id} className={c.align === "right" ? "num" : undefined}>
          {c.render ? c.render(row) : displayValue(c.value(row))}
        </td>
      ))}
    </tr>
  );
}

export const DataRow = memo(DataRowOf) as typeof DataRowOf;
