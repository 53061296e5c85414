// An ad order's `dayParts` as a week of hours, and back. The spec does not show the item
// shape and the service keeps items as sent, so the grid writes one shape of its own,
// `{"day": "MONDAY", "startHour": 9, "endHour": 17}` (end exclusive, one item per run of
// hours in a day), and keeps every item of any other shape exactly as it came.
import type { AdOrder } from "../api/types";

/** The field as the wire has it: a list, `null`, or absent. */
export type DayParts = AdOrder["dayParts"];
/** One item of the list: any JSON value. */
export type DayPartItem = NonNullable<DayParts>[number];

export const DAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"] as const;
export type Day = (typeof DAYS)[number];
export const HOURS = 24;
/** 7 × 24 cells, day-major: cell `day * 24 + hour`. */
export const CELLS = DAYS.length * HOURS;

/** Which hours of the week are on, day-major (`cellIndex`). */
export type Cells = readonly boolean[];

export function cellIndex(day: number, hour: number): number {
  return day * HOURS + hour;
}

export function emptyCells(): boolean[] {
  return new Array<boolean>(CELLS).fill(false);
}

/** What the list holds: the grid's hours, and every other item with its place among the grid's. */
export type Parsed = {
  cells: Cells;
  /** Items of another shape, in their order, each with how many grid items came before it. */
  others: { item: DayPartItem; knownBefore: number }[];
};

type Known = { day: number; start: number; end: number };

function isObject(v: DayPartItem): v is { [key in string]: DayPartItem } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An item the grid writes, exactly: those three members and nothing else. */
function known(item: DayPartItem): Known | null {
  if (!isObject(item)) return null;
  const keys = Object.keys(item);
  if (keys.length !== 3) return null;
  const { day, startHour, endHour } = item;
  if (typeof day !== "string" || typeof startHour !== "number" || typeof endHour !== "number") return null;
  const d = (DAYS as readonly string[]).indexOf(day);
  if (d < 0 || !Number.isInteger(startHour) || !Number.isInteger(endHour)) return null;
  if (startHour < 0 || endHour > HOURS || startHour >= endHour) return null;
  return { day: d, start: startHour, end: endHour };
}

export function parseDayParts(list: DayParts): Parsed {
  const cells = emptyCells();
  const others: Parsed["others"] = [];
  let knownCount = 0;
  for (const item of list ?? []) {
    const k = known(item);
    if (k === null) {
      others.push({ item, knownBefore: knownCount });
      continue;
    }
    knownCount++;
    for (let h = k.start; h < k.end; h++) cells[cellIndex(k.day, h)] = true;
  }
  return { cells, others };
}

/** The grid as items: one per run of hours in a day, Monday first, earliest hour first. */
export function itemsOf(cells: Cells): DayPartItem[] {
  const out: DayPartItem[] = [];
  DAYS.forEach((day, d) => {
    let h = 0;
    while (h < HOURS) {
      if (!cells[cellIndex(d, h)]) {
        h++;
        continue;
      }
      const start = h;
      while (h < HOURS && cells[cellIndex(d, h)]) h++;
      out.push({ day, startHour: start, endHour: h });
    }
  });
  return out;
}

export function sameCells(a: Cells, b: Cells): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameItem(a: DayPartItem, b: DayPartItem): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameItem(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && sameItem(a[k], b[k]));
  }
  return false;
}

function sameOthers(a: Parsed["others"], b: Parsed["others"]): boolean {
  return a.length === b.length && a.every((x, i) => x.knownBefore === b[i].knownBefore && sameItem(x.item, b[i].item));
}

/**
 * The list to store once the grid shows `cells`. `current` is what the field holds now,
 * `loaded` what it held when the form opened. Back at the loaded hours, the loaded list
 * itself comes back (same object, same order). Otherwise the grid's items are written
 * anew and every other item keeps its place among them as far as it can (it follows as
 * many grid items as it did). With nothing left, an absent or null field stays so, and a
 * list becomes `[]`.
 */
export function withCells(current: DayParts, cells: Cells, loaded: DayParts): DayParts {
  const now = parseDayParts(current);
  const base = current === loaded ? now : parseDayParts(loaded);
  if (sameCells(cells, base.cells) && sameOthers(now.others, base.others)) return loaded;
  if (sameCells(cells, now.cells)) return current;
  const items = itemsOf(cells);
  const out: DayPartItem[] = [];
  let o = 0;
  items.forEach((item, i) => {
    while (o < now.others.length && now.others[o].knownBefore <= i) out.push(now.others[o++].item);
    out.push(item);
  });
  while (o < now.others.length) out.push(now.others[o++].item);
  if (out.length === 0) return loaded === null || loaded === undefined ? loaded : [];
  return out;
}
