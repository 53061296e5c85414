// Rows the table screens have loaded, offered by the command palette.

export type EntitySource = { kind: string; labels: string[]; open: (index: number) => void };

const sources = new Map<string, EntitySource>();

export function publishEntities(source: string, entry: EntitySource | null): void {
  if (entry) sources.set(source, entry);
  else sources.delete(source);
}

export function entitySources(): EntitySource[] {
  return [...sources.values()];
}

/** Forgets every source (another account signed in). */
export function clearEntities(): void {
  sources.clear();
}
