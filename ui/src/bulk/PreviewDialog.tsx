import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { type CommandResult, type UiError, call } from "../api/call";
import { toast } from "../api/toast";
import type { Kind } from "../api/types";
import { FieldName } from "./FieldName";
import { Modal } from "./Modal";
import { PreviewTable, previewCounts } from "./PreviewTable";
import type { Preview } from "./types";

export type PreviewDialogProps = {
  title: string;
  /** Runs the operation: a preview (`apply` false, nothing saved) or the one undo step. */
  run: (apply: boolean) => Promise<CommandResult<Preview>>;
  onClose: () => void;
  /** The inputs; a new `inputKey` throws the last preview away. */
  children?: ReactNode;
  inputKey?: string;
  /** Preview at once (a paste, an import, a revert: nothing to fill in first). */
  autoPreview?: boolean;
  /** False while the inputs are incomplete. */
  ready?: boolean;
  /** Extra lines above the rows (find and replace: matches per field). */
  extra?: (p: Preview) => ReactNode;
  wide?: boolean;
  /** The kind the operation edits, whose labels name the fields of its errors. */
  kind?: Kind | null;
};

/**
 * Every bulk operation's dialog: its inputs, "Preview" (the Rust side's preview shown
 * in a `PreviewTable`), then "Apply" as one undo step. Errors, the command's and each
 * row's, stay on screen; a result with refused or invalid rows stays open to show them.
 */
export function PreviewDialog({ title, run, onClose, children, inputKey = "", autoPreview, ready = true, extra, wide = true, kind = null }: PreviewDialogProps) {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [applied, setApplied] = useState<Preview | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [seenKey, setSeenKey] = useState(inputKey);
  if (seenKey !== inputKey) {
    setSeenKey(inputKey);
    setPreview(null);
    setError(null);
  }
  const runRef = useRef(run);
  useEffect(() => {
    runRef.current = run;
  });

  const doPreview = useCallback(async () => {
    setBusy(true);
    setError(null);
    const r = await call(runRef.current(false), { quiet: true });
    setBusy(false);
    if (r.ok) setPreview(r.data);
    else setError(r.error);
  }, []);

  const auto = useRef(autoPreview);
  useEffect(() => {
    if (auto.current) void doPreview();
  }, [doPreview]);

  const apply = async () => {
    setBusy(true);
    setError(null);
    const r = await call(runRef.current(true), { quiet: true });
    setBusy(false);
    if (!r.ok) {
      setError(r.error);
      return;
    }
    const p = r.data;
    toast(`${title}: ${previewCounts(p)}`, "success");
    if (p.refused > 0 || p.invalid > 0) setApplied(p);
    else onClose();
  };

  const shown = applied ?? preview;
  const changes = preview ? preview.creates + preview.updates : 0;
  return (
    <Modal label={title} onClose={onClose} wide={wide}>
      {!applied && children}
      {error && (
        <div className="preview-error" role="alert" data-preview-error={error.code}>
          <p>{error.message || error.code}</p>
          {error.fieldErrors.length > 0 && (
            <ul className="errors">
              {error.fieldErrors.map((e, i) => (
                <li key={i} data-error-field={e.field}>
                  <FieldName kind={kind} path={e.field} /> {e.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {applied && <p className="muted">Applied as one step (Ctrl Z undoes it). These rows need attention:</p>}
      {shown && extra?.(shown)}
      {shown && <PreviewTable preview={shown} />}
      <div className="modal-actions">
        {applied ? (
          <button type="button" className="primary" onClick={onClose}>
            Close
          </button>
        ) : (
          <>
            <button type="button" data-action="preview" disabled={busy || !ready} onClick={() => void doPreview()}>
              Preview
            </button>
            <button type="button" className="primary" data-action="apply" disabled={busy || !ready || preview === null || changes === 0} onClick={() => void apply()}>
              Apply{preview && changes > 0 ? ` (${changes.toLocaleString()})` : ""}
            </button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </>
        )}
      </div>
    </Modal>
  );
}
