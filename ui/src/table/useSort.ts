import { useCallback, useState } from "react";
import type { SortBy } from "../api/types";

/** The sort after a click on `column`'s header: ascending, descending, then back to the default order. */
function nextSort(s: SortBy | null, column: string): SortBy | null {
  if (!s || s.column !== column) return { column, descending: false };
  if (!s.descending) return { column, descending: true };
  return null;
}

/**
 * The sort a table asks for. `toggle` returns the sort it sets, so a click's handler can
 * ask for that sort's window before React renders it.
 */
export function useSort(initial: SortBy | null = null): { sort: SortBy | null; toggle: (column: string) => SortBy | null } {
  const [sort, setSort] = useState<SortBy | null>(initial);
  const toggle = useCallback(
    (column: string) => {
      const next = nextSort(sort, column);
      setSort(next);
      return next;
    },
    [sort],
  );
  return { sort, toggle };
}
