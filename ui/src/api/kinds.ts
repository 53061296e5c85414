// The UI's one list of kinds and their words, from the Rust side's `Kind` (through the
// generated `KINDS`): names, titles, whether a kind has a table or an update, and the
// fields a posted entity cannot change, with the model's reason.
import { KINDS } from "../bindings";
import type { Kind } from "./types";

/** One kind's facts, as `Kind::info` gives them. */
export type KindInfo = (typeof KINDS)[number];

/** Every kind, in posting order. */
export const ALL_KINDS: readonly KindInfo[] = KINDS;

/** The facts of `kind`. */
export function kindInfo(kind: Kind): KindInfo {
  const info = KINDS.find((k) => k.kind === kind);
  if (!info) throw new Error(`no kind ${kind} in the bindings`);
  return info;
}

/** "ad order" → "Ad order": the first letter capitalised, as headings read. */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Why `field` of a posted entity of `kind` cannot change (the service ignores it on
 * update), or null when it can, or the entity is not posted.
 */
export function fixedOncePosted(kind: Kind, field: string, posted: boolean): string | null {
  if (!posted) return null;
  const rules: readonly { field: string; why: string }[] = kindInfo(kind).ignoredOnUpdate;
  return rules.find((r) => r.field === field)?.why ?? null;
}

type TableKindInfo = Extract<KindInfo, { hasTable: true }>;

/** A kind with a screen of its own. */
export type TableKind = TableKindInfo["kind"];

/** The kinds with a screen of their own, in posting order. */
export const TABLE_KINDS: readonly TableKindInfo[] = KINDS.filter((k): k is TableKindInfo => k.hasTable);

/** A kind's screen as links and tests name it (`data-nav`): its plural, words joined by `_` ("ad_orders"). */
export function navId(kind: Kind): string {
  return kindInfo(kind).plural.replaceAll(" ", "_");
}

/** A form's heading: "New ad order", or "Ad order: Spring display" for one that exists. */
export function formTitle(kind: Kind, existing: boolean, name: string): string {
  const label = kindInfo(kind).label;
  return existing ? `${capitalised(label)}: ${name}` : `New ${label}`;
}
