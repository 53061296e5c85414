import type { Marker, TableQuery, TableWindow } from "../api/types";
import type { CellValue, Column } from "./columns";
import type { WindowFetch } from "./windowCache";

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

const MARKER_TEXT: Record<Marker, string> = { new: "New", changed: "Changed", invalid: "Invalid", conflict: "Conflict", failed: "Failed" };

const empty = (v: CellValue) => v === null || v === undefined || v === "";

export function compareValues(a: CellValue, b: CellValue): number {
  if (empty(a) || empty(b)) return empty(a) === empty(b) ? 0 : empty(a) ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return collator.compare(String(a), String(b));
}

export type LocalSource<T> = {
  fetch: WindowFetch<T>;
};

/**
 * A windowed view over rows already in memory (a short list: one ad order's caps),
 * filtered and sorted the way the query commands do it.
 */
export function localSource<T>(rows: T[], columns: Column<T>[], rowLabel: (r: T) => string, rowMarker?: (r: T) => Marker | null): LocalSource<T> {
  const text = rows.map((r) => {
    const parts = [rowLabel(r), ...columns.map((c) => c.value(r)).filter((v) => !empty(v)).map(String)];
    const m = rowMarker?.(r);
    if (m) parts.push(MARKER_TEXT[m]);
    return parts.join("\u0001").toLowerCase();
  });
  const select = (q: Pick<TableQuery, "filter" | "sort">): T[] => {
    const terms = q.filter.trim().toLowerCase().split(/\s+/).filter(Boolean);
    let idx = rows.map((_, i) => i).filter((i) => terms.every((t) => text[i].includes(t)));
    const col = q.sort ? columns.find((c) => c.id === q.sort?.column) : undefined;
    if (q.sort && col) {
      const dir = q.sort.descending ? -1 : 1;
      const vals = rows.map((r) => col.value(r));
      idx = [...idx].sort((a, b) => {
        if (empty(vals[a]) || empty(vals[b])) return compareValues(vals[a], vals[b]) || a - b;
        return dir * compareValues(vals[a], vals[b]) || a - b;
      });
    }
    return idx.map((i) => rows[i]);
  };
  const fetch: WindowFetch<T> = (q) => {
    const all = select(q);
    const offset = Math.min(q.offset, all.length);
    const w: TableWindow<T> = { rows: all.slice(offset, offset + q.limit), offset, total: all.length, unfiltered: rows.length };
    return Promise.resolve(w);
  };
  return { fetch };
}
