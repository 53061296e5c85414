import { act, fireEvent, render } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import type { AdOrder, AdOrderRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, lastSaved, SIGNED_IN } from "../test/fakeBindings";
import { AdOrderForm } from "../forms/AdOrderForm";
import { DayPartsGrid } from "../forms/DayPartsGrid";
import type { DayParts } from "../forms/dayParts";
import { AppProvider } from "../state/app";

function Harness({ initial, onChange }: { initial: DayParts; onChange: (v: DayParts) => void }) {
  const [value, setValue] = useState<DayParts>(initial);
  return (
    <DayPartsGrid
      value={value}
      label="Day parts"
      onChange={(v) => {
        onChange(v);
        setValue(v);
      }}
    />
  );
}

function setup(initial: DayParts) {
  const onChange = vi.fn<(v: DayParts) => void>();
  const view = render(<Harness initial={initial} onChange={onChange} />);
  const cell = (day: string, hour: number) => view.container.querySelector<HTMLButtonElement>(`button[data-day="${day}"][data-hour="${hour}"]`)!;
  const on = () =>
    [...view.container.querySelectorAll<HTMLButtonElement>('button.dayparts-cell[aria-pressed="true"]')].map((b) => `${b.dataset.day} ${b.dataset.hour}`);
  const last = () => onChange.mock.calls.at(-1)?.[0];
  return { ...view, cell, on, last, onChange };
}

describe("day-part grid", () => {
  it("shows a week of hours, with the loaded items' hours pressed", () => {
    const { container, on } = setup([{ day: "TUESDAY", startHour: 22, endHour: 24 }]);
    expect(container.querySelectorAll("button.dayparts-cell")).toHaveLength(7 * 24);
    expect(on()).toEqual(["TUESDAY 22", "TUESDAY 23"]);
    expect(container.querySelector('[data-testid="dayparts-count"]')?.textContent).toBe("2 of 168 hours");
  });

  it("toggles an hour on click, and gives back null when the grid was null and is emptied", () => {
    const { cell, on, last } = setup(null);
    fireEvent.click(cell("MONDAY", 9));
    expect(last()).toEqual([{ day: "MONDAY", startHour: 9, endHour: 10 }]);
    expect(cell("MONDAY", 9).getAttribute("aria-pressed")).toBe("true");
    fireEvent.click(cell("MONDAY", 10));
    expect(last()).toEqual([{ day: "MONDAY", startHour: 9, endHour: 11 }]);
    fireEvent.click(cell("MONDAY", 9));
    fireEvent.click(cell("MONDAY", 10));
    expect(on()).toEqual([]);
    expect(last()).toBeNull();
  });

  it("paints the rectangle a drag spans, and a drag from a pressed hour clears", () => {
    const { cell, on, last, onChange } = setup([]);
    fireEvent.pointerDown(cell("MONDAY", 9), { button: 0, pointerId: 1 });
    fireEvent.pointerEnter(cell("TUESDAY", 10), { pointerId: 1 });
    fireEvent.pointerEnter(cell("WEDNESDAY", 11), { pointerId: 1 });
    // Shown while dragging, stored on release.
    expect(cell("TUESDAY", 10).hasAttribute("data-preview")).toBe(true);
    expect(onChange).not.toHaveBeenCalled();
    fireEvent.pointerUp(cell("WEDNESDAY", 11), { pointerId: 1 });
    expect(last()).toEqual([
      { day: "MONDAY", startHour: 9, endHour: 12 },
      { day: "TUESDAY", startHour: 9, endHour: 12 },
      { day: "WEDNESDAY", startHour: 9, endHour: 12 },
    ]);
    // The click that follows a mouse's release is not a second toggle.
    fireEvent.click(cell("WEDNESDAY", 11), { detail: 1 });
    expect(on()).toHaveLength(9);

    fireEvent.pointerDown(cell("TUESDAY", 11), { button: 0, pointerId: 1 });
    fireEvent.pointerEnter(cell("WEDNESDAY", 11), { pointerId: 1 });
    fireEvent.pointerUp(document.body, { pointerId: 1 });
    expect(last()).toEqual([
      { day: "MONDAY", startHour: 9, endHour: 12 },
      { day: "TUESDAY", startHour: 9, endHour: 11 },
      { day: "WEDNESDAY", startHour: 9, endHour: 11 },
    ]);
  });

  it("gives back the loaded list itself, other items included, when the hours are as loaded", () => {
    const loaded: DayParts = [
      { day: "FRIDAY", startHour: 8, endHour: 9 },
      { from: "08:00", to: "09:00", days: [1, 2] },
      { day: "FRIDAY", startHour: 9, endHour: 10 },
    ];
    const { cell, last, container } = setup(loaded);
    expect(container.querySelector('[data-testid="dayparts-other"]')?.textContent).toContain('{"from":"08:00","to":"09:00","days":[1,2]}');
    fireEvent.click(cell("SATURDAY", 3));
    expect(last()).toEqual([
      { day: "FRIDAY", startHour: 8, endHour: 10 },
      { from: "08:00", to: "09:00", days: [1, 2] },
      { day: "SATURDAY", startHour: 3, endHour: 4 },
    ]);
    fireEvent.click(cell("SATURDAY", 3));
    expect(last()).toBe(loaded);
  });

  it("moves between hours with the arrow keys, one hour at a time in the tab order", async () => {
    const { cell, container, last } = setup(null);
    expect(container.querySelectorAll('button.dayparts-cell[tabindex="0"]')).toHaveLength(1);
    act(() => cell("MONDAY", 0).focus());
    fireEvent.keyDown(cell("MONDAY", 0), { key: "ArrowRight" });
    fireEvent.keyDown(cell("MONDAY", 1), { key: "ArrowDown" });
    expect(document.activeElement).toBe(cell("TUESDAY", 1));
    expect(cell("TUESDAY", 1).tabIndex).toBe(0);
    expect(cell("MONDAY", 0).tabIndex).toBe(-1);
    fireEvent.keyDown(cell("TUESDAY", 1), { key: "End" });
    expect(document.activeElement).toBe(cell("TUESDAY", 23));
    // Space or Enter on a button is a click without a pointer (detail 0).
    fireEvent.click(cell("TUESDAY", 23));
    expect(last()).toEqual([{ day: "TUESDAY", startHour: 23, endHour: 24 }]);
  });
});

