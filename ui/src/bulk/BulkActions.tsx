import { useState } from "react";
import { commands } from "../bindings";
import { call, unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { Arg, ChosenFile, EntityRef, Kind } from "../api/types";
import type { Selection } from "../table/useSelection";
import { plural } from "../util/format";
import { parseRef } from "../util/refs";
import { BulkEditDialog } from "./BulkEditDialog";
import { DuplicateDialog } from "./DuplicateDialog";
import { FindReplaceDialog } from "./FindReplaceDialog";
import { ImportFileDialog, PasteDialog } from "./SheetDialogs";

const refsOf = (ids: Iterable<string>) => [...ids].map(parseRef).filter((r): r is EntityRef => r !== null);

/** The entities a selection stands for: the ticked rows, or what a "select all" covers (asked of the Rust side). */
export async function targetsOf(kind: Kind, sel: Selection): Promise<EntityRef[] | undefined> {
  if (!sel.all) return refsOf(sel.ids);
  return unwrap(commands.selectedTargets(kind, sel.all, refsOf(sel.except)));
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
  | { type: "edit"; targets: EntityRef[] }
  | { type: "duplicate"; targets: EntityRef[] }
  | { type: "find"; targets: EntityRef[] }
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
  /** Wire paths offered in "Edit N selected". */
  fields: string[];
};

/** The bulk tools of an entity table, and the paste a Ctrl/Cmd+V starts. */
export function useBulkActions(p: BulkActionsProps) {
  const [open, setOpen] = useState<Open | null>(null);
  const close = () => setOpen(null);
  const withTargets = async (then: (t: EntityRef[]) => void) => {
    const t = await targetsOf(p.kind, p.selection);
    if (t && t.length > 0) then(t);
  };
  const copy = () =>
    withTargets(async (targets) => {
      const text = await unwrap(commands.exportSheet({ type: "selection", value: targets }, "tab"));
      if (text === undefined) return;
      try {
        await navigator.clipboard.writeText(text);
        toast(`Copied ${plural(targets.length, "row")}.`, "success");
      } catch {
        toast("The clipboard could not be written.", "error");
      }
    });
  const paste = async () => setOpen({ type: "paste", text: await clipboardText() });
  const exportKind = () => exportTo(`Export ${p.kindLabel}`, { type: "kind", value: p.kind });
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
          <button type="button" data-action="bulk-edit" onClick={() => void withTargets((t) => setOpen({ type: "edit", targets: t }))}>
            Edit {n.toLocaleString()} selected
          </button>
          <button type="button" data-action="duplicate-selected" onClick={() => void withTargets((t) => setOpen({ type: "duplicate", targets: t }))}>
            Duplicate
          </button>
          <button type="button" data-action="copy" onClick={() => void copy()}>
            Copy
          </button>
        </span>
      )}
      <button type="button" data-action="paste" onClick={() => void paste()}>
        Paste
      </button>
      <button
        type="button"
        data-action="find-replace"
        onClick={() => void (n > 0 ? withTargets((t) => setOpen({ type: "find", targets: t })) : Promise.resolve(setOpen({ type: "find", targets: [] })))}
      >
        Find &amp; replace
      </button>
      <button type="button" data-action="import" onClick={() => void importKind()}>
        Import…
      </button>
      <button type="button" data-action="export" onClick={() => void exportKind()}>
        Export…
      </button>
    </>
  );

  const dialog =
    open === null ? null : open.type === "edit" ? (
      <BulkEditDialog targets={open.targets} fields={p.fields} onClose={close} />
    ) : open.type === "duplicate" ? (
      <DuplicateDialog sources={open.targets} kind={p.kind} onClose={close} />
    ) : open.type === "find" ? (
      <FindReplaceDialog selection={open.targets} kind={p.kind} kindLabel={p.kindLabel} onClose={close} />
    ) : open.type === "paste" ? (
      <PasteDialog initial={open.text} kind={p.kind} parent={p.parent} onClose={close} />
    ) : (
      <ImportFileDialog file={open.file} kind={p.kind} parent={p.parent} onClose={close} />
    );

  return { buttons, dialog, paste, importKind };
}

/** Exports `scope` to a file the buyer picks in the save dialog the Rust side shows. */
async function exportTo(title: string, scope: Arg<typeof commands.exportFile, 1>): Promise<void> {
  const file = await unwrap(commands.pickExportFile(title));
  if (!file) return;
  const r = await call(commands.exportFile(file.token, scope));
  if (r.ok) toast(`Exported ${plural(r.data, "row")} to ${file.path}.`, "success");
}

/** Exports the whole account to a file the buyer picks. */
export function exportAccount(): Promise<void> {
  return exportTo("Export the account", { type: "account" });
}
