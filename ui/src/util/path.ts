// Reading and writing values by wire path: `name`, `flights[1].startDate`,
// `audiences[0].exchanges.include`, `[2].maxBudget` (flight caps are a bare array).

export type Segment = string | number;

export function parsePath(path: string): Segment[] {
  const out: Segment[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) {
    if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[1] !== undefined) out.push(m[1]);
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function getPath(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const seg of parsePath(path)) {
    if (typeof seg === "number") {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[seg];
    } else {
      if (!isRecord(cur)) return undefined;
      cur = cur[seg];
    }
  }
  return cur;
}

function setSegments(node: unknown, segs: Segment[], value: unknown): unknown {
  if (segs.length === 0) return value;
  const [head, ...rest] = segs;
  if (typeof head === "number") {
    const arr = Array.isArray(node) ? [...node] : [];
    while (arr.length < head) arr.push(null);
    arr[head] = setSegments(arr[head], rest, value);
    return arr;
  }
  const obj: Record<string, unknown> = isRecord(node) ? { ...node } : {};
  obj[head] = setSegments(obj[head], rest, value);
  return obj;
}

/** A copy of `root` with `value` at `path`, creating objects and arrays on the way. */
export function setPath<T>(root: T, path: string, value: unknown): T {
  return setSegments(root, parsePath(path), value) as T;
}

/** A copy of `root` without the array element at `path` (`flights[2]`). */
export function removeAt<T>(root: T, arrayPath: string, index: number): T {
  const arr = arrayPath === "" ? root : getPath(root, arrayPath);
  if (!Array.isArray(arr)) return root;
  const next = arr.filter((_, i) => i !== index);
  if (arrayPath === "") return next as T;
  return setPath(root, arrayPath, next);
}

/** Appends `item` to the array at `path` (created when missing). */
export function appendAt<T>(root: T, arrayPath: string, item: unknown): T {
  const arr = arrayPath === "" ? root : getPath(root, arrayPath);
  const next = Array.isArray(arr) ? [...arr, item] : [item];
  if (arrayPath === "") return next as T;
  return setPath(root, arrayPath, next);
}

/** Whether `error` (a wire path) is `field` or lies inside it (`flights[1]` holds `flights[1].endDate`). */
export function pathWithin(error: string, field: string): boolean {
  if (error === field) return true;
  if (!error.startsWith(field)) return false;
  if (field === "") return true;
  const next = error.charAt(field.length);
  return next === "." || next === "[";
}

/**
 * Assigns each error path to the longest rendered field path that holds it; errors that
 * no rendered field holds are returned under the key "" (shown at the top of the form).
 */
export function routeErrors<E extends { field: string }>(errors: E[], rendered: Iterable<string>): Map<string, E[]> {
  const fields = [...rendered].filter((f) => f !== "").sort((a, b) => b.length - a.length);
  const out = new Map<string, E[]>();
  for (const e of errors) {
    const home = fields.find((f) => pathWithin(e.field, f)) ?? "";
    const list = out.get(home);
    if (list) list.push(e);
    else out.set(home, [e]);
  }
  return out;
}