describe("day parts in the ad order form", () => {
  const campaign = { kind: "campaign" as const, key: { type: "id" as const, value: 10 } };
  function orderRow(value: AdOrder): AdOrderRow {
    return { target: { kind: "ad_order", key: { type: "id", value: 77 } }, parent: campaign, parentLabel: "Spring sale", timezone: "ET", label: "Order", marker: null, pending: false, readOnly: null, value: { id: 77, name: "Order", ...value } };
  }

  it("sends the loaded day parts unchanged, keeps other items through an edit, and shows their errors", async () => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    const dayParts: DayParts = [{ weekdays: "MO-FR", hours: "9-17" }, { day: "SUNDAY", startHour: 0, endHour: 6 }];
    commands.validate.mockImplementation(() => Promise.resolve({ status: "ok" as const, data: [{ field: "dayParts[0]", code: "BAD", message: "unknown day-part shape" }] }));
    const { container } = render(
      <AppProvider initial={SIGNED_IN}>
        <AdOrderForm row={orderRow({ dayParts })} />
      </AppProvider>,
    );
    await act(async () => {
      await vi.advanceTimersByTimeAsync(400);
    });
    const form = container.querySelector('form[data-form="ad_order"]')!;
    const save = async () => {
      await act(async () => {
        fireEvent.click(form.querySelector('[data-action="save"]')!);
        await vi.advanceTimersByTimeAsync(10);
      });
      return lastSaved("ad_order");
    };
    expect(form.querySelector('[data-error-for="dayParts"]')?.textContent).toContain("unknown day-part shape");
    expect(form.querySelector('[data-testid="dayparts-other"]')?.textContent).toContain('{"weekdays":"MO-FR","hours":"9-17"}');
    expect((await save())?.dayParts).toBe(dayParts);

    fireEvent.click(form.querySelector('button[data-day="SUNDAY"][data-hour="6"]')!);
    expect((await save())?.dayParts).toEqual([{ weekdays: "MO-FR", hours: "9-17" }, { day: "SUNDAY", startHour: 0, endHour: 7 }]);
    fireEvent.click(form.querySelector('button[data-day="SUNDAY"][data-hour="6"]')!);
    expect((await save())?.dayParts).toBe(dayParts);
    vi.useRealTimers();
  });
});
