import { ALL_KINDS } from "../api/kinds";
import type { EntityRef } from "../api/types";

export function sameRef(a: EntityRef | null | undefined, b: EntityRef | null | undefined): boolean {
  if (!a || !b) return false;
  return a.kind === b.kind && a.key.type === b.key.type && a.key.value === b.key.value;
}

/** Canonical JSON of a reference: stable key order, usable as an option value or map key. */
export function refKey(r: EntityRef): string {
  return JSON.stringify({ kind: r.kind, key: { type: r.key.type, value: r.key.value } });
}

export function parseRef(s: string): EntityRef | null {
  if (!s) return null;
  try {
    const v: unknown = JSON.parse(s);
    if (typeof v !== "object" || v === null) return null;
    const rawKind: unknown = Reflect.get(v, "kind");
    const key: unknown = Reflect.get(v, "key");
    const kind = ALL_KINDS.find((k) => k.kind === rawKind)?.kind;
    if (!kind || typeof key !== "object" || key === null) return null;
    const type: unknown = Reflect.get(key, "type");
    const value: unknown = Reflect.get(key, "value");
    if (type === "id" && typeof value === "number") return { kind, key: { type, value } };
    if (type === "segment" && typeof value === "string") return { kind, key: { type, value } };
    if (type === "local" && typeof value === "string") return { kind, key: { type, value } };
    return null;
  } catch {
    return null;
  }
}

/** Whether the service knows the entity (not a local draft): edits to it post as updates. */
export function isRemote(r: EntityRef | null | undefined): boolean {
  return !!r && r.key.type !== "local";
}

/** The service id of an entity, when it has one. */
export function remoteId(r: EntityRef | null | undefined): number | null {
  return r && r.key.type === "id" ? r.key.value : null;
}
