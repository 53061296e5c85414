import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import type { AnyRow, Kind } from "../api/types";
import { useWorkspaceChanged } from "../state/events";
import type { WindowFetch } from "../table/windowCache";
import { refKey } from "../util/refs";
import { PICK_LIMIT } from "./EntitySelect";

export type EntityMultiSelectProps<R extends AnyRow> = {
  /** The query command of the kind offered. */
  fetch: WindowFetch<R>;
  /** The kind offered: names are asked again when the workspace changes it. */
  kind: Kind;
  /** The number the wire holds for a row (its posted id), or null when it has none yet. */
  idOf: (row: R) => number | null;
  /** The ids picked, as the wire holds them. */
  value: readonly number[];
  onChange: (next: number[]) => void;
  /** What is picked, for accessible names. */
  label: string;
  /** The search box's id, for a `<label htmlFor>`. */
  id?: string;
  optionLabel?: (row: R) => string;
  disabled?: boolean;
  invalid?: boolean;
  describedBy?: string;
};

type Listing<R> = { rows: R[]; total: number };

/** Numbers typed in the box (`12`, `12, 14 15`), or null when the text is not only numbers. */
function typedIds(text: string): number[] | null {
  const tokens = text.split(/[\s,;]+/).filter((t) => t !== "");
  if (tokens.length === 0) return null;
  const nums = tokens.map(Number);
  return nums.every((n) => Number.isFinite(n)) ? nums : null;
}

/**
 * Several entities of one kind, by the ids the wire holds: the picked ones as removable
 * chips with their names, and a search box over the kind's query command (the first
 * `PICK_LIMIT` matches by name; the whole kind is never loaded). An id the workspace does
 * not hold can be typed and added with Enter; its chip says so.
 */
