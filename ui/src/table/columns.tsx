import { type ReactNode, useMemo, useState } from "react";

export type CellValue = string | number | boolean | null | undefined;

export type Column<T> = {
  id: string;
  header: string;
  /** The cell's value: shown when there is no `render`; local tables filter and sort on it. */
  value: (row: T) => CellValue;
  /** How the cell shows (defaults to the value). */
  render?: (row: T) => ReactNode;
  width?: number;
  align?: "left" | "right";
  /** Hidden until switched on in the column menu. */
  hidden?: boolean;
  /** The header sorts the query by this column (only columns the query knows). */
  sortable?: boolean;
};

export function displayValue(v: CellValue): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "boolean") return v ? "Yes" : "No";
  return String(v);
}

/** Which columns are shown, starting from each column's `hidden`; `columns` should keep its identity between renders. */
export function useColumnVisibility<T>(columns: Column<T>[]) {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(() => new Set(columns.filter((c) => c.hidden).map((c) => c.id)));
  const toggle = (id: string) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  // The same array while neither changes: memoised rows compare it by identity.
  const visible = useMemo(() => columns.filter((c) => !hidden.has(c.id)), [columns, hidden]);
  return { visible, isVisible: (id: string) => !hidden.has(id), toggle };
}

/** The "Columns" menu: one checkbox per column. */
export function ColumnMenu<T>({ columns, isVisible, onToggle }: { columns: Column<T>[]; isVisible: (id: string) => boolean; onToggle: (id: string) => void }) {
  return (
    <details className="dt-columns">
      <summary aria-label="Choose columns">Columns</summary>
      <div className="menu" role="group" aria-label="Visible columns">
        {columns.map((c) => (
          <label key={c.id} className="menu-item">
            <input type="checkbox" checked={isVisible(c.id)} onChange={() => onToggle(c.id)} />
            {c.header || c.id}
          </label>
        ))}
      </div>
    </details>
  );
}
