import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AdOrderRow, AdvertiserRow, CampaignRow, SegmentRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, events, ok, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { App } from "../App";
import { clearToasts } from "../api/toast";

const acme: AdvertiserRow = {
  target: { kind: "advertiser", key: { type: "id", value: 1 } },
  parent: null,
  parentLabel: null,
  timezone: "ET",
  label: "Acme Outdoor",
  marker: null,
  pending: false,
  readOnly: null,
  value: { id: 1, name: "Acme Outdoor", timezoneName: "ET" },
};

const spring: CampaignRow = {
  target: { kind: "campaign", key: { type: "id", value: 10 } },
  parent: acme.target,
  parentLabel: "Acme Outdoor",
  timezone: "ET",
  label: "Spring sale",
  marker: null,
  pending: false,
  readOnly: null,
  value: { id: 10, name: "Spring sale" },
};

/** Ad orders whose `label` counts its reads: a row re-rendered reads it again. */
function orders(n: number): { rows: AdOrderRow[]; reads: () => number } {
  let reads = 0;
  const rows = Array.from({ length: n }, (_, i): AdOrderRow => {
    const name = `Order ${i}`;
    const row: Omit<AdOrderRow, "label"> = {
      target: { kind: "ad_order", key: { type: "id", value: 100 + i } },
      parent: spring.target,
      parentLabel: "Spring sale",
      timezone: "ET",
      marker: i === 0 ? "changed" : null,
      pending: i === 0,
      readOnly: null,
      // 2030-03-01 05:00 UTC: midnight in New York.
      value: { id: 100 + i, name, startDate: Date.UTC(2030, 2, 1, 5) },
    };
    return Object.defineProperty(row, "label", {
      enumerable: true,
      get() {
        reads++;
        return name;
      },
    }) as AdOrderRow;
  });
  return { rows, reads: () => reads };
}

async function settle() {
  for (let i = 0; i < 3; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }
}

async function openScreen(nav: string) {
  const view = render(<App />);
  await settle();
  fireEvent.click(view.container.querySelector(`[data-nav="${nav}"]`)!);
  await settle();
  return view;
}

const rowOf = (c: HTMLElement, label: string) => c.querySelector<HTMLElement>(`[data-row][data-label="${label}"]`);

/** The next save answers `row` renamed to `name`, as the core reads it back: changed, pending. */
function saveAnswers(row: AdOrderRow, name: string, pendingCount: number) {
  const saved: AdOrderRow = { ...row, label: name, marker: "changed", pending: true, value: { ...row.value, name } };
  commands.save.mockReturnValue(ok({ target: row.target, errors: [], pendingCount, row: { kind: "ad_order", row: saved } }));
}

