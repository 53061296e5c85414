/**
 * Which rows of a table are on screen, by arithmetic: every row is `rowHeight` tall but
 * for the few whose measured height differs (a row expanded with a diff under it), so
 * the first row at a scroll offset and a row's offset are found in O(expanded rows),
 * and a change of the row count costs nothing.
 *
 * It replaces TanStack Virtual for the tables: its `getMeasurements` builds two arrays
 * of the row count on every count change (TanStack/virtual#565), which at 1,000,000 ad
 * orders is 24 MB of garbage and 25–50 ms of script per filter keystroke, the largest
 * part of the keystroke's own cost. A table's rows have one height, so none of that is
 * needed.
 *
 * One limit stays, as with any windowing by a full-height spacer: WebKit lays out at most
 * about 33.5 million pixels, 1.29 million rows of 26 px.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { flushSync } from "react-dom";

export type WindowItem = { index: number; start: number; end: number };

export type RowWindowOptions = {
  count: number;
  rowHeight: number;
  overscan: number;
};

export type RowWindow = {
  items: WindowItem[];
  totalSize: number;
  scrollToOffset: (offset: number) => void;
  /** Scrolls the least that shows row `index` whole. */
  scrollToIndex: (index: number) => void;
  /** A ref for an element holding row `data-index`: its height is measured. */
  measureElement: (el: HTMLElement | null) => void;
};

/** Heights over `rowHeight`, by row, in row order: `[index, extra px]`. */
type Extras = ReadonlyArray<readonly [number, number]>;

/** The row at offset `y`, given the rows taller than `h` (sorted by index). */
export function rowAt(y: number, h: number, count: number, extras: Extras): number {
  if (count <= 0) return 0;
  let added = 0;
  for (const [j, extra] of extras) {
    if (j >= count) break;
    const top = j * h + added;
    if (y < top) break;
    if (y < top + h + extra) return j;
    added += extra;
  }
  return Math.min(count - 1, Math.max(0, Math.floor((y - added) / h)));
}

/** The offset of row `index`'s top. */
export function offsetOf(index: number, h: number, extras: Extras): number {
  let added = 0;
  for (const [j, extra] of extras) {
    if (j >= index) break;
    added += extra;
  }
  return index * h + added;
}

/** The rows from `first` to `last`, each with its top and bottom. */
export function windowItems(first: number, last: number, h: number, extras: Extras): WindowItem[] {
  const items: WindowItem[] = [];
  if (last < first) return items;
  let start = offsetOf(first, h, extras);
  let e = extras.findIndex(([j]) => j >= first);
  for (let i = first; i <= last; i++) {
    let size = h;
    if (e >= 0 && e < extras.length && extras[e][0] === i) {
      size += extras[e][1];
      e++;
    }
    items.push({ index: i, start, end: start + size });
    start += size;
  }
  return items;
}

