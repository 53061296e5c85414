import { type KeyboardEvent, type MouseEvent, type PointerEvent, useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { CELLS, type Cells, DAYS, type DayPartItem, type DayParts, HOURS, cellIndex, parseDayParts, withCells } from "./dayParts";
import { FieldErrors, useField } from "./kit";

const DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;
const DAY_SHORT = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;

function hh(h: number): string {
  return `${String(h).padStart(2, "0")}:00`;
}

/** A press on one cell, then the cell under the pointer: the rectangle between them is painted. */
type Drag = { from: number; to: number; on: boolean };

function inDrag(d: Drag, cell: number): boolean {
  const [d1, d2] = [Math.floor(d.from / HOURS), Math.floor(d.to / HOURS)].sort((a, b) => a - b);
  const [h1, h2] = [d.from % HOURS, d.to % HOURS].sort((a, b) => a - b);
  const day = Math.floor(cell / HOURS);
  const hour = cell % HOURS;
  return day >= d1 && day <= d2 && hour >= h1 && hour <= h2;
}

function painted(cells: Cells, d: Drag): boolean[] {
  return cells.map((c, i) => (inDrag(d, i) ? d.on : c));
}

export type DayPartsGridProps = {
  /** The field as it is now. */
  value: DayParts;
  onChange: (next: DayParts) => void;
  /** Accessible name of the grid. */
  label: string;
  disabled?: boolean;
  describedBy?: string;
};

/**
 * A week of hours (Monday to Sunday × 0 to 23) over `dayParts`. A click toggles an hour;
 * a press and drag paints the rectangle it spans (on when it starts on an empty hour, off
 * otherwise). The keyboard moves between hours with the arrows, Home and End, and Space
 * or Enter toggles. Items of another shape are listed and kept as they are; the list the
 * form opened with comes back unchanged while the grid shows its hours.
 */
export function DayPartsGrid({ value, onChange, label, disabled = false, describedBy }: DayPartsGridProps) {
  const [loaded] = useState<DayParts>(() => value);
  const parsed = useMemo(() => parseDayParts(value), [value]);
  const [drag, setDrag] = useState<Drag | null>(null);
  const [focus, setFocus] = useState(() => Math.max(0, parsed.cells.indexOf(true)));
  // A mouse click follows the pointer press that already painted it: it is not a toggle.
  const painting = useRef(false);
  const table = useRef<HTMLTableElement>(null);

  const commit = useCallback((cells: Cells) => onChange(withCells(value, cells, loaded)), [onChange, value, loaded]);

  useEffect(() => {
    if (!drag) return;
    const up = () => {
      painting.current = true;
      setDrag(null);
      commit(painted(parsed.cells, drag));
    };
    const cancel = () => setDrag(null);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", cancel);
    return () => {
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", cancel);
    };
  }, [drag, commit, parsed]);

  const shown = drag ? painted(parsed.cells, drag) : parsed.cells;
  const count = parsed.cells.filter(Boolean).length;

  const toggle = (cell: number) => commit(parsed.cells.map((c, i) => (i === cell ? !c : c)));
  /** Every hour of `of` on, or off when all of them already are. */
  const fill = (of: (cell: number) => boolean) => {
    const all = parsed.cells.every((c, i) => !of(i) || c);
    commit(parsed.cells.map((c, i) => (of(i) ? !all : c)));
  };

  const moveTo = (cell: number) => {
    setFocus(cell);
    table.current?.querySelector<HTMLButtonElement>(`button[data-cell="${cell}"]`)?.focus();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>, cell: number) => {
    painting.current = false;
    const day = Math.floor(cell / HOURS);
    const hour = cell % HOURS;
    const to: Record<string, number> = {
      ArrowLeft: cellIndex(day, Math.max(0, hour - 1)),
      ArrowRight: cellIndex(day, Math.min(HOURS - 1, hour + 1)),
      ArrowUp: cellIndex(Math.max(0, day - 1), hour),
      ArrowDown: cellIndex(Math.min(DAYS.length - 1, day + 1), hour),
      Home: cellIndex(day, 0),
      End: cellIndex(day, HOURS - 1),
    };
    const next = to[e.key];
    if (next === undefined) return;
    e.preventDefault();
    moveTo(next);
  };
  const onPointerDown = (e: PointerEvent<HTMLButtonElement>, cell: number) => {
    if (disabled || e.button > 0) return;
    painting.current = false;
    // Touch captures the pointer to the first cell; let the cells under it see it move.
    if (e.currentTarget.hasPointerCapture?.(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
    setFocus(cell);
    setDrag({ from: cell, to: cell, on: !parsed.cells[cell] });
  };
  const onClick = (e: MouseEvent<HTMLButtonElement>, cell: number) => {
    // A pointer's click was painted on pointer up; a keyboard's (detail 0) toggles here.
    if (painting.current || e.detail > 0) {
      painting.current = false;
      return;
    }
    toggle(cell);
  };

  return (
    <div className="dayparts">
      <table ref={table} className="dayparts-grid" aria-label={label} aria-describedby={describedBy} data-dragging={drag ? "" : undefined}>
        <thead>
          <tr>
            <td />
            {Array.from({ length: HOURS }, (_, h) => (
              <th key={h} scope="col">
                <button
                  type="button"
                  className="dayparts-head"
                  tabIndex={-1}
                  disabled={disabled}
                  aria-label={`Every day ${hh(h)}–${hh(h + 1)}`}
                  title={`Every day ${hh(h)}–${hh(h + 1)}`}
                  onClick={() => fill((i) => i % HOURS === h)}
                >
                  {h}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {DAYS.map((d, day) => (
            <tr key={d}>
              <th scope="row">
                <button
                  type="button"
                  className="dayparts-head"
                  tabIndex={-1}
                  disabled={disabled}
                  aria-label={`${DAY_NAMES[day]}, every hour`}
                  title={`${DAY_NAMES[day]}, every hour`}
                  onClick={() => fill((i) => Math.floor(i / HOURS) === day)}
                >
                  {DAY_SHORT[day]}
                </button>
              </th>
              {Array.from({ length: HOURS }, (_, hour) => {
                const cell = cellIndex(day, hour);
                const on = shown[cell];
                return (
                  <td key={hour}>
                    <button
                      type="button"
                      className="dayparts-cell"
                      data-cell={cell}
                      data-day={d}
                      data-hour={hour}
                      data-on={on ? "" : undefined}
                      data-preview={drag && inDrag(drag, cell) ? "" : undefined}
                      aria-pressed={on}
                      aria-label={`${DAY_NAMES[day]} ${hh(hour)}–${hh(hour + 1)}`}
                      tabIndex={cell === focus ? 0 : -1}
                      disabled={disabled}
                      onPointerDown={(e) => onPointerDown(e, cell)}
                      onPointerEnter={() => {
                        if (drag && drag.to !== cell) setDrag({ ...drag, to: cell });
                      }}
                      onClick={(e) => onClick(e, cell)}
                      onKeyDown={(e) => onKeyDown(e, cell)}
                      onFocus={() => setFocus(cell)}
                    />
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="dayparts-foot">
        <span className="hint" data-testid="dayparts-count">
          {count} of {CELLS} hours
        </span>
        {!disabled && count > 0 && (
          <button type="button" className="small" data-action="clear-dayparts" onClick={() => commit(parsed.cells.map(() => false))}>
            Clear hours
          </button>
        )}
      </div>
      {parsed.others.length > 0 && <OtherItems items={parsed.others.map((o) => o.item)} />}
    </div>
  );
}

function OtherItems({ items }: { items: DayPartItem[] }) {
  return (
    <div className="dayparts-other" data-testid="dayparts-other">
      <div className="ro-label">Other day-part items (kept as they are)</div>
      <ul>
        {items.map((item, i) => (
          <li key={i}>
            <code className="mono">{JSON.stringify(item)}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

function isList(v: unknown): v is DayPartItem[] {
  return Array.isArray(v);
}

/** The grid over the form's field at `path`; errors at `path` and below land here. */
export function DayPartsField({ path, label }: { path: string; label: string }) {
  const ctx = useField();
  const raw = ctx.get(path);
  const value: DayParts = isList(raw) ? raw : raw === null ? null : undefined;
  const { set } = ctx;
  const onChange = useCallback((next: DayParts) => set(path, next), [set, path]);
  const errId = useId();
  const invalid = ctx.errorsAt(path).length > 0;
  return (
    <fieldset className="field dayparts-field" data-error-slot={path}>
      <legend>{label}</legend>
      <DayPartsGrid value={value} onChange={onChange} label={label} disabled={ctx.readOnly} describedBy={invalid ? errId : undefined} />
      <FieldErrors path={path} id={errId} />
    </fieldset>
  );
}
