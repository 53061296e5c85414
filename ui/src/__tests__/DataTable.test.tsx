import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { Marker } from "../api/types";
import { type Column, DataTable } from "../components/DataTable";

type R = { id: number; name: string; budget: number; marker: Marker | null };

const MARKERS: (Marker | null)[] = [null, null, null, "new", "changed", "invalid", "conflict", "failed"];

function makeRows(n: number): R[] {
  return Array.from({ length: n }, (_, i) => ({ id: i, name: `Campaign ${String(i).padStart(6, "0")}`, budget: (i * 7919) % 100000, marker: MARKERS[i % MARKERS.length] }));
}

const columns: Column<R>[] = [
  { id: "name", header: "Name", value: (r) => r.name },
  { id: "budget", header: "Budget", value: (r) => r.budget, align: "right" },
  { id: "id", header: "Id", value: (r) => r.id, hidden: true },
];

function renderTable(rows: R[], extra: Partial<Parameters<typeof DataTable<R>>[0]> = {}) {
  return render(
    <DataTable<R>
      kind="campaign"
      label="Campaigns"
      rows={rows}
      columns={columns}
      rowId={(r) => String(r.id)}
      rowLabel={(r) => r.name}
      rowMarker={(r) => r.marker}
      {...extra}
    />,
  );
}

const bodyRows = (container: HTMLElement) => container.querySelectorAll("[data-row]");

describe("DataTable", () => {
  it("virtualizes 100,000 rows: renders only a screenful", () => {
    const { container } = renderTable(makeRows(100_000));
    const n = bodyRows(container).length;
    expect(n).toBeGreaterThan(10);
    expect(n).toBeLessThan(100);
    expect(screen.getByText("100,000 rows")).toBeTruthy();
    expect(container.querySelector('table[data-table="campaign"]')).not.toBeNull();
  });

  it("sorts by a column when its header is clicked", () => {
    const rows = makeRows(500);
    const { container } = renderTable(rows);
    fireEvent.click(container.querySelector('[data-sort="budget"]')!);
    const first = bodyRows(container)[0].getAttribute("data-label");
    const min = [...rows].sort((a, b) => a.budget - b.budget)[0].name;
    expect(first).toBe(min);
    fireEvent.click(container.querySelector('[data-sort="budget"]')!);
    const max = [...rows].sort((a, b) => b.budget - a.budget)[0].name;
    expect(bodyRows(container)[0].getAttribute("data-label")).toBe(max);
  });

  it("filters 100,000 rows by the text box", async () => {
    const { container } = renderTable(makeRows(100_000));
    const box = container.querySelector<HTMLInputElement>("input[data-filter]")!;
    await act(async () => {
      fireEvent.change(box, { target: { value: "Campaign 09999" } });
    });
    const labels = [...bodyRows(container)].map((r) => r.getAttribute("data-label"));
    // "Campaign 099990" … "Campaign 099999", and "Campaign 009999".
    expect(labels.length).toBe(11);
    expect(labels.every((l) => l?.includes("09999"))).toBe(true);
    expect(screen.getByText("11 of 100,000")).toBeTruthy();
  });

  it("marks pending rows with their marker and bold class", () => {
    const { container } = renderTable(makeRows(16));
    const changed = container.querySelector('[data-row][data-marker="changed"]');
    expect(changed).not.toBeNull();
    expect(changed!.className).toContain("pending");
    expect(within(changed as HTMLElement).getByText("Changed")).toBeTruthy();
    const clean = container.querySelector('[data-row][data-label="Campaign 000000"]');
    expect(clean!.hasAttribute("data-marker")).toBe(false);
    expect(clean!.className).not.toContain("pending");
  });

  it("selects all rows and reports the selection", () => {
    const onSelectionChange = vi.fn();
    renderTable(makeRows(1000), { onSelectionChange });
    fireEvent.click(screen.getByLabelText("Select all rows"));
    const last = onSelectionChange.mock.calls.at(-1)?.[0] as R[];
    expect(last.length).toBe(1000);
    fireEvent.click(screen.getByLabelText("Select Campaign 000003"));
    expect((onSelectionChange.mock.calls.at(-1)?.[0] as R[]).length).toBe(999);
  });

  it("opens a row on double click and with Enter", () => {
    const onOpen = vi.fn();
    const { container } = renderTable(makeRows(50), { onOpen });
    fireEvent.doubleClick(bodyRows(container)[2]);
    expect(onOpen).toHaveBeenCalledWith(expect.objectContaining({ id: 2 }));
    const grid = container.querySelector(".dt-scroll")!;
    fireEvent.keyDown(grid, { key: "ArrowDown" });
    fireEvent.keyDown(grid, { key: "ArrowDown" });
    fireEvent.keyDown(grid, { key: "Enter" });
    expect(onOpen).toHaveBeenLastCalledWith(expect.objectContaining({ id: 1 }));
  });

  it("shows and hides columns from the column menu", () => {
    const { container } = renderTable(makeRows(5));
    expect(container.querySelector('[data-sort="id"]')).toBeNull();
    fireEvent.click(within(screen.getByRole("group", { name: "Visible columns" })).getByLabelText("Id"));
    expect(container.querySelector('[data-sort="id"]')).not.toBeNull();
  });
});
