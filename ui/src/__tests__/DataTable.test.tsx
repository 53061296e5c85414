import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { Profiler, StrictMode } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Marker, TableQuery, TableWindow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { events } from "../test/fakeBindings";
import { type Column, DataTable, type Selection } from "../components/DataTable";

type R = { id: number; name: string; budget: number; marker: Marker | null };

const MARKERS: (Marker | null)[] = [null, null, null, "new", "changed", "invalid", "conflict", "failed"];

const rowAt = (i: number): R => ({ id: i, name: `Campaign ${String(i).padStart(6, "0")}`, budget: (i * 7919) % 100000, marker: MARKERS[i % MARKERS.length] });

/**
 * A stand-in for a query command over `n` rows: filters by every word in the name, sorts
 * by name or budget, answers the window. Records every query.
 */
function server(n: number) {
  const all = Array.from({ length: n }, (_, i) => rowAt(i));
  const queries: TableQuery[] = [];
  const answer = (q: TableQuery): TableWindow<R> => {
    const words = q.filter.toLowerCase().split(/\s+/).filter(Boolean);
    let hits = words.length ? all.filter((r) => words.every((w) => r.name.toLowerCase().includes(w))) : all;
    if (q.sort) {
      const col = q.sort.column === "budget" ? (r: R) => r.budget : (r: R) => r.id;
      const dir = q.sort.descending ? -1 : 1;
      hits = [...hits].sort((a, b) => dir * (col(a) - col(b)) || a.id - b.id);
    }
    const offset = Math.min(q.offset, hits.length);
    return { rows: hits.slice(offset, offset + q.limit), offset, total: hits.length, unfiltered: n };
  };
  const fetch = vi.fn((q: TableQuery) => {
    queries.push(q);
    return Promise.resolve(answer(q));
  });
  return { fetch, queries, answer };
}

const columns: Column<R>[] = [
  { id: "name", header: "Name", value: (r) => r.name, sortable: true },
  { id: "budget", header: "Budget", value: (r) => r.budget, align: "right", sortable: true },
  { id: "note", header: "Note", value: () => "—" },
  { id: "id", header: "Id", value: (r) => r.id, hidden: true, sortable: true },
];

function renderTable(fetch: (q: TableQuery) => Promise<TableWindow<R> | undefined>, extra: Partial<Parameters<typeof DataTable<R>>[0]> = {}) {
  return render(
    <DataTable<R>
      kind="campaign"
      label="Campaigns"
      fetch={fetch}
      columns={columns}
      changes={["campaign"]}
      rowId={(r) => String(r.id)}
      rowLabel={(r) => r.name}
      rowMarker={(r) => r.marker}
      {...extra}
    />,
  );
}

/** Lets an animation frame pass (the paint marks are set in one). */
async function frame() {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 40));
  });
}

async function settle() {
  for (let i = 0; i < 3; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }
}

const bodyRows = (container: HTMLElement) => container.querySelectorAll("[data-row]");
const labels = (container: HTMLElement) => [...bodyRows(container)].map((r) => r.getAttribute("data-label"));
const filterBox = (container: HTMLElement) => container.querySelector<HTMLInputElement>("input[data-filter]")!;

