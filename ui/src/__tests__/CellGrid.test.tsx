// The grid's keyboard model as a buyer who knows Google Ads Editor uses it: a cell cursor,
// editing in place with the field's own control, Enter and Tab committing, Escape
// cancelling, Shift ranges, fill down and paste, read-only cells and errors on the cell.
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AdOrderRow, EntityRef, Marker, TableQuery } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { clearToasts } from "../api/toast";
import { commands, events, ok, previewOf, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { App } from "../App";
import { type Column, DataTable, type GridCells, type Selection } from "../components/DataTable";
import { forgetCellFacts } from "../table/cells/facts";
import { parseTsv } from "../table/cells/tsv";
import type { CellFact } from "../table/cells/types";
import { refKey } from "../util/refs";

type Value = { name: string; max_bid: number | null; optimizationGoal: string | null; status: string; lifetimeBudget?: number };
type R = { target: EntityRef; label: string; value: Value; readOnly: string | null; marker?: Marker | null };

const ref = (i: number): EntityRef => ({ kind: "ad_order", key: { type: "id", value: i } });
const GOALS: Record<string, string> = { CPC: "Cost per click", CPM: "Cost per mille" };
const rowOf = (i: number, patch: Partial<Value> = {}): R => {
  const value = { name: `Order ${i}`, max_bid: i + 0.5, optimizationGoal: "CPC", status: "Active", ...patch };
  return { target: ref(i), label: value.name, value, readOnly: null };
};

const REVIEWED = "The service sets it when it reviews the ad order.";
const IGNORED = "changes after creation through the ad order's flight caps";
const FACTS: CellFact[] = [
  { column: "name", path: "name", label: "Name", editor: { type: "text" }, readOnly: null, oncePosted: false },
  { column: "maxbid", path: "max_bid", label: "Max bid", editor: { type: "money" }, readOnly: null, oncePosted: false },
  {
    column: "goal",
    path: "optimizationGoal",
    label: "Goal",
    editor: {
      type: "enum",
      choices: [
        { value: "CPC", label: GOALS.CPC },
        { value: "CPM", label: GOALS.CPM },
      ],
    },
    readOnly: null,
    oncePosted: false,
  },
  { column: "status", path: "status", label: "Status", editor: { type: "text" }, readOnly: REVIEWED, oncePosted: false },
  { column: "budget", path: "lifetimeBudget", label: "Lifetime budget", editor: { type: "money" }, readOnly: IGNORED, oncePosted: true },
];

const columns: Column<R>[] = [
  { id: "name", header: "Name", value: (r) => r.value.name },
  { id: "maxbid", header: "Max bid", value: (r) => r.value.max_bid, align: "right" },
  { id: "goal", header: "Goal", value: (r) => (r.value.optimizationGoal ? GOALS[r.value.optimizationGoal] : null) },
  { id: "status", header: "Status", value: (r) => r.value.status },
  { id: "budget", header: "Lifetime budget", value: (r) => r.value.lifetimeBudget ?? null },
];

const cells: GridCells<R> = {
  kind: "ad_order",
  rowRef: (r) => r.target,
  raw: (r, path) => (r.value as Record<string, unknown>)[path],
  rowReadOnly: (r) => r.readOnly,
};

async function settle() {
  for (let i = 0; i < 4; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }
}

function renderGrid(rows: R[], extra: Partial<Parameters<typeof DataTable<R>>[0]> = {}) {
  const fetch = vi.fn((q: TableQuery) => tableOf(rows)(q).then((r) => r.data));
  const view = render(
    <DataTable<R> kind="ad_order" label="Ad orders" fetch={fetch} columns={columns} changes={["ad_order"]} rowId={(r) => refKey(r.target)} rowRef={(r) => r.target} rowLabel={(r) => r.label} cells={cells} {...extra} />,
  );
  const grid = view.container.querySelector<HTMLElement>(".dt-scroll")!;
  const cell = (row: number, col: string) => view.container.querySelector<HTMLElement>(`[data-row][aria-rowindex="${row + 2}"] td[data-cell="${col}"]`)!;
  const cursor = () => {
    const td = view.container.querySelector<HTMLElement>("td[data-cursor]");
    return td ? { row: Number(td.closest("tr")!.getAttribute("aria-rowindex")) - 2, col: td.dataset.cell } : null;
  };
  const editor = () => view.container.querySelector<HTMLInputElement & HTMLSelectElement>("[data-cell-editor]");
  const key = (k: string, init: Record<string, unknown> = {}) => fireEvent.keyDown(document.activeElement ?? grid, { key: k, ...init });
  return { ...view, fetch, grid, cell, cursor, editor, key };
}

const rows = Array.from({ length: 6 }, (_, i) => rowOf(i));
const sentCells = (call = -1) => commands.editCells.mock.calls.at(call)![0];

describe("cell grid", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    forgetCellFacts();
    clearToasts();
    commands.cellFacts.mockImplementation(() => Promise.resolve(FACTS));
    commands.editCells.mockImplementation((cs) => ok(previewOf(cs.map((c) => ({ target: c.target, kind: "ad_order" as const, label: "", line: null, outcome: "update" as const, diffs: [], errors: [] })), { updates: cs.length })));
  });
  afterEach(() => vi.unstubAllGlobals());

  it("edits the cell under the cursor with Enter, commits with Enter as one cell edit and moves down", async () => {
    const g = renderGrid(rows);
    await settle();
    fireEvent.click(g.cell(0, "maxbid"));
    expect(g.cursor()).toEqual({ row: 0, col: "maxbid" });
    g.grid.focus();
    g.key("Enter");
    const input = g.editor()!;
    expect(input.getAttribute("data-cell-editor")).toBe("money");
    expect(input.value).toBe("0.5");
    expect(document.activeElement).toBe(input);
    fireEvent.change(input, { target: { value: "11.5" } });
    g.key("Enter");
    await settle();
    expect(commands.editCells).toHaveBeenCalledTimes(1);
    expect(commands.editCells).toHaveBeenCalledWith([{ target: ref(0), field: "maxbid", value: { type: "text", value: "11.5" } }], true);
    expect(g.editor()).toBeNull();
    expect(g.cursor()).toEqual({ row: 1, col: "maxbid" });
    expect(document.activeElement).toBe(g.grid);
    // Three cells typed in a row, each with Enter, as the buyer types bids down a column.
    g.key("F2");
    fireEvent.change(g.editor()!, { target: { value: "12" } });
    g.key("Enter");
    await settle();
    expect(sentCells()).toEqual([{ target: ref(1), field: "maxbid", value: { type: "text", value: "12" } }]);
    expect(g.cursor()).toEqual({ row: 2, col: "maxbid" });
  });

  it("starts the edit with a typed character, commits with Tab and moves right, Shift+Tab left", async () => {
    const g = renderGrid(rows);
    await settle();
    fireEvent.click(g.cell(2, "name"));
    g.grid.focus();
    g.key("X");
    expect(g.editor()!.value).toBe("X");
    fireEvent.change(g.editor()!, { target: { value: "Xmas" } });
    g.key("Tab");
    await settle();
    expect(sentCells()).toEqual([{ target: ref(2), field: "name", value: { type: "text", value: "Xmas" } }]);
    expect(g.cursor()).toEqual({ row: 2, col: "maxbid" });
    g.key("7");
    g.key("Tab", { shiftKey: true });
    await settle();
    expect(sentCells()).toEqual([{ target: ref(2), field: "maxbid", value: { type: "text", value: "7" } }]);
    expect(g.cursor()).toEqual({ row: 2, col: "name" });
  });

  it("edits an enum with its pick list, committing the choice's wire value", async () => {
    const g = renderGrid(rows);
    await settle();
    fireEvent.doubleClick(g.cell(1, "goal"));
    const select = g.editor()!;
    expect(select.tagName).toBe("SELECT");
    expect(within(select).getByText(GOALS.CPM)).toBeTruthy();
    fireEvent.change(select, { target: { value: "1" } });
    g.key("Enter");
    await settle();
    expect(sentCells()).toEqual([{ target: ref(1), field: "goal", value: { type: "value", value: "CPM" } }]);
  });

  it("cancels with Escape: nothing is sent and the cell shows its value again", async () => {
    const g = renderGrid(rows);
    await settle();
    fireEvent.click(g.cell(3, "maxbid"));
    g.grid.focus();
    g.key("9");
    expect(g.editor()!.value).toBe("9");
    g.key("Escape");
    await settle();
    expect(g.editor()).toBeNull();
    expect(g.cell(3, "maxbid").textContent).toBe("3.5");
    expect(commands.editCells).not.toHaveBeenCalled();
    expect(g.cursor()).toEqual({ row: 3, col: "maxbid" });
    expect(document.activeElement).toBe(g.grid);
  });

  it("says why a read-only cell cannot be edited instead of opening it", async () => {
    const g = renderGrid(rows);
    await settle();
    fireEvent.click(g.cell(0, "status"));
    expect(g.cell(0, "status").getAttribute("title")).toBe(REVIEWED);
    g.grid.focus();
    g.key("Enter");
    g.key("a");
    fireEvent.doubleClick(g.cell(0, "status"));
    expect(g.editor()).toBeNull();
    expect(g.container.querySelector("[data-cell-status]")!.textContent).toContain(REVIEWED);
    expect(commands.editCells).not.toHaveBeenCalled();
  });

  it("lets a draft's cell be typed in where the field is read-only only once posted", async () => {
    const draft: R = { ...rowOf(9), target: { kind: "ad_order", key: { type: "local", value: "d1" } } };
    const g = renderGrid([rowOf(0), draft]);
    await settle();
    expect(g.cell(0, "budget").getAttribute("title")).toBe(IGNORED);
    expect(g.cell(1, "budget").hasAttribute("title")).toBe(false);
    fireEvent.click(g.cell(0, "budget"));
    g.grid.focus();
    g.key("5");
    expect(g.editor()).toBeNull();
    expect(g.container.querySelector("[data-cell-status]")!.textContent).toContain(IGNORED);
    g.key("ArrowDown");
    g.key("5");
    g.key("Enter");
    await settle();
    expect(sentCells()).toEqual([{ target: draft.target, field: "budget", value: { type: "text", value: "5" } }]);
  });

  it("shows a refused cell's error at the editor and keeps the typed text; a saved cell that breaks a rule is marked", async () => {
    const g = renderGrid(rows);
    await settle();
    commands.editCells.mockImplementationOnce((cs) =>
      ok(previewOf([{ target: cs[0].target, kind: "ad_order", label: "Order 0", line: null, outcome: "refused", diffs: [], errors: [{ field: "max_bid", code: "type", message: "Max bid: type a number." }] }], { refused: 1 })),
    );
    fireEvent.click(g.cell(0, "maxbid"));
    g.grid.focus();
    g.key("a");
    fireEvent.change(g.editor()!, { target: { value: "abc" } });
    g.key("Enter");
    await settle();
    expect(g.editor()!.value).toBe("abc");
    expect(screen.getByRole("alert").textContent).toBe("Max bid: type a number.");
    expect(g.cursor()).toEqual({ row: 0, col: "maxbid" });

    commands.editCells.mockImplementationOnce((cs) =>
      ok(previewOf([{ target: cs[0].target, kind: "ad_order", label: "Order 0", line: null, outcome: "update", diffs: [], errors: [{ field: "max_bid", code: "range", message: "Max bid must be at least 0.01." }] }], { updates: 1, invalid: 1 })),
    );
    fireEvent.change(g.editor()!, { target: { value: "0" } });
    g.key("Enter");
    await settle();
    expect(g.editor()).toBeNull();
    const marked = g.cell(0, "maxbid");
    expect(marked.hasAttribute("data-error")).toBe(true);
    expect(marked.getAttribute("title")).toBe("Max bid must be at least 0.01.");
    g.key("ArrowUp");
    expect(g.container.querySelector("[data-cell-status]")!.textContent).toBe("Max bid must be at least 0.01.");
  });

  it("keeps a cell's error mark while its row is invalid, and drops it once an undo makes the row valid", async () => {
    const mine = rows.map((r) => ({ ...r }));
    const g = renderGrid(mine, { rowMarker: (r) => r.marker ?? null });
    await settle();
    commands.editCells.mockImplementationOnce((cs) =>
      ok(previewOf([{ target: cs[0].target, kind: "ad_order", label: "Order 0", line: null, outcome: "update", diffs: [], errors: [{ field: "max_bid", code: "range", message: "Max bid must be at least 0.01." }] }], { updates: 1, invalid: 1 })),
    );
    fireEvent.click(g.cell(0, "maxbid"));
    g.grid.focus();
    g.key("0");
    g.key("Enter");
    const change = async (marker: Marker | null) => {
      mine[0] = { ...mine[0], value: { ...mine[0].value, max_bid: marker ? 0 : 0.5 }, marker };
      await act(async () => events.workspaceChanged.emit({ kinds: ["ad_order"], ids: [ref(0)], addedOrRemoved: false }));
      await settle();
    };
    await change("invalid");
    expect(g.cell(0, "maxbid").getAttribute("title")).toBe("Max bid must be at least 0.01.");
    await change(null);
    expect(g.cell(0, "maxbid").hasAttribute("data-error")).toBe(false);
  });

  it("stretches a range with Shift+Arrow and Shift+Click, and the row selection follows", async () => {
    const onSelectionChange = vi.fn<(sel: Selection, count: number) => void>();
    const g = renderGrid(rows, { onSelectionChange });
    await settle();
    fireEvent.click(g.cell(1, "name"));
    expect([...onSelectionChange.mock.calls.at(-1)![0].ids]).toEqual([refKey(ref(1))]);
    g.grid.focus();
    g.key("ArrowDown", { shiftKey: true });
    g.key("ArrowDown", { shiftKey: true });
    g.key("ArrowRight", { shiftKey: true });
    const inRange = [...g.container.querySelectorAll("td.in-range")].map((td) => `${Number(td.closest("tr")!.getAttribute("aria-rowindex")) - 2}:${(td as HTMLElement).dataset.cell}`);
    expect(inRange).toEqual(["1:name", "1:maxbid", "2:name", "2:maxbid", "3:name", "3:maxbid"]);
    expect([...onSelectionChange.mock.calls.at(-1)![0].ids].sort()).toEqual([1, 2, 3].map((i) => refKey(ref(i))).sort());
    fireEvent.click(g.cell(4, "goal"), { shiftKey: true });
    expect(g.container.querySelectorAll("td.in-range")).toHaveLength(4 * 3);
    expect(onSelectionChange.mock.calls.at(-1)![1]).toBe(4);
    // A plain move ends the range: the cursor's row alone is selected.
    g.key("ArrowDown");
    expect(g.container.querySelectorAll("td.in-range")).toHaveLength(0);
    expect([...onSelectionChange.mock.calls.at(-1)![0].ids]).toEqual([refKey(ref(5))]);
    expect(g.container.querySelector("[data-row].active")!.getAttribute("data-row-id")).toBe(refKey(ref(5)));
  });

  /** 400 rows, the cursor on the first, then Ctrl+End to the last, which is not fetched yet; `scrollThere` brings it in. */
  async function atTheEndStillLoading() {
    const onSelectionChange = vi.fn<(sel: Selection, count: number) => void>();
    const g = renderGrid(
      Array.from({ length: 400 }, (_, i) => rowOf(i)),
      { onSelectionChange },
    );
    await settle();
    fireEvent.click(g.cell(0, "name"));
    g.grid.focus();
    g.key("End", { ctrlKey: true });
    expect(g.container.querySelector('[data-row][aria-rowindex="401"]')).toBeNull();
    const scrollThere = async () => {
      let top = 399 * 26;
      Object.defineProperty(g.grid, "scrollTop", { configurable: true, get: () => top, set: (v: number) => (top = v) });
      fireEvent.scroll(g.grid);
      await settle();
      expect(g.container.querySelector('[data-row][aria-rowindex="401"]')).not.toBeNull();
    };
    const selected = () => [...onSelectionChange.mock.calls.at(-1)![0].ids].sort();
    return { g, scrollThere, selected };
  }

  it("lets a click or a tick made while the cursor's row loads win over that row", async () => {
    const { g, scrollThere, selected } = await atTheEndStillLoading();
    fireEvent.click(g.cell(1, "name"));
    fireEvent.click(g.container.querySelector<HTMLInputElement>('[data-row][aria-rowindex="4"] input[type="checkbox"]')!);
    await scrollThere();
    expect(selected()).toEqual([refKey(ref(1)), refKey(ref(2))].sort());
  });

  it("selects the cursor's row once it loads when nothing was picked meanwhile", async () => {
    const { scrollThere, selected } = await atTheEndStillLoading();
    await scrollThere();
    expect(selected()).toEqual([refKey(ref(399))]);
  });

  it("tells the screen of a tick before the next click lands: the toolbar acts on every ticked row", async () => {
    const acted: number[] = [];
    function Screen() {
      const [count, setCount] = useState(0);
      return <DataTable<R> kind="ad_order" label="Ad orders" fetch={(q) => tableOf(rows)(q).then((r) => r.data)} columns={columns} rowId={(r) => refKey(r.target)} rowLabel={(r) => r.label} onSelectionChange={(_, n) => setCount(n)} toolbar={<button type="button" data-action="bulk-edit" onClick={() => acted.push(count)}>Edit {count} selected</button>} />;
    }
    const view = render(<Screen />);
    await settle();
    const box = (i: number) => view.container.querySelector<HTMLInputElement>(`[data-row][aria-rowindex="${i + 2}"] input[type="checkbox"]`)!;
    // As a browser delivers them: each event its own task, so React commits in between
    // (a microtask) but its passive effects may not have run yet.
    const act = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
    act.IS_REACT_ACT_ENVIRONMENT = false;
    try {
      box(0).click();
      await Promise.resolve();
      box(1).click();
      await Promise.resolve();
      view.container.querySelector<HTMLButtonElement>('[data-action="bulk-edit"]')!.click();
    } finally {
      act.IS_REACT_ACT_ENVIRONMENT = true;
    }
    expect(acted).toEqual([2]);
  });

  it("selects every filtered row by query with Ctrl+A", async () => {
    const onSelectionChange = vi.fn<(sel: Selection, count: number) => void>();
    const g = renderGrid(rows, { onSelectionChange });
    await settle();
    fireEvent.change(g.container.querySelector("input[data-filter]")!, { target: { value: "Order" } });
    await settle();
    fireEvent.click(g.cell(0, "name"));
    g.grid.focus();
    g.key("a", { ctrlKey: true });
    const [sel, count] = onSelectionChange.mock.calls.at(-1)!;
    expect(sel.all).toEqual(expect.objectContaining({ filter: "Order", offset: 0 }));
    expect(sel.ids.size).toBe(0);
    expect(count).toBe(6);
    expect(g.editor()).toBeNull();
  });

  it("fills the range's top cell down with Ctrl+D as one edit, leaving read-only cells as they are", async () => {
    const g = renderGrid(rows);
    await settle();
    fireEvent.click(g.cell(1, "name"));
    g.grid.focus();
    g.key("ArrowDown", { shiftKey: true });
    g.key("ArrowDown", { shiftKey: true });
    g.key("d", { ctrlKey: true });
    await settle();
    expect(commands.editCells).toHaveBeenCalledTimes(1);
    expect(commands.editCells).toHaveBeenCalledWith(
      [
        { target: ref(2), field: "name", value: { type: "value", value: "Order 1" } },
        { target: ref(3), field: "name", value: { type: "value", value: "Order 1" } },
      ],
      true,
    );
    // Across a read-only column: the others fill, the status says what was left.
    fireEvent.click(g.cell(0, "goal"));
    fireEvent.click(g.cell(1, "status"), { shiftKey: true });
    g.key("d", { metaKey: true });
    await settle();
    expect(sentCells()).toEqual([{ target: ref(1), field: "goal", value: { type: "value", value: "CPC" } }]);
    expect(g.container.querySelector("[data-cell-status]")!.textContent).toContain("1 read-only cell");
  });

  it("clears the range's cells with Delete as one edit", async () => {
    const g = renderGrid(rows);
    await settle();
    fireEvent.click(g.cell(0, "maxbid"));
    fireEvent.click(g.cell(1, "maxbid"), { shiftKey: true });
    g.grid.focus();
    g.key("Delete");
    await settle();
    expect(commands.editCells).toHaveBeenCalledTimes(1);
    expect(sentCells()).toEqual([0, 1].map((i) => ({ target: ref(i), field: "maxbid", value: { type: "value", value: null } })));
  });

  it("pastes a one-row block at once, and previews a block of several rows before applying it", async () => {
    let clip = "8.25\tCPM";
    vi.stubGlobal("navigator", { ...navigator, clipboard: { readText: () => Promise.resolve(clip) } });
    const g = renderGrid(rows);
    await settle();
    fireEvent.click(g.cell(0, "maxbid"));
    g.grid.focus();
    g.key("v", { ctrlKey: true });
    await settle();
    expect(commands.editCells).toHaveBeenCalledWith(
      [
        { target: ref(0), field: "maxbid", value: { type: "text", value: "8.25" } },
        { target: ref(0), field: "goal", value: { type: "text", value: "CPM" } },
      ],
      true,
    );
    expect(screen.queryByRole("dialog")).toBeNull();

    clip = "Alpha\t1\nBeta\t2\nGamma\t3\n";
    fireEvent.click(g.cell(2, "name"));
    g.grid.focus();
    g.key("v", { ctrlKey: true });
    await settle();
    const block = [2, 3, 4].flatMap((i, n) => [
      { target: ref(i), field: "name", value: { type: "text", value: ["Alpha", "Beta", "Gamma"][n] } },
      { target: ref(i), field: "maxbid", value: { type: "text", value: String(n + 1) } },
    ]);
    expect(commands.editCells).toHaveBeenLastCalledWith(block, false);
    const dialog = screen.getByRole("dialog");
    fireEvent.click(within(dialog).getByText(/^Apply/));
    await settle();
    expect(commands.editCells).toHaveBeenLastCalledWith(block, true);
    expect(commands.editCells).toHaveBeenCalledTimes(3);
  });

  it("copies the range's cells as TSV with Ctrl+C, which pastes back into the grid", async () => {
    let clip = "";
    vi.stubGlobal("navigator", {
      ...navigator,
      clipboard: {
        writeText: (t: string) => {
          clip = t;
          return Promise.resolve();
        },
        readText: () => Promise.resolve(clip),
      },
    });
    const g = renderGrid(rows);
    await settle();
    fireEvent.click(g.cell(1, "maxbid"));
    fireEvent.click(g.cell(2, "goal"), { shiftKey: true });
    g.grid.focus();
    g.key("c", { ctrlKey: true });
    await settle();
    expect(clip).toBe(`1.5\t${GOALS.CPC}\n2.5\t${GOALS.CPC}\n`);
    fireEvent.click(g.cell(4, "maxbid"));
    g.key("v", { ctrlKey: true });
    await settle();
    expect(commands.editCells).toHaveBeenLastCalledWith(
      [
        { target: ref(4), field: "maxbid", value: { type: "text", value: "1.5" } },
        { target: ref(4), field: "goal", value: { type: "text", value: GOALS.CPC } },
        { target: ref(5), field: "maxbid", value: { type: "text", value: "2.5" } },
        { target: ref(5), field: "goal", value: { type: "text", value: GOALS.CPC } },
      ],
      false,
    );
  });

  it("pastes from Edit → Paste, which reaches the grid as a paste event", async () => {
    const g = renderGrid(rows);
    await settle();
    fireEvent.click(g.cell(3, "maxbid"));
    fireEvent.paste(g.grid, { clipboardData: { getData: () => "4.75" } });
    await settle();
    expect(commands.editCells).toHaveBeenCalledWith([{ target: ref(3), field: "maxbid", value: { type: "text", value: "4.75" } }], true);
  });

  it("leaves a copied sheet (its first line names the fields), or a clipboard it may not read, to the screen's paste of rows", async () => {
    let clip: Promise<string> = Promise.resolve("name\tmax_bid\nNew one\t2\n");
    vi.stubGlobal("navigator", { ...navigator, clipboard: { readText: () => clip } });
    const onPasteRows = vi.fn();
    const g = renderGrid(rows, { onPasteRows });
    await settle();
    fireEvent.click(g.cell(0, "name"));
    g.grid.focus();
    g.key("v", { ctrlKey: true });
    await settle();
    expect(onPasteRows).toHaveBeenCalledTimes(1);
    clip = Promise.reject(new Error("denied"));
    g.key("v", { ctrlKey: true });
    await settle();
    expect(onPasteRows).toHaveBeenCalledTimes(2);
    expect(commands.editCells).not.toHaveBeenCalled();
  });

  it("opens the row's form with Ctrl+Enter and the first cell's open button; a double click edits in place", async () => {
    const onOpen = vi.fn();
    const g = renderGrid(rows, { onOpen });
    await settle();
    fireEvent.doubleClick(g.cell(2, "name"));
    expect(onOpen).not.toHaveBeenCalled();
    expect(g.editor()!.value).toBe("Order 2");
    g.key("Escape");
    g.key("Enter", { ctrlKey: true });
    expect(onOpen).toHaveBeenLastCalledWith(expect.objectContaining({ label: "Order 2" }));
    fireEvent.click(within(g.cell(4, "name")).getByRole("button", { name: "Open Order 4" }));
    expect(onOpen).toHaveBeenLastCalledWith(expect.objectContaining({ label: "Order 4" }));
  });

  it("renders only the rows the cursor leaves and enters", async () => {
    const rendered: string[] = [];
    const spied: Column<R>[] = [{ ...columns[0], render: (r) => (rendered.push(r.label), r.value.name) }, ...columns.slice(1)];
    const g = renderGrid(rows, { columns: spied });
    await settle();
    fireEvent.click(g.cell(1, "name"));
    rendered.length = 0;
    g.grid.focus();
    g.key("ArrowDown");
    expect(rendered.sort()).toEqual(["Order 1", "Order 2"]);
    rendered.length = 0;
    g.key("ArrowRight");
    expect(rendered).toEqual(["Order 2"]);
  });
});

