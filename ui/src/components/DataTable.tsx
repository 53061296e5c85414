import {
  type ColumnDef,
  type RowSelectionState,
  type SortingState,
  type VisibilityState,
  getCoreRowModel,
  useReactTable,
} from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { type KeyboardEvent, type ReactNode, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import type { Marker } from "../api/types";

export type CellValue = string | number | boolean | null | undefined;

export type Column<T> = {
  id: string;
  header: string;
  /** The value sorted and searched on. */
  value: (row: T) => CellValue;
  /** How the cell shows (defaults to the value). */
  render?: (row: T) => ReactNode;
  width?: number;
  align?: "left" | "right";
  /** Hidden until switched on in the column menu. */
  hidden?: boolean;
};

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

export type DataTableProps<T> = {
  /** `data-table` attribute: the kind the rows are. */
  kind: string;
  /** Accessible name of the grid. */
  label: string;
  rows: T[];
  columns: Column<T>[];
  rowId: (row: T) => string;
  rowLabel: (row: T) => string;
  rowMarker?: (row: T) => Marker | null;
  rowPending?: (row: T) => boolean;
  /** Double click or Enter on a row. */
  onOpen?: (row: T) => void;
  /** The rows ticked, whenever that changes. */
  onSelectionChange?: (rows: T[]) => void;
  /** The row with the keyboard cursor (single click also moves it). */
  onActiveChange?: (row: T | null) => void;
  /** Buttons shown in the toolbar, left of the filter. */
  toolbar?: ReactNode;
  /** Shown under the toolbar, e.g. a pager. */
  footer?: ReactNode;
  emptyText?: string;
  /** Start with this filter text. */
  initialFilter?: string;
  /** Selection checkboxes (on by default). */
  selectable?: boolean;
  /** Extra content under a row, e.g. an expanded diff; the row grows to fit. */
  expanded?: (row: T) => ReactNode | null;
};

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

function compareValues(a: CellValue, b: CellValue): number {
  const an = a === null || a === undefined || a === "";
  const bn = b === null || b === undefined || b === "";
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return collator.compare(String(a), String(b));
}

/** A sortable, filterable, virtualized grid with row selection and a column menu. */
export function DataTable<T>(props: DataTableProps<T>) {
  const { rows, columns, rowId, rowLabel, rowMarker, rowPending, onOpen, onSelectionChange, onActiveChange, selectable = true } = props;
  const [filter, setFilter] = useState(props.initialFilter ?? "");
  const deferredFilter = useDeferredValue(filter);
  const [sorting, setSorting] = useState<SortingState>([]);
  const [rowSelection, setRowSelection] = useState<RowSelectionState>({});
  const [visibility, setVisibility] = useState<VisibilityState>(() =>
    Object.fromEntries(columns.filter((c) => c.hidden).map((c) => [c.id, false])),
  );
  const [active, setActive] = useState<string | null>(null);
  // Callers often pass inline functions: read them through a ref so a new function
  // identity does not redo per-row work on 100,000 rows.
  const fns = useRef({ rowId, rowLabel, rowMarker, onSelectionChange });
  fns.current = { rowId, rowLabel, rowMarker, onSelectionChange };

  // Search text per row, computed once per row object.
  const searchCache = useRef(new WeakMap<object, string>());
  const searchColumns = useMemo(() => columns.filter((c) => visibility[c.id] !== false), [columns, visibility]);
  useEffect(() => {
    searchCache.current = new WeakMap();
  }, [searchColumns]);
  const textOf = useCallback(
    (row: T): string => {
      const key = typeof row === "object" && row !== null ? row : null;
      if (key) {
        const hit = searchCache.current.get(key);
        if (hit !== undefined) return hit;
      }
      const parts: string[] = [fns.current.rowLabel(row)];
      for (const c of searchColumns) {
        const v = c.value(row);
        if (v !== null && v !== undefined) parts.push(String(v));
      }
      const marker = fns.current.rowMarker?.(row);
      if (marker) parts.push(MARKER_TEXT[marker]);
      const text = parts.join("\u0001").toLowerCase();
      if (key) searchCache.current.set(key, text);
      return text;
    },
    [searchColumns],
  );

  const filtered = useMemo(() => {
    const q = deferredFilter.trim().toLowerCase();
    if (!q) return rows;
    const terms = q.split(/\s+/);
    return rows.filter((r) => {
      const t = textOf(r);
      return terms.every((term) => t.includes(term));
    });
  }, [rows, deferredFilter, textOf]);

  const columnById = useMemo(() => new Map(columns.map((c) => [c.id, c])), [columns]);

  // Sorting is done here on plain arrays (fast on 100,000 rows); TanStack Table holds the
  // column, sorting, visibility and selection state and renders the rows in view.
  const sorted = useMemo(() => {
    const spec = sorting[0];
    const col = spec ? columnById.get(spec.id) : undefined;
    if (!spec || !col) return filtered;
    const keyed = filtered.map((r, i) => ({ r, i, v: col.value(r) }));
    const dir = spec.desc ? -1 : 1;
    keyed.sort((x, y) => {
      const an = x.v === null || x.v === undefined || x.v === "";
      const bn = y.v === null || y.v === undefined || y.v === "";
      if (an || bn) return an === bn ? x.i - y.i : an ? 1 : -1; // empty cells last either way
      return dir * compareValues(x.v, y.v) || x.i - y.i;
    });
    return keyed.map((k) => k.r);
  }, [filtered, sorting, columnById]);

  const columnDefs = useMemo<ColumnDef<T, CellValue>[]>(
    () =>
      columns.map((c) => ({
        id: c.id,
        header: c.header,
        accessorFn: (row: T) => c.value(row),
        size: c.width ?? 150,
      })),
    [columns],
  );

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: sorted.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    initialRect: { width: 1000, height: 600 },
  });
  const items = virtualizer.getVirtualItems();
  const total = virtualizer.getTotalSize();
  const padTop = items.length > 0 ? items[0].start : 0;
  const padBottom = items.length > 0 ? total - items[items.length - 1].end : 0;
  const windowRows = useMemo(() => items.map((vi) => sorted[vi.index]).filter((r): r is T => r !== undefined), [items, sorted]);

  const table = useReactTable<T>({
    data: windowRows,
    columns: columnDefs,
    state: { sorting, rowSelection, columnVisibility: visibility },
    getRowId: (r) => rowId(r),
    onSortingChange: setSorting,
    onRowSelectionChange: setRowSelection,
    onColumnVisibilityChange: setVisibility,
    enableRowSelection: selectable,
    enableMultiSort: false,
    manualSorting: true,
    sortDescFirst: false,
    getCoreRowModel: getCoreRowModel(),
  });
  const windowModel = table.getRowModel().rows;
  const modelByIndex = new Map<number, (typeof windowModel)[number]>();
  items.forEach((vi, k) => {
    const row = windowModel[k];
    if (row) modelByIndex.set(vi.index, row);
  });

  // Report the selection (rows still present) whenever it changes.
  const byId = useMemo(() => new Map(rows.map((r) => [fns.current.rowId(r), r])), [rows]);
  useEffect(() => {
    const report = fns.current.onSelectionChange;
    if (!report) return;
    const picked: T[] = [];
    for (const [id, on] of Object.entries(rowSelection)) {
      const r = on ? byId.get(id) : undefined;
      if (r !== undefined) picked.push(r);
    }
    report(picked);
  }, [rowSelection, byId]);

  const activeIndex = useMemo(() => (active === null ? -1 : sorted.findIndex((r) => fns.current.rowId(r) === active)), [active, sorted]);
  const toggleRow = (r: T) => {
    const id = rowId(r);
    setRowSelection((sel) => {
      const next = { ...sel };
      if (next[id]) delete next[id];
      else next[id] = true;
      return next;
    });
  };
  const moveTo = (index: number) => {
    if (sorted.length === 0) return;
    const i = Math.max(0, Math.min(sorted.length - 1, index));
    const r = sorted[i];
    setActive(rowId(r));
    onActiveChange?.(r);
    virtualizer.scrollToIndex(i, { align: "auto" });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLButtonElement) {
      if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    }
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 600) / ROW_HEIGHT) - 1);
    switch (e.key) {
      case "ArrowDown":
        moveTo(activeIndex + 1);
        break;
      case "ArrowUp":
        moveTo(activeIndex < 0 ? 0 : activeIndex - 1);
        break;
      case "PageDown":
        moveTo(activeIndex + page);
        break;
      case "PageUp":
        moveTo(activeIndex - page);
        break;
      case "Home":
        moveTo(0);
        break;
      case "End":
        moveTo(sorted.length - 1);
        break;
      case "Enter":
        if (activeIndex >= 0 && onOpen) onOpen(sorted[activeIndex]);
        else return;
        break;
      case " ":
        if (activeIndex >= 0 && selectable) toggleRow(sorted[activeIndex]);
        else return;
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const visibleColumns = table.getVisibleLeafColumns();
  const selectedCount = useMemo(() => Object.values(rowSelection).filter(Boolean).length, [rowSelection]);
  const { allSelected, someSelected } = useMemo(() => {
    let on = 0;
    for (const r of sorted) if (rowSelection[fns.current.rowId(r)]) on++;
    return { allSelected: sorted.length > 0 && on === sorted.length, someSelected: on > 0 && on < sorted.length };
  }, [sorted, rowSelection]);
  const toggleAll = () => {
    setRowSelection((sel) => {
      const next = { ...sel };
      for (const r of sorted) {
        const id = rowId(r);
        if (allSelected) delete next[id];
        else next[id] = true;
      }
      return next;
    });
  };
  const colSpan = visibleColumns.length + (selectable ? 1 : 0) + (rowMarker ? 1 : 0);
  const hasExpansion = props.expanded !== undefined;

  const renderRow = (index: number) => {
    const row = modelByIndex.get(index);
    if (!row) return null;
    const r = row.original;
    const marker = rowMarker ? rowMarker(r) : null;
    const pending = rowPending ? rowPending(r) : marker !== null;
    const isActive = row.id === active;
    const selected = row.getIsSelected();
    return (
      <tr
        key={row.id}
        data-index={hasExpansion ? undefined : index}
        data-row=""
        data-label={rowLabel(r)}
        data-marker={marker ?? undefined}
        aria-rowindex={index + 2}
        aria-selected={selected}
        className={[pending ? "pending" : "", isActive ? "active" : "", selected ? "selected" : ""].join(" ").trim() || undefined}
        style={{ height: ROW_HEIGHT }}
        onClick={() => {
          setActive(row.id);
          onActiveChange?.(r);
        }}
        onDoubleClick={() => onOpen?.(r)}
      >
        {selectable && (
          <td className="dt-check">
            <input
              type="checkbox"
              aria-label={`Select ${rowLabel(r)}`}
              checked={selected}
              onChange={() => toggleRow(r)}
              onClick={(e) => e.stopPropagation()}
            />
          </td>
        )}
        {rowMarker && (
          <td className="dt-marker">
            <MarkerBadge marker={marker} />
          </td>
        )}
        {row.getVisibleCells().map((cell) => {
          const col = columnById.get(cell.column.id);
          const content = col?.render ? col.render(r) : displayValue(cell.getValue<CellValue>());
          return (
            <td key={cell.id} data-col={cell.column.id} className={col?.align === "right" ? "num" : undefined}>
              {content}
            </td>
          );
        })}
      </tr>
    );
  };

  return (
    <div className="datatable">
      <div className="dt-toolbar" role="toolbar" aria-label={`${props.label} tools`}>
        {props.toolbar}
        <span className="spacer" />
        <span className="dt-count" aria-live="polite">
          {filtered.length === rows.length ? `${rows.length.toLocaleString()} rows` : `${filtered.length.toLocaleString()} of ${rows.length.toLocaleString()}`}
          {selectedCount > 0 ? ` · ${selectedCount.toLocaleString()} selected` : ""}
        </span>
        <input
          type="search"
          className="dt-filter"
          data-filter=""
          placeholder="Filter…"
          aria-label={`Filter ${props.label}`}
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
        <details className="dt-columns">
          <summary aria-label="Choose columns">Columns</summary>
          <div className="menu" role="group" aria-label="Visible columns">
            {table.getAllLeafColumns().map((col) => (
              <label key={col.id} className="menu-item">
                <input type="checkbox" checked={col.getIsVisible()} onChange={col.getToggleVisibilityHandler()} />
                {columnById.get(col.id)?.header ?? col.id}
              </label>
            ))}
          </div>
        </details>
      </div>
      <div
        className="dt-scroll"
        ref={scrollRef}
        tabIndex={0}
        role="region"
        aria-label={`${props.label} rows`}
        onKeyDown={onKeyDown}
      >
        <table className="dt" data-table={props.kind} aria-label={props.label} aria-rowcount={sorted.length + 1}>
          <colgroup>
            {selectable && <col style={{ width: 30 }} />}
            {rowMarker && <col style={{ width: 92 }} />}
            {visibleColumns.map((c) => (
              <col key={c.id} style={{ width: c.getSize() }} />
            ))}
          </colgroup>
          <thead>
            <tr>
              {selectable && (
                <th className="dt-check">
                  <input
                    type="checkbox"
                    aria-label="Select all rows"
                    checked={allSelected}
                    ref={(el) => {
                      if (el) el.indeterminate = someSelected;
                    }}
                    onChange={toggleAll}
                  />
                </th>
              )}
              {rowMarker && <th className="dt-marker">State</th>}
              {table.getHeaderGroups()[0]?.headers.map((h) => {
                const sorted = h.column.getIsSorted();
                const col = columnById.get(h.column.id);
                return (
                  <th
                    key={h.id}
                    aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : "none"}
                    className={col?.align === "right" ? "num" : undefined}
                  >
                    <button type="button" className="dt-sort" data-sort={h.column.id} onClick={h.column.getToggleSortingHandler()}>
                      {col?.header ?? h.column.id}
                      <span className="sort-indicator" aria-hidden="true">
                        {sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : ""}
                      </span>
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          {padTop > 0 && (
            <tbody aria-hidden="true">
              <tr className="dt-pad">
                <td colSpan={colSpan} style={{ height: padTop }} />
              </tr>
            </tbody>
          )}
          {hasExpansion ? (
            items.map((vi) => {
              const row = modelByIndex.get(vi.index);
              if (!row) return null;
              const extra = props.expanded?.(row.original) ?? null;
              return (
                <tbody key={row.id} ref={virtualizer.measureElement} data-index={vi.index}>
                  {renderRow(vi.index)}
                  {extra !== null && (
                    <tr className="dt-detail">
                      <td colSpan={colSpan}>{extra}</td>
                    </tr>
                  )}
                </tbody>
              );
            })
          ) : (
            <tbody>{items.map((vi) => renderRow(vi.index))}</tbody>
          )}
          {padBottom > 0 && (
            <tbody aria-hidden="true">
              <tr className="dt-pad">
                <td colSpan={colSpan} style={{ height: padBottom }} />
              </tr>
            </tbody>
          )}
        </table>
        {sorted.length === 0 && <div className="dt-empty">{rows.length === 0 ? props.emptyText ?? "Nothing here yet." : "No rows match the filter."}</div>}
      </div>
      {props.footer}
    </div>
  );
}

function displayValue(v: CellValue): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "boolean") return v ? "Yes" : "No";
  return String(v);
}
