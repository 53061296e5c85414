import type { EntityRef, SortBy, TableQuery, TableWindow } from "../api/types";
import { mark } from "../util/timing";

/** Asks for one window of a table; `undefined` when the command failed. */
export type WindowFetch<T> = (query: TableQuery) => Promise<TableWindow<T> | undefined>;

/** What a view shows, without the window: the rows it selects and their order. */
export type BaseQuery = { parent: EntityRef | null; filter: string; sort: SortBy | null };

/** Identifies a base query: equal keys select the same rows in the same order. */
export function queryKey(q: BaseQuery): string {
  const p = q.parent ? `${q.parent.kind}:${q.parent.key.type}:${q.parent.key.value}` : "";
  const s = q.sort ? `${q.sort.column}:${q.sort.descending ? "desc" : "asc"}` : "";
  return JSON.stringify([p, q.filter, s]);
}

/** `name:asc`, `budget:desc`, or "" for the default order. */
export function sortText(sort: SortBy | null): string {
  return sort ? `${sort.column}:${sort.descending ? "desc" : "asc"}` : "";
}

type Entry<T> = {
  key: string;
  query: BaseQuery;
  /** Bumped when the rows may have changed: answers to older requests are dropped. */
  gen: number;
  /** The generation of the last answer that landed; `gen` differs until one lands. */
  landed: number;
  total: number;
  unfiltered: number;
  /** `total` is a lower bound: the first answer came before the count (a quick window), whose request is on its way. */
  partial: boolean;
  pages: Map<number, T[]>;
  /** Pages still shown while their refetch is on the way. */
  stale: Set<number>;
  /** Page → generation it was asked for in. */
  inflight: Map<number, number>;
  /** Failed requests in a row: the next retry waits longer. */
  failures: number;
};

/**
 * Whether two rows hold the same JSON (the answers are plain JSON: objects, arrays,
 * strings, numbers, booleans, null). An answer that repeats a row already on screen keeps
 * the object already there, so a memoised row is not rendered again and its DOM stays.
 */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth > 32) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !sameJson(Reflect.get(a, k), Reflect.get(b, k), depth + 1)) return false;
  }
  return true;
}

/** Pages kept per query: at most this many rows ever sit in JS, whatever the table's size. */
const MAX_PAGES = 24;
/** Queries kept (so going back to a filter is instant until the rows change). */
const MAX_ENTRIES = 6;
/** A failed window is asked again after this long, doubling per failure in a row, up to `MAX_RETRIES` times. */
const RETRY_MS = 250;
const MAX_RETRIES = 4;

/**
 * Pages of a table's rows, per query. Only the pages in view (plus an overscan) are asked
 * for; contiguous missing pages go in one request. The latest request wins: an answer for
 * a query no longer current is kept for that query but never shown (nor re-renders), and
 * an answer asked before the rows changed is dropped. While a window of an older query is
 * on its way, the current query waits for it and is then asked once: queries typed in
 * between are never asked, so fast typing does not queue a window per keystroke on the
 * Rust side (which answers one window at a time). Rows an answer repeats unchanged keep
 * the objects already held (see `sameJson`).
 */
export class WindowCache<T> {
  private entries = new Map<string, Entry<T>>();
  private current: Entry<T> | null = null;
  private shownKey: string | null = null;
  private fetcher: WindowFetch<T> | null = null;
  private first = 0;
  private last = -1;
  /** Requests on their way, per entry they were asked for. */
  private outstanding = new Map<Entry<T>, number>();
  /** The current query waits for an older query's window (see the class comment). */
  private deferred = false;
  /** Identifies a row, so an answer can keep the objects of unchanged rows; none: every answer's rows are new. */
  rowId: ((row: T) => string) | null = null;
  /** Records the bench's `fd:window-asked`/`fd:window-landed` marks. */
  timed = true;
  /** The last change to the rows on screen was `putRow`'s (cleared by an answer or a refetch). */
  private justPut = false;
  /** Whether answers may re-render (false between unmount and a StrictMode remount). */
  alive = true;

  constructor(
    readonly pageSize: number,
    private readonly overscan: number,
    /** The rows on screen changed; `landed` when an answer brought them (not from within a render or an effect). */
    private readonly notify: (landed: boolean) => void,
  ) {}

  /** Sets the fetch function and the query; a new function means new rows (a refetch). */
  configure(fetcher: WindowFetch<T>, query: BaseQuery): void {
    const key = queryKey(query);
    const before = this.shown();
    if (this.fetcher !== fetcher) {
      const had = this.fetcher !== null;
      this.fetcher = fetcher;
      this.switchTo(key, query);
      if (had) this.invalidate();
      else this.load();
    } else if (this.current?.key !== key) {
      this.switchTo(key, query);
      this.load();
    }
    // Back to a query whose rows are cached: no answer will land to re-render, and the
    // render that asked for it still showed the previous query's rows and marks.
    if (this.shown() !== before && this.alive) this.notify(false);
  }

