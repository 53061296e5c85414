import { act, renderHook } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { offsetOf, rowAt, useRowWindow, windowItems } from "../table/useRowWindow";

const H = 26;

describe("the rows on screen, by arithmetic", () => {
  it("finds the row at an offset when every row has one height", () => {
    expect(rowAt(0, H, 1_000_000, [])).toBe(0);
    expect(rowAt(25, H, 1_000_000, [])).toBe(0);
    expect(rowAt(26, H, 1_000_000, [])).toBe(1);
    // The last row of a million, and past the end.
    expect(rowAt(999_999 * H + 5, H, 1_000_000, [])).toBe(999_999);
    expect(rowAt(5e9, H, 1_000_000, [])).toBe(999_999);
    expect(rowAt(-10, H, 10, [])).toBe(0);
  });

  it("counts an expanded row's extra height for the rows after it", () => {
    // Row 3 is 100 px taller (a diff under it).
    const extras = [[3, 100]] as const;
    expect(offsetOf(3, H, extras)).toBe(3 * H);
    expect(offsetOf(4, H, extras)).toBe(4 * H + 100);
    // Inside the expanded row's detail: still row 3.
    expect(rowAt(3 * H + 120, H, 100, extras)).toBe(3);
    // Just below it: row 4.
    expect(rowAt(4 * H + 100, H, 100, extras)).toBe(4);
    expect(rowAt(10 * H + 100, H, 100, extras)).toBe(10);
  });

  it("lists the window's rows with their tops and bottoms", () => {
    const items = windowItems(2, 5, H, [[3, 10]]);
    expect(items.map((i) => i.index)).toEqual([2, 3, 4, 5]);
    expect(items[0]).toEqual({ index: 2, start: 52, end: 78 });
    expect(items[1]).toEqual({ index: 3, start: 78, end: 114 });
    expect(items[2].start).toBe(114);
    expect(windowItems(5, 4, H, [])).toEqual([]);
  });

  it("agrees with itself: the row at each row's top is that row", () => {
    const extras = [
      [2, 40],
      [7, 13],
      [8, 200],
    ] as const;
    for (let i = 0; i < 20; i++) {
      const top = offsetOf(i, H, extras);
      expect(rowAt(top, H, 20, extras)).toBe(i);
      expect(rowAt(top - 1, H, 20, extras)).toBe(Math.max(0, i - 1));
    }
  });
});

describe("the row window as a filter narrows the rows", () => {
  /** A scroll area 260 px tall (10 rows) that counts reads of its layout. */
  function scrollArea() {
    const el = document.createElement("div");
    let top = 0;
    const reads = { n: 0 };
    Object.defineProperty(el, "scrollTop", {
      get: () => {
        reads.n += 1;
        return top;
      },
      set: (v: number) => {
        top = v;
      },
    });
    Object.defineProperty(el, "clientHeight", {
      get: () => {
        reads.n += 1;
        return 260;
      },
    });
    return { ref: { current: el }, reads, scrollTo: (v: number) => (top = v), el };
  }

  it("answers a new count without reading the layout, and still follows a scroll", () => {
    const area = scrollArea();
    const { result, rerender } = renderHook(({ count }) => useRowWindow(area.ref, { count, rowHeight: H, overscan: 2 }), { initialProps: { count: 100_000 } });
    expect(result.current.items.at(-1)?.index).toBe(12);
    const before = area.reads.n;
    // A filter's answer: fewer rows. Reading scrollTop here would make the browser lay
    // out the rows just written, inside the commit that shows them.
    rerender({ count: 5 });
    expect(area.reads.n).toBe(before);
    expect(result.current.items.map((i) => i.index)).toEqual([0, 1, 2, 3, 4]);
    rerender({ count: 100_000 });
    // A scroll still moves the window, with the count the rows have now.
    area.scrollTo(1000 * H);
    act(() => {
      area.el.dispatchEvent(new Event("scroll"));
    });
    expect(result.current.items[0].index).toBe(998);
    expect(result.current.totalSize).toBe(100_000 * H);
  });
});
