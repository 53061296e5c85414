// The edit panel's width: dragged (or stepped with the arrow keys) by the buyer, kept
// between the sidebar and a table that keeps room, and remembered in the app's settings
// (`settings.json`) for the next start.
import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { commands } from "../bindings";
import { call } from "../api/call";

/** The width before the buyer drags it. */
export const PANEL_DEFAULT = 440;
/** The narrowest the panel gets: a form's two-column rows still fit. */
export const PANEL_MIN = 360;
/** The widest, on a large screen. */
const PANEL_MAX = 960;
/** The sidebar's width (`.shell` in styles/shell.css). */
const SIDEBAR = 230;
/** Room the table keeps beside the panel: its name column and a few more at 1,280 px. */
const TABLE_MIN = 560;
/** One arrow-key step. */
export const PANEL_STEP = 16;

/** The widest the panel may be in a window `viewport` pixels wide. */
export function panelMax(viewport: number): number {
  return Math.max(PANEL_MIN, Math.min(PANEL_MAX, viewport - SIDEBAR - TABLE_MIN));
}

/** `width` kept between the minimum and what leaves the table its room. */
export function clampPanel(width: number, viewport: number): number {
  if (!Number.isFinite(width)) return clampPanel(PANEL_DEFAULT, viewport);
  return Math.round(Math.min(panelMax(viewport), Math.max(PANEL_MIN, width)));
}

type PanelWidth = {
  /** The width the panel shows, in CSS pixels. */
  width: number;
  /** The widest it may be in this window. */
  max: number;
  /** Shows `width` (clamped) at once, while dragging. */
  resize: (width: number) => void;
  /** Remembers `width` for the next start (at a drag's end, or after a key). */
  remember: (width: number) => void;
};

const viewportWidth = () => (typeof window === "undefined" ? 1280 : window.innerWidth);

const Ctx = createContext<PanelWidth>({ width: PANEL_DEFAULT, max: PANEL_MAX, resize: () => undefined, remember: () => undefined });

export function usePanelWidth(): PanelWidth {
  return useContext(Ctx);
}

/** Reads the remembered width once, and keeps the one shown within the window as it resizes. */
export function PanelWidthProvider({ children }: { children: ReactNode }) {
  const [viewport, setViewport] = useState(viewportWidth);
  const [wanted, setWanted] = useState(PANEL_DEFAULT);
  useEffect(() => {
    let live = true;
    void call(commands.appInfo(), { quiet: true }).then((r) => {
      const saved = r.ok ? r.data.settings.panelWidth : null;
      if (live && typeof saved === "number") setWanted(saved);
    });
    const onResize = () => setViewport(viewportWidth());
    window.addEventListener("resize", onResize);
    return () => {
      live = false;
      window.removeEventListener("resize", onResize);
    };
  }, []);
  const width = clampPanel(wanted, viewport);
  const max = panelMax(viewport);
  const resize = useCallback((w: number) => setWanted(clampPanel(w, viewportWidth())), []);
  const remember = useCallback((w: number) => void call(commands.rememberPanelWidth(clampPanel(w, viewportWidth())), { quiet: true }), []);
  const value = useMemo(() => ({ width, max, resize, remember }), [width, max, resize, remember]);
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}
