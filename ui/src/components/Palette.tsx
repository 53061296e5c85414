import { type KeyboardEvent, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { TABLE_KINDS } from "../api/kinds";
import { openTagSheet } from "../bulk/TagSheetDialog";
import { ENTITY_SEARCHES, newEditor } from "../screens/entities";
import { SCREENS, useNavActions, useNavigation } from "../state/navigation";
import { useSession } from "../state/session";
import { useSync } from "../state/sync";
import { fuzzyFilterBy, fuzzyScore } from "../util/fuzzy";

export type PaletteItem = { id: string; group: "Go to" | "Action" | string; label: string; run: () => void };

/** Finds items by what was typed, elsewhere (the entities, by the query commands). */
export type PaletteSearch = (text: string) => Promise<PaletteItem[]>;

/**
 * The palette list: `items` (screens, actions) filtered by fuzzy match, then what `search`
 * finds for the text typed (the latest answer only).
 */
export function PaletteView({ items, onClose, limit = 60, search }: { items: PaletteItem[]; onClose: () => void; limit?: number; search?: PaletteSearch }) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query);
  const [index, setIndex] = useState(0);
  const inputRef = useRef<HTMLInputElement>(null);
  const [found, setFound] = useState<{ text: string; items: PaletteItem[] }>({ text: "", items: [] });
  useEffect(() => {
    const text = deferred.trim();
    if (!search || text === "") return;
    let live = true;
    void search(text).then((items) => {
      if (live) setFound({ text, items });
    });
    return () => {
      live = false;
    };
  }, [search, deferred]);
  // The name counts most; the group ("Campaign", "Go to") helps only when the name alone does not match.
  const fixed = useMemo(
    () =>
      fuzzyFilterBy(
        items,
        deferred,
        (i) => {
          const own = fuzzyScore(deferred, i.label);
          if (own !== null) return own;
          const withGroup = fuzzyScore(deferred, `${i.group} ${i.label}`);
          return withGroup === null ? null : withGroup - 2000;
        },
        limit,
      ),
    [items, deferred, limit],
  );
  const results = useMemo(() => (found.text === deferred.trim() && found.text !== "" ? [...fixed, ...found.items] : fixed), [fixed, found, deferred]);
  useEffect(() => setIndex(0), [deferred]);
  useEffect(() => inputRef.current?.focus(), []);

  const runAt = (i: number) => {
    const item = results[i];
    if (!item) return;
    onClose();
    item.run();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown") setIndex((i) => Math.min(results.length - 1, i + 1));
    else if (e.key === "ArrowUp") setIndex((i) => Math.max(0, i - 1));
    else if (e.key === "Enter") runAt(index);
    else if (e.key === "Escape") onClose();
    else return;
    e.preventDefault();
  };

  return (
    <div className="palette-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="palette" data-palette="" role="dialog" aria-modal="true" aria-label="Command palette" onKeyDown={onKeyDown}>
        <input
          ref={inputRef}
          data-palette-input=""
          type="text"
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={results[index] ? `palette-${index}` : undefined}
          aria-label="Search screens, actions and items"
          placeholder="Type a screen, an action or a name…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <ul id="palette-list" role="listbox" aria-label="Results">
          {results.map((item, i) => (
            <li
              key={item.id}
              id={`palette-${i}`}
              role="option"
              aria-selected={i === index}
              data-palette-item={item.label}
              className={i === index ? "active" : undefined}
              onMouseEnter={() => setIndex(i)}
              onClick={() => runAt(i)}
            >
              <span className="palette-group">{item.group}</span> {item.label}
            </li>
          ))}
          {results.length === 0 && <li className="muted">Nothing matches.</li>}
        </ul>
      </div>
    </div>
  );
}

/** Entities per kind the palette lists for what was typed. */
const PER_KIND = 6;

/** Ctrl/Cmd+K: jump to any screen, run an action or open an item by name. */
export function Palette({ onClose }: { onClose: () => void }) {
  const nav = useNavActions();
  const { scope } = useNavigation();
  const session = useSession();
  const sync = useSync();
  const { setScreen, openEditor } = nav;
  const items = useMemo<PaletteItem[]>(() => {
    const out: PaletteItem[] = [];
    for (const s of SCREENS) out.push({ id: `go:${s.nav}`, group: "Go to", label: s.label, run: () => setScreen(s.id) });
    const action = (id: string, label: string, run: () => void) => out.push({ id: `action:${id}`, group: "Action", label, run });
    action("post", `Post ${sync.pendingCount} changes`, () => void sync.post(null));
    action("download", "Download from the service", () => void sync.startDownload());
    action("check", "Check changes", () => setScreen("pending"));
    action("import-tags", "Import tag sheet…", () => void openTagSheet());
    for (const k of TABLE_KINDS) {
      action(`new-${k.name.replaceAll("_", "-")}`, `New ${k.label}`, () => {
        setScreen(k.kind);
        openEditor(newEditor(k.kind, scope));
      });
    }
    const sandbox = session.snapshot.sandbox;
    if (sandbox !== null) action("sandbox", sandbox === "running" ? "Stop local sandbox" : "Start local sandbox", () => void session.toggleSandbox());
    action("sign-out", "Sign out", () => void session.signOut());
    return out;
  }, [setScreen, openEditor, scope, sync, session]);

  const search = useMemo<PaletteSearch>(
    () => async (text) => {
      const kinds = await Promise.all(ENTITY_SEARCHES.map(async (k) => ({ k, hits: await k.search(text, PER_KIND) })));
      return kinds.flatMap(({ k, hits }) =>
        hits.map((h, i) => ({
          id: `${k.group}:${i}:${h.label}`,
          group: k.group,
          label: h.label,
          run: () => {
            setScreen(k.screen);
            openEditor(h.editor);
          },
        })),
      );
    },
    [setScreen, openEditor],
  );
  return <PaletteView items={items} onClose={onClose} search={search} />;
}
