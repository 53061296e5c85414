// Each kind's cells as the core describes them (`cellFacts`): the field a column edits,
// its control, and why a cell cannot be edited. Facts of the build, asked once per kind.
import { useEffect, useState } from "react";
import { commands } from "../../bindings";
import type { Kind } from "../../api/types";
import type { CellFact } from "./types";

const cache = new Map<Kind, Promise<CellFact[]>>();

async function ask(kind: Kind): Promise<CellFact[]> {
  try {
    return await commands.cellFacts(kind);
  } catch {
    return [];
  }
}

/** The facts of `kind`'s cells by column id; `null` until they are known (or for no kind). */
export function useCellFacts(kind: Kind | null): ReadonlyMap<string, CellFact> | null {
  const [facts, setFacts] = useState<{ kind: Kind; map: ReadonlyMap<string, CellFact> } | null>(null);
  useEffect(() => {
    if (kind === null) return;
    let live = true;
    let asked = cache.get(kind);
    if (!asked) {
      asked = ask(kind);
      cache.set(kind, asked);
    }
    void asked.then((list) => {
      // An empty answer (a failed ask) is asked again next time.
      if (list.length === 0) cache.delete(kind);
      if (live) setFacts({ kind, map: new Map(list.map((f) => [f.column, f])) });
    });
    return () => {
      live = false;
    };
  }, [kind]);
  return facts !== null && facts.kind === kind ? facts.map : null;
}

/** Forgets the asked facts (tests swap the fake answers between cases). */
export function forgetCellFacts(): void {
  cache.clear();
}

/** Whether an error's wire path (`flights[0].endDate`) is the cell's field (`flights[*].endDate`) or inside it. */
export function errorIsAt(errorPath: string, cellPath: string): boolean {
  const generic = errorPath.replace(/\[\d+\]/g, "[*]");
  return [errorPath, generic].some((p) => p === cellPath || p.startsWith(`${cellPath}.`) || p.startsWith(`${cellPath}[`));
}