describe("windowed DataTable", () => {
  beforeEach(() => vi.clearAllMocks());

  it("asks only for the window in view of 100,000 rows, and renders a screenful", async () => {
    const s = server(100_000);
    const { container } = renderTable(s.fetch);
    await settle();
    const n = bodyRows(container).length;
    expect(n).toBeGreaterThan(10);
    expect(n).toBeLessThan(100);
    expect(labels(container)[0]).toBe("Campaign 000000");
    expect(screen.getByText("100,000 rows")).toBeTruthy();
    expect(s.queries.length).toBeGreaterThan(0);
    for (const q of s.queries) {
      expect(q.offset).toBeLessThan(200);
      expect(q.limit).toBeLessThanOrEqual(100);
    }
    expect(container.querySelector('table[data-table="campaign"]')?.getAttribute("aria-rowcount")).toBe("100001");
  });

  it("asks for the pages a scroll brings into view, and only those", async () => {
    const s = server(100_000);
    const { container } = renderTable(s.fetch);
    await settle();
    const seen = s.queries.length;
    const scroller = container.querySelector<HTMLElement>(".dt-scroll")!;
    await act(async () => {
      scroller.scrollTop = 50_000 * 26;
      fireEvent.scroll(scroller);
    });
    await settle();
    const asked = s.queries.slice(seen);
    expect(asked.length).toBeGreaterThan(0);
    for (const q of asked) {
      expect(Math.abs(q.offset - 50_000)).toBeLessThan(200);
      expect(q.limit).toBeLessThanOrEqual(150);
    }
    expect(labels(container)).toContain("Campaign 050005");
    // A render that changes no query (a click on a row) keeps the place scrolled to.
    const row = container.querySelector<HTMLElement>('[data-label="Campaign 050005"] td:last-child')!;
    fireEvent.click(row);
    await settle();
    expect(scroller.scrollTop).toBe(50_000 * 26);
    expect(labels(container)).toContain("Campaign 050005");
  });

  it("sends a filter keystroke to the query and shows the new total", async () => {
    const s = server(100_000);
    const { container } = renderTable(s.fetch);
    await settle();
    fireEvent.change(filterBox(container), { target: { value: "Campaign 09999" } });
    await settle();
    expect(s.queries.at(-1)).toEqual(expect.objectContaining({ filter: "Campaign 09999", offset: 0 }));
    // "Campaign 099990" … "Campaign 099999", and "Campaign 009999".
    expect(labels(container)).toHaveLength(11);
    expect(labels(container).every((l) => l?.includes("09999"))).toBe(true);
    expect(screen.getByText("11 of 100,000")).toBeTruthy();
    fireEvent.change(filterBox(container), { target: { value: "no such row" } });
    await settle();
    expect(container.querySelector(".dt-empty")?.textContent).toBe("No rows match the filter.");
  });

  it("asks for a keystroke's or a header click's window in its handler, before the table renders for it", async () => {
    const s = server(1000);
    let commits = 0;
    // The table's commits so far, when each filter's and sort's window was asked for.
    const askedAfter = new Map<string, number>();
    const fetch = (q: TableQuery) => {
      const key = `${q.filter} ${q.sort ? `${q.sort.column} ${q.sort.descending}` : ""}`;
      if (!askedAfter.has(key)) askedAfter.set(key, commits);
      return s.fetch(q);
    };
    const { container } = render(
      <Profiler id="table" onRender={() => (commits += 1)}>
        <DataTable<R> kind="campaign" label="Campaigns" fetch={fetch} columns={columns} changes={["campaign"]} rowId={(r) => String(r.id)} rowLabel={(r) => r.name} />
      </Profiler>,
    );
    await settle();
    const before = commits;
    fireEvent.change(filterBox(container), { target: { value: "00001" } });
    expect(askedAfter.get("00001 ")).toBe(before);
    expect(commits).toBeGreaterThan(before);
    await settle();
    expect(labels(container)).toHaveLength(11);
    // The render that follows asks nothing more for it.
    expect(s.queries.filter((q) => q.filter === "00001")).toHaveLength(1);

    const sortBy = (column: string) => container.querySelector<HTMLButtonElement>(`button[data-sort="${column}"]`);
    for (const descending of [false, true]) {
      const at = commits;
      act(() => sortBy("budget")?.click());
      expect(askedAfter.get(`00001 budget ${descending}`)).toBe(at);
      await settle();
    }
    const budgets = labels(container).map((l) => rowAt(Number(l?.slice(-6))).budget);
    expect(budgets).toEqual([...budgets].sort((a, b) => b - a));
    expect(s.queries.filter((q) => q.sort?.column === "budget")).toHaveLength(2);
  });

  it("asks only the latest keystroke's window while an older one is on its way, and never shows the older", async () => {
    const s = server(1000);
    const waiting: { q: TableQuery; resolve: () => void }[] = [];
    const fetch = (q: TableQuery) =>
      new Promise<TableWindow<R>>((resolve) => {
        waiting.push({ q, resolve: () => resolve(s.answer(q)) });
      });
    const { container } = renderTable(fetch);
    await settle();
    while (waiting.length > 0) {
      waiting.shift()?.resolve();
      await settle();
    }
    expect(screen.getByText("1,000 rows")).toBeTruthy();
    const unfiltered = labels(container);

    // Three keystrokes while the first one's window is on its way.
    fireEvent.change(filterBox(container), { target: { value: "00001" } });
    fireEvent.change(filterBox(container), { target: { value: "000012" } });
    fireEvent.change(filterBox(container), { target: { value: "000013" } });
    await settle();
    expect(waiting.map((w) => w.q.filter)).toEqual(["00001"]);
    // Its answer lands: the table keeps what it showed and asks for the latest filter only.
    waiting.shift()?.resolve();
    await settle();
    expect(labels(container)).toEqual(unfiltered);
    expect(waiting.map((w) => w.q.filter)).toEqual(["000013"]);
    waiting.shift()?.resolve();
    await settle();
    expect(labels(container)).toEqual(["Campaign 000013"]);
    expect(screen.getByText("1 of 1,000")).toBeTruthy();

    // The first keystroke's answer was kept: going back to it asks nothing.
    fireEvent.change(filterBox(container), { target: { value: "00001" } });
    await settle();
    expect(waiting).toHaveLength(0);
    expect(labels(container)).toHaveLength(11);
    // Back to it again while a newer filter's window is on its way: that answer, landing
    // late, never replaces the rows of the filter typed after it.
    fireEvent.change(filterBox(container), { target: { value: "000019" } });
    await settle();
    const late = waiting.shift();
    expect(late?.q.filter).toBe("000019");
    fireEvent.change(filterBox(container), { target: { value: "00001" } });
    await settle();
    late?.resolve();
    await settle();
    expect(labels(container)).toHaveLength(11);
    expect(screen.getByText("11 of 1,000")).toBeTruthy();
    await frame();
    expect(container.querySelector("[data-table-root]")?.getAttribute("data-filter-applied")).toBe("00001");
  });

  it("shows a quick answer's rows before their count, asks the count, and asks the next keystroke without waiting for it", async () => {
    // A large table's stand-in: a quick query from the top answers its rows and one row
    // more as its total, marked partial; the same query with no rows counts them.
    const s = server(100_000);
    const counts: { q: TableQuery; resolve: () => void }[] = [];
    const fetch = (q: TableQuery): Promise<TableWindow<R>> => {
      s.queries.push(q);
      const full = s.answer(q);
      if (q.limit === 0) return new Promise((resolve) => counts.push({ q, resolve: () => resolve(full) }));
      if (q.quick && q.filter !== "" && full.total > q.limit) return Promise.resolve({ ...full, total: q.limit + 1, partial: true });
      return Promise.resolve(full);
    };
    const { container } = renderTable(fetch);
    await settle();
    expect(screen.getByText("100,000 rows")).toBeTruthy();
    const root = () => container.querySelector("[data-table-root]")!;

    fireEvent.change(filterBox(container), { target: { value: "Campaign 01" } });
    await settle();
    // The rows are on screen, the count says it is not done, and it is asked for: the
    // same query, with no rows and not quick.
    const first = (filter: string) => s.answer({ parent: null, filter, sort: null, offset: 0, limit: 1 });
    expect(labels(container)[0]).toBe(first("Campaign 01").rows[0].name);
    expect(screen.getByText(/^\d+\+ of 100,000$/)).toBeTruthy();
    await frame();
    expect(root().getAttribute("data-filter-applied")).toBe("Campaign 01");
    expect(root().getAttribute("data-counted")).toBe("false");
    expect(counts.map((c) => c.q)).toEqual([{ parent: null, filter: "Campaign 01", sort: null, offset: 0, limit: 0 }]);
    const typed = s.queries.find((q) => q.filter === "Campaign 01" && q.limit > 0);
    expect(typed?.quick).toBe(true);

    // The next keystroke is asked while that count is still on its way.
    fireEvent.change(filterBox(container), { target: { value: "Campaign 012" } });
    await settle();
    expect(s.queries.some((q) => q.filter === "Campaign 012" && q.limit > 0)).toBe(true);
    expect(labels(container)[0]).toBe(first("Campaign 012").rows[0].name);
    // The older count, landing late, changes nothing on screen; the newer one counts.
    counts.shift()?.resolve();
    await settle();
    expect(screen.getByText(/^\d+\+ of 100,000$/)).toBeTruthy();
    counts.shift()?.resolve();
    await settle();
    const total = first("Campaign 012").total;
    expect(total).toBeGreaterThan(100);
    expect(screen.getByText(`${total.toLocaleString()} of 100,000`)).toBeTruthy();
    await frame();
    expect(root().getAttribute("data-counted")).toBe("true");
    expect(root().getAttribute("data-total")).toBe(String(total));
  });

  it("asks a quick answer's window again, whole, when its count fails, and shows the count", async () => {
    const s = server(100_000);
    const fetch = (q: TableQuery): Promise<TableWindow<R> | undefined> => {
      s.queries.push(q);
      const full = s.answer(q);
      if (q.limit === 0) return Promise.reject(new Error("count failed"));
      if (q.quick && q.filter !== "" && full.total > q.limit) return Promise.resolve({ ...full, total: q.limit + 1, partial: true });
      return Promise.resolve(full);
    };
    const { container } = renderTable(fetch);
    await settle();
    fireEvent.change(filterBox(container), { target: { value: "Campaign 01" } });
    await settle();
    const total = s.answer({ parent: null, filter: "Campaign 01", sort: null, offset: 0, limit: 1 }).total;
    // The count failed: the window from the top was asked again, not quick, and counted.
    const asked = s.queries.filter((q) => q.filter === "Campaign 01");
    expect(asked.map((q) => [q.offset, q.limit > 0, q.quick === true])).toEqual([
      [0, true, true],
      [0, false, false],
      [0, true, false],
    ]);
    expect(screen.getByText(`${total.toLocaleString()} of 100,000`)).toBeTruthy();
  });

  it("refetches the visible window when its kind changes, and ignores other kinds", async () => {
    const s = server(5000);
    renderTable(s.fetch);
    await settle();
    const before = s.fetch.mock.calls.length;
    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["advertiser", "site_list"], ids: [], addedOrRemoved: false });
    });
    await settle();
    expect(s.fetch.mock.calls.length).toBe(before);

    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["campaign"], ids: [{ kind: "campaign", key: { type: "id", value: 3 } }], addedOrRemoved: false });
    });
    await settle();
    const again = s.queries.slice(before);
    expect(again.length).toBeGreaterThan(0);
    expect(again.every((q) => q.offset < 100 && q.limit <= 100)).toBe(true);
  });

  it("refetches only when a change names a row on screen, or when rows may move", async () => {
    const s = server(5000);
    const ref = (id: number) => ({ kind: "campaign" as const, key: { type: "id" as const, value: id } });
    const { container } = renderTable(s.fetch, { rowRef: (r) => ref(r.id) });
    await settle();
    const asked = () => s.fetch.mock.calls.length;
    const before = asked();
    const emit = async (change: Parameters<typeof events.workspaceChanged.emit>[0]) => {
      await act(async () => {
        events.workspaceChanged.emit(change);
      });
      await settle();
    };

    // A row far below the window changed in place: nothing on screen changed.
    await emit({ kinds: ["campaign"], ids: [ref(4000)], addedOrRemoved: false });
    expect(asked()).toBe(before);
    // A row on screen changed: its window is asked again.
    await emit({ kinds: ["campaign"], ids: [ref(3)], addedOrRemoved: false });
    expect(asked()).toBeGreaterThan(before);
    const afterShown = asked();
    // Rows added elsewhere move the rows after them: asked again.
    await emit({ kinds: ["campaign"], ids: [ref(4000)], addedOrRemoved: true });
    expect(asked()).toBeGreaterThan(afterShown);
    const afterAdded = asked();
    // Filtered, an edit may move a row into the window: asked again.
    fireEvent.change(container.querySelector("input[data-filter]")!, { target: { value: "Campaign" } });
    await settle();
    const filtered = asked();
    expect(filtered).toBeGreaterThan(afterAdded);
    await emit({ kinds: ["campaign"], ids: [ref(4000)], addedOrRemoved: false });
    expect(asked()).toBeGreaterThan(filtered);
  });

  it("shows a renamed row after its kind changed", async () => {
    let renamed = false;
    const s = server(100);
    const fetch = (q: TableQuery) => {
      const w = s.answer(q);
      return Promise.resolve({ ...w, rows: w.rows.map((r) => (renamed && r.id === 1 ? { ...r, name: "Renamed" } : r)) });
    };
    const { container } = renderTable(fetch);
    await settle();
    expect(labels(container)[1]).toBe("Campaign 000001");
    renamed = true;
    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["campaign"], ids: [], addedOrRemoved: false });
    });
    await settle();
    expect(labels(container)[1]).toBe("Renamed");
  });

  it("repaints only the saved row: its cell changes, every other row keeps its DOM and is not rendered again", async () => {
    const s = server(1000);
    let renamed = false;
    // As over the IPC: every answer is new objects, equal where the rows did not change.
    const fetch = (q: TableQuery) => {
      const w = s.answer(q);
      const rows = w.rows.map((r) => (renamed && r.id === 3 ? { ...r, name: "Renamed", marker: "changed" as const } : { ...r }));
      return Promise.resolve({ ...w, rows });
    };
    const rendered: number[] = [];
    const spied: Column<R>[] = [{ ...columns[0], render: (r) => (rendered.push(r.id), r.name) }, ...columns.slice(1)];
    const ref = (id: number) => ({ kind: "campaign" as const, key: { type: "id" as const, value: id } });
    const { container } = renderTable(fetch, { columns: spied, rowRef: (r) => ref(r.id) });
    await settle();
    const before = [...bodyRows(container)];
    const cellsBefore = before.map((tr) => tr.querySelector('td[data-col="budget"]'));
    expect(before.length).toBeGreaterThan(10);
    rendered.length = 0;

    renamed = true;
    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["campaign"], ids: [ref(3)], addedOrRemoved: false });
    });
    await settle();
    await frame();
    const after = [...bodyRows(container)];
    expect(labels(container)[3]).toBe("Renamed");
    expect(after[3].querySelector('td[data-col="name"]')?.textContent).toBe("Renamed");
    expect(after[3].getAttribute("data-marker")).toBe("changed");
    expect(after).toHaveLength(before.length);
    after.forEach((tr, i) => {
      expect(tr).toBe(before[i]);
      expect(tr.querySelector('td[data-col="budget"]')).toBe(cellsBefore[i]);
    });
    expect(rendered).toEqual([3]);
  });

  it("renders no row for a keystroke until its answer lands, then reuses the places' elements", async () => {
    const s = server(1000);
    const waiting: (() => void)[] = [];
    const fetch = (q: TableQuery) =>
      new Promise<TableWindow<R>>((resolve) => {
        const w = s.answer(q);
        waiting.push(() => resolve({ ...w, rows: w.rows.map((r) => ({ ...r })) }));
      });
    const rendered: number[] = [];
    const spied: Column<R>[] = [{ ...columns[0], render: (r) => (rendered.push(r.id), r.name) }, ...columns.slice(1)];
    const { container } = renderTable(fetch, { columns: spied });
    const answerAll = async () => {
      await settle();
      while (waiting.length > 0) {
        waiting.shift()?.();
        await settle();
      }
    };
    await answerAll();
    fireEvent.change(filterBox(container), { target: { value: "Campaign 00001" } });
    await answerAll();
    // 000010 … 000019, and 000001 first.
    expect(labels(container)).toHaveLength(11);
    const top = container.querySelector('tr[data-row][data-index="0"]');
    expect(top?.getAttribute("data-label")).toBe("Campaign 000001");
    rendered.length = 0;

    fireEvent.change(filterBox(container), { target: { value: "Campaign 000012" } });
    await settle();
    expect(waiting).toHaveLength(1);
    expect(rendered).toEqual([]);
    expect(labels(container)).toHaveLength(11);
    await answerAll();
    expect(labels(container)).toEqual(["Campaign 000012"]);
    // Rows are keyed by place: the row that now comes first is written into the first
    // place's element (no element is made for it), and it renders once.
    expect(container.querySelector('[data-label="Campaign 000012"]')).toBe(top);
    expect(rendered).toEqual([12]);
  });

  it("sorts through the query when a sortable header is clicked", async () => {
    const s = server(500);
    const { container } = renderTable(s.fetch);
    await settle();
    fireEvent.click(container.querySelector('[data-sort="budget"]')!);
    await settle();
    await frame();
    expect(s.queries.at(-1)?.sort).toEqual({ column: "budget", descending: false });
    const min = s.answer({ parent: null, filter: "", sort: { column: "budget", descending: false }, offset: 0, limit: 1 }).rows[0].name;
    expect(labels(container)[0]).toBe(min);
    expect(container.querySelector("[data-table-root]")?.getAttribute("data-sort-applied")).toBe("budget:asc");
    fireEvent.click(container.querySelector('[data-sort="budget"]')!);
    await settle();
    expect(s.queries.at(-1)?.sort).toEqual({ column: "budget", descending: true });
    // A column the query cannot sort by has no sort button.
    expect(container.querySelector('[data-sort="note"]')).toBeNull();
    expect(container.querySelector('th[data-col="note"]')?.textContent).toBe("Note");
  });

  it("marks the painted window for the benchmark", async () => {
    const mark = vi.spyOn(performance, "mark");
    const s = server(300);
    const { container } = renderTable(s.fetch);
    await settle();
    fireEvent.change(filterBox(container), { target: { value: "Campaign 0001" } });
    await settle();
    await frame();
    const root = container.querySelector<HTMLElement>('[data-table-root="campaign"]')!;
    // "0001" is in 000001, 000010…000019 and 000100…000199.
    expect(root.getAttribute("data-total")).toBe("111");
    expect(root.getAttribute("data-filter-applied")).toBe("Campaign 0001");
    expect(root.getAttribute("data-sort-applied")).toBe("");
    expect(Number(root.getAttribute("data-painted-at"))).toBeGreaterThan(0);
    expect(mark).toHaveBeenCalledWith("fd:table-painted");
    mark.mockRestore();
  });

  it("leaves the benchmark's marks to the main table: a second table that is not timed records none", async () => {
    const mark = vi.spyOn(performance, "mark");
    const s = server(300);
    const { container } = renderTable(s.fetch, { timed: false });
    await settle();
    await frame();
    const root = container.querySelector<HTMLElement>('[data-table-root="campaign"]')!;
    expect(Number(root.getAttribute("data-painted-at"))).toBeGreaterThan(0);
    const names = mark.mock.calls.map((c) => c[0]);
    expect(names.filter((n) => n.startsWith("fd:window-") || n.startsWith("fd:table-"))).toEqual([]);
    mark.mockRestore();
  });

  it("selects all filtered rows as the query, and counts them by the total", async () => {
    const s = server(100_000);
    const onSelectionChange = vi.fn<(sel: Selection, count: number) => void>();
    const { container } = renderTable(s.fetch, { onSelectionChange });
    await settle();
    fireEvent.change(filterBox(container), { target: { value: "Campaign 09" } });
    await settle();
    const total = s.answer({ parent: null, filter: "Campaign 09", sort: null, offset: 0, limit: 1 }).total;
    expect(total).toBeGreaterThan(10_000);
    fireEvent.click(screen.getByLabelText("Select all rows"));
    const [sel, count] = onSelectionChange.mock.calls.at(-1)!;
    expect(count).toBe(total);
    expect(sel.all).toEqual(expect.objectContaining({ filter: "Campaign 09" }));
    expect(sel.ids.size).toBe(0);
    expect(container.querySelector(".dt-count")?.textContent).toContain(`${total.toLocaleString()} selected`);
    // Unticking one row keeps the query and leaves that row out.
    const first = labels(container)[0]!;
    fireEvent.click(screen.getByLabelText(`Select ${first}`));
    const [after, n] = onSelectionChange.mock.calls.at(-1)!;
    expect(n).toBe(total - 1);
    expect([...after.except]).toEqual([String(Number(first.slice("Campaign ".length)))]);
    // Another filter ends the "select all".
    fireEvent.change(filterBox(container), { target: { value: "Campaign 08" } });
    await settle();
    expect(onSelectionChange.mock.calls.at(-1)?.[1]).toBe(0);
  });

  it("selects by click, Ctrl-click and Shift-click", async () => {
    const s = server(50);
    const onSelectionChange = vi.fn<(sel: Selection, count: number) => void>();
    const { container } = renderTable(s.fetch, { onSelectionChange });
    await settle();
    const row = (i: number) => bodyRows(container)[i];
    fireEvent.click(row(2));
    expect([...onSelectionChange.mock.calls.at(-1)![0].ids]).toEqual(["2"]);
    fireEvent.click(row(5), { ctrlKey: true });
    expect([...onSelectionChange.mock.calls.at(-1)![0].ids].sort()).toEqual(["2", "5"]);
    fireEvent.click(row(8), { shiftKey: true });
    expect([...onSelectionChange.mock.calls.at(-1)![0].ids].sort()).toEqual(["5", "6", "7", "8"]);
    expect(container.querySelector(".dt-count")?.textContent).toContain("4 selected");
    fireEvent.click(row(1));
    expect(onSelectionChange.mock.calls.at(-1)![1]).toBe(1);
  });

  it("marks pending rows with their marker and bold class", async () => {
    const s = server(16);
    const { container } = renderTable(s.fetch);
    await settle();
    const changed = container.querySelector('[data-row][data-marker="changed"]');
    expect(changed).not.toBeNull();
    expect(changed!.className).toContain("pending");
    expect(within(changed as HTMLElement).getByText("Changed")).toBeTruthy();
    const clean = container.querySelector('[data-row][data-label="Campaign 000000"]');
    expect(clean!.hasAttribute("data-marker")).toBe(false);
    expect(clean!.className).not.toContain("pending");
  });

  it("opens a row on double click and with Enter", async () => {
    const onOpen = vi.fn();
    const onActiveChange = vi.fn();
    const s = server(50);
    const { container } = renderTable(s.fetch, { onOpen, onActiveChange });
    await settle();
    fireEvent.doubleClick(bodyRows(container)[2]);
    expect(onOpen).toHaveBeenCalledWith(expect.objectContaining({ id: 2 }));
    const grid = container.querySelector(".dt-scroll")!;
    fireEvent.keyDown(grid, { key: "ArrowDown" });
    fireEvent.keyDown(grid, { key: "ArrowDown" });
    fireEvent.keyDown(grid, { key: "Enter" });
    expect(onOpen).toHaveBeenLastCalledWith(expect.objectContaining({ id: 1 }));
    await settle();
    expect(onActiveChange).toHaveBeenLastCalledWith(expect.objectContaining({ id: 1 }));
  });

  it("shows and hides columns from the column menu", async () => {
    const s = server(5);
    const { container } = renderTable(s.fetch);
    await settle();
    expect(container.querySelector('[data-sort="id"]')).toBeNull();
    fireEvent.click(within(screen.getByRole("group", { name: "Visible columns" })).getByLabelText("Id"));
    expect(container.querySelector('[data-sort="id"]')).not.toBeNull();
    expect(container.querySelector('td[data-col="id"]')?.textContent).toBe("0");
  });

  describe("sorting 100,010 rows by name after filtering", () => {
    const N = 100_010;
    type O = { id: number; name: string };
    // Unpadded names: the name order ("Order 1", "Order 10", "Order 100", …) is not the id order.
    const orders: O[] = Array.from({ length: N }, (_, i) => ({ id: i + 1, name: `Order ${i + 1}` }));
    const byName = [...orders].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const answer = (q: TableQuery): TableWindow<O> => {
      const f = q.filter.trim().toLowerCase();
      const src = q.sort?.column === "name" ? (q.sort.descending ? [...byName].reverse() : byName) : orders;
      const hits = f ? src.filter((r) => r.name.toLowerCase().includes(f)) : src;
      const offset = Math.min(q.offset, hits.length);
      return { rows: hits.slice(offset, offset + q.limit), offset, total: hits.length, unfiltered: N };
    };
    const orderColumns: Column<O>[] = [
      { id: "name", header: "Name", value: (r) => r.name, sortable: true },
      { id: "id", header: "Id", value: (r) => r.id, sortable: true },
    ];
    /** Waits (in act) until `ok`, as the benchmark polls the root's marks. */
    async function until(what: string, ok: () => boolean) {
      const t0 = performance.now();
      while (!ok()) {
        if (performance.now() - t0 > 5000) throw new Error(`timed out waiting for ${what}`);
        await act(async () => {
          await new Promise((r) => setTimeout(r, 10));
        });
      }
    }
    function mount(fetch: (q: TableQuery) => Promise<TableWindow<O> | undefined>) {
      const { container } = render(<DataTable<O> kind="ad_order" label="Ad orders" fetch={fetch} columns={orderColumns} rowId={(r) => String(r.id)} rowLabel={(r) => r.name} />);
      return container.querySelector<HTMLElement>('[data-table-root="ad_order"]')!;
    }
    const firstLabels = (root: HTMLElement) => labels(root).slice(0, 3);
    const nameOrder = byName.slice(0, 3).map((r) => r.name);

    it("shows and marks the name order after filter keystrokes and a cleared filter", async () => {
      const root = mount((q) => new Promise((res) => setTimeout(() => res(answer(q)), 2)));
      await until("the first paint", () => root.dataset.paintedAt !== undefined);
      const box = filterBox(root);
      for (let loop = 0; loop < 2; loop++) {
        for (let i = 1; i <= "order 12".length; i++) {
          const v = "order 12".slice(0, i);
          fireEvent.change(box, { target: { value: v } });
          await until(`the filter ${v}`, () => root.dataset.filterApplied === v);
        }
        fireEvent.change(box, { target: { value: "" } });
        await until("the cleared filter", () => root.dataset.filterApplied === "");
      }
      expect(firstLabels(root)).toEqual(["Order 1", "Order 2", "Order 3"]);
      fireEvent.click(root.querySelector('button[data-sort="name"]')!);
      await until("the name sort", () => root.dataset.sortApplied === "name:asc");
      expect(firstLabels(root)).toEqual(nameOrder);
      expect(root.dataset.total).toBe(String(N));
    });

    it("repaints a filter shown before, and sorts after it, when the rows changed during the first load", async () => {
      const fetch = vi.fn((q: TableQuery) => new Promise<TableWindow<O>>((res) => setTimeout(() => res(answer(q)), 2)));
      const { container } = render(
        <StrictMode>
          <DataTable<O> kind="ad_order" label="Ad orders" fetch={fetch} columns={orderColumns} changes="any" rowId={(r) => String(r.id)} rowLabel={(r) => r.name} />
        </StrictMode>,
      );
      const root = container.querySelector<HTMLElement>('[data-table-root="ad_order"]')!;
      // A download finishes while the first window is on its way.
      await act(async () => {
        events.workspaceChanged.emit({ kinds: ["ad_order", "campaign"], ids: [], addedOrRemoved: false });
      });
      await until("the first paint", () => root.dataset.paintedAt !== undefined && root.dataset.total === String(N));
      expect(firstLabels(root)).toEqual(["Order 1", "Order 2", "Order 3"]);
      const box = filterBox(root);
      for (const [v, total] of [["o", N], ["or", N], ["order 12", orders.filter((r) => r.name.toLowerCase().includes("order 12")).length]] as const) {
        fireEvent.change(box, { target: { value: v } });
        await until(`the filter ${v}`, () => root.dataset.filterApplied === v);
        expect(root.dataset.total).toBe(String(total));
      }
      expect(firstLabels(root)).toEqual(["Order 12", "Order 120", "Order 121"]);
      // Back to a filter shown before (its rows are still cached).
      fireEvent.change(box, { target: { value: "" } });
      await until("the cleared filter", () => root.dataset.filterApplied === "");
      expect(root.dataset.total).toBe(String(N));
      expect(firstLabels(root)).toEqual(["Order 1", "Order 2", "Order 3"]);
      fireEvent.click(root.querySelector('button[data-sort="name"]')!);
      await until("the name sort", () => root.dataset.sortApplied === "name:asc");
      expect(firstLabels(root)).toEqual(nameOrder);
      expect(root.dataset.filterApplied).toBe("");
      expect(root.dataset.total).toBe(String(N));
        }, 20_000);

    it("asks again for a window whose request failed, instead of keeping the old order", async () => {
      let failSorted = 1;
      const root = mount((q) => {
        if (q.sort && failSorted > 0) {
          failSorted -= 1;
          return Promise.resolve(undefined);
        }
        return Promise.resolve(answer(q));
      });
      await until("the first paint", () => root.dataset.paintedAt !== undefined);
      fireEvent.click(root.querySelector('button[data-sort="name"]')!);
      await until("the name sort", () => root.dataset.sortApplied === "name:asc");
      expect(firstLabels(root)).toEqual(nameOrder);
    });
  });
});
