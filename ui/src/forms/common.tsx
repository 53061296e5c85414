import { useId, useState } from "react";
import { commands } from "../bindings";
import { type CommandResult, call, unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { EntityRef, FieldError, Saved } from "../api/types";
import { useApp } from "../state/app";
import { parseRef, refKey } from "../util/refs";
import { FieldErrors, type FormState, useField } from "./kit";

/** Saves through a command; routes errors, reloads tables, closes the panel on a clean save. */
export function useSaveFlow<V>(form: FormState<V>, initialTarget: EntityRef | null, closeOnClean = true) {
  const app = useApp();
  const [target, setTarget] = useState<EntityRef | null>(initialTarget);
  const [busy, setBusy] = useState(false);

  const save = async (run: (target: EntityRef | null) => Promise<CommandResult<Saved>>): Promise<Saved | null> => {
    setBusy(true);
    const r = await call(run(target), { onFieldErrors: form.setErrors });
    setBusy(false);
    if (!r.ok) return null;
    setTarget(r.data.target);
    form.setErrors(r.data.errors);
    app.bump();
    void app.reloadSnapshot();
    if (r.data.errors.length === 0) {
      toast("Saved to the workspace. It is sent when you post.", "success");
      if (closeOnClean) app.closeEditor();
    } else {
      toast(`Saved with ${r.data.errors.length === 1 ? "1 problem" : `${r.data.errors.length} problems`}. Fix before posting.`, "error");
    }
    return r.data;
  };

  /** A problem the UI found before calling (no parent chosen): shown like a field error. */
  const fail = (errors: FieldError[]) => {
    form.setErrors(errors);
  };

  return { target, setTarget, busy, save, fail };
}

export type ParentOption = { ref: EntityRef; label: string };

/**
 * A parent picker (`parent.advertiser`, `parent.campaign`); option values are the
 * reference's JSON. It is not part of the value: its state lives with the form.
 */
export function ParentPicker({
  name,
  label,
  options,
  value,
  onChange,
  disabled,
  required = true,
  emptyLabel = "Choose…",
  hint,
}: {
  name: "parent.advertiser" | "parent.campaign";
  label: string;
  options: ParentOption[];
  value: EntityRef | null;
  onChange: (r: EntityRef | null) => void;
  disabled?: boolean;
  required?: boolean;
  emptyLabel?: string;
  hint?: string;
}) {
  const id = useId();
  const { errorsAt, readOnly } = useField();
  const current = value ? refKey(value) : "";
  const known = options.some((o) => refKey(o.ref) === current);
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {required && <span className="req"> *</span>}
        {hint && <span className="hint"> {hint}</span>}
      </label>
      <select
        id={id}
        name={name}
        value={current}
        disabled={disabled || readOnly}
        aria-invalid={errorsAt(name).length > 0 || undefined}
        onChange={(e) => onChange(parseRef(e.target.value))}
      >
        <option value="">{emptyLabel}</option>
        {!known && current !== "" && <option value={current}>{current}</option>}
        {options.map((o) => (
          <option key={refKey(o.ref)} value={refKey(o.ref)}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldErrors path={name} />
    </div>
  );
}

export function missingParent(name: "parent.advertiser" | "parent.campaign", what: string): FieldError[] {
  return [{ field: name, code: "REQUIRED", message: `Choose the ${what} first.` }];
}

/**
 * "Duplicate as new": copies a posted creative or segment (which the service cannot
 * update) into a new draft and opens it.
 */
export function DuplicateButton({ target, what }: { target: EntityRef; what: string }) {
  const app = useApp();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    const copy = await unwrap(commands.duplicateAsNew(target));
    setBusy(false);
    if (!copy) return;
    app.bump();
    void app.reloadSnapshot();
    toast(`Copied into a new ${what} draft. Change it, then post it.`, "success");
    if (copy.kind === "creative") app.openEditor({ kind: "creative", row: copy.row });
    else app.openEditor({ kind: "audience_segment", row: copy.row });
  };
  return (
    <button type="button" className="primary" data-action="duplicate" data-testid="duplicate-as-new" disabled={busy} onClick={() => void run()}>
      Duplicate as new
    </button>
  );
}
