import { useEffect, useState } from "react";
import type { AnyRow, EntityRef, Kind } from "../api/types";
import { useWorkspaceChanged } from "../state/events";
import type { WindowFetch } from "../table/windowCache";
import { parseRef, refKey, sameRef } from "../util/refs";

/** Options a picker lists at once; a search box narrows longer lists (on the Rust side). */
export const PICK_LIMIT = 100;

export type EntitySelectProps<R extends AnyRow> = {
  /** The query command of the kind offered. */
  fetch: WindowFetch<R>;
  /** The kind offered: the list is asked again when the workspace changes it. */
  kind: Kind;
  id?: string;
  name: string;
  /** What is picked, for the search box's accessible name. */
  label: string;
  /** Only children of this entity (an advertiser's campaigns). */
  parent?: EntityRef | null;
  value: EntityRef | null;
  /** The value's label when the caller knows it (before, or beyond, the options loaded). */
  valueLabel?: string | null;
  onChange: (ref: EntityRef | null, row: R | null) => void;
  optionLabel?: (row: R) => string;
  emptyLabel?: string;
  disabled?: boolean;
  invalid?: boolean;
};

type Listing<R> = { rows: R[]; total: number; unfiltered: number };

/**
 * A `<select>` of entities from a query command: the first `PICK_LIMIT` by name, and a
 * search box (the query's filter) when there are more. The whole kind is never loaded;
 * a disabled picker loads nothing but its value's label.
 */
export function EntitySelect<R extends AnyRow>(p: EntitySelectProps<R>) {
  const { fetch, parent = null, value, disabled = false } = p;
  const [search, setSearch] = useState("");
  const [list, setList] = useState<Listing<R> | null>(null);
  const [changed, setChanged] = useState(0);
  useWorkspaceChanged([p.kind], () => setChanged((n) => n + 1));
  const parentKey = parent ? refKey(parent) : "";

  useEffect(() => {
    if (disabled) return;
    let live = true;
    void fetch({ parent, filter: search, sort: { column: "name", descending: false }, offset: 0, limit: PICK_LIMIT }).then((w) => {
      if (live && w) setList({ rows: w.rows, total: w.total, unfiltered: w.unfiltered });
    });
    return () => {
      live = false;
    };
    // `parent` is compared by value (parentKey).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fetch, parentKey, search, changed, disabled]);

  // A value beyond the listed options (a long list, another advertiser's): its label by its id.
  const current = value ? refKey(value) : "";
  const listed = list?.rows.find((r) => sameRef(r.target, value));
  const [found, setFound] = useState<{ key: string; label: string } | null>(null);
  const needLabel = value !== null && (list !== null || disabled) && !listed && !p.valueLabel && value.key.type === "id" && found?.key !== current;
  useEffect(() => {
    if (!needLabel || value === null) return;
    let live = true;
    void fetch({ parent: null, filter: String(value.key.value), sort: null, offset: 0, limit: 50 }).then((w) => {
      const hit = w?.rows.find((r) => sameRef(r.target, value));
      if (live) setFound({ key: current, label: hit ? hit.label : `#${value.key.value}` });
    });
    return () => {
      live = false;
    };
  }, [needLabel, fetch, value, current]);

  const label = p.optionLabel ?? ((r: R) => r.label);
  const fallback = p.valueLabel ?? (found?.key === current ? found.label : value?.key.type === "local" ? "(draft)" : current);
  const more = list ? list.total - list.rows.length : 0;
  return (
    <span className="entity-select">
      {((list && list.unfiltered > PICK_LIMIT) || search !== "") && (
        <input
          type="search"
          className="entity-search"
          placeholder="Search…"
          aria-label={`Search ${p.label}`}
          value={search}
          disabled={disabled}
          onChange={(e) => setSearch(e.target.value)}
          onKeyDown={(e) => {
            // Enter narrows the list; it does not submit the form around it.
            if (e.key === "Enter") e.preventDefault();
          }}
        />
      )}
      <select
        id={p.id}
        name={p.name}
        value={current}
        disabled={disabled}
        aria-invalid={p.invalid || undefined}
        onChange={(e) => {
          const ref = parseRef(e.target.value);
          p.onChange(ref, list?.rows.find((r) => sameRef(r.target, ref)) ?? null);
        }}
      >
        <option value="">{p.emptyLabel ?? "Choose…"}</option>
        {!listed && current !== "" && <option value={current}>{fallback}</option>}
        {list?.rows.map((r) => (
          <option key={refKey(r.target)} value={refKey(r.target)}>
            {label(r)}
          </option>
        ))}
        {more > 0 && (
          <option disabled value="-more">
            … {more.toLocaleString()} more: search to narrow
          </option>
        )}
      </select>
    </span>
  );
}
