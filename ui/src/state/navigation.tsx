import { type ReactNode, createContext, useContext, useEffect, useMemo, useRef, useState } from "react";
import { TABLE_KINDS, type TableKind, navId } from "../api/kinds";
import type { AdOrderRow, AdvertiserRow, CampaignRow, CreativeRow, EntityRef, FlightCapsRow, SegmentRow, SiteListRow } from "../api/types";
import { sessionKey, useSession } from "./session";

/** A screen: a kind's table (by the kind's name), or the pending changes. */
export type Screen = TableKind | "pending";

/** Every screen in the sidebar's order: one per kind with a table, from the Rust side's list, then pending. */
export const SCREENS: { id: Screen; nav: string; label: string }[] = [
  ...TABLE_KINDS.map((k) => ({ id: k.kind, nav: navId(k.kind), label: k.title })),
  { id: "pending", nav: "pending", label: "Pending changes" },
];

/** A parent a new entity is made under, with what the form shows of it before it loads anything. */
export type ParentHint = { target: EntityRef; label: string; timezone: string | null; advertiser: EntityRef | null };

/** What the edit panel shows. `row` is absent for a new entity. */
export type Editor =
  | { kind: "advertiser"; row?: AdvertiserRow }
  | { kind: "campaign"; row?: CampaignRow; parent?: ParentHint | null }
  | { kind: "ad_order"; row?: AdOrderRow; parent?: ParentHint | null }
  | { kind: "flight_caps"; adOrder: AdOrderRow; row?: FlightCapsRow | null }
  | { kind: "creative"; row?: CreativeRow; parent?: ParentHint | null }
  | { kind: "site_list"; row?: SiteListRow }
  | { kind: "audience_segment"; row?: SegmentRow };

/**
 * The account tree's selection, which narrows the tables: an advertiser, or a campaign
 * (with its advertiser, so screens of advertiser-owned kinds narrow too).
 */
export type Scope = { target: EntityRef; label: string; timezone: string | null; advertiser: EntityRef | null; advertiserLabel: string | null };

/** Stable functions: reading them never re-renders a screen. */
export type NavActions = {
  setScreen: (s: Screen) => void;
  setScope: (s: Scope | null) => void;
  /**
   * Shows `e` in the side panel. A form already there with work not saved asks first
   * (through the guard the panel sets), whoever asks: a cursor move the panel follows, a
   * double click, the palette, "New".
   */
  openEditor: (e: Editor) => void;
  closeEditor: () => void;
  setPaletteOpen: (open: boolean) => void;
  /** What replacing the panel's form must pass first (the panel's "leave" of its forms). */
  setEditorGuard: (guard: ((then: () => void) => void) | null) => void;
};

const ActionsCtx = createContext<NavActions | null>(null);
const ScreenCtx = createContext<{ screen: Screen; scope: Scope | null } | null>(null);
const EditorCtx = createContext<Editor | null>(null);
const PaletteCtx = createContext(false);

function need<T>(v: T | null, what: string): T {
  if (v === null) throw new Error(`${what} outside NavigationProvider`);
  return v;
}

export function useNavActions(): NavActions {
  return need(useContext(ActionsCtx), "useNavActions");
}

/** The current screen and tree scope (not the editor: opening a form does not re-render tables). */
export function useNavigation(): { screen: Screen; scope: Scope | null } & NavActions {
  const where = need(useContext(ScreenCtx), "useNavigation");
  const actions = useNavActions();
  return { ...where, ...actions };
}

export function useEditor(): { editor: Editor | null; openEditor: (e: Editor) => void; closeEditor: () => void } {
  const editor = useContext(EditorCtx);
  const { openEditor, closeEditor } = useNavActions();
  return { editor, openEditor, closeEditor };
}

export function usePaletteOpen(): boolean {
  return useContext(PaletteCtx);
}

export function NavigationProvider({ children }: { children: ReactNode }) {
  const { snapshot } = useSession();
  const partner = snapshot.session?.kind === "partner";
  const home: Screen = partner ? "audience_segment" : "advertiser";
  const [screen, setScreen] = useState<Screen>(home);
  const [scope, setScope] = useState<Scope | null>(null);
  const [editor, setEditor] = useState<Editor | null>(null);
  const [paletteOpen, setPaletteOpen] = useState(false);

  // Another profile or account: start from a clean slate (data partners work with segments).
  const who = sessionKey(snapshot);
  const [seen, setSeen] = useState(who);
  if (seen !== who) {
    setSeen(who);
    setScope(null);
    setEditor(null);
    setScreen(home);
  }
  // Signing out closes any form.
  const signedIn = snapshot.session !== null;
  useEffect(() => {
    if (!signedIn) setEditor(null);
  }, [signedIn]);

  const guard = useRef<((then: () => void) => void) | null>(null);
  const actions = useMemo<NavActions>(
    () => ({
      setScreen,
      setScope,
      openEditor: (e) => {
        const g = guard.current;
        if (g) g(() => setEditor(e));
        else setEditor(e);
      },
      closeEditor: () => setEditor(null),
      setPaletteOpen,
      setEditorGuard: (g) => {
        guard.current = g;
      },
    }),
    [],
  );
  const where = useMemo(() => ({ screen, scope }), [screen, scope]);
  return (
    <ActionsCtx.Provider value={actions}>
      <ScreenCtx.Provider value={where}>
        <EditorCtx.Provider value={editor}>
          <PaletteCtx.Provider value={paletteOpen}>{children}</PaletteCtx.Provider>
        </EditorCtx.Provider>
      </ScreenCtx.Provider>
    </ActionsCtx.Provider>
  );
}
