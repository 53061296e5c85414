import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AdvertiserRow } from "../api/types";
import type { MoneySummary, Preview } from "../bulk/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { clearToasts } from "../api/toast";
import { commands, EMPTY_MONEY, EMPTY_PREVIEW, ok, previewOf, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { App } from "../App";
import { MoneyReview } from "../bulk/MoneyReview";

const advertiser = (id: number, name: string): AdvertiserRow => ({
  target: { kind: "advertiser", key: { type: "id", value: id } },
  parent: null,
  parentLabel: null,
  timezone: "ET",
  label: name,
  marker: null,
  pending: false,
  readOnly: null,
  value: { id, name, timezoneName: "ET" },
});
const acme = advertiser(1, "Acme Outdoor");
const bolt = advertiser(2, "Bolt Bikes");

async function settle() {
  for (let i = 0; i < 4; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }
}

async function openAdvertisers() {
  const view = render(<App />);
  await settle();
  fireEvent.click(view.container.querySelector('[data-nav="advertisers"]')!);
  await settle();
  return view;
}

const dialog = () => document.querySelector<HTMLElement>('[role="dialog"]');
const click = async (el: Element | null) => {
  expect(el).not.toBeNull();
  await act(async () => {
    fireEvent.click(el!);
  });
  await settle();
};

const step = (id: number, label: string, undone = false) => ({ id, label, createdAt: 0, undone });

beforeEach(() => {
  vi.clearAllMocks();
  clearToasts();
  commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
  commands.queryAdvertisers.mockImplementation(tableOf([acme, bolt]));
  commands.moneySummary.mockReturnValue(ok(EMPTY_MONEY));
});

describe("undo and redo", () => {
  it("Ctrl+Z undoes and names the step; Ctrl+Shift+Z and Ctrl+Y redo; a text box keeps its own undo", async () => {
    commands.undo.mockReturnValue(ok({ step: step(4, "Edit 3 ad orders", true), targets: [], addedOrRemoved: false }));
    commands.redo.mockReturnValue(ok({ step: step(4, "Edit 3 ad orders"), targets: [], addedOrRemoved: false }));
    const { container } = await openAdvertisers();

    await act(async () => {
      fireEvent.keyDown(document.body, { key: "z", ctrlKey: true });
    });
    await settle();
    expect(commands.undo).toHaveBeenCalledTimes(1);
    expect(screen.getByText("Undid “Edit 3 ad orders”")).toBeTruthy();

    await act(async () => {
      fireEvent.keyDown(document.body, { key: "Z", ctrlKey: true, shiftKey: true });
      fireEvent.keyDown(document.body, { key: "y", ctrlKey: true });
    });
    await settle();
    expect(commands.redo).toHaveBeenCalledTimes(2);
    expect(screen.getAllByText("Redid “Edit 3 ad orders”").length).toBeGreaterThan(0);

    const filter = container.querySelector<HTMLInputElement>("input[data-filter]")!;
    await act(async () => {
      fireEvent.keyDown(filter, { key: "z", ctrlKey: true });
    });
    expect(commands.undo).toHaveBeenCalledTimes(1);

    await click(container.querySelector('[data-action="undo"]'));
    expect(commands.undo).toHaveBeenCalledTimes(2);
  });

  it("an undo of a posted step says so and offers a revert, previewed then applied", async () => {
    commands.undo.mockReturnValue(Promise.resolve({ status: "error" as const, error: { code: "posted" as const, message: "“Edit 3 ad orders” is already posted.", fieldErrors: [] } }));
    commands.editHistory.mockReturnValue(ok([step(6, "Later undone", true), step(5, "Edit 3 ad orders"), step(2, "Older")]));
    const preview: Preview = {
      ...EMPTY_PREVIEW,
      updates: 1,
      rowCount: 1,
      rows: [{ target: acme.target, kind: "ad_order", label: "Order A", line: null, outcome: "update", diffs: [{ path: "max_bid", before: 2.2, after: 2, beforeText: "2.20", afterText: "2.00" }], errors: [] }],
    };
    commands.revertStep.mockReturnValue(ok(preview));
    const { container } = await openAdvertisers();

    await act(async () => {
      fireEvent.keyDown(document.body, { key: "z", metaKey: true });
    });
    await settle();
    const notice = container.querySelector('[data-notice="posted"]');
    expect(notice?.textContent).toContain("already posted");

    await click(notice!.querySelector('[data-action="revert"]'));
    expect(commands.revertStep).toHaveBeenCalledWith(5, false);
    const row = dialog()?.querySelector('[data-preview-row="Order A"]');
    expect(row?.textContent).toContain("max_bid");
    // As the Rust side writes them for a buyer (money with cents), not as JSON.
    expect(row?.textContent).toContain("2.20 → 2.00");

    await click(dialog()!.querySelector('[data-action="apply"]'));
    expect(commands.revertStep).toHaveBeenLastCalledWith(5, true);
    expect(dialog()).toBeNull();
  });
});

describe("edit N selected", () => {
  it("previews the edits with the Rust side's diffs and errors, then applies them with apply=true", async () => {
    const preview: Preview = {
      ...EMPTY_PREVIEW,
      updates: 2,
      invalid: 1,
      rowCount: 2,
      rows: [
        { target: acme.target, kind: "advertiser", label: "Acme Outdoor", line: null, outcome: "update", diffs: [{ path: "name", before: "Acme Outdoor", after: "Acme Outdoor 2030" }], errors: [] },
        {
          target: bolt.target,
          kind: "advertiser",
          label: "Bolt Bikes",
          line: null,
          outcome: "update",
          diffs: [{ path: "name", before: "Bolt Bikes", after: "Bolt Bikes 2030" }],
          errors: [{ field: "name", code: "too_long", message: "Name is too long." }],
        },
      ],
    };
    commands.bulkEdit.mockReturnValue(ok(preview));
    const { container } = await openAdvertisers();
    expect(container.querySelector('[data-action="bulk-edit"]')).toBeNull();

    fireEvent.click(container.querySelector('[data-row][data-label="Acme Outdoor"]')!);
    fireEvent.click(container.querySelector('[data-row][data-label="Bolt Bikes"]')!, { ctrlKey: true });
    await settle();
    const edit = container.querySelector('[data-action="bulk-edit"]');
    expect(edit?.textContent).toBe("Edit 2 selected");
    await click(edit);

    const d = dialog()!;
    fireEvent.change(d.querySelector('input[name="edits[0].field"]')!, { target: { value: "name" } });
    fireEvent.change(d.querySelector('select[name="edits[0].op"]')!, { target: { value: "suffix" } });
    fireEvent.change(d.querySelector('input[name="edits[0].value"]')!, { target: { value: " 2030" } });
    expect(d.querySelector<HTMLButtonElement>('[data-action="apply"]')?.disabled).toBe(true);
    await click(d.querySelector('[data-action="preview"]'));

    const edits = [{ field: "name", change: { type: "suffix", value: " 2030" } }];
    expect(commands.bulkEdit).toHaveBeenCalledWith({ type: "ids", value: [acme.target, bolt.target] }, edits, false);
    expect(d.querySelector("[data-preview-counts]")?.textContent).toContain("2 updates");
    expect(d.querySelector('[data-preview-row="Acme Outdoor"]')?.textContent).toContain("Acme Outdoor → Acme Outdoor 2030");
    expect(d.querySelector('[data-preview-row="Bolt Bikes"] [data-error-field="name"]')?.textContent).toContain("Name is too long.");

    await click(d.querySelector('[data-action="apply"]'));
    expect(commands.bulkEdit).toHaveBeenLastCalledWith({ type: "ids", value: [acme.target, bolt.target] }, edits, true);
    // A row broke a rule: the result stays on screen with its error.
    expect(dialog()?.querySelector('[data-preview-row="Bolt Bikes"] [data-error-field="name"]')).not.toBeNull();
  });

  it("sends a select-all as the table's query less the unticked rows, never their ids", async () => {
    const { container } = await openAdvertisers();
    fireEvent.click(container.querySelector('input[aria-label="Select all rows"]')!);
    fireEvent.click(container.querySelector('input[aria-label="Select Bolt Bikes"]')!);
    await settle();
    await click(container.querySelector('[data-action="bulk-edit"]'));
    expect(dialog()?.getAttribute("aria-label")).toBe("Edit 1 selected row");
    const d = dialog()!;
    fireEvent.change(d.querySelector('input[name="edits[0].field"]')!, { target: { value: "name" } });
    fireEvent.change(d.querySelector('input[name="edits[0].value"]')!, { target: { value: "X" } });
    await click(d.querySelector('[data-action="preview"]'));
    expect(commands.bulkEdit).toHaveBeenCalledWith(
      { type: "query", value: { kind: "advertiser", query: expect.objectContaining({ parent: null, filter: "" }), except: [bolt.target] } },
      [{ field: "name", change: { type: "set", value: "X" } }],
      false,
    );
  });

  it("shows a preview a page at a time, asking the Rust side for later pages", async () => {
    const row = (i: number) => ({ target: { kind: "advertiser" as const, key: { type: "id" as const, value: i } }, kind: "advertiser" as const, label: `Row ${i}`, line: null, outcome: "update" as const, diffs: [], errors: [] });
    const first = Array.from({ length: 50 }, (_, i) => row(i));
    commands.bulkEdit.mockReturnValue(ok(previewOf(first, { updates: 120, rowCount: 120, rowsId: 7 })));
    commands.previewRows.mockReturnValue(ok({ rows: [row(50), row(51)], offset: 50, total: 120, unfiltered: 120 }));
    const { container } = await openAdvertisers();
    fireEvent.click(container.querySelector('input[aria-label="Select all rows"]')!);
    await settle();
    await click(container.querySelector('[data-action="bulk-edit"]'));
    const d = dialog()!;
    fireEvent.change(d.querySelector('input[name="edits[0].field"]')!, { target: { value: "name" } });
    await click(d.querySelector('[data-action="preview"]'));
    expect(d.querySelectorAll("[data-preview-row]").length).toBe(50);
    expect(d.querySelector("[data-preview-range]")?.textContent).toBe("Rows 1–50 of 120");
    expect(commands.previewRows).not.toHaveBeenCalled();

    await click(d.querySelector('[data-action="preview-next"]'));
    expect(commands.previewRows).toHaveBeenCalledWith(7, 50, 50);
    expect([...d.querySelectorAll("[data-preview-row]")].map((r) => r.getAttribute("data-preview-row"))).toEqual(["Row 50", "Row 51"]);
    expect(d.querySelector("[data-preview-range]")?.textContent).toBe("Rows 51–100 of 120");
    await click(d.querySelector('[data-action="preview-previous"]'));
    expect(d.querySelector('[data-preview-row="Row 0"]')).not.toBeNull();
  });
});

describe("copy and paste", () => {
  it("copies the selection as TSV, and a paste previews before it applies", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText, readText: () => Promise.reject(new Error("denied")) } });
    commands.exportSheet.mockReturnValue(ok("id\tname\n1\tAcme Outdoor\n"));
    commands.importSheet.mockReturnValue(ok(previewOf([{ target: null, kind: "advertiser", label: "New one", line: 1, outcome: "create", diffs: [{ path: "name", before: null, after: "New one" }], errors: [] }], { creates: 1 })));
    const { container } = await openAdvertisers();

    fireEvent.click(container.querySelector('[data-row][data-label="Acme Outdoor"]')!);
    await settle();
    await click(container.querySelector('[data-action="copy"]'));
    expect(commands.exportSheet).toHaveBeenCalledWith({ type: "ids", value: [acme.target] }, "tab", "wire");
    expect(writeText).toHaveBeenCalledWith("id\tname\n1\tAcme Outdoor\n");

    // The clipboard cannot be read: a box to paste into.
    await act(async () => {
      fireEvent.keyDown(container.querySelector(".dt-scroll")!, { key: "v", ctrlKey: true });
    });
    await settle();
    const d = dialog()!;
    fireEvent.change(d.querySelector('textarea[name="sheet"]')!, { target: { value: "name\nNew one\n" } });
    await click(d.querySelector('[data-action="preview"]'));
    expect(commands.importSheet).toHaveBeenCalledWith("name\nNew one\n", { delimiter: "tab", kind: "advertiser", parent: null }, false);
    expect(d.querySelector('[data-preview-row="New one"]')?.getAttribute("data-outcome")).toBe("create");
    await click(d.querySelector('[data-action="apply"]'));
    expect(commands.importSheet).toHaveBeenLastCalledWith("name\nNew one\n", { delimiter: "tab", kind: "advertiser", parent: null }, true);
    expect(dialog()).toBeNull();
  });
});

