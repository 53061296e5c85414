import { useEffect, useMemo, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { type BaseQuery, WindowCache, type WindowFetch, queryKey } from "./windowCache";

export type WindowedRows<T> = {
  /** The query of the rows on screen: the latest once its first answer landed. */
  shown: BaseQuery | null;
  shownKey: string | null;
  /** Rows matching the filter, and of the table (or parent) without it. */
  total: number;
  unfiltered: number;
  /** `total` is a lower bound: the rows came before their count, which is on its way. */
  partial: boolean;
  /** The latest query has been answered at least once. */
  loaded: boolean;
  /** Every visible row of the latest query is on screen and fresh. */
  complete: boolean;
  /** The last change on screen was a saved row put in place (see `WindowCache.putRow`); its refetch may still be on its way. */
  put: boolean;
  /** Changes whenever an answer lands. */
  version: number;
  rowAt: (index: number) => T | undefined;
  loadedBetween: (from: number, to: number) => { index: number; row: T }[];
  /**
   * Asks for a query's window now, from an event handler, ahead of the render that shows
   * the query (which then asks nothing more): the command runs while React renders.
   */
  ask: (query: BaseQuery) => void;
  /** Tells which indexes are on screen; missing pages are fetched. */
  want: (first: number, last: number) => void;
  /** The rows changed: fetch the visible window again (the rest is forgotten). */
  refresh: () => void;
  /** Rows `ids` changed in place: fetch the visible window again only if it may show them (see `WindowCache.changedRows`). */
  refreshRows: (ids: ReadonlySet<string>, rowId: (row: T) => string) => void;
  /** A saved row, shown at once where the table holds it (see `WindowCache.putRow`); whether the rows on screen changed. */
  putRow: (row: T, keepsPlace?: (before: T, after: T) => boolean) => boolean;
};

/**
 * Rows asked for beyond those the grid renders (which are already the visible rows and the
 * row window's overscan of 12), so a scroll finds them loaded. Small enough that a screen
 * of up to ~25 visible rows asks one page of 50 for a new filter or sort, not two: every
 * row of an answer is decoded, sent and parsed before the first one paints.
 */
const OVERSCAN = 12;

/**
 * The rows of a table, a window at a time: `fetch` is asked only for the pages in view
 * plus a small overscan, kept in a page cache keyed by the query. The latest request wins:
 * a slow answer to an older query or to rows that have changed since is never shown.
 * A new `fetch` function means the rows changed (a refetch). With `rowId`, a row an answer
 * repeats unchanged keeps its object, so a memoised row does not render again.
 */
export function useWindowedRows<T>(fetch: WindowFetch<T>, query: BaseQuery, options: { rowId?: (row: T) => string; timed?: boolean } = {}): WindowedRows<T> {
  const pageSize = 50;
  const [version, setVersion] = useState(0);
  const cacheRef = useRef<WindowCache<T> | null>(null);
  if (cacheRef.current === null) {
    // An answer renders at once, in the task that received it: left to React's scheduler,
    // the render waits for a task of its own, and a frame painted in between shows the old
    // rows a frame longer.
    const bump = () => setVersion((v) => v + 1);
    cacheRef.current = new WindowCache<T>(pageSize, OVERSCAN, (landed) => (landed ? flushSync(bump) : bump()));
  }
  const cache = cacheRef.current;
  const key = queryKey(query);
  const latest = useRef(query);
  useEffect(() => {
    latest.current = query;
    cache.rowId = options.rowId ?? null;
    cache.timed = options.timed ?? true;
  });

  useEffect(() => {
    cache.alive = true;
    return () => {
      cache.alive = false;
    };
  }, [cache]);
  useEffect(() => {
    cache.configure(fetch, latest.current);
  }, [cache, fetch, key]);

  const api = useMemo(
    () => ({
      rowAt: (i: number) => cache.rowAt(i),
      loadedBetween: (a: number, b: number) => cache.loadedBetween(a, b),
      ask: (q: BaseQuery) => cache.ask(q),
      want: (a: number, b: number) => cache.want(a, b),
      refresh: () => cache.invalidate(),
      refreshRows: (ids: ReadonlySet<string>, rowId: (row: T) => string) => cache.changedRows(ids, rowId),
      putRow: (row: T, keepsPlace?: (before: T, after: T) => boolean) => cache.putRow(row, keepsPlace),
    }),
    [cache],
  );

  return {
    shown: cache.shownQuery(),
    shownKey: cache.shownQueryKey(),
    total: cache.total(),
    unfiltered: cache.unfiltered(),
    partial: cache.partial(),
    loaded: cache.loaded(),
    complete: cache.complete(),
    put: cache.put(),
    version,
    ...api,
  };
}
