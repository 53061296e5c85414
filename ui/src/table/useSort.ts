import { useCallback, useState } from "react";
import type { SortBy } from "../api/types";

/** The sort a table asks for: a header click goes ascending, descending, then back to the default order. */
export function useSort(initial: SortBy | null = null): { sort: SortBy | null; toggle: (column: string) => void } {
  const [sort, setSort] = useState<SortBy | null>(initial);
  const toggle = useCallback((column: string) => {
    setSort((s) => {
      if (!s || s.column !== column) return { column, descending: false };
      if (!s.descending) return { column, descending: true };
      return null;
    });
  }, []);
  return { sort, toggle };
}
