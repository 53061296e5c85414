const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const int = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** Whether `v` shows as zero at cents: a sum's -0.001 (or -0) reads "$0.00", never "-$0.00". */
export function zeroAtCents(v: number): boolean {
  return Math.round(Math.abs(v) * 100) === 0;
}

export function money(v: number | null | undefined): string {
  if (v === null || v === undefined) return "";
  return usd.format(zeroAtCents(v) ? 0 : v);
}

export function count(v: number | null | undefined): string {
  return v === null || v === undefined ? "" : int.format(v);
}

/** A compact, readable rendering of any JSON value (diffs, conflicts). */
export function showJson(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "string") return v === "" ? '""' : v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
