import { useEffect, useId, useRef, useState } from "react";
import { commands } from "../bindings";
import { kindInfo } from "../api/kinds";
import { type CommandResult, call, unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { AnyRow, EntityRef, Saved } from "../api/types";
import { EntitySelect, type EntitySelectProps } from "../components/EntitySelect";
import { type ParentHint, useEditor, useNavActions } from "../state/navigation";
import { useCounters, useSession } from "../state/session";
import { FieldErrors, type FormState, useField } from "./kit";
import { publishSavedRow } from "../state/events";
import { afterNextPaint, mark } from "../util/timing";

/**
 * Saves through a command; routes errors, closes the panel on a clean save. A table
 * showing the saved row shows it from the save's answer at once, and every view of the
 * kind refreshes on the workspace-changed event the save sends; of the app's snapshot
 * only the pending count moves, and the save's answer carries it.
 */
export function useSaveFlow<V>(form: FormState<V>, initialTarget: EntityRef | null, closeOnClean = true) {
  const { editor, closeEditor } = useEditor();
  // The panel's editor now: a close after the row's paint closes only the one saved.
  const editorNow = useRef(editor);
  useEffect(() => {
    editorNow.current = editor;
  });
  const { snapshot, setSnapshot } = useSession();
  const { posting } = useCounters();
  const [target, setTarget] = useState<EntityRef | null>(initialTarget);
  const [busy, setBusy] = useState(false);
  // What a save does after its row's paint (see below). A form closed or replaced before
  // then does it at once, except close the panel, which may hold another form by then.
  const after = useRef<{ cancel: () => void; run: (close: boolean) => void } | null>(null);
  useEffect(
    () => () => {
      const pending = after.current;
      after.current = null;
      if (pending) {
        pending.cancel();
        pending.run(false);
      }
    },
    [],
  );

  const save = async (run: (target: EntityRef | null) => Promise<CommandResult<Saved>>): Promise<Saved | null> => {
    setBusy(true);
    const sent = form.value;
    const r = await call(run(target), { onFieldErrors: form.setErrors });
    mark("fd:save-answered");
    if (!r.ok) {
      setBusy(false);
      return null;
    }
    const saved = r.data;
    // First, the table shows the saved row from this answer, in a commit of its own.
    const rowShown = saved.row !== null && publishSavedRow(saved.row);
    const savedIn = editorNow.current;
    const settle = (close: boolean) => {
      setBusy(false);
      // Saved, with problems or not: the workspace holds it, so leaving loses nothing.
      form.markSaved(sent);
      setTarget(saved.target);
      form.setErrors(saved.errors);
      setSnapshot({ ...snapshot, posting, pendingCount: saved.pendingCount });
      if (saved.errors.length === 0) {
        toast("Saved to the workspace. It is sent when you post.", "success");
        if (close && closeOnClean && editorNow.current === savedIn) closeEditor();
      } else {
        toast(`Saved with ${saved.errors.length === 1 ? "1 problem" : `${saved.errors.length} problems`}. Fix before posting.`, "error");
      }
    };
    if (rowShown) {
      // The row paints in a frame of its own, and the rest follows: the form's state, the
      // toast, and the panel's close, which lays out the whole table at a new width (a
      // frame two to three times as long, which the buyer would otherwise wait for to
      // see the save).
      after.current?.cancel();
      const cancel = afterNextPaint(() => {
        after.current = null;
        settle(true);
      });
      after.current = { cancel, run: settle };
    } else {
      settle(true);
    }
    return saved;
  };

  return { target, setTarget, busy, save };
}

/**
 * A parent picker (`parent.advertiser`, `parent.campaign`) over a query command; option
 * values are the reference's JSON. It is not part of the value: its state lives with the form.
 */
export function ParentPicker<R extends AnyRow>({
  name,
  label,
  required = true,
  hint,
  ...select
}: {
  name: "parent.advertiser" | "parent.campaign";
  label: string;
  required?: boolean;
  hint?: string;
} & Omit<EntitySelectProps<R>, "name" | "label" | "id" | "invalid">) {
  const id = useId();
  const { errorsAt, readOnly } = useField();
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {/* Refused without one on create (`Batch::save_draft`); a saved entity keeps its own. */}
        {required && !select.disabled && <span className="req"> *</span>}
        {hint && <span className="hint"> {hint}</span>}
      </label>
      <EntitySelect<R> {...select} id={id} name={name} label={label} disabled={select.disabled || readOnly} invalid={errorsAt(name).length > 0} />
      <FieldErrors path={name} />
    </div>
  );
}

/**
 * "Duplicate as new": copies a posted creative or segment (which the service cannot
 * update) into a new draft and opens it.
 */
export function DuplicateButton({ target }: { target: EntityRef }) {
  const { openEditor } = useNavActions();
  const { reloadSnapshot } = useSession();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    const copy = await unwrap(commands.duplicateAsNew(target));
    setBusy(false);
    if (!copy) return;
    void reloadSnapshot();
    toast(`Copied into a new ${kindInfo(target.kind).label} draft. Change it, then post it.`, "success");
    if (copy.kind === "creative") openEditor({ kind: "creative", row: copy.row });
    else openEditor({ kind: "audience_segment", row: copy.row });
  };
  return (
    <button type="button" className="primary" data-action="duplicate" data-testid="duplicate-as-new" disabled={busy} onClick={() => void run()}>
      Duplicate as new
    </button>
  );
}

/** A parent chosen in a form, with what the form shows of it. */
export type Picked = { ref: EntityRef | null; label: string | null; timezone: string | null };

/** The parent a form starts with: the row's own, or the one it was opened under. */
export function pickedOf(row: AnyRow | undefined, hint: ParentHint | null | undefined): Picked {
  if (row) return { ref: row.parent, label: row.parentLabel, timezone: row.timezone };
  if (hint) return { ref: hint.target, label: hint.label, timezone: hint.timezone };
  return { ref: null, label: null, timezone: null };
}
