// Dates are stored as Unix milliseconds and shown in the advertiser's timezone (IANA name).

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, f);
  }
  return f;
}

type Wall = { y: number; mo: number; d: number; h: number; mi: number; s: number };

function wallClock(ms: number, zone: string): Wall {
  const parts = partsFormatter(zone).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? "0");
  return { y: get("year"), mo: get("month"), d: get("day"), h: get("hour") % 24, mi: get("minute"), s: get("second") };
}

/** Offset of `zone` from UTC at instant `ms`, in milliseconds. */
export function zoneOffset(ms: number, zone: string): number {
  const w = wallClock(ms, zone);
  const asUtc = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** `YYYY-MM-DDTHH:mm` in `zone`, the value of a `datetime-local` input. */
export function toLocalInput(ms: number | null | undefined, zone: string): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  const w = wallClock(ms, zone);
  return `${pad(w.y, 4)}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}`;
}

/** The instant whose wall-clock time in `zone` is `value` (`YYYY-MM-DDTHH:mm[:ss]`), or null. */
export function fromLocalInput(value: string, zone: string): number | null {
  const m = /^(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(value);
  if (!m) return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? "0"));
  let guess = wall - zoneOffset(wall, zone);
  const second = wall - zoneOffset(guess, zone);
  if (second !== guess) guess = second;
  return guess;
}

const displayFormatters = new Map<string, Intl.DateTimeFormat>();

/** A short human date-time in `zone`. */
export function formatDateTime(ms: number | null | undefined, zone: string, withTime = true): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  const k = `${zone}|${withTime}`;
  let f = displayFormatters.get(k);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, {
      timeZone: zone,
      year: "numeric",
      month: "short",
      day: "numeric",
      ...(withTime ? { hour: "2-digit", minute: "2-digit" } : {}),
    });
    displayFormatters.set(k, f);
  }
  return f.format(new Date(ms));
}

/** Whether the runtime knows `zone`. */
export function isZone(zone: string): boolean {
  try {
    partsFormatter(zone);
    return true;
  } catch {
    return false;
  }
}
