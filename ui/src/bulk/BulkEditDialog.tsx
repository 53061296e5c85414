import { useId, useState } from "react";
import { commands } from "../bindings";
import { plural } from "../util/format";
import type { Kind } from "../api/types";
import { fieldNamed, useEditFields } from "./fields";
import { PreviewDialog } from "./PreviewDialog";
import type { BulkScope, EditChange, FieldEdit } from "./types";

type Op = EditChange["type"];
type WireValue = Extract<EditChange, { type: "set" }>["value"];
const OPS: { op: Op; label: string }[] = [
  { op: "set", label: "Set to" },
  { op: "clear", label: "Clear" },
  { op: "add", label: "Add amount" },
  { op: "percent", label: "Change by %" },
  { op: "prefix", label: "Prefix with" },
  { op: "suffix", label: "Suffix with" },
];

type Draft = { field: string; op: Op; value: string };

/** A typed value as a wire value: JSON when it reads as JSON (numbers, true, [..]), else the text. */
function wireValue(text: string): WireValue {
  try {
    const v: WireValue = JSON.parse(text);
    return v;
  } catch {
    // Plain text.
  }
  return text;
}

function toEdit(d: Draft): FieldEdit {
  const field = d.field.trim();
  switch (d.op) {
    case "set":
      return { field, change: { type: "set", value: wireValue(d.value) } };
    case "clear":
      return { field, change: { type: "clear" } };
    case "add":
    case "percent": {
      const n = d.value.trim() === "" ? Number.NaN : Number(d.value);
      return { field, change: { type: d.op, value: Number.isFinite(n) ? n : null } };
    }
    case "prefix":
    case "suffix":
      return { field, change: { type: d.op, value: d.value } };
  }
}

/**
 * "Edit N selected": field edits (a field by its label or wire path, operation, value),
 * previewed by the Rust side and applied as one undo step. The fields offered are the
 * kind's, by the grid's labels with the wire path beside each; the Rust side resolves
 * the name and refuses one the kind does not have, naming the nearest.
 */
export function BulkEditDialog({ scope, count, kind, onClose }: { scope: BulkScope; count: number; kind: Kind; onClose: () => void }) {
  const listId = useId();
  const fields = useEditFields(kind);
  const [drafts, setDrafts] = useState<Draft[]>([{ field: "", op: "set", value: "" }]);
  const edits = drafts.filter((d) => d.field.trim() !== "").map(toEdit);
  const update = (i: number, patch: Partial<Draft>) => setDrafts((ds) => ds.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  return (
    <PreviewDialog
      kind={kind}
      title={`Edit ${plural(count, "selected row")}`}
      run={(apply) => commands.bulkEdit(scope, edits, apply)}
      onClose={onClose}
      inputKey={JSON.stringify(edits)}
      ready={edits.length > 0}
    >
      <datalist id={listId}>
        {fields
          .filter((f) => !f.serviceSet)
          .map((f) => (
            <option key={f.path} value={f.label} data-path={f.path}>
              {f.path}
            </option>
          ))}
      </datalist>
      <div className="bulk-edits" data-form="bulk-edit">
        {drafts.map((d, i) => (
          <div className="bulk-edit-row" key={i} data-edit={i}>
            <span className="bulk-edit-field">
              <input aria-label={`Field ${i + 1}`} name={`edits[${i}].field`} list={listId} placeholder="Field (e.g. Max bid, flights[*].maxBudget)" value={d.field} onChange={(e) => update(i, { field: e.target.value })} />
              <WirePath fields={fields} name={d.field} />
            </span>
            <select aria-label={`Operation ${i + 1}`} name={`edits[${i}].op`} value={d.op} onChange={(e) => update(i, { op: OPS.find((o) => o.op === e.target.value)?.op ?? "set" })}>
              {OPS.map((o) => (
                <option key={o.op} value={o.op}>
                  {o.label}
                </option>
              ))}
            </select>
            {d.op !== "clear" && (
              <input
                aria-label={`Value ${i + 1}`}
                name={`edits[${i}].value`}
                inputMode={d.op === "add" || d.op === "percent" ? "decimal" : undefined}
                value={d.value}
                onChange={(e) => update(i, { value: e.target.value })}
              />
            )}
            {drafts.length > 1 && (
              <button type="button" className="icon-button" aria-label={`Remove edit ${i + 1}`} onClick={() => setDrafts((ds) => ds.filter((_, j) => j !== i))}>
                ×
              </button>
            )}
          </div>
        ))}
        <button type="button" data-action="add-edit" onClick={() => setDrafts((ds) => [...ds, { field: "", op: "set", value: "" }])}>
          + Another field
        </button>
      </div>
    </PreviewDialog>
  );
}

/** The wire path a typed label stands for, shown under the field as a secondary hint. */
function WirePath({ fields, name }: { fields: ReturnType<typeof useEditFields>; name: string }) {
  const f = fieldNamed(fields, name);
  if (!f || f.path === name.trim()) return null;
  return (
    <code className="hint" data-wire-path={f.path}>
      {f.path}
    </code>
  );
}