  /**
   * Switches to `query` at once, with the fetch function already set: a keystroke's
   * handler asks its window before React renders the table for it (`configure`, from
   * the render's effect, then finds the query current and asks nothing).
   */
  ask(query: BaseQuery): void {
    if (this.fetcher !== null) this.configure(this.fetcher, query);
  }

  /** The index range on screen. */
  want(first: number, last: number): void {
    if (first === this.first && last === this.last) return;
    this.first = first;
    this.last = last;
    this.load();
  }

  /** The rows changed: keep showing the visible pages, fetch them again, forget the rest. */
  invalidate(): void {
    this.justPut = false;
    const cur = this.current;
    for (const key of [...this.entries.keys()]) if (key !== cur?.key) this.entries.delete(key);
    if (this.shownKey !== cur?.key) this.shownKey = null;
    if (!cur) return;
    cur.gen += 1;
    cur.failures = 0;
    cur.inflight.clear();
    const [p0, p1] = this.pageRange(cur);
    for (const p of [...cur.pages.keys()]) {
      if (p >= p0 && p <= p1) cur.stale.add(p);
      else cur.pages.delete(p);
    }
    this.load();
  }

  /**
   * Rows `ids` changed in place (no row added or removed): the visible window is asked
   * again only when it shows one of them, or when the query filters or sorts (an edit
   * can move a row into, out of or within it), or while a window is on its way (its
   * answer may predate the change). Other pages holding one of them, and other queries,
   * are forgotten.
   */
  changedRows(ids: ReadonlySet<string>, rowId: (row: T) => string): void {
    const cur = this.current;
    if (!cur || this.shownKey !== cur.key || cur.inflight.size > 0 || cur.query.filter.trim() !== "" || cur.query.sort !== null) {
      this.invalidate();
      return;
    }
    for (const key of [...this.entries.keys()]) if (key !== cur.key) this.entries.delete(key);
    const [p0, p1] = this.pageRange(cur);
    let shown = false;
    for (const [p, rows] of [...cur.pages]) {
      if (!rows.some((r) => ids.has(rowId(r)))) continue;
      if (p >= p0 && p <= p1) shown = true;
      else cur.pages.delete(p);
    }
    if (shown) this.invalidate();
  }

  /**
   * A saved row, from the save's own answer: shown at once in place of the row of the same
   * id, when the edit cannot have moved it: the query does not filter (only the Rust side
   * knows whether the row still matches), and it does not sort, or `keepsPlace` says the
   * sorted column's value did not change. The change event's refetch follows, and keeps
   * this object when it repeats the row (`sameJson`). Whether the rows on screen changed.
   */
  putRow(row: T, keepsPlace?: (before: T, after: T) => boolean): boolean {
    const cur = this.current;
    const id = this.rowId;
    // On screen: back to a query whose rows are kept, no answer has landed to say so.
    if (!cur || !id || this.shown() !== cur || cur.query.filter.trim() !== "") return false;
    const key = id(row);
    for (const [p, rows] of cur.pages) {
      const i = rows.findIndex((r) => id(r) === key);
      if (i < 0) continue;
      if (sameJson(rows[i], row)) return false;
      if (cur.query.sort !== null && !keepsPlace?.(rows[i], row)) return false;
      const next = rows.slice();
      next[i] = row;
      cur.pages.set(p, next);
      this.justPut = true;
      if (!this.alive) return false;
      this.notify(true);
      return true;
    }
    return false;
  }

  /** The entry on screen: the current query once its first answer landed, else the last one shown. */
  private shown(): Entry<T> | null {
    const cur = this.current;
    if (cur && cur.landed > 0) return cur;
    return (this.shownKey !== null ? this.entries.get(this.shownKey) : undefined) ?? null;
  }

  /** The query of the rows on screen. */
  shownQuery(): BaseQuery | null {
    return this.shown()?.query ?? null;
  }

  shownQueryKey(): string | null {
    return this.shown()?.key ?? null;
  }

  currentKey(): string | null {
    return this.current?.key ?? null;
  }

  /** Rows matching the filter, as the rows on screen counted them (0 before any answer). */
  total(): number {
    return this.shown()?.total ?? 0;
  }

  unfiltered(): number {
    return this.shown()?.unfiltered ?? 0;
  }

  /** The total on screen is a lower bound: its count is on its way. */
  partial(): boolean {
    return this.shown()?.partial ?? false;
  }

  /** Whether the current query's rows have been answered at least once. */
  loaded(): boolean {
    return (this.current?.landed ?? 0) > 0;
  }

