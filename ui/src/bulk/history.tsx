import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { commands } from "../bindings";
import { call, unwrap } from "../api/call";
import { toast } from "../api/toast";
import { PreviewDialog } from "./PreviewDialog";
import type { Undone } from "./types";
import { once, useMenuCommand } from "../state/menu";

// The notice shown when an undo reached a posted step: its message and a "Revert…".
let posted: string | null = null;
const listeners = new Set<() => void>();
function setPosted(message: string | null): void {
  posted = message;
  for (const l of listeners) l();
}
function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
const snapshot = () => posted;

/** Undoes (or redoes) the latest step; a posted step leaves a notice offering a revert. */
async function step(which: "undo" | "redo"): Promise<void> {
  const r = await call<Undone | null>(which === "undo" ? commands.undo() : commands.redo(), { quiet: true });
  if (r.ok) {
    if (r.data) toast(`${which === "undo" ? "Undid" : "Redid"} “${r.data.step.label}”`, "success");
    else toast(which === "undo" ? "Nothing to undo." : "Nothing to redo.");
    return;
  }
  if (which === "undo" && r.error.code === "posted") {
    setPosted(r.error.message);
    return;
  }
  toast(r.error.message || r.error.code, "error");
}

export const undoLatest = () => step("undo");
export const redoLatest = () => step("redo");

/** Where typing happens: there the browser's own text undo stays. */
function isTextTarget(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable) return true;
  if (t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return true;
  if (t instanceof HTMLInputElement) return !["checkbox", "radio", "button", "submit", "reset"].includes(t.type);
  return false;
}

/**
 * Edit → Undo/Redo from the menu bar (whose accelerators are Ctrl/Cmd+Z and
 * Ctrl/Cmd+Shift+Z): in a text field the field's own undo, elsewhere the workspace's.
 */
function menuStep(which: "undo" | "redo"): void {
  if (isTextTarget(document.activeElement)) {
    // The menu's accelerator took the key from the field: give the field its own undo
    // back (execCommand is deprecated, but it is the only way to reach that stack).
    document.execCommand(which);
    return;
  }
  once(which, "menu", () => void step(which));
}

/** Ctrl/Cmd+Z undoes, Ctrl/Cmd+Shift+Z and Ctrl+Y redo, outside text inputs; so do Edit → Undo and Redo. */
export function useUndoKeys(): void {
  useMenuCommand("undo", () => menuStep("undo"));
  useMenuCommand("redo", () => menuStep("redo"));
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || isTextTarget(e.target)) return;
      const key = e.key.toLowerCase();
      if (key === "z") {
        e.preventDefault();
        const which = e.shiftKey ? "redo" : "undo";
        once(which, "key", () => void step(which));
      } else if (key === "y" && e.ctrlKey && !e.shiftKey) {
        e.preventDefault();
        once("redo", "key", () => void step("redo"));
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

/** Puts a posted step's old values back by a new edit: the newest step still done. */
function RevertDialog({ onClose }: { onClose: () => void }) {
  const [target, setTarget] = useState<{ id: number; label: string } | null>(null);
  useEffect(() => {
    let live = true;
    void unwrap(commands.editHistory()).then((h) => {
      if (!live) return;
      const s = h?.find((x) => !x.undone && x.id !== null);
      if (s && s.id !== null) setTarget({ id: s.id, label: s.label });
      else {
        if (h) toast("No step to revert.");
        onClose();
      }
    });
    return () => {
      live = false;
    };
  }, [onClose]);
  if (target === null) return null;
  const id = target.id;
  return <PreviewDialog title={`Revert “${target.label}”`} run={(apply) => commands.revertStep(id, apply)} onClose={onClose} autoPreview />;
}

/** The "posted" notice with its "Revert…" action, and the revert dialog. */
export function PostedNotice() {
  const message = useSyncExternalStore(subscribe, snapshot, snapshot);
  const [reverting, setReverting] = useState(false);
  const closeRevert = useCallback(() => setReverting(false), []);
  return (
    <>
      {message !== null && (
        <div className="posted-notice" role="alert" data-notice="posted">
          <span>{message}</span>
          <button
            type="button"
            data-action="revert"
            onClick={() => {
              setPosted(null);
              setReverting(true);
            }}
          >
            Revert…
          </button>
          <button type="button" className="icon-button" aria-label="Dismiss message" onClick={() => setPosted(null)}>
            ×
          </button>
        </div>
      )}
      {reverting && <RevertDialog onClose={closeRevert} />}
    </>
  );
}

/** Undo and Redo buttons for the header. */
export function UndoButtons() {
  return (
    <span className="undo-buttons">
      <button type="button" data-action="undo" title="Undo (Ctrl Z)" aria-keyshortcuts="Control+Z Meta+Z" onClick={() => void undoLatest()}>
        ↶ Undo
      </button>
      <button type="button" data-action="redo" title="Redo (Ctrl Shift Z)" aria-keyshortcuts="Control+Shift+Z Meta+Shift+Z Control+Y" onClick={() => void redoLatest()}>
        ↷ Redo
      </button>
    </span>
  );
}