describe("TSV", () => {
  it("reads rows by newline and cells by tab, with quoted cells as spreadsheets write them", () => {
    expect(parseTsv("a\tb\r\nc\td\n")).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(parseTsv('"two\nlines"\t"say ""hi"""')).toEqual([["two\nlines", 'say "hi"']]);
    expect(parseTsv("")).toEqual([]);
  });
});

describe("cell grid on an entity screen", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    forgetCellFacts();
    commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
    commands.cellFacts.mockImplementation(() => Promise.resolve(FACTS));
  });

  it("keeps the side panel on the cursor's row: the form opened with Ctrl+Enter follows the cursor", async () => {
    const orders: AdOrderRow[] = [0, 1, 2].map((i) => ({
      target: ref(100 + i),
      parent: null,
      parentLabel: null,
      timezone: null,
      marker: null,
      pending: false,
      readOnly: null,
      label: `Order ${i}`,
      value: { id: 100 + i, name: `Order ${i}` },
    }));
    commands.queryAdOrders.mockImplementation(tableOf(orders));
    const view = render(<App />);
    await settle();
    fireEvent.click(view.container.querySelector('[data-nav="ad_orders"]')!);
    await settle();
    const grid = view.container.querySelector<HTMLElement>('[data-table-root="ad_order"] .dt-scroll')!;
    fireEvent.click(view.container.querySelector('[data-row-id] td[data-cell="name"]')!);
    grid.focus();
    fireEvent.keyDown(grid, { key: "Enter", ctrlKey: true });
    await settle();
    const nameInForm = () => view.container.querySelector<HTMLInputElement>('form[data-form="ad_order"] input[name="name"]')?.value;
    expect(nameInForm()).toBe("Order 0");
    grid.focus();
    fireEvent.keyDown(grid, { key: "ArrowDown" });
    await settle();
    expect(nameInForm()).toBe("Order 1");
    expect(view.container.querySelector("[data-row].active")?.getAttribute("data-label")).toBe("Order 1");
    expect(view.container.querySelector("[data-row].selected")?.getAttribute("data-label")).toBe("Order 1");

    // A name typed in the form is not lost when the cursor moves on: the form asks first.
    const input = view.container.querySelector<HTMLInputElement>('form[data-form="ad_order"] input[name="name"]')!;
    fireEvent.change(input, { target: { value: "Order 1 renamed" } });
    await settle();
    grid.focus();
    fireEvent.keyDown(grid, { key: "ArrowDown" });
    await settle();
    expect(nameInForm()).toBe("Order 1 renamed");
    const ask = view.container.querySelector('[data-confirm="discard"]');
    expect(ask).not.toBeNull();
    fireEvent.click(within(ask as HTMLElement).getByText("Keep editing"));
    await settle();
    expect(nameInForm()).toBe("Order 1 renamed");
    // Back over the row the form shows (nothing to ask), then on to another: Discard.
    grid.focus();
    fireEvent.keyDown(grid, { key: "ArrowUp" });
    await settle();
    expect(view.container.querySelector('[data-confirm="discard"]')).toBeNull();
    fireEvent.keyDown(grid, { key: "ArrowUp" });
    await settle();
    fireEvent.click(view.container.querySelector('[data-confirm="discard"] [data-action="discard"]')!);
    await settle();
    expect(nameInForm()).toBe("Order 0");
  });
});
