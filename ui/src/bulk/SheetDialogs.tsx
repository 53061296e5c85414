import { useState, useSyncExternalStore } from "react";
import { commands, type ExportFormat } from "../bindings";
import { call, unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { Arg, ChosenFile, EntityRef, Kind } from "../api/types";
import { plural } from "../util/format";
import { Modal } from "./Modal";
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
      kind={kind}
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
    <PreviewDialog title="Import file" kind={kind} run={(apply) => commands.importFile(file.token, kind, parent, apply)} onClose={onClose} autoPreview>
      <p className="muted mono">{file.path}</p>
    </PreviewDialog>
  );
}

type ExportScope = Arg<typeof commands.exportFile, 1>;
type Exporting = { title: string; scope: ExportScope };

// The export asked for (a table's Export…, File → Export account…), shown by
// `ExportHost` wherever the command came from.
let exporting: Exporting | null = null;
const listeners = new Set<() => void>();
function setExporting(e: Exporting | null): void {
  exporting = e;
  for (const l of listeners) l();
}
function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** Asks where and in which format to export `scope`. */
export function openExport(title: string, scope: ExportScope): void {
  setExporting({ title, scope });
}

/** Mounted once in the shell: the export dialog while one is asked for. */
export function ExportHost() {
  const e = useSyncExternalStore(subscribe, () => exporting);
  return e ? <ExportDialog title={e.title} scope={e.scope} onClose={() => setExporting(null)} /> : null;
}

/**
 * The export's format, then the save dialog the Rust side shows. The spreadsheet format
 * is what a buyer reads; the wire format is for scripts. Import reads either.
 */
export function ExportDialog({ title, scope, onClose }: { title: string; scope: ExportScope; onClose: () => void }) {
  const [format, setFormat] = useState<ExportFormat>("sheet");
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    const file = await unwrap(commands.pickExportFile(title));
    if (!file) {
      setBusy(false);
      return;
    }
    const r = await call(commands.exportFile(file.token, scope, format));
    setBusy(false);
    if (!r.ok) return;
    toast(`Exported ${plural(r.data, "row")} to ${file.path}.`, "success");
    onClose();
  };
  const choice = (value: ExportFormat, label: string) => (
    <label className="inline-check">
      <input type="radio" name="format" value={value} checked={format === value} onChange={() => setFormat(value)} /> {label}
    </label>
  );
  return (
    <Modal label={title} onClose={onClose}>
      <fieldset className="stack" data-field="format">
        <legend>Format</legend>
        {choice("sheet", "Spreadsheet: dates in each advertiser's timezone, amounts with two decimals, lists as a; b; c, each parent's name beside its id")}
        {choice("wire", "Wire format: as the service sends it (epoch milliseconds, JSON lists), for scripts")}
      </fieldset>
      <p className="muted">Import reads either format; a parent's name is only there to read, the id says which parent.</p>
      <div className="modal-actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="primary" data-action="export-file" disabled={busy} onClick={() => void save()}>
          Choose file…
        </button>
      </div>
    </Modal>
  );
}
