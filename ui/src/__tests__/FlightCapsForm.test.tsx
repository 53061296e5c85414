import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { CapChoices, EntityRef, FlightCapsRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok, SIGNED_IN } from "../test/fakeBindings";
import { FlightCapsForm } from "../forms/FlightCapsForm";
import { AppProvider } from "../state/app";
import { refKey } from "../util/refs";

const campaign: EntityRef = { kind: "campaign", key: { type: "local", value: "c-draft" } };
const order: EntityRef = { kind: "ad_order", key: { type: "local", value: "o-draft" } };
const posted: EntityRef = { kind: "flight", key: { type: "id", value: 5 } };
const fresh: EntityRef = { kind: "flight", key: { type: "local", value: "local:c-draft@start:1804579200000" } };

const choices: CapChoices = {
  campaign,
  flights: [
    { flight: posted, id: 5, startDate: 1801987200000, endDate: 1804492800000, label: "#5: 7 Feb 2027 – 8 Mar 2027" },
    { flight: fresh, id: null, startDate: 1804579200000, endDate: 1806998400000, label: "new flight starting 9 Mar 2027 07:00 ET" },
  ],
  caps: [],
};

/** The order's caps as the workspace holds them (a draft). */
const stored = (value: FlightCapsRow["value"]): FlightCapsRow => ({
  target: { kind: "flight_caps", key: order.key },
  parent: order,
  parentLabel: null,
  timezone: null,
  label: "flight caps",
  marker: "new",
  pending: true,
  readOnly: null,
  value,
});

async function flush(ms = 50) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

async function setup(row: FlightCapsRow | null) {
  const view = render(
    <AppProvider initial={SIGNED_IN}>
      <FlightCapsForm adOrder={order} campaign={campaign} row={row} embedded />
    </AppProvider>,
  );
  await flush();
  const c = view.container;
  return { c, q: <E extends Element = HTMLElement>(css: string) => c.querySelector<E>(css) };
}

