/**
 * A windowed grid (`useRowWindow` finds the rows on screen). Rows come a window at a time from `fetch` (a query
 * command, or `localSource` for a short list in memory): the filter, the sort and the
 * window's offset and limit go to the Rust side, which answers the visible rows and the
 * total. No table is ever held whole in JS. Built from hooks: `useWindowedRows` (page
 * cache, latest request wins), `useSort`, `useSelection`, `useKeyboardCursor`, and the
 * column menu.
 *
 * Timing marks, for scripts/bench-ui.sh: once a window is painted (every visible row of
 * the latest query is on screen; set after the paint of the frame that shows it), the root
 * element `div.datatable[data-table-root="<kind>"]` carries
 *   data-total           the rows matching the filter (the window's total)
 *   data-counted         "false" while that total is a lower bound (a quick answer on a
 *                        large table: the rows came first, their count is on its way)
 *   data-filter-applied  the filter text of the painted window
 *   data-sort-applied    its sort: "column:asc", "column:desc", or "" for the default order
 *   data-painted-at      performance.now() just after that paint
 * and `performance.mark("fd:table-painted")` is recorded (`fd:table-count-painted` when only
 * a count that followed its rows landed; by a `timed` table only: the
 * flight-caps pane's table under the ad orders records none). They are set again after every
 * answer that changes the rows on screen (a keystroke, a sort, a refetch after a save), and
 * after a saved row put in place from the save's answer (its refetch is still on its way
 * then, but the one row the save changed is current).
 * A cell's commit records `fd:cell-commit` as it is sent: a cell edit's time until the
 * table shows it runs from there to the next `fd:table-painted`.
 *
 * Selectors the end-to-end test relies on: `table[data-table=<kind>]`, `[data-row]` with
 * `data-row-id`, `data-label` and `data-marker`, `input[data-filter]`, `[data-sort=<column>]`,
 * `td[data-col=<column>]` (also `data-cell=<column>`). With `cells` (the entity tables), the
 * cursor's cell carries `data-cursor`, a range's cells the class `in-range`, a cell with an
 * error `data-error` (its message as the title), a read-only one `data-read-only`; the
 * editor's control is `[data-cell-editor]`, the status line under the grid
 * `[data-cell-status]`, the first cell's open button `[data-action=open-row]`.
 *
 * The first column (the name) and the checkbox and state columns stay in view when the
 * grid scrolls sideways.
 */
