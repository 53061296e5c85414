import { useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { ChosenFile, EntityRef, Kind } from "../api/types";
import type { BulkScope } from "./types";
import type { Selection } from "../table/useSelection";
import { plural } from "../util/format";
import { parseRef } from "../util/refs";
import { BulkEditDialog } from "./BulkEditDialog";
import { DuplicateDialog } from "./DuplicateDialog";
import { FindReplaceDialog } from "./FindReplaceDialog";
import { ImportFileDialog, PasteDialog, openExport } from "./SheetDialogs";
import { STATUS_ACTIONS, StatusDialog } from "./StatusDialog";
import type { StatusChoice } from "../bindings";

const refsOf = (ids: Iterable<string>) => [...ids].map(parseRef).filter((r): r is EntityRef => r !== null);

/**
 * What a selection stands for, as the bulk commands take it: the ticked rows, or a
 * "select all" as its query less the rows unticked (resolved on the Rust side: the ids
 * of a select-all never cross the IPC).
 */
export function scopeOf(kind: Kind, sel: Selection): BulkScope {
  if (!sel.all) return { type: "ids", value: refsOf(sel.ids) };
  return { type: "query", value: { kind, query: sel.all, except: refsOf(sel.except) } };
}

/** The clipboard's text, or "" when the webview may not read it (the buyer pastes into the box). */
async function clipboardText(): Promise<string> {
  try {
    return (await navigator.clipboard?.readText()) ?? "";
  } catch {
    return "";
  }
}

type Open =
  | { type: "edit"; scope: BulkScope; count: number }
  | { type: "duplicate"; scope: BulkScope; count: number }
  | { type: "status"; status: StatusChoice; scope: BulkScope; count: number }
  | { type: "find"; scope: BulkScope | null; count: number }
  | { type: "paste"; text: string }
  | { type: "import"; file: ChosenFile };

export type BulkActionsProps = {
  kind: Kind;
  /** The kind in the buyer's words, plural ("ad orders"). */
  kindLabel: string;
  selection: Selection;
  count: number;
  /** Where pasted and imported new rows go. */
  parent: EntityRef | null;
};

/** The bulk tools of an entity table, and the paste a Ctrl/Cmd+V starts. */
export function useBulkActions(p: BulkActionsProps) {
  const [open, setOpen] = useState<Open | null>(null);
  const close = () => setOpen(null);
  const scope = () => scopeOf(p.kind, p.selection);
  const copy = async () => {
    // The wire format, which pastes back into any table as it was copied.
    const text = await unwrap(commands.exportSheet(scope(), "tab", "wire"));
    if (text === undefined) return;
    try {
      await navigator.clipboard.writeText(text);
      toast(`Copied ${plural(p.count, "row")}.`, "success");
    } catch {
      toast("The clipboard could not be written.", "error");
    }
  };
  const paste = async () => setOpen({ type: "paste", text: await clipboardText() });
  const exportKind = () => openExport(`Export ${p.kindLabel}`, { type: "kind", value: p.kind });
  const importKind = async () => {
    // The dialog is shown by the Rust side, which hands back a token for the file chosen.
    const file = await unwrap(commands.pickImportFile(`Import ${p.kindLabel}`));
    if (file) setOpen({ type: "import", file });
  };

  const n = p.count;
  const buttons = (
    <>
      {n > 0 && (
        <span className="bulk-bar" role="group" aria-label="Selected rows">
          <button type="button" data-action="bulk-edit" onClick={() => setOpen({ type: "edit", scope: scope(), count: n })}>
            Edit {n.toLocaleString()} selected
          </button>
          <button type="button" data-action="duplicate-selected" onClick={() => setOpen({ type: "duplicate", scope: scope(), count: n })}>
            Duplicate
          </button>
          <button type="button" data-action="copy" onClick={() => void copy()}>
            Copy
          </button>
          {p.kind === "ad_order" &&
            STATUS_ACTIONS.map((a) => (
              <button key={a.status} type="button" data-action={`status-${a.status}`} onClick={() => setOpen({ type: "status", status: a.status, scope: scope(), count: n })}>
                {a.label}
              </button>
            ))}
        </span>
      )}
      <button type="button" data-action="paste" onClick={() => void paste()}>
        Paste
      </button>
      <button type="button" data-action="find-replace" onClick={() => setOpen({ type: "find", scope: n > 0 ? scope() : null, count: n })}>
        Find &amp; replace
      </button>
      <button type="button" data-action="import" onClick={() => void importKind()}>
        Import…
      </button>
      <button type="button" data-action="export" onClick={exportKind}>
        Export…
      </button>
    </>
  );

  const dialog =
    open === null ? null : open.type === "edit" ? (
      <BulkEditDialog scope={open.scope} count={open.count} kind={p.kind} onClose={close} />
    ) : open.type === "status" ? (
      <StatusDialog status={open.status} scope={open.scope} count={open.count} onClose={close} />
    ) : open.type === "duplicate" ? (
      <DuplicateDialog sources={open.scope} count={open.count} kind={p.kind} onClose={close} />
    ) : open.type === "find" ? (
      <FindReplaceDialog selection={open.scope} count={open.count} kind={p.kind} kindLabel={p.kindLabel} onClose={close} />
    ) : open.type === "paste" ? (
      <PasteDialog initial={open.text} kind={p.kind} parent={p.parent} onClose={close} />
    ) : (
      <ImportFileDialog file={open.file} kind={p.kind} parent={p.parent} onClose={close} />
    );

  return { buttons, dialog, paste, importKind };
}

/** Exports the whole account: its format, then a file the buyer picks. */
export function exportAccount(): void {
  openExport("Export the account", { type: "account" });
}