  rowAt(index: number): T | undefined {
    const e = this.shown();
    if (!e || index < 0) return undefined;
    return e.pages.get(Math.floor(index / this.pageSize))?.[index % this.pageSize];
  }

  /** Rows between two indexes (inclusive) that are loaded, in order. */
  loadedBetween(from: number, to: number): { index: number; row: T }[] {
    const out: { index: number; row: T }[] = [];
    const lo = Math.max(0, Math.min(from, to));
    const hi = Math.max(from, to);
    for (let i = lo; i <= hi && i < this.total(); i++) {
      const r = this.rowAt(i);
      if (r !== undefined) out.push({ index: i, row: r });
    }
    return out;
  }

  /** The last change on screen was a saved row put in place (`putRow`), whatever refetch is on its way. */
  put(): boolean {
    return this.justPut;
  }

  /** Every row on screen is loaded and current (not a stale page waiting for its refetch). */
  complete(): boolean {
    const e = this.shown();
    if (!e || e !== this.current || e.landed !== e.gen) return false;
    const hi = Math.min(this.last, e.total - 1);
    for (let p = Math.floor(Math.max(0, this.first) / this.pageSize); p * this.pageSize <= hi; p++) {
      if (!e.pages.has(p) || e.stale.has(p)) return false;
    }
    return true;
  }

  private switchTo(key: string, query: BaseQuery): void {
    this.justPut = false;
    if (this.current !== null && this.current.key !== key) {
      // Another filter, sort or parent starts at the top (the table scrolls there).
      this.last = Math.max(-1, this.last - this.first);
      this.first = 0;
    }
    let e = this.entries.get(key);
    if (e) {
      this.entries.delete(key); // re-insert: most recently used last
    } else {
      e = { key, query, gen: 1, landed: 0, total: 0, unfiltered: 0, partial: false, pages: new Map(), stale: new Set(), inflight: new Map(), failures: 0 };
    }
    this.entries.set(key, e);
    this.current = e;
    for (const k of [...this.entries.keys()]) {
      if (this.entries.size <= MAX_ENTRIES) break;
      if (k !== key && k !== this.shownKey) this.entries.delete(k);
    }
  }

  /** Pages the visible range (with overscan) covers, clamped to the known total. */
  private pageRange(e: Entry<T>): [number, number] {
    const lo = Math.max(0, this.first - this.overscan);
    const hi = Math.max(lo, this.last + this.overscan);
    const p0 = Math.floor(lo / this.pageSize);
    let p1 = Math.floor(hi / this.pageSize);
    if (e.landed > 0) p1 = Math.min(p1, Math.max(0, Math.ceil(e.total / this.pageSize) - 1));
    return [Math.min(p0, p1), p1];
  }

  private load(): void {
    const e = this.current;
    const fetcher = this.fetcher;
    if (!e || !fetcher) return;
    if (this.olderInFlight(e)) {
      this.deferred = true;
      return;
    }
    const [p0, p1] = this.pageRange(e);
    const missing = (p: number) => (!e.pages.has(p) || e.stale.has(p)) && e.inflight.get(p) !== e.gen;
    let run: number | null = null;
    for (let p = p0; p <= p1 + 1; p++) {
      if (p <= p1 && missing(p)) {
        if (run === null) run = p;
      } else if (run !== null) {
        this.request(e, fetcher, run, p - 1);
        run = null;
      }
    }
  }

  /** Whether a window of another query than `e` is on its way. */
  private olderInFlight(e: Entry<T>): boolean {
    for (const [x, n] of this.outstanding) if (x !== e && n > 0) return true;
    return false;
  }

  private request(e: Entry<T>, fetcher: WindowFetch<T>, p0: number, p1: number): void {
    const gen = e.gen;
    this.outstanding.set(e, (this.outstanding.get(e) ?? 0) + 1);
    for (let p = p0; p <= p1; p++) e.inflight.set(p, gen);
    const { parent, filter, sort } = e.query;
    // A query's first window from the top is asked quick: on a large table its rows come
    // before the count, which `count` asks for next (see `TableQuery.quick`).
    const quick = e.landed === 0 && p0 === 0;
    const query: TableQuery = { parent, filter, sort, offset: p0 * this.pageSize, limit: (p1 - p0 + 1) * this.pageSize, ...(quick ? { quick } : {}) };
    if (this.timed) mark("fd:window-asked");
    fetcher(query).then(
      (w) => this.land(e, gen, p0, p1, w),
      () => this.land(e, gen, p0, p1, undefined),
    );
  }

  private land(e: Entry<T>, gen: number, p0: number, p1: number, w: TableWindow<T> | undefined): void {
    const n = (this.outstanding.get(e) ?? 1) - 1;
    if (n > 0) this.outstanding.set(e, n);
    else this.outstanding.delete(e);
    this.apply(e, gen, p0, p1, w);
    const cur = this.current;
    if (this.deferred && cur && !this.olderInFlight(cur)) {
      this.deferred = false;
      this.load();
    }
  }