import { type CSSProperties, type MouseEvent, type ReactNode, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { EntityRef, Kind, Marker, SavedRow } from "../api/types";
import { changedRows, useSavedRows, useWorkspaceChanged } from "../state/events";
import { refKey } from "../util/refs";
import { afterNextPaint, mark } from "../util/timing";
import { type Column, ColumnMenu, useColumnVisibility } from "../table/columns";
import { DataRow, ROW_HEIGHT, type RowActions } from "../table/DataRow";
import { useKeyboardCursor } from "../table/useKeyboardCursor";
import { useRowWindow } from "../table/useRowWindow";
import { type Selection, useSelection } from "../table/useSelection";
import { type GridCells, useCellGrid } from "../table/useCellGrid";
import { useSort } from "../table/useSort";
import { useWindowedRows } from "../table/useWindowedRows";
import { type WindowFetch, queryKey, sameJson, sortText } from "../table/windowCache";

export type { CellValue, Column } from "../table/columns";
export type { Selection } from "../table/useSelection";
export type { GridCells } from "../table/useCellGrid";

export { MarkerBadge, ROW_HEIGHT } from "../table/DataRow";

export type DataTableProps<T> = {
  /** `data-table` attribute: the kind the rows are. */
  kind: string;
  /** Accessible name of the grid. */
  label: string;
  columns: Column<T>[];
  /** Answers one window of the rows; a new function means the rows changed. */
  fetch: WindowFetch<T>;
  /** Only the children of this entity. */
  parent?: EntityRef | null;
  /**
   * Refetch the visible window when the workspace changes rows of these kinds: when the
   * change names rows of `kind` only, just a window that shows them (or whose filter or
   * sort may move them).
   */
  changes?: readonly Kind[] | "any";
  rowId: (row: T) => string;
  /** The entity a row shows: a change naming rows of `kind` refetches only a window showing one of them (without it, any change of the kinds does). */
  rowRef?: (row: T) => EntityRef;
  rowLabel: (row: T) => string;
  rowMarker?: (row: T) => Marker | null;
  rowPending?: (row: T) => boolean;
  /** A form's saved row as this table's row, or `null` when it is another kind's: the table shows the save from it at once. */
  savedRow?: (saved: SavedRow) => T | null;
  /** Double click or Enter on a row; with `cells`, Ctrl/Cmd+Enter or the first cell's open button. */
  onOpen?: (row: T) => void;
  /**
   * Edit cells in place (the entity tables): a cell cursor and range, Enter, F2 or typing
   * edits, Ctrl/Cmd+D fills down, Ctrl/Cmd+C copies a range, Ctrl/Cmd+V pastes a block; see
   * `useCellGrid`.
   */
  cells?: GridCells<T>;
  /** With `cells`: Ctrl/Cmd+V of a copied sheet, or of a clipboard the page may not read, pastes rows (the screen's paste). */
  onPasteRows?: () => void;
  /** The selection and how many rows it holds, whenever either changes. */
  onSelectionChange?: (selection: Selection, count: number) => void;
  /** The counts of the rows on screen (matching the filter, and in all), whenever they change. */
  onCountsChange?: (total: number, unfiltered: number) => void;
  /** The selection empties whenever this changes (e.g. after the selected rows were removed). */
  selectionReset?: number;
  /** The row with the keyboard cursor (a click also moves it). */
  onActiveChange?: (row: T) => void;
  /** Buttons shown in the toolbar, left of the filter. */
  toolbar?: ReactNode;
  /** Shown under the grid. */
  footer?: ReactNode;
  emptyText?: string;
  /** Start with this filter text. */
  initialFilter?: string;
  /** Words added to the typed filter by a control of the screen's own (the creatives' checks filter). */
  filterWords?: string;
  /** Selection checkboxes (on by default). */
  selectable?: boolean;
  /** Extra content under a row, e.g. an expanded diff; the row grows to fit. */
  expanded?: (row: T) => ReactNode | null;
  /**
   * Records the bench's performance marks (`fd:window-*`, `fd:table-*`; on by default).
   * Off for a second table on the same screen, whose marks would pass for the main one's.
   */
  timed?: boolean;
};

/** A click on a control inside a row (a button, a checkbox) is that control's, not the row's. */
function onControl(e: MouseEvent<HTMLElement>): boolean {
  const t = e.target;
  return t instanceof Element && t !== e.currentTarget && t.closest("button, input, select, textarea, a, label") !== null;
}

export function DataTable<T>(props: DataTableProps<T>) {
  const { columns, fetch, rowId, rowLabel, rowMarker, rowPending, onOpen, selectable = true } = props;
  const parent = props.parent ?? null;
  const [typed, setFilter] = useState(props.initialFilter ?? "");
  const withWords = (text: string) => (props.filterWords ? `${text} ${props.filterWords}`.trim() : text);
  const filter = withWords(typed);
  const { sort, toggle: toggleSort } = useSort();
  const query = { parent, filter, sort };
  const currentKey = queryKey(query);
  const timed = props.timed ?? true;
  const rows = useWindowedRows(fetch, query, { rowId, timed });
  const { ask, want, refresh, refreshRows, putRow, rowAt, loadedBetween } = rows;
  // A keystroke asks for its window in its own handler: the command runs while React
  // renders the table for the new filter, not after.
  const onFilter = (value: string) => {
    ask({ parent, filter: withWords(value), sort });
    setFilter(value);
  };
  // So does a header click, for its sort.
  const onSort = (column: string) => ask({ parent, filter, sort: toggleSort(column) });
  // A change names the rows it touched: only a window that may show them is asked again.
  const { rowRef } = props;
  useWorkspaceChanged(props.changes ?? [], (change) => {
    const ids = rowRef ? changedRows(change, props.kind) : null;
    if (ids === null || !rowRef) refresh();
    else refreshRows(ids, (r) => refKey(rowRef(r)));
  });
  // A save shows its row from its own answer; the change event's refetch then confirms it.
  // Sorted, the row keeps its place when the sorted column's value did not change.
  useSavedRows((saved) => {
    const row = props.savedRow?.(saved) ?? null;
    const sorted = sort === null ? undefined : columns.find((c) => c.id === sort.column);
    return row !== null && putRow(row, (before, after) => sorted !== undefined && sameJson(sorted.value(before), sorted.value(after)));
  });

  const { visible, isVisible, toggle: toggleColumn } = useColumnVisibility(columns);
  const sel = useSelection(queryKey({ parent, filter, sort: null }), rows.total);

  const scrollRef = useRef<HTMLDivElement>(null);
  const { items, totalSize, scrollToOffset, scrollToIndex, measureElement } = useRowWindow(scrollRef, { count: rows.total, rowHeight: ROW_HEIGHT, overscan: 12 });
  const first = items.length > 0 ? items[0].index : 0;
  const last = items.length > 0 ? items[items.length - 1].index : -1;
  useEffect(() => want(first, last), [want, first, last]);
  // A new filter, sort or parent starts at the top.
  useEffect(() => {
    scrollToOffset(0);
  }, [scrollToOffset, currentKey]);

  const cursor = useKeyboardCursor(currentKey, {
    count: rows.total,
    page: () => Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 600) / ROW_HEIGHT) - 1),
    onMove: (i) => scrollToIndex(i),
    onOpen: (i) => {
      const r = rowAt(i);
      if (r !== undefined) onOpen?.(r);
    },
    onToggle: (i) => {
      const r = rowAt(i);
      if (r !== undefined && selectable) sel.toggle(rowId(r), i);
    },
  });

  const grid = useCellGrid<T>({
    cells: props.cells,
    columns: visible,
    total: rows.total,
    resetKey: currentKey,
    version: rows.version,
    rowAt,
    rowId,
    rowInvalid: rowMarker ? (r) => rowMarker(r) === "invalid" : undefined,
    loadedBetween,
    fetchRows: async (offset, limit) => (await fetch({ parent, filter, sort, offset, limit }))?.rows ?? [],
    active: cursor.active,
    moveTo: cursor.moveTo,
    page: () => Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 600) / ROW_HEIGHT) - 1),
    sel,
    selectAll: () => sel.selectAll({ parent, filter, sort, offset: 0, limit: rows.total }),
    onOpen,
    onPasteRows: props.onPasteRows,
    focusGrid: () => scrollRef.current?.focus({ preventScroll: true }),
  });

  // Report the cursor's row once it is loaded (a keyboard move may land on a row not fetched yet).
  const reported = useRef<string | null>(null);
  const callbacks = useRef({ onActiveChange: props.onActiveChange, onSelectionChange: props.onSelectionChange, onCountsChange: props.onCountsChange, rowId });
  // Layout effects, here and for the reports below: a click in the next task must find
  // the screen told of this render (a ticked row, the cursor), not a render behind.
  useLayoutEffect(() => {
    callbacks.current = { onActiveChange: props.onActiveChange, onSelectionChange: props.onSelectionChange, onCountsChange: props.onCountsChange, rowId };
  });
  // What a row does, read when it is used: one object for every render, so a memoised
  // row is not rendered again because a handler was made anew.
  const handlers = useRef({ cursor, sel, onOpen, selectable, rowId, grid });
  useLayoutEffect(() => {
    handlers.current = { cursor, sel, onOpen, selectable, rowId, grid };
  });
  const actions = useMemo<RowActions<T>>(
    () => ({
      click: (e, _row, id, index) => {
        if (onControl(e)) return;
        const h = handlers.current;
        if (h.grid.enabled) {
          h.grid.click(e, id, index);
          return;
        }
        h.cursor.setActive(index);
        const between = (a: number, b: number) => loadedBetween(a, b).map((x) => h.rowId(x.row));
        if (h.selectable) h.sel.click(id, index, { shift: e.shiftKey, toggle: e.ctrlKey || e.metaKey }, between);
      },
      open: (e, row, index) => {
        if (onControl(e)) return;
        const h = handlers.current;
        if (h.grid.enabled) h.grid.doubleClick(e, row, index);
        else h.onOpen?.(row);
      },
      toggle: (id, index) => handlers.current.sel.toggle(id, index),
      openRow: (row) => handlers.current.onOpen?.(row),
    }),
    [loadedBetween],
  );

  const activeRow = cursor.active >= 0 ? rowAt(cursor.active) : undefined;
  useEffect(() => {
    if (activeRow === undefined) return;
    const id = callbacks.current.rowId(activeRow);
    if (id === reported.current) return;
    reported.current = id;
    callbacks.current.onActiveChange?.(activeRow);
  }, [activeRow]);

  useLayoutEffect(() => {
    callbacks.current.onSelectionChange?.(sel.selection, sel.count);
  }, [sel.selection, sel.count]);

  const { clear: clearSelection } = sel;
  const reset = props.selectionReset;
  const lastReset = useRef(reset);
  useEffect(() => {
    if (lastReset.current === reset) return;
    lastReset.current = reset;
    clearSelection();
  }, [reset, clearSelection]);

  useEffect(() => {
    callbacks.current.onCountsChange?.(rows.total, rows.unfiltered);
  }, [rows.total, rows.unfiltered]);

  // Timing marks (see the comment at the top).
  const rootRef = useRef<HTMLDivElement>(null);
  const painted = (rows.complete || rows.put) && rows.shown ? `${rows.shownKey ?? ""}#${rows.version}` : null;
  const shownQuery = rows.shown;
  const total = rows.total;
  const counted = !rows.partial;
  const shownKey = rows.shownKey;
  // The query whose rows were painted before their count: the commit of that count alone
  // is marked apart (`fd:table-count-*`), so the rows' marks stay the keystroke's.
  const uncounted = useRef<string | null>(null);
  // A layout effect: it runs at the commit, so the mark is taken after the first paint
  // that shows these rows (a passive effect may run after that paint, one frame late).
  useLayoutEffect(() => {
    if (painted === null || shownQuery === null) return;
    const countOnly = counted && uncounted.current === shownKey;
    uncounted.current = counted ? null : shownKey;
    const name = countOnly ? "fd:table-count" : "fd:table";
    if (timed) mark(`${name}-committed`);
    return afterNextPaint(() => {
      const el = rootRef.current;
      if (!el) return;
      el.dataset.total = String(total);
      el.dataset.counted = String(counted);
      el.dataset.filterApplied = shownQuery.filter;
      el.dataset.sortApplied = sortText(shownQuery.sort);
      el.dataset.paintedAt = String(performance.now());
      if (timed) mark(`${name}-painted`);
    });
  }, [painted, shownQuery, shownKey, total, counted, timed]);

  const padTop = items.length > 0 ? items[0].start : 0;
  const padBottom = items.length > 0 ? totalSize - items[items.length - 1].end : 0;
  // The frozen columns' offset, and the room they take when a cell scrolls into view.
  const frozenLeft = (selectable ? 30 : 0) + (rowMarker ? 92 : 0);
  const frozenStyle = { "--dt-frozen-left": `${frozenLeft}px`, scrollPaddingLeft: frozenLeft + (visible[0]?.width ?? 150) } as CSSProperties;
  const colSpan = visible.length + (selectable ? 1 : 0) + (rowMarker ? 1 : 0);
  const hasExpansion = props.expanded !== undefined;
  const activeId = activeRow !== undefined ? rowId(activeRow) : null;

  // A row is keyed by its place, not its id: a filter or a sort that brings 50 other rows
  // into the window updates the 50 rows' text in place instead of unmounting 50 rows and
  // mounting 50 (at 100k, React's render of a changed window took 10 to 19 ms keyed by id).
  // Scrolling is as before: a place still in the window keeps its key and, holding the same
  // row object, renders nothing; a place new to the window mounts its row. The cell editor
  // is bound to a place and an id (`useCellGrid`), so it never moves to another row.
  const renderRow = (index: number) => {
    const r = rowAt(index);
    if (r === undefined) {
      return (
        <tr key={`loading:${index}`} className="dt-loading" aria-busy="true" aria-rowindex={index + 2} data-index={hasExpansion ? undefined : index} style={{ height: ROW_HEIGHT }}>
          <td colSpan={colSpan} />
        </tr>
      );
    }
    const id = rowId(r);
    const marker = rowMarker ? rowMarker(r) : null;
    return (
      <DataRow<T>
        key={index}
        row={r}
        index={index}
        id={id}
        label={rowLabel(r)}
        marker={marker}
        pending={rowPending ? rowPending(r) : marker !== null}
        active={index === cursor.active && id === activeId}
        selected={selectable && sel.isSelected(id)}
        selectable={selectable}
        markerColumn={rowMarker !== undefined}
        indexed={!hasExpansion}
        columns={visible}
        actions={actions}
        facts={grid.facts}
        openButton={grid.enabled && onOpen !== undefined}
        {...grid.rowProps(index, id, r)}
      />
    );
  };

  // A quick answer's total counts one row past its window: "50+" until the count lands.
  const shownTotal = rows.partial ? `${(rows.total - 1).toLocaleString()}+` : rows.total.toLocaleString();
  const countText = !rows.loaded && rows.shown === null ? "Loading…" : rows.total === rows.unfiltered && !rows.partial ? `${shownTotal} rows` : `${shownTotal} of ${rows.unfiltered.toLocaleString()}`;

  return (
    <div className="datatable" ref={rootRef} data-table-root={props.kind}>
      <div className="dt-toolbar" role="toolbar" aria-label={`${props.label} tools`}>
        {props.toolbar}
        <span className="spacer" />
        <span className="dt-count" aria-live="polite">
          {countText}
          {sel.count > 0 ? ` · ${sel.count.toLocaleString()} selected` : ""}
        </span>
        <input
          type="search"
          className="dt-filter"
          data-filter=""
          placeholder="Filter…"
          aria-label={`Filter ${props.label}`}
          value={typed}
          onChange={(e) => onFilter(e.target.value)}
        />
        <ColumnMenu columns={columns} isVisible={isVisible} onToggle={toggleColumn} />
      </div>
      <div
        className="dt-scroll"
        ref={scrollRef}
        tabIndex={0}
        role="region"
        aria-label={`${props.label} rows`}
        style={frozenStyle}
        onKeyDown={(e) => {
          if (!grid.onKeyDown(e)) cursor.onKeyDown(e);
        }}
        onPaste={grid.onPaste}
      >
        <table
          className={grid.enabled ? "dt cells" : "dt"}
          data-table={props.kind}
          aria-label={props.label}
          aria-rowcount={rows.total + 1}
        >
          <colgroup>
            {selectable && <col style={{ width: 30 }} />}
            {rowMarker && <col style={{ width: 92 }} />}
            {visible.map((c) => (
              <col key={c.id} style={{ width: c.width ?? 150 }} />
            ))}
          </colgroup>
          <thead>
            <tr>
              {selectable && (
                <th className="dt-check">
                  <input
                    type="checkbox"
                    aria-label="Select all rows"
                    checked={sel.allSelected}
                    ref={(el) => {
                      if (el) el.indeterminate = sel.count > 0 && !sel.allSelected;
                    }}
                    onChange={() => {
                      if (sel.allSelected) sel.clear();
                      else sel.selectAll({ parent, filter, sort, offset: 0, limit: rows.total });
                    }}
                  />
                </th>
              )}
              {rowMarker && <th className="dt-marker">State</th>}
              {visible.map((c) => {
                const dir = sort?.column === c.id ? (sort.descending ? "desc" : "asc") : null;
                return (
                  <th
                    key={c.id}
                    data-col={c.id}
                    aria-sort={dir === "asc" ? "ascending" : dir === "desc" ? "descending" : "none"}
                    className={[c.align === "right" ? "num" : "", c === visible[0] ? "dt-frozen" : ""].join(" ").trim() || undefined}
                  >
                    {c.sortable ? (
                      <button type="button" className="dt-sort" data-sort={c.id} onClick={() => onSort(c.id)}>
                        {c.header}
                        <span className="sort-indicator" aria-hidden="true">
                          {dir === "asc" ? "▲" : dir === "desc" ? "▼" : ""}
                        </span>
                      </button>
                    ) : (
                      <span className="dt-head">{c.header}</span>
                    )}
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
              const r = rowAt(vi.index);
              const extra = r !== undefined ? (props.expanded?.(r) ?? null) : null;
              return (
                <tbody key={r !== undefined ? rowId(r) : `loading:${vi.index}`} ref={measureElement} data-index={vi.index}>
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
        {rows.loaded && rows.total === 0 && <div className="dt-empty">{rows.unfiltered === 0 ? (props.emptyText ?? "Nothing here yet.") : "No rows match the filter."}</div>}
      </div>
      {grid.statusLine}
      {props.footer}
      {grid.dialog}
    </div>
  );
}