/** The rows of the scroll area `scroll` on screen, with `overscan` rows each side. */
export function useRowWindow(scroll: React.RefObject<HTMLElement | null>, opts: RowWindowOptions): RowWindow {
  const { count, rowHeight: h, overscan } = opts;
  const [extras, setExtras] = useState<Extras>([]);
  const extrasRef = useRef(extras);
  extrasRef.current = extras;
  // 600 px until the scroll area is measured (the first layout effect).
  const [view, setView] = useState({ top: 0, height: 600 });
  const viewRef = useRef(view);
  viewRef.current = view;

  // The range on screen only changes state when its rows do, not on every pixel of a
  // scroll, and in the scroll's own task (as TanStack's adapter does), so no blank rows
  // show while scrolling.
  const rangeOf = useCallback(
    (top: number, height: number) => {
      const first = rowAt(top, h, count, extrasRef.current);
      const last = rowAt(top + height, h, count, extrasRef.current);
      return { first: Math.max(0, first - overscan), last: Math.min(count - 1, last + overscan) };
    },
    [h, count, overscan],
  );
  const rangeRef = useRef(rangeOf(view.top, view.height));
  // The listeners read the latest `rangeOf` through a ref, so they subscribe once. Were
  // it a dependency, a new count (every filter's answer) would run the effect again, and
  // its first read of `scrollTop` would lay out the rows just written inside the commit
  // that shows them: 4-12 ms of a 100k-row filter's answer went there. The range a new
  // count needs is worked out in the render below; scroll and resize still update it.
  const rangeOfRef = useRef(rangeOf);
  rangeOfRef.current = rangeOf;

  useLayoutEffect(() => {
    const el = scroll.current;
    if (!el) return;
    const update = (sync: boolean) => {
      const next = { top: el.scrollTop, height: el.clientHeight || viewRef.current.height };
      const was = rangeRef.current;
      const range = rangeOfRef.current(next.top, next.height);
      if (range.first === was.first && range.last === was.last && next.height === viewRef.current.height) return;
      rangeRef.current = range;
      viewRef.current = next;
      if (sync) flushSync(() => setView(next));
      else setView(next);
    };
    update(false);
    const onScroll = () => update(true);
    el.addEventListener("scroll", onScroll, { passive: true });
    const resize = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => update(false));
    resize?.observe(el);
    return () => {
      el.removeEventListener("scroll", onScroll);
      resize?.disconnect();
    };
  }, [scroll]);

  // Rows past the end keep no measured height.
  useEffect(() => {
    if (extras.some(([j]) => j >= count)) setExtras(extras.filter(([j]) => j < count));
  }, [count, extras]);

  const measure = useCallback(
    (el: HTMLElement) => {
      const index = Number(el.dataset.index);
      if (!Number.isInteger(index)) return;
      const extra = Math.max(0, Math.round(el.offsetHeight) - h);
      const now = extrasRef.current;
      const at = now.findIndex(([j]) => j === index);
      if ((at < 0 && extra === 0) || (at >= 0 && now[at][1] === extra)) return;
      const next = now.filter(([j]) => j !== index);
      if (extra > 0) {
        next.push([index, extra]);
        next.sort((a, b) => a[0] - b[0]);
      }
      extrasRef.current = next;
      setExtras(next);
    },
    [h],
  );
  // An expanded row measured again when its content grows or shrinks after it mounted
  // (a diff that loads); rows that left the DOM are let go.
  const observer = useRef<ResizeObserver | null>(null);
  useEffect(() => () => observer.current?.disconnect(), []);
  const measureElement = useCallback(
    (el: HTMLElement | null) => {
      if (!el) return;
      measure(el);
      if (observer.current === null && typeof ResizeObserver !== "undefined") {
        observer.current = new ResizeObserver((entries) => {
          for (const entry of entries) {
            const target = entry.target as HTMLElement;
            if (target.isConnected) measure(target);
            else observer.current?.unobserve(target);
          }
        });
      }
      observer.current?.observe(el);
    },
    [measure],
  );

  const range = rangeOf(view.top, view.height);
  rangeRef.current = range;
  const items = useMemo(() => windowItems(range.first, range.last, h, extras), [range.first, range.last, h, extras]);
  const totalSize = count * h + extras.reduce((sum, [j, e]) => (j < count ? sum + e : sum), 0);

  const scrollToOffset = useCallback(
    (offset: number) => {
      const el = scroll.current;
      if (el) el.scrollTop = offset;
    },
    [scroll],
  );
  const scrollToIndex = useCallback(
    (index: number) => {
      const el = scroll.current;
      if (!el) return;
      const top = offsetOf(index, h, extrasRef.current);
      const found = extrasRef.current.find(([j]) => j === index);
      const bottom = top + h + (found ? found[1] : 0);
      const height = el.clientHeight || viewRef.current.height;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (bottom > el.scrollTop + height) el.scrollTop = bottom - height;
    },
    [scroll, h],
  );

  return { items, totalSize, scrollToOffset, scrollToIndex, measureElement };
}