describe("entity screens", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    clearToasts();
    commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
    commands.queryAdvertisers.mockImplementation(tableOf([acme]));
    commands.queryCampaigns.mockImplementation(tableOf([spring]));
  });

  it("shows ad orders with their campaign and dates in the advertiser's zone, their caps, and opens one", async () => {
    const { rows } = orders(3);
    commands.queryAdOrders.mockImplementation(tableOf(rows));
    commands.listFlightCaps.mockReturnValue(ok({ ...rows[1], target: { kind: "flight_caps", key: rows[1].target.key }, value: [{ id: 7, flightId: 5, maxBudget: 300 }] }));
    const { container } = await openScreen("ad_orders");
    const row = rowOf(container, "Order 1")!;
    expect(row.querySelector('[data-col="campaign"]')?.textContent).toBe("Spring sale");
    expect(row.querySelector('[data-col="start"]')?.textContent).toContain("Mar 1, 2030");
    expect(row.querySelector('[data-col="start"]')?.textContent).toContain("12:00");

    fireEvent.click(row);
    await settle();
    expect(commands.listFlightCaps).toHaveBeenCalledWith(rows[1].target);
    expect(container.querySelector('table[data-table="flight_caps"] [data-row] [data-col="max"]')?.textContent).toBe("$300.00");

    fireEvent.doubleClick(row);
    await settle();
    const form = container.querySelector('form[data-form="ad_order"]');
    expect(form).not.toBeNull();
    expect(form?.querySelector<HTMLInputElement>('input[name="name"]')?.value).toBe("Order 1");
    expect(form?.querySelector<HTMLSelectElement>('select[name="parent.campaign"]')?.selectedOptions[0]?.textContent).toContain("Spring sale");
  });

  it("asks the caps pane again only when a change names its ad order or its caps", async () => {
    const { rows } = orders(3);
    commands.queryAdOrders.mockImplementation(tableOf(rows));
    commands.listFlightCaps.mockReturnValue(ok({ ...rows[1], target: { kind: "flight_caps", key: rows[1].target.key }, value: [{ id: 7, flightId: 5, maxBudget: 300 }] }));
    const { container } = await openScreen("ad_orders");
    fireEvent.click(rowOf(container, "Order 1")!);
    await settle();
    const asked = () => commands.listFlightCaps.mock.calls.length;
    const before = asked();
    expect(before).toBeGreaterThan(0);

    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["ad_order"], ids: [rows[2].target], addedOrRemoved: false });
    });
    await settle();
    expect(asked()).toBe(before);

    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["flight_caps"], ids: [{ kind: "flight_caps", key: rows[1].target.key }], addedOrRemoved: false });
    });
    await settle();
    expect(asked()).toBe(before + 1);

    // Kinds alone (a large edit): any ad order may have changed.
    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["ad_order"], ids: [], addedOrRemoved: false });
    });
    await settle();
    expect(asked()).toBe(before + 2);
  });

  it("repaints the table for its own kind only, and not on progress ticks", async () => {
    const { rows, reads } = orders(40);
    commands.queryAdOrders.mockImplementation(tableOf(rows));
    const { container } = await openScreen("ad_orders");
    expect(rowOf(container, "Order 0")).not.toBeNull();
    const calls = commands.queryAdOrders.mock.calls.length;
    const before = reads();

    await act(async () => {
      events.syncProgress.emit({ done: 3, total: 10, seq: 4, status: "applied" });
      events.downloadProgress.emit({ kind: "ad_order", done: 50, total: 200 });
    });
    await settle();
    expect(container.querySelector("[data-sync-progress]")?.textContent).toContain("3/10");
    expect(reads()).toBe(before);

    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["creative"], ids: [], addedOrRemoved: false });
    });
    await settle();
    expect(commands.queryAdOrders.mock.calls.length).toBe(calls);
    expect(reads()).toBe(before);

    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["ad_order"], ids: [rows[0].target], addedOrRemoved: false });
    });
    await settle();
    expect(commands.queryAdOrders.mock.calls.length).toBeGreaterThan(calls);
    expect(reads()).toBeGreaterThan(before);
  });

  it("shows a saved row from the save's answer, before its window is asked again, then closes the panel", async () => {
    const { rows } = orders(3);
    commands.queryAdOrders.mockImplementation(tableOf(rows));
    const { container } = await openScreen("ad_orders");
    // Found by its name, then the whole table again (its rows kept from before), as a
    // buyer does.
    const filter = container.querySelector("input[data-filter]")!;
    fireEvent.change(filter, { target: { value: "Order 1" } });
    await settle();
    fireEvent.doubleClick(rowOf(container, "Order 1")!);
    await settle();
    fireEvent.change(filter, { target: { value: "" } });
    await settle();
    const form = () => container.querySelector('form[data-form="ad_order"]');
    expect(form()).not.toBeNull();
    fireEvent.change(form()!.querySelector('input[name="name"]')!, { target: { value: "Order 1, renamed" } });
    saveAnswers(rows[1], "Order 1, renamed", 1);
    const asked = commands.queryAdOrders.mock.calls.length;

    // No change event comes here (the fake sends none), and the window is not asked again:
    // the row on screen is the save's own.
    await act(async () => {
      fireEvent.click(form()!.querySelector('[data-action="save"]')!);
    });
    expect(rowOf(container, "Order 1")).toBeNull();
    const row = rowOf(container, "Order 1, renamed");
    expect(row?.getAttribute("data-marker")).toBe("changed");
    expect(row?.querySelector('[data-col="campaign"]')?.textContent).toBe("Spring sale");
    expect(rowOf(container, "Order 2")).not.toBeNull();
    expect(commands.queryAdOrders.mock.calls.length).toBe(asked);
    // The panel closes once that row has painted.
    await act(async () => {
      await new Promise((r) => setTimeout(r, 50));
    });
    expect(form()).toBeNull();
  });

  it("keeps a form opened while a save's row paints, and still counts that save", async () => {
    const { rows } = orders(3);
    commands.queryAdOrders.mockImplementation(tableOf(rows));
    const { container } = await openScreen("ad_orders");
    fireEvent.doubleClick(rowOf(container, "Order 1")!);
    await settle();
    const form = () => container.querySelector('form[data-form="ad_order"]');
    saveAnswers(rows[1], "Order 1, renamed", 7);
    await act(async () => {
      fireEvent.click(form()!.querySelector('[data-action="save"]')!);
    });
    // Another row opened before the saved one painted: its form stays.
    fireEvent.doubleClick(rowOf(container, "Order 2")!);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 50));
    });
    expect(form()?.querySelector<HTMLInputElement>('input[name="name"]')?.value).toBe("Order 2");
    expect(container.querySelector("[data-pending-count]")?.textContent).toBe("7");
    expect(container.querySelector('[data-toast="success"]')?.textContent).toContain("Saved to the workspace");
  });

  it("puts a saved row in a sorted table only when the sorted column kept its value", async () => {
    const { rows } = orders(3);
    commands.queryAdOrders.mockImplementation(tableOf(rows));
    commands.tableColumns.mockResolvedValue([
      { id: "name", header: "Name" },
      { id: "id", header: "Id" },
    ]);
    const { container } = await openScreen("ad_orders");
    const form = () => container.querySelector('form[data-form="ad_order"]');
    const renameSorted = async (column: string, name: string) => {
      fireEvent.click(container.querySelector(`[data-sort="${column}"]`)!);
      await settle();
      fireEvent.doubleClick(rowOf(container, "Order 1")!);
      await settle();
      saveAnswers(rows[1], name, 1);
      await act(async () => {
        fireEvent.click(form()!.querySelector('[data-action="save"]')!);
      });
      await act(async () => {
        await new Promise((r) => setTimeout(r, 50));
      });
    };

    // Sorted by name, a rename may move the row: it waits for the refetch (none comes here).
    await renameSorted("name", "Order 1, renamed");
    expect(rowOf(container, "Order 1, renamed")).toBeNull();
    expect(rowOf(container, "Order 1")).not.toBeNull();
    // Sorted by id, a rename keeps the row's place: it shows at once.
    await renameSorted("id", "Order 1, renamed");
    expect(rowOf(container, "Order 1, renamed")).not.toBeNull();
  });

  it("leaves a saved row to the change event's refetch when the table filters", async () => {
    const { rows } = orders(3);
    commands.queryAdOrders.mockImplementation(tableOf(rows));
    const { container } = await openScreen("ad_orders");
    fireEvent.change(container.querySelector("input[data-filter]")!, { target: { value: "Order" } });
    await settle();
    fireEvent.doubleClick(rowOf(container, "Order 1")!);
    await settle();
    const form = () => container.querySelector('form[data-form="ad_order"]');
    // Renamed out of the filter: shown in place, it would sit in a window it no longer matches.
    saveAnswers(rows[1], "Renamed", 1);
    await act(async () => {
      fireEvent.click(form()!.querySelector('[data-action="save"]')!);
    });
    await settle();
    expect(rowOf(container, "Renamed")).toBeNull();
    expect(rowOf(container, "Order 1")).not.toBeNull();
    expect(form()).toBeNull();
  });

  it("shows a download's progress as a bar that fills", async () => {
    let finish: () => void = () => undefined;
    commands.refresh.mockReturnValue(
      new Promise((resolve) => {
        finish = () => resolve({ status: "ok", data: { added: 5, changed: 0, removed: 0, keptPending: 0, notices: [] } });
      }),
    );
    const { container } = await openScreen("advertisers");
    fireEvent.click(container.querySelector('[data-action="download"]')!);
    await settle();
    expect(container.querySelector('[data-action="download"]')?.hasAttribute("disabled")).toBe(true);
    await act(async () => {
      events.downloadProgress.emit({ kind: "ad_order", done: 50, total: 200 });
    });
    const status = container.querySelector("[data-download-progress]")!;
    expect(status.textContent).toContain("Downloading ad orders 50/200");
    const bar = status.querySelector("progress")!;
    expect(bar.getAttribute("max")).toBe("200");
    expect(bar.getAttribute("value")).toBe("50");
    await act(async () => {
      finish();
    });
    await settle();
    expect(container.querySelector("[data-download-progress]")).toBeNull();
    expect(container.querySelector('[data-toast="success"]')?.textContent).toContain("Downloaded: 5 added");
  });

  it("narrows campaigns to the advertiser picked in the tree", async () => {
    const { container } = await openScreen("campaigns");
    expect(commands.queryCampaigns).toHaveBeenCalledWith(expect.objectContaining({ parent: null, filter: "" }));
    fireEvent.click(container.querySelector('[data-tree-label="Acme Outdoor"]')!);
    await settle();
    expect(commands.queryCampaigns).toHaveBeenLastCalledWith(expect.objectContaining({ parent: acme.target }));
    expect(container.querySelector(".chip")?.textContent).toContain("Filtered to Acme Outdoor");
    expect(rowOf(container, "Spring sale")?.querySelector('[data-col="advertiser"]')?.textContent).toBe("Acme Outdoor");
  });

  it("offers sorting only by the columns the query knows", async () => {
    const seg: SegmentRow = {
      target: { kind: "audience_segment", key: { type: "segment", value: "s1" } },
      parent: null,
      parentLabel: null,
      timezone: null,
      label: "Loyal buyers",
      marker: null,
      pending: false,
      readOnly: null,
      value: { name: "Loyal buyers", ttl: 3600 },
    };
    commands.queryAudienceSegments.mockImplementation(tableOf([seg]));
    // The core's columns of the kind (`tableColumns`), as the Rust side answers.
    commands.tableColumns.mockResolvedValue([
      { id: "name", header: "Name" },
      { id: "count", header: "Identifiers" },
    ]);
    const { container } = await openScreen("audience_segments");
    expect(commands.tableColumns).toHaveBeenCalledWith("audience_segment");
    expect(container.querySelector('[data-sort="name"]')).not.toBeNull();
    expect(container.querySelector('[data-sort="count"]')).not.toBeNull();
    expect(container.querySelector('[data-sort="ttl"]')).toBeNull();
    expect(container.querySelector('[data-sort="advertisers"]')).toBeNull();
    fireEvent.click(container.querySelector('[data-sort="name"]')!);
    await settle();
    expect(commands.queryAudienceSegments).toHaveBeenLastCalledWith(expect.objectContaining({ sort: { column: "name", descending: false } }));
  });
});
