import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AdOrder, AdOrderRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, lastSaved, SIGNED_IN } from "../test/fakeBindings";
import { AdOrderForm } from "../forms/AdOrderForm";
import { AppProvider } from "../state/app";

const campaign = { kind: "campaign" as const, key: { type: "id" as const, value: 10 } };

function orderRow(value: AdOrder): AdOrderRow {
  return { target: { kind: "ad_order", key: { type: "id", value: 77 } }, parent: campaign, parentLabel: "Spring sale", timezone: "ET", label: "Order", marker: null, pending: false, readOnly: null, value: { id: 77, name: "Order", ...value } };
}

async function setup(row: AdOrderRow) {
  const view = render(
    <AppProvider initial={SIGNED_IN}>
      <AdOrderForm row={row} />
    </AppProvider>,
  );
  await act(async () => {
    await vi.advanceTimersByTimeAsync(50);
  });
  const form = view.container.querySelector('form[data-form="ad_order"]')!;
  const channel = (v: string) => form.querySelector<HTMLInputElement>(`input[name="channelsV2"][value="${v}"]`);
  const save = async () => {
    await act(async () => {
      fireEvent.click(form.querySelector('[data-action="save"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    const sent = lastSaved("ad_order");
    if (!sent) throw new Error("nothing was saved");
    return sent;
  };
  return { form, channel, save };
}

describe("ad order form", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
  });

  it("sends a new order with no campaign to the Rust side, and shows its refusal at the picker", async () => {
    commands.save.mockReturnValue(
      Promise.resolve({
        status: "error" as const,
        error: { code: "invalid" as const, message: "Choose the campaign first.", fieldErrors: [{ field: "parent.campaign", code: "REQUIRED", message: "Choose the campaign first." }] },
      }),
    );
    const view = render(
      <AppProvider initial={SIGNED_IN}>
        <AdOrderForm />
      </AppProvider>,
    );
    const form = view.container.querySelector('form[data-form="ad_order"]')!;
    await act(async () => {
      fireEvent.click(form.querySelector('[data-action="save"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.save).toHaveBeenCalledWith(null, null, { kind: "ad_order", value: {} });
    expect(form.querySelector('[data-error-for="parent.campaign"]')?.textContent).toContain("Choose the campaign first.");
  });

  it("shows the fields a posted order cannot change read-only, with the model's reason", async () => {
    const { form } = await setup(orderRow({ startDate: 1_800_000_000_000, lifetimeBudget: 500 }));
    const start = form.querySelector<HTMLInputElement>('input[name="startDate"]')!;
    expect(start.readOnly).toBe(true);
    expect(form.querySelector<HTMLInputElement>('input[name="lifetimeBudget"]')!.readOnly).toBe(true);
    expect(form.querySelector<HTMLInputElement>('input[name="dailyBudget"]')!.readOnly).toBe(false);
    // The reason is the one the workspace refuses such an edit with.
    expect(start.closest(".field")?.textContent).toContain("through the ad order's flight caps");
  });

  it("shows a channel the service added as a ticked box with its raw name, and keeps it", async () => {
    const { channel, save } = await setup(orderRow({ channelsV2: ["Display", "LTV_STREAMING"] }));
    const unknown = channel("LTV_STREAMING");
    expect(unknown).not.toBeNull();
    expect(unknown!.checked).toBe(true);
    expect(unknown!.hasAttribute("data-unknown")).toBe(true);
    expect(unknown!.closest("label")?.textContent).toContain("LTV_STREAMING");
    expect(channel("Display")!.checked).toBe(true);
    expect(channel("Display")!.hasAttribute("data-unknown")).toBe(false);

    fireEvent.click(channel("Display")!);
    expect((await save()).channelsV2).toEqual(["LTV_STREAMING"]);

    // Unticked, it stays on screen so it can be ticked again.
    fireEvent.click(channel("LTV_STREAMING")!);
    expect(channel("LTV_STREAMING")).not.toBeNull();
    expect(channel("LTV_STREAMING")!.checked).toBe(false);
    // A version-2 account's list, emptied on purpose, is sent as [].
    expect((await save()).channelsV2).toEqual([]);
  });

  it("keeps a version-1 account's null when every box is unticked again", async () => {
    const { channel, save } = await setup(orderRow({ channelsV2: null }));
    expect(channel("Video")!.checked).toBe(false);
    fireEvent.click(channel("Video")!);
    expect((await save()).channelsV2).toEqual(["Video"]);
    fireEvent.click(channel("Video")!);
    expect((await save()).channelsV2).toBeNull();
  });

  it("shows an unknown optimization goal as it is and sends it back unchanged", async () => {
    const { form, save } = await setup(orderRow({ optimizationGoal: "TARGET_ROAS", goalMode: "SPEND" }));
    const goal = form.querySelector<HTMLSelectElement>('select[name="optimizationGoal"]')!;
    expect(goal.value).toBe("TARGET_ROAS");
    expect(goal.selectedOptions[0]?.textContent).toBe("TARGET_ROAS");
    expect(goal.selectedOptions[0]?.hasAttribute("data-unknown")).toBe(true);
    // The pick list is still offered.
    expect([...goal.options].map((o) => o.value)).toEqual(expect.arrayContaining(["CPM", "CPC", "CPA", "VIDEO_COMPLETION_RATE"]));
    fireEvent.change(form.querySelector('input[name="name"]')!, { target: { value: "Renamed" } });
    const sent = await save();
    expect(sent.optimizationGoal).toBe("TARGET_ROAS");
    expect(sent.name).toBe("Renamed");
  });
});
