import { useCallback, useMemo, useRef, useState } from "react";
import type { TableQuery } from "../api/types";

/**
 * Which rows are ticked. "Select all" is the query itself (every row it selects, but
 * `except`), so no ids are shipped or held for it; otherwise `ids` lists the rows.
 */
export type Selection = { all: TableQuery | null; ids: ReadonlySet<string>; except: ReadonlySet<string> };

export const NO_SELECTION: Selection = { all: null, ids: new Set(), except: new Set() };

export function isSelected(sel: Selection, id: string): boolean {
  return sel.all ? !sel.except.has(id) : sel.ids.has(id);
}

/** How many rows are ticked; `total` is the row count of the query a "select all" stands for. */
export function selectedCount(sel: Selection, total: number): number {
  return sel.all ? Math.max(0, total - sel.except.size) : sel.ids.size;
}

export type Click = { shift: boolean; toggle: boolean };

export type SelectionApi = {
  selection: Selection;
  isSelected: (id: string) => boolean;
  count: number;
  /** A click on a row: plain selects it alone, Ctrl/Cmd toggles it, Shift selects from the last click. */
  click: (id: string, index: number, how: Click, between: (from: number, to: number) => string[]) => void;
  toggle: (id: string, index: number) => void;
  /** Exactly these rows (the cell cursor's, or its range's); `index` is where a Shift-click stretches from. */
  selectRows: (ids: readonly string[], index: number) => void;
  selectAll: (query: TableQuery) => void;
  clear: () => void;
  allSelected: boolean;
};

/**
 * Row selection. `scopeKey` names what "select all" covers (parent and filter): when it
 * changes, a "select all" ends, since it stood for other rows.
 */
export function useSelection(scopeKey: string, total: number): SelectionApi {
  const [selection, setSelection] = useState<Selection>(NO_SELECTION);
  const [scope, setScope] = useState(scopeKey);
  if (scope !== scopeKey) {
    setScope(scopeKey);
    if (selection.all) setSelection(NO_SELECTION);
  }
  const anchor = useRef<number | null>(null);

  const toggle = useCallback((id: string, index: number) => {
    anchor.current = index;
    setSelection((s) => {
      if (s.all) {
        const except = new Set(s.except);
        if (except.has(id)) except.delete(id);
        else except.add(id);
        return { ...s, except };
      }
      const ids = new Set(s.ids);
      if (ids.has(id)) ids.delete(id);
      else ids.add(id);
      return { all: null, ids, except: new Set() };
    });
  }, []);

  const click = useCallback(
    (id: string, index: number, how: Click, between: (from: number, to: number) => string[]) => {
      if (how.shift && anchor.current !== null) {
        const range = between(anchor.current, index);
        setSelection((s) => {
          const ids = how.toggle && !s.all ? new Set(s.ids) : new Set<string>();
          for (const r of range) ids.add(r);
          return { all: null, ids, except: new Set() };
        });
        return;
      }
      if (how.toggle) {
        toggle(id, index);
        return;
      }
      anchor.current = index;
      setSelection({ all: null, ids: new Set([id]), except: new Set() });
    },
    [toggle],
  );

  const selectRows = useCallback((ids: readonly string[], index: number) => {
    anchor.current = index;
    setSelection((s) => (!s.all && s.ids.size === ids.length && ids.every((id) => s.ids.has(id)) ? s : { all: null, ids: new Set(ids), except: new Set() }));
  }, []);

  const selectAll = useCallback((query: TableQuery) => setSelection({ all: query, ids: new Set(), except: new Set() }), []);
  const clear = useCallback(() => setSelection(NO_SELECTION), []);

  const count = selectedCount(selection, total);
  return useMemo(
    () => ({
      selection,
      isSelected: (id: string) => isSelected(selection, id),
      count,
      click,
      toggle,
      selectRows,
      selectAll,
      clear,
      allSelected: total > 0 && count === total,
    }),
    [selection, count, click, toggle, selectRows, selectAll, clear, total],
  );
}
