import { type KeyboardEvent, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { SCREENS, useApp } from "../state/app";
import { entitySources } from "../state/registry";
import { fuzzyFilterBy, fuzzyScore } from "../util/fuzzy";

export type PaletteItem = { id: string; group: "Go to" | "Action" | string; label: string; run: () => void };

/** The palette list with fuzzy filtering; `items` are all candidates. */
export function PaletteView({ items, onClose, limit = 60 }: { items: PaletteItem[]; onClose: () => void; limit?: number }) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query);
  const [index, setIndex] = useState(0);
  const inputRef = useRef<HTMLInputElement>(null);
  // The name counts most; the group ("Campaign", "Go to") helps only when the name alone does not match.
  const results = useMemo(
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

/** Ctrl/Cmd+K: jump to any screen, run an action or open an item by name. */
export function Palette({ onClose }: { onClose: () => void }) {
  const app = useApp();
  const items = useMemo<PaletteItem[]>(() => {
    const out: PaletteItem[] = [];
    for (const s of SCREENS) out.push({ id: `go:${s.id}`, group: "Go to", label: s.label, run: () => app.setScreen(s.id) });
    const action = (id: string, label: string, run: () => void) => out.push({ id: `action:${id}`, group: "Action", label, run });
    action("post", `Post ${app.snapshot.pendingCount} changes`, () => void app.post(null));
    action("download", "Download from the service", () => void app.download());
    action("check", "Check changes", () => app.setScreen("pending"));
    action("new-advertiser", "New advertiser", () => {
      app.setScreen("advertisers");
      app.openEditor({ kind: "advertiser" });
    });
    action("new-campaign", "New campaign", () => {
      app.setScreen("campaigns");
      app.openEditor({ kind: "campaign", parent: app.scope?.kind === "advertiser" ? app.scope : null });
    });
    action("new-ad-order", "New ad order", () => {
      app.setScreen("ad_orders");
      app.openEditor({ kind: "ad_order", parent: app.scope?.kind === "campaign" ? app.scope : null });
    });
    action("new-creative", "New creative", () => {
      app.setScreen("creatives");
      app.openEditor({ kind: "creative", parent: app.scope?.kind === "advertiser" ? app.scope : null });
    });
    action("new-site-list", "New site list", () => {
      app.setScreen("site_lists");
      app.openEditor({ kind: "site_list" });
    });
    action("new-segment", "New audience segment", () => {
      app.setScreen("audience_segments");
      app.openEditor({ kind: "audience_segment" });
    });
    if (app.snapshot.sandbox !== null) action("sandbox", app.snapshot.sandbox === "running" ? "Stop local sandbox" : "Start local sandbox", () => void app.toggleSandbox());
    action("sign-out", "Sign out", () => void app.signOut());

    const seen = new Set<string>();
    app.advertisers.forEach((a, i) => {
      const id = `advertiser:${i}:${a.label}`;
      seen.add(`Advertiser|${a.label}`);
      out.push({ id, group: "Advertiser", label: a.label, run: () => app.openEditor({ kind: "advertiser", row: a }) });
    });
    app.campaigns.forEach((c, i) => {
      seen.add(`Campaign|${c.label}`);
      out.push({ id: `campaign:${i}:${c.label}`, group: "Campaign", label: c.label, run: () => app.openEditor({ kind: "campaign", row: c }) });
    });
    for (const src of entitySources()) {
      src.labels.forEach((label, i) => {
        if (seen.has(`${src.kind}|${label}`)) return;
        out.push({ id: `${src.kind}:${i}:${label}`, group: src.kind, label, run: () => src.open(i) });
      });
    }
    return out;
  }, [app]);
  return <PaletteView items={items} onClose={onClose} />;
}