describe("import, export, find and replace, duplicate", () => {
  it("exports and imports the files chosen in the Rust side's dialogs, by their tokens", async () => {
    commands.pickExportFile.mockReturnValue(ok({ token: "t-out", path: "/tmp/out.csv" }));
    commands.pickImportFile.mockReturnValue(ok({ token: "t-in", path: "/tmp/in.csv" }));
    commands.exportFile.mockReturnValue(ok(2));
    commands.importFile.mockReturnValue(ok(previewOf([{ target: acme.target, kind: "advertiser", label: "Acme Outdoor", line: 1, outcome: "update", diffs: [{ path: "category", before: "IAB1", after: "IAB2" }], errors: [] }], { updates: 1 })));
    const { container } = await openAdvertisers();
    await click(container.querySelector('[data-action="export"]'));
    // The format first; the save dialog once the buyer goes on.
    expect(commands.pickExportFile).not.toHaveBeenCalled();
    await click(dialog()!.querySelector('[data-action="export-file"]'));
    expect(commands.pickExportFile).toHaveBeenCalledWith("Export advertisers");
    expect(commands.exportFile).toHaveBeenCalledWith("t-out", { type: "kind", value: "advertiser" }, "sheet");
    expect(screen.getByText("Exported 2 rows to /tmp/out.csv.")).toBeTruthy();
    expect(dialog()).toBeNull();
    await click(container.querySelector('[data-action="export-account"]'));
    await click(dialog()!.querySelector('[data-action="export-file"]'));
    expect(commands.pickExportFile).toHaveBeenLastCalledWith("Export the account");
    expect(commands.exportFile).toHaveBeenLastCalledWith("t-out", { type: "account" }, "sheet");

    await click(container.querySelector('[data-action="import"]'));
    expect(commands.pickImportFile).toHaveBeenCalledWith("Import advertisers");
    expect(commands.importFile).toHaveBeenCalledWith("t-in", "advertiser", null, false);
    expect(dialog()?.textContent).toContain("/tmp/in.csv");
    expect(dialog()?.querySelector('[data-preview-row="Acme Outdoor"]')?.textContent).toContain("IAB1 → IAB2");
    await click(dialog()!.querySelector('[data-action="apply"]'));
    expect(commands.importFile).toHaveBeenLastCalledWith("t-in", "advertiser", null, true);
  });

  it("exports in the format the buyer chose: the spreadsheet's, or the wire's for scripts", async () => {
    commands.pickExportFile.mockReturnValue(ok({ token: "t-out", path: "/tmp/out.csv" }));
    commands.exportFile.mockReturnValue(ok(2));
    const { container } = await openAdvertisers();
    await click(container.querySelector('[data-action="export"]'));
    const d = dialog()!;
    const sheet = d.querySelector<HTMLInputElement>('input[name="format"][value="sheet"]')!;
    const wire = d.querySelector<HTMLInputElement>('input[name="format"][value="wire"]')!;
    expect(sheet.checked).toBe(true);
    expect(sheet.closest("label")?.textContent).toContain("timezone");
    fireEvent.click(wire);
    expect(wire.checked).toBe(true);
    await click(d.querySelector('[data-action="export-file"]'));
    expect(commands.exportFile).toHaveBeenCalledWith("t-out", { type: "kind", value: "advertiser" }, "wire");
  });

  it("does nothing when the buyer closes the file dialog", async () => {
    commands.pickExportFile.mockReturnValue(ok(null));
    commands.pickImportFile.mockReturnValue(ok(null));
    const { container } = await openAdvertisers();
    await click(container.querySelector('[data-action="export"]'));
    await click(dialog()!.querySelector('[data-action="export-file"]'));
    // Still asking: the buyer may choose another file, or cancel.
    expect(dialog()?.querySelector('[data-action="export-file"]')).not.toBeNull();
    await click(dialog()!.querySelector('button:not([data-action])'));
    await click(container.querySelector('[data-action="import"]'));
    expect(commands.pickExportFile).toHaveBeenCalled();
    expect(commands.pickImportFile).toHaveBeenCalled();
    expect(commands.exportFile).not.toHaveBeenCalled();
    expect(commands.importFile).not.toHaveBeenCalled();
    expect(dialog()).toBeNull();
  });

  it("find and replace shows matches per field and applies", async () => {
    commands.findReplace.mockReturnValue(ok(previewOf([{ target: acme.target, kind: "advertiser", label: "Acme Outdoor", line: null, outcome: "update", diffs: [{ path: "name", before: "Acme Outdoor", after: "Apex Outdoor" }], errors: [] }], { updates: 1, matches: { name: 3 } })));
    const { container } = await openAdvertisers();
    await click(container.querySelector('[data-action="find-replace"]'));
    const d = dialog()!;
    fireEvent.change(d.querySelector('input[name="find"]')!, { target: { value: "Acme" } });
    fireEvent.change(d.querySelector('input[name="replace"]')!, { target: { value: "Apex" } });
    fireEvent.click(d.querySelector('input[name="wholeWord"]')!);
    await click(d.querySelector('[data-action="preview"]'));
    const find = { find: "Acme", replace: "Apex", matchCase: false, wholeWord: true, regex: false, fields: [] };
    expect(commands.findReplace).toHaveBeenCalledWith({ type: "kind", value: "advertiser" }, find, false);
    expect(d.querySelector('[data-match-field="name"]')?.textContent).toContain("3");
    await click(d.querySelector('[data-action="apply"]'));
    expect(commands.findReplace).toHaveBeenLastCalledWith({ type: "kind", value: "advertiser" }, find, true);
  });

  it("duplicates the selection with shifted dates", async () => {
    commands.duplicateMany.mockReturnValue(ok(previewOf([{ target: null, kind: "advertiser", label: "Acme Outdoor (copy)", line: null, outcome: "create", diffs: [], errors: [] }], { creates: 1 })));
    const { container } = await openAdvertisers();
    fireEvent.click(container.querySelector('[data-row][data-label="Acme Outdoor"]')!);
    await settle();
    await click(container.querySelector('[data-action="duplicate-selected"]'));
    const d = dialog()!;
    fireEvent.change(d.querySelector('input[name="shiftDays"]')!, { target: { value: "7" } });
    await click(d.querySelector('[data-action="preview"]'));
    expect(commands.duplicateMany).toHaveBeenCalledWith({ type: "ids", value: [acme.target] }, { into: null, shiftDays: 7 }, false);
    expect(d.querySelector('[data-preview-row="Acme Outdoor (copy)"]')).not.toBeNull();
    await click(d.querySelector('[data-action="apply"]'));
    expect(commands.duplicateMany).toHaveBeenLastCalledWith({ type: "ids", value: [acme.target] }, { into: null, shiftDays: 7 }, true);
  });

  it("offers only the parents the Rust side names: an advertiser copy goes beside its original", async () => {
    const { container } = await openAdvertisers();
    fireEvent.click(container.querySelector('[data-row][data-label="Acme Outdoor"]')!);
    await settle();
    await click(container.querySelector('[data-action="duplicate-selected"]'));
    const d = dialog()!;
    expect(commands.parentKinds).toHaveBeenCalledWith("advertiser");
    expect(d.querySelector('select[name="into"]')).toBeNull();
    expect(d.textContent).toContain("Copies go beside the originals.");
  });
});