export function EntityMultiSelect<R extends AnyRow>(p: EntityMultiSelectProps<R>) {
  const { fetch, value, onChange, disabled = false } = p;
  const listId = useId();
  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [list, setList] = useState<Listing<R> | null>(null);
  // Names of picked ids found by their own query; null: the workspace has no such row.
  const [names, setNames] = useState<ReadonlyMap<number, string | null>>(() => new Map());
  const [changed, setChanged] = useState(0);
  useWorkspaceChanged([p.kind], () => {
    setNames(new Map());
    setChanged((n) => n + 1);
  });
  // The callers pass these inline; the queries below should not run again for that.
  const rowFns = useRef({ idOf: p.idOf, label: p.optionLabel ?? ((r: R) => r.label) });
  useEffect(() => {
    rowFns.current = { idOf: p.idOf, label: p.optionLabel ?? ((r: R) => r.label) };
  });

  useEffect(() => {
    if (!open || disabled) return;
    let live = true;
    void fetch({ parent: null, filter: text, sort: { column: "name", descending: false }, offset: 0, limit: PICK_LIMIT }).then((w) => {
      if (!live || !w) return;
      setList({ rows: w.rows, total: w.total });
      // Keep the names seen, so a picked id stays named once a search narrows past it.
      setNames((prev) => {
        const next = new Map(prev);
        for (const r of w.rows) {
          const id = rowFns.current.idOf(r);
          if (id !== null) next.set(id, rowFns.current.label(r));
        }
        return next;
      });
    });
    return () => {
      live = false;
    };
  }, [fetch, open, text, changed, disabled]);

  const idOf = p.idOf;
  const label = p.optionLabel ?? ((r: R) => r.label);
  const listedName = (id: number): string | undefined => {
    const r = list?.rows.find((x) => idOf(x) === id);
    return r ? label(r) : undefined;
  };
  const missing = [...new Set(value)].filter((id) => !names.has(id) && listedName(id) === undefined);
  const missingKey = missing.join(",");
  useEffect(() => {
    if (missingKey === "") return;
    let live = true;
    const ids = missingKey.split(",").map(Number);
    void Promise.all(
      ids.map((id) =>
        fetch({ parent: null, filter: String(id), sort: null, offset: 0, limit: PICK_LIMIT }).then((w) => {
          const hit = w?.rows.find((r) => rowFns.current.idOf(r) === id);
          return [id, hit ? rowFns.current.label(hit) : w ? null : undefined] as const;
        }),
      ),
    ).then((found) => {
      if (!live) return;
      setNames((prev) => {
        const next = new Map(prev);
        // A failed query leaves the id unnamed rather than calling it unknown.
        for (const [id, name] of found) if (name !== undefined) next.set(id, name);
        return next;
      });
    });
    return () => {
      live = false;
    };
  }, [missingKey, fetch, changed]);

  const options = list?.rows ?? [];
  const more = list ? list.total - list.rows.length : 0;
  const picked = new Set(value);

  const add = (ids: number[]) => {
    const next = [...value];
    for (const id of ids) if (!next.includes(id)) next.push(id);
    if (next.length !== value.length) onChange(next);
  };
  const removeAt = (i: number) => onChange(value.filter((_, j) => j !== i));
  const toggle = (row: R) => {
    const id = idOf(row);
    if (id === null) return;
    if (picked.has(id)) onChange(value.filter((x) => x !== id));
    else add([id]);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      setOpen(true);
      setActive((a) => Math.min(a + 1, options.length - 1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setActive((a) => Math.max(a - 1, -1));
    } else if (e.key === "Enter") {
      // Enter picks; it does not submit the form around the picker.
      e.preventDefault();
      const row = active >= 0 ? options[active] : undefined;
      if (row) {
        toggle(row);
        return;
      }
      // Numbers are ids, listed or not; other text picks the first match.
      const typed = typedIds(text);
      const first = options.map(idOf).find((id): id is number => id !== null);
      if (typed) add(typed);
      else if (text.trim() !== "" && first !== undefined) add([first]);
      else return;
      setText("");
      setActive(-1);
    } else if (e.key === "Escape" && open) {
      // Closes the list, not the form.
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
      setActive(-1);
    } else if (e.key === "Backspace" && text === "" && value.length > 0) {
      removeAt(value.length - 1);
    }
  };

  const chipText = (id: number): { text: string; state: "known" | "unknown" | "loading" } => {
    const name = listedName(id) ?? names.get(id);
    if (typeof name === "string") return { text: name, state: "known" };
    if (name === null) return { text: `id ${id} (not in workspace)`, state: "unknown" };
    return { text: `id ${id}`, state: "loading" };
  };
  const typed = typedIds(text);
  const activeId = active >= 0 && options[active] ? `${listId}-${active}` : undefined;

  return (
    <div className="entity-multi" data-disabled={disabled || undefined}>
      {value.length > 0 && (
        <ul className="entity-chips" aria-label={`${p.label}: picked`}>
          {value.map((id, i) => {
            const c = chipText(id);
            return (
              <li key={i} className="chip" data-id={id} data-state={c.state}>
                <span className="chip-text">{c.text}</span>
                {c.state === "known" && <span className="hint">#{id}</span>}
                {!disabled && (
                  <button type="button" className="icon-button" aria-label={`Remove ${c.state === "known" ? c.text : `id ${id}`}`} onClick={() => removeAt(i)}>
                    ×
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {disabled && value.length === 0 && <span className="muted">—</span>}
      {!disabled && (
        <div className="entity-multi-box">
          <input
            id={p.id}
            type="text"
            role="combobox"
            className="entity-multi-search"
            placeholder="Search, or type an id and press Enter"
            aria-label={`${p.label}: search or type an id`}
            aria-expanded={open}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={activeId}
            aria-invalid={p.invalid || undefined}
            aria-describedby={p.describedBy}
            autoComplete="off"
            value={text}
            onFocus={() => setOpen(true)}
            onBlur={() => {
              setOpen(false);
              setActive(-1);
            }}
            onChange={(e) => {
              setText(e.target.value);
              setOpen(true);
              setActive(-1);
            }}
            onKeyDown={onKeyDown}
          />
          {open && (
            <div className="entity-multi-pop">
              {typed && <div className="entity-multi-note">Enter adds {typed.length === 1 ? `id ${typed[0]}` : `ids ${typed.join(", ")}`}</div>}
              <ul role="listbox" id={listId} aria-label={p.label} aria-multiselectable="true">
                {options.map((r, i) => {
                  const id = idOf(r);
                  const on = id !== null && picked.has(id);
                  return (
                    <li
                      key={refKey(r.target)}
                      id={`${listId}-${i}`}
                      role="option"
                      aria-selected={on}
                      aria-disabled={id === null || undefined}
                      data-active={i === active || undefined}
                      className="entity-multi-option"
                      // Keeps the focus in the search box.
                      onMouseDown={(e) => e.preventDefault()}
                      onClick={() => toggle(r)}
                    >
                      <span className="check" aria-hidden="true">
                        {on ? "✓" : ""}
                      </span>
                      {label(r)}
                      <span className="hint">{id === null ? " (not posted yet: no id)" : ` #${id}`}</span>
                    </li>
                  );
                })}
              </ul>
              {list && options.length === 0 && <div className="entity-multi-note muted">No match in the workspace.</div>}
              {more > 0 && <div className="entity-multi-note muted">… {more.toLocaleString()} more: search to narrow</div>}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