  private apply(e: Entry<T>, gen: number, p0: number, p1: number, w: TableWindow<T> | undefined): void {
    for (let p = p0; p <= p1; p++) if (e.inflight.get(p) === gen) e.inflight.delete(p);
    // Forgotten, or asked before the rows changed: a newer answer is (or will be) there.
    if (this.entries.get(e.key) !== e || e.gen !== gen) return;
    if (!w) {
      // A failed window is asked again: without this the table would keep the previous
      // query's rows under the new filter or sort for good.
      if (e === this.current && e.failures < MAX_RETRIES) {
        const delay = RETRY_MS * 2 ** e.failures;
        e.failures += 1;
        setTimeout(() => {
          if (this.alive && e === this.current && e.gen === gen) this.load();
        }, delay);
      }
      return;
    }
    if (this.timed) mark("fd:window-landed");
    this.justPut = false;
    // Before `landed` moves: until then the rows on screen may be another query's.
    const kept = this.keepUnchanged(e, p0, p1, w.rows);
    e.failures = 0;
    e.total = w.total;
    e.unfiltered = w.unfiltered;
    e.partial = w.partial === true;
    e.landed = gen;
    for (let p = p0; p <= p1; p++) {
      const rows = kept.slice((p - p0) * this.pageSize, (p - p0 + 1) * this.pageSize);
      if (rows.length > 0 || p === p0) e.pages.set(p, rows);
      else e.pages.delete(p);
      e.stale.delete(p);
    }
    const lastPage = Math.ceil(e.total / this.pageSize) - 1;
    for (const p of [...e.pages.keys()]) if (p > Math.max(0, lastPage)) e.pages.delete(p);
    this.evict(e);
    if (e === this.current) {
      this.shownKey = e.key;
      // The total is known now: the range may need pages the first request did not cover.
      this.load();
    }
    // Only an answer that changes what is on screen renders.
    if (this.alive && this.shown() === e) this.notify(true);
    if (e.partial && this.fetcher !== null) this.count(e, this.fetcher, gen);
  }

  /**
   * Asks for the count a quick answer left out: the same query with no rows. Not counted
   * as outstanding, so a newer query (the next keystroke) is asked at once, not after it.
   */
  private count(e: Entry<T>, fetcher: WindowFetch<T>, gen: number): void {
    const { parent, filter, sort } = e.query;
    const counted = (w: TableWindow<T> | undefined) => {
      // Forgotten, or the rows changed since: the refetch's own answer counts them.
      if (this.entries.get(e.key) !== e || e.gen !== gen || !e.partial) return;
      if (!w) {
        // The count failed. The current query's window is asked again, whole, which
        // counts; another query's is asked again when it is current again, rather than
        // showing "N+" for good.
        if (e === this.current) {
          this.invalidate();
        } else {
          e.gen += 1;
          e.landed = 0;
          for (const p of e.pages.keys()) e.stale.add(p);
        }
        return;
      }
      e.total = w.total;
      e.unfiltered = w.unfiltered;
      e.partial = false;
      if (e === this.current) this.load();
      if (this.alive && this.shown() === e) this.notify(true);
    };
    fetcher({ parent, filter, sort, offset: 0, limit: 0 }).then(counted, () => counted(undefined));
  }

  /**
   * `rows` with each row that holds the same JSON as a row of the same id held before
   * (in the pages it replaces, or on screen) replaced by that row's object.
   */
  private keepUnchanged(e: Entry<T>, p0: number, p1: number, rows: T[]): T[] {
    const id = this.rowId;
    if (!id || rows.length === 0) return rows;
    const before = new Map<string, T>();
    const add = (page: T[] | undefined) => {
      for (const r of page ?? []) before.set(id(r), r);
    };
    for (let p = p0; p <= p1; p++) add(e.pages.get(p));
    const shown = this.shown();
    if (shown && shown !== e) {
      const [s0, s1] = this.pageRange(shown);
      for (let p = s0; p <= s1; p++) add(shown.pages.get(p));
    }
    if (before.size === 0) return rows;
    return rows.map((r) => {
      const old = before.get(id(r));
      return old !== undefined && sameJson(old, r) ? old : r;
    });
  }

  /** Drops the pages farthest from the view beyond the cap. */
  private evict(e: Entry<T>): void {
    if (e.pages.size <= MAX_PAGES) return;
    const center = (this.first + this.last) / 2 / this.pageSize;
    const far = [...e.pages.keys()].sort((a, b) => Math.abs(b - center) - Math.abs(a - center));
    for (const p of far.slice(0, e.pages.size - MAX_PAGES)) {
      e.pages.delete(p);
      e.stale.delete(p);
    }
  }
}