describe("money review", () => {
  it("shows budgets per campaign and advertiser with totals, bid changes and warnings", async () => {
    const b = (lifetime: number | null, daily: number | null) => ({ lifetime, daily, flights: null, orderLifetime: null, orderDaily: null });
    const summary: MoneySummary = {
      campaigns: [
        { target: { kind: "campaign", key: { type: "id", value: 10 } }, label: "Spring sale", advertiser: acme.target, before: b(1000, 100), after: b(1500, 100) },
        { target: { kind: "campaign", key: { type: "id", value: 11 } }, label: "Summer", advertiser: acme.target, before: b(2000, null), after: b(1800, null) },
      ],
      advertisers: [{ target: acme.target, label: "Acme Outdoor", advertiser: null, before: b(3000, 100), after: b(3300, 100) }],
      total: { target: null, label: "Total", advertiser: null, before: b(3000, 100), after: b(3300, 100) },
      bids: [{ target: { kind: "ad_order", key: { type: "id", value: 100 } }, label: "Order A", campaign: "Spring sale", before: 2, after: 2.2 }],
      warnings: [{ target: { kind: "campaign", key: { type: "id", value: 10 } }, label: "Spring sale", field: "flights", message: "Flight budgets add up to $1,200.00, not $1,500.00." }],
      goingLive: [],
      goingLiveBudget: 0,
    };
    commands.moneySummary.mockReturnValue(ok(summary));
    const { container } = render(<MoneyReview />);
    await settle();
    const campaigns = container.querySelector('[data-money-table="campaign"]')!;
    expect(campaigns.querySelector('[data-money-row="Spring sale"] [data-money="lifetime"]')?.textContent).toBe("$1,000.00 → $1,500.00 +$500.00");
    expect(campaigns.querySelector('[data-money-row="Summer"] [data-money="lifetime"]')?.textContent).toContain("−$200.00");
    expect(campaigns.querySelector('[data-money-row="total"] [data-money="lifetime"]')?.textContent).toBe("$3,000.00 → $3,300.00 +$300.00");
    expect(container.querySelector('[data-money-table="advertiser"] [data-money-row="Acme Outdoor"]')?.textContent).toContain("+$300.00");
    expect(container.querySelector('[data-bid-row="Order A"]')?.textContent).toContain("+$0.20");
    expect(container.querySelector('[data-warning="flights"]')?.textContent).toContain("WARNING");
    expect(container.querySelectorAll("[data-money-chart] [data-chart-row]").length).toBe(2);
  });
});
