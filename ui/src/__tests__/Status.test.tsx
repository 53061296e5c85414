import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AdOrderRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { clearToasts } from "../api/toast";
import { commands, EMPTY_MONEY, ok, previewOf, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { App } from "../App";
import { MoneyReview } from "../bulk/MoneyReview";

const WHY = "The service's ad-order listings do not carry status; it is known once set through Flightdeck.";

const order = (id: number, name: string, status: AdOrderRow["status"]): AdOrderRow => ({
  target: { kind: "ad_order", key: { type: "id", value: id } },
  parent: { kind: "campaign", key: { type: "id", value: 10 } },
  parentLabel: "Spring sale",
  timezone: "ET",
  label: name,
  marker: status?.pending ? "changed" : null,
  pending: status?.pending ?? false,
  readOnly: null,
  value: { id, name },
  status,
});
const video = order(1, "Video", { text: "unknown", pending: false, known: null, why: WHY });
const display = order(2, "Display", { text: "paused", pending: true, known: "active", why: "Not posted yet; the service has it active." });

async function settle() {
  for (let i = 0; i < 4; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }
}

const click = async (el: Element | null) => {
  expect(el).not.toBeNull();
  await act(async () => {
    fireEvent.click(el!);
  });
  await settle();
};

async function openAdOrders() {
  const view = render(<App />);
  await settle();
  fireEvent.click(view.container.querySelector('[data-nav="ad_orders"]')!);
  await settle();
  return view;
}

beforeEach(() => {
  vi.clearAllMocks();
  clearToasts();
  commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
  commands.queryAdOrders.mockImplementation(tableOf([video, display]));
  commands.moneySummary.mockReturnValue(ok(EMPTY_MONEY));
});

describe("ad-order status", () => {
  it("shows the Status column with the Rust side's words and tooltip", async () => {
    const { container } = await openAdOrders();
    const cell = (name: string) => container.querySelector<HTMLElement>(`[data-row][data-label="${name}"] [data-col="status"] .ad-status`);
    expect(cell("Video")?.textContent).toBe("unknown");
    expect(cell("Video")?.title).toBe(WHY);
    expect(cell("Display")?.textContent).toBe("paused");
    expect(cell("Display")?.classList.contains("pending")).toBe(true);
  });

  it("pauses the ticked rows through a preview, then as one step", async () => {
    commands.setStatus.mockReturnValue(
      ok(previewOf([{ target: video.target, kind: "ad_order", label: "Video", line: null, outcome: "update", diffs: [{ path: "status", before: null, after: "paused" }], errors: [] }], { updates: 1 })),
    );
    const { container } = await openAdOrders();
    expect(container.querySelector('[data-action="status-paused"]')).toBeNull();
    fireEvent.click(container.querySelector('[data-row][data-label="Video"]')!);
    await settle();
    for (const s of ["active", "paused", "archived", "inactive"]) {
      expect(container.querySelector(`[data-action="status-${s}"]`)).not.toBeNull();
    }
    await click(container.querySelector('[data-action="status-paused"]'));
    expect(commands.setStatus).toHaveBeenCalledWith({ type: "ids", value: [video.target] }, "paused", false);
    const d = document.querySelector<HTMLElement>('[role="dialog"]')!;
    expect(d.querySelector('[data-preview-row="Video"]')?.textContent).toContain("paused");
    await click(d.querySelector('[data-action="apply"]'));
    expect(commands.setStatus).toHaveBeenLastCalledWith({ type: "ids", value: [video.target] }, "paused", true);
  });

  it("lists what goes live in the money review, with the total", async () => {
    commands.moneySummary.mockReturnValue(
      ok({ ...EMPTY_MONEY, goingLive: [{ target: video.target, label: "Video", campaign: "Spring sale", from: null, lifetimeBudget: 5000 }], goingLiveBudget: 5000 }),
    );
    const { container } = render(<MoneyReview />);
    await settle();
    expect(container.querySelector('[data-going-live-row="Video"]')?.textContent).toContain("Spring sale");
    expect(container.querySelector("[data-going-live-total]")?.textContent).toContain("5,000.00");
  });
});