describe("flight caps form", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    commands.flightCapChoices.mockReturnValue(ok(choices));
  });

  it("offers a new flight of a draft campaign and saves the cap with that flight", async () => {
    const { c, q } = await setup(null);
    expect(commands.flightCapChoices).toHaveBeenCalledWith(order);
    expect(q('form[data-form="flight_caps"] .form-sub')?.textContent).toContain("0 caps over 2 flights (1 new");

    fireEvent.click(q('[data-action="add-cap"]')!);
    const picker = q<HTMLSelectElement>('select[name="[0].flightId"]')!;
    expect(picker.getAttribute("data-testid")).toBe("cap-flight");
    const labels = [...picker.options].map((o) => o.textContent);
    expect(labels).toEqual(["Choose…", "#5: 7 Feb 2027 – 8 Mar 2027", "new flight starting 9 Mar 2027 07:00 ET"]);
    expect(picker.querySelector("option[data-new-flight]")?.textContent).toBe("new flight starting 9 Mar 2027 07:00 ET");
    // The first flight without a cap is chosen; the buyer picks the new one.
    expect(picker.value).toBe(refKey(posted));
    fireEvent.change(picker, { target: { value: refKey(fresh) } });
    fireEvent.change(q('input[name="[0].maxBudget"]')!, { target: { value: "200" } });
    await flush(400);

    // Live validation names the new flight beside the cap (it has no flightId yet).
    const draft = commands.validate.mock.calls.at(-1)?.[2];
    expect(draft).toEqual({ kind: "flight_caps", value: [{ id: null, flightId: null, maxBudget: 200 }], campaignFlightIds: [5], flights: [fresh] });

    await act(async () => {
      fireEvent.click(q('[data-action="save"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.save).toHaveBeenCalledWith(null, order, { kind: "flight_caps", value: [{ id: null, flightId: null, maxBudget: 200 }], campaignFlightIds: [5], flights: [fresh] });
    expect(c.querySelectorAll("fieldset.cap")).toHaveLength(1);
  });

  it("marks a cap's flight and budget required as the model's rules answer, asking with the caps draft", async () => {
    commands.requiredFields.mockImplementation((draft, _create, paths) =>
      Promise.resolve(draft.kind === "flight_caps" ? paths.filter((p) => p === "[0].flightId" || p === "[0].maxBudget") : []),
    );
    const { q } = await setup(null);
    fireEvent.click(q('[data-action="add-cap"]')!);
    await flush(400);
    expect(commands.requiredFields).toHaveBeenLastCalledWith(expect.objectContaining({ kind: "flight_caps" }), true, expect.arrayContaining(["[0].flightId", "[0].maxBudget", "[0].dailyBudget"]));
    expect(q('select[name="[0].flightId"]')!.getAttribute("aria-required")).toBe("true");
    expect(q('input[name="[0].maxBudget"]')!.getAttribute("aria-required")).toBe("true");
    expect(q('input[name="[0].dailyBudget"]')!.getAttribute("aria-required")).toBeNull();
    // When the rules need none, no mark is left over from a hard-coded list.
    commands.requiredFields.mockImplementation(() => Promise.resolve([]));
    fireEvent.change(q('input[name="[0].maxBudget"]')!, { target: { value: "200" } });
    await flush(400);
    expect(q('select[name="[0].flightId"]')!.getAttribute("aria-required")).toBeNull();
    commands.requiredFields.mockImplementation(() => Promise.resolve([]));
  });

  it("shows a saved cap on its new flight when opened again", async () => {
    commands.flightCapChoices.mockReturnValue(ok({ ...choices, caps: [fresh, posted] }));
    const row = stored([
      { id: null, maxBudget: 100 },
      { id: null, flightId: 5, maxBudget: 50 },
    ]);
    const { q } = await setup(row);
    expect(q<HTMLSelectElement>('select[name="[0].flightId"]')!.value).toBe(refKey(fresh));
    expect(q<HTMLSelectElement>('select[name="[1].flightId"]')!.value).toBe(refKey(posted));

    // Removing the first cap keeps the second on its flight.
    fireEvent.click(q('[aria-label="Remove cap 1"]')!);
    expect(q<HTMLSelectElement>('select[name="[0].flightId"]')!.value).toBe(refKey(posted));
    await act(async () => {
      fireEvent.click(q('[data-action="save"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.save).toHaveBeenLastCalledWith(null, order, { kind: "flight_caps", value: [{ id: null, flightId: 5, maxBudget: 50 }], campaignFlightIds: [5], flights: [posted] });
  });
  it("keeps the caps on screen while they are read again after a save, then shows the stored caps", async () => {
    const before = stored([{ id: null, flightId: 5, maxBudget: 50 }]);
    const view = render(
      <AppProvider initial={SIGNED_IN}>
        <FlightCapsForm adOrder={order} campaign={campaign} row={before} reloadKey="1" embedded />
      </AppProvider>,
    );
    await flush();
    expect(view.container.querySelector('form[data-form="flight_caps"]')).not.toBeNull();

    // The caps are read again (a save): the flights to offer are asked for anew, slowly.
    let answer: (c: CapChoices) => void = () => undefined;
    commands.flightCapChoices.mockReturnValue(new Promise((r) => (answer = (c) => r({ status: "ok", data: c }))));
    const after = stored([{ id: null, flightId: 5, maxBudget: 75 }]);
    view.rerender(
      <AppProvider initial={SIGNED_IN}>
        <FlightCapsForm adOrder={order} campaign={campaign} row={after} reloadKey="2" embedded />
      </AppProvider>,
    );
    await flush();
    // No "Loading flights…" in its place: the panel keeps its height under the pointer.
    expect(view.container.textContent).not.toContain("Loading flights");
    expect(view.container.querySelector<HTMLInputElement>('input[name="[0].maxBudget"]')!.value).toBe("50.00");
    await act(async () => {
      answer({ ...choices, caps: [posted] });
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(view.container.querySelector<HTMLInputElement>('input[name="[0].maxBudget"]')!.value).toBe("75.00");
  });
});
