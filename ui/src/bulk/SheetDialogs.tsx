import { useState } from "react";
import { commands } from "../bindings";
import type { ChosenFile, EntityRef, Kind } from "../api/types";
import { PreviewDialog } from "./PreviewDialog";

/**
 * Paste rows from a spreadsheet (TSV): rows with an `id` update, rows without one become
 * drafts under `parent`. Starts with the clipboard's text when it could be read; else the
 * buyer pastes into the box.
 */
export function PasteDialog({ initial, kind, parent, onClose }: { initial: string; kind: Kind; parent: EntityRef | null; onClose: () => void }) {
  const [text, setText] = useState(initial);
  return (
    <PreviewDialog
      title="Paste rows"
      run={(apply) => commands.importSheet(text, { delimiter: "tab", kind, parent }, apply)}
      onClose={onClose}
      inputKey={text}
      ready={text.trim() !== ""}
      autoPreview={initial.trim() !== ""}
    >
      <label className="stack">
        Rows copied from a spreadsheet (a header row of field names first)
        <textarea name="sheet" rows={6} className="mono" value={text} onChange={(e) => setText(e.target.value)} />
      </label>
    </PreviewDialog>
  );
}

/** Import a CSV or TSV file picked in the dialog: previewed at once, then applied. */
export function ImportFileDialog({ file, kind, parent, onClose }: { file: ChosenFile; kind: Kind; parent: EntityRef | null; onClose: () => void }) {
  return (
    <PreviewDialog title="Import file" run={(apply) => commands.importFile(file.token, kind, parent, apply)} onClose={onClose} autoPreview>
      <p className="muted mono">{file.path}</p>
    </PreviewDialog>
  );
}
