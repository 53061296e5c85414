import { describe, expect, it } from "vitest";
import { type DayParts, cellIndex, emptyCells, itemsOf, parseDayParts, withCells } from "../forms/dayParts";

const MONDAY = 0;
const WEDNESDAY = 2;
const SUNDAY = 6;

function toggled(list: DayParts, ...cells: [number, number][]): boolean[] {
  const next = [...parseDayParts(list).cells];
  for (const [d, h] of cells) next[cellIndex(d, h)] = !next[cellIndex(d, h)];
  return next;
}

describe("day parts as a week of hours", () => {
  it("reads items of the grid's shape as hours and writes the same items back", () => {
    const list: DayParts = [
      { day: "MONDAY", startHour: 9, endHour: 17 },
      { day: "FRIDAY", startHour: 0, endHour: 24 },
      { day: "SUNDAY", startHour: 23, endHour: 24 },
    ];
    const { cells, others } = parseDayParts(list);
    expect(others).toEqual([]);
    expect(cells.filter(Boolean)).toHaveLength(8 + 24 + 1);
    expect(cells[cellIndex(MONDAY, 8)]).toBe(false);
    expect(cells[cellIndex(MONDAY, 9)]).toBe(true);
    expect(cells[cellIndex(MONDAY, 16)]).toBe(true);
    expect(cells[cellIndex(MONDAY, 17)]).toBe(false);
    expect(cells[cellIndex(SUNDAY, 23)]).toBe(true);
    expect(itemsOf(cells)).toEqual(list);
    // Unchanged hours give back the very list that was loaded.
    expect(withCells(list, cells, list)).toBe(list);
  });

  it("keeps items of any other shape untouched, in their place among the grid's items", () => {
    const weekday = { weekday: 1, hours: [1, 2] };
    const extra = { day: "TUESDAY", startHour: 1, endHour: 2, timezone: "UTC" };
    const list: DayParts = [
      { day: "MONDAY", startHour: 9, endHour: 12 },
      weekday,
      "raw",
      extra,
      { day: "monday", startHour: 1, endHour: 2 },
      { day: "MONDAY", startHour: 5, endHour: 5 },
      { day: "MONDAY", startHour: 20, endHour: 25 },
      { day: "MONDAY", startHour: 1.5, endHour: 2 },
      null,
    ];
    const { cells, others } = parseDayParts(list);
    expect(others.map((o) => o.item)).toEqual(list.slice(1));
    expect(cells.filter(Boolean)).toHaveLength(3);

    const next = withCells(list, toggled(list, [WEDNESDAY, 5]), list);
    expect(next).toEqual([{ day: "MONDAY", startHour: 9, endHour: 12 }, ...list.slice(1), { day: "WEDNESDAY", startHour: 5, endHour: 6 }]);
    expect(next?.[1]).toBe(weekday);
    expect(next?.[3]).toBe(extra);

    // Emptying the grid leaves the other items alone.
    expect(withCells(list, emptyCells(), list)).toEqual(list.slice(1));
  });

  it("writes one item per run of hours in a day, merging adjacent hours", () => {
    const list: DayParts = [
      { day: "MONDAY", startHour: 9, endHour: 10 },
      { day: "MONDAY", startHour: 10, endHour: 11 },
    ];
    // Loaded as two items: unchanged, they stay two.
    expect(withCells(list, parseDayParts(list).cells, list)).toBe(list);
    const next = withCells(list, toggled(list, [MONDAY, 11], [MONDAY, 13]), list);
    expect(next).toEqual([
      { day: "MONDAY", startHour: 9, endHour: 12 },
      { day: "MONDAY", startHour: 13, endHour: 14 },
    ]);
    // Back to the loaded hours: the loaded list, not a merged one.
    expect(withCells(next, toggled(next, [MONDAY, 11], [MONDAY, 13]), list)).toBe(list);
  });

  it("keeps null null and absent absent, and empties a list to []", () => {
    expect(withCells(null, emptyCells(), null)).toBeNull();
    const on = withCells(null, toggled(null, [MONDAY, 0]), null);
    expect(on).toEqual([{ day: "MONDAY", startHour: 0, endHour: 1 }]);
    expect(withCells(on, emptyCells(), null)).toBeNull();

    const onAbsent = withCells(undefined, toggled(undefined, [MONDAY, 0]), undefined);
    expect(withCells(onAbsent, emptyCells(), undefined)).toBeUndefined();

    const list: DayParts = [{ day: "MONDAY", startHour: 0, endHour: 1 }];
    expect(withCells(list, emptyCells(), list)).toEqual([]);
    const empty: DayParts = [];
    expect(withCells(empty, emptyCells(), empty)).toBe(empty);
  });
});
