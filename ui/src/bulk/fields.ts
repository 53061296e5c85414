// A kind's fields by the labels the grid shows, from the Rust side (`edit_fields`): what
// bulk edit and find and replace offer, whatever rows are selected.
import { useEffect, useState } from "react";
import { commands, type FieldInfo } from "../bindings";
import type { Kind } from "../api/types";

const cache = new Map<Kind, Promise<FieldInfo[]>>();

/** The fields of `kind`, asked once per kind (they are facts of the build, not of the data); none for `null`. */
export function useEditFields(kind: Kind | null): FieldInfo[] {
  const [fields, setFields] = useState<FieldInfo[]>([]);
  useEffect(() => {
    if (kind === null) return;
    let live = true;
    let asked = cache.get(kind);
    if (!asked) {
      asked = commands.editFields(kind).catch((): FieldInfo[] => []);
      cache.set(kind, asked);
    }
    void asked.then((f) => {
      // An empty answer (a failed ask) is asked again next time.
      if (f.length === 0) cache.delete(kind);
      if (live) setFields(f);
    });
    return () => {
      live = false;
    };
  }, [kind]);
  return fields;
}

/** Forgets the asked lists (tests swap the fake answers between cases). */
export function forgetEditFields(): void {
  cache.clear();
}

const fold = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();

/** The field a typed name stands for, by label, alias or wire path; undefined when none. */
export function fieldNamed(fields: FieldInfo[], name: string): FieldInfo | undefined {
  const key = fold(name);
  if (key === "") return undefined;
  return fields.find((f) => fold(f.label) === key || f.aliases.some((a) => fold(a) === key) || f.path === name.trim());
}

/** `flights[0].endDate` as the field list names it: `flights[*].endDate`. */
export function genericPath(path: string): string {
  return path.replace(/\[\d+\]/g, "[*]");
}

/**
 * A wire path in the buyer's words: the field's label, with the item's number when the
 * path is inside a list (`flights[1].endDate` → "Flight end #2"); the path itself when
 * the kind lists no such field.
 */
export function labelOfPath(fields: FieldInfo[], path: string): string {
  const f = fields.find((g) => g.path === genericPath(path));
  if (!f) return path;
  const index = /\[(\d+)\]/.exec(path);
  return index ? `${f.label} #${Number(index[1]) + 1}` : f.label;
}
