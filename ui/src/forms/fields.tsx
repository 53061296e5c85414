// Form field controls: text, numbers, dates, enums, lists and entity pickers, each bound
// to a wire path through the enclosing FormFrame (frame.tsx).
import { type ReactNode, useEffect, useId, useState } from "react";
import type { AnyRow } from "../api/types";
import { EntityMultiSelect, type EntityMultiSelectProps } from "../components/EntityMultiSelect";
import { appendAt, removeAt } from "../util/path";
import { fromLocalInput, toLocalInput } from "../util/time";
import { FieldErrors, useField } from "./frame";

type Base = { path: string; label: string; hint?: ReactNode; required?: boolean; readOnly?: boolean; className?: string };

function useFieldBits(path: string, required?: boolean) {
  const ctx = useField();
  const id = useId();
  const errs = ctx.errorsAt(path);
  const isRequired = required ?? ctx.required.has(path);
  return { ctx, id, errId: `${id}-err`, invalid: errs.length > 0, isRequired, locked: ctx.readOnly || ctx.serviceSet(path) };
}

function Label({ htmlFor, label, required, hint }: { htmlFor: string; label: string; required: boolean; hint?: ReactNode }) {
  return (
    <label htmlFor={htmlFor}>
      {label}
      {required && (
        <span className="req" title="Required">
          {" "}
          *
        </span>
      )}
      {hint && <span className="hint"> {hint}</span>}
    </label>
  );
}

function asString(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

export function TextField({ path, label, hint, required, readOnly, multiline, rows, placeholder, className }: Base & { multiline?: boolean; rows?: number; placeholder?: string }) {
  const { ctx, id, errId, invalid, isRequired, locked } = useFieldBits(path, required);
  const value = asString(ctx.get(path));
  const onChange = (v: string) => ctx.set(path, v === "" ? null : v);
  const common = {
    id,
    name: path,
    value,
    readOnly: readOnly || locked,
    placeholder,
    "aria-invalid": invalid || undefined,
    "aria-required": isRequired || undefined,
    "aria-describedby": invalid ? errId : undefined,
  };
  return (
    <div className={`field ${className ?? ""}`}>
      <Label htmlFor={id} label={label} required={isRequired} hint={hint} />
      {multiline ? (
        <textarea {...common} rows={rows ?? 3} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input {...common} type="text" onChange={(e) => onChange(e.target.value)} />
      )}
      <FieldErrors path={path} id={errId} />
    </div>
  );
}

function parseNumber(text: string): number | null | "bad" {
  const t = text.replace(/[,\s$%]/g, "");
  if (t === "") return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : "bad";
}

export type NumberKind = "number" | "integer" | "money" | "percent";

/** Numbers, integers and USD amounts (shown with 2 decimals). */
export function NumberField({ path, label, hint, required, readOnly, kind = "number", className }: Base & { kind?: NumberKind }) {
  const { ctx, id, errId, invalid, isRequired, locked } = useFieldBits(path, required);
  const raw = ctx.get(path);
  const num = typeof raw === "number" ? raw : null;
  const [text, setText] = useState<string | null>(null);
  const shown = text ?? (num === null ? "" : kind === "money" ? num.toFixed(2) : String(num));
  const parsed = text === null ? null : parseNumber(text);
  return (
    <div className={`field ${className ?? ""}`}>
      <Label htmlFor={id} label={label} required={isRequired} hint={hint ?? (kind === "money" ? "USD" : undefined)} />
      <div className={kind === "money" ? "input-affix money" : "input-affix"}>
        {kind === "money" && <span aria-hidden="true">$</span>}
        <input
          id={id}
          name={path}
          type="text"
          inputMode={kind === "integer" ? "numeric" : "decimal"}
          value={shown}
          readOnly={readOnly || locked}
          aria-invalid={invalid || parsed === "bad" || undefined}
          aria-required={isRequired || undefined}
          aria-describedby={invalid ? errId : undefined}
          onFocus={() => setText(shown)}
          onBlur={() => setText(null)}
          onChange={(e) => {
            setText(e.target.value);
            const v = parseNumber(e.target.value);
            if (v !== "bad") ctx.set(path, v);
          }}
        />
      </div>
      {parsed === "bad" && <div className="field-hint">Type a number.</div>}
      <FieldErrors path={path} id={errId} />
    </div>
  );
}

/** `2027-03-31T00:00`, a day picked without a time, as that day's last minute (`…T23:59`). */
export function dayEnd(value: string): string {
  return /T00:00$/.test(value) ? value.replace(/T00:00$/, "T23:59") : value;
}

/**
 * A date and time in the form's zone, stored as Unix ms. An end date (`endOfDay`) picked
 * as a day ends at its last minute, 23:59 in the form's zone, as the service's examples
 * do: the next flight starting at midnight follows it with no gap.
 */
export function DateField({ path, label, hint, required, readOnly, className, endOfDay }: Base & { endOfDay?: boolean }) {
  const { ctx, id, errId, invalid, isRequired, locked } = useFieldBits(path, required);
  const raw = ctx.get(path);
  const ms = typeof raw === "number" ? raw : null;
  const [text, setText] = useState<string | null>(null);
  const shown = text ?? toLocalInput(ms, ctx.zone);
  return (
    <div className={`field ${className ?? ""}`}>
      <Label htmlFor={id} label={label} required={isRequired} hint={hint} />
      <input
        id={id}
        name={path}
        type="datetime-local"
        value={shown}
        readOnly={readOnly || locked}
        aria-invalid={invalid || undefined}
        aria-required={isRequired || undefined}
        aria-describedby={invalid ? errId : undefined}
        onBlur={() => setText(null)}
        onChange={(e) => {
          const typed = endOfDay ? dayEnd(e.target.value) : e.target.value;
          setText(typed);
          if (typed === "") ctx.set(path, null);
          else {
            const v = fromLocalInput(typed, ctx.zone);
            if (v !== null) ctx.set(path, v);
          }
        }}
      />
      <FieldErrors path={path} id={errId} />
    </div>
  );
}

export type Option = { value: string; label: string };

export function options(values: readonly string[], labels?: Record<string, string>): Option[] {
  return values.map((v) => ({ value: v, label: labels?.[v] ?? v }));
}

/** An enum as a select; `numeric` stores numbers. An empty choice stores null. */
export function SelectField({
  path,
  label,
  hint,
  required,
  readOnly,
  options: opts,
  numeric,
  emptyLabel = "—",
  allowEmpty = true,
  className,
  onChangeValue,
}: Base & { options: Option[]; numeric?: boolean; emptyLabel?: string; allowEmpty?: boolean; onChangeValue?: (v: string | number | null) => void }) {
  const { ctx, id, errId, invalid, isRequired, locked } = useFieldBits(path, required);
  const current = asString(ctx.get(path));
  // A value the pick list does not know (the service added it) is shown as it is and
  // sent back unchanged unless the buyer picks another.
  const known = opts.some((o) => o.value === current);
  return (
    <div className={`field ${className ?? ""}`}>
      <Label htmlFor={id} label={label} required={isRequired} hint={hint} />
      <select
        id={id}
        name={path}
        value={current}
        disabled={readOnly || locked}
        aria-invalid={invalid || undefined}
        aria-required={isRequired || undefined}
        aria-describedby={invalid ? errId : undefined}
        onChange={(e) => {
          const s = e.target.value;
          const v = s === "" ? null : numeric ? Number(s) : s;
          if (onChangeValue) onChangeValue(v);
          else ctx.set(path, v);
        }}
      >
        {(allowEmpty || current === "") && <option value="">{emptyLabel}</option>}
        {!known && current !== "" && (
          <option value={current} data-unknown="">
            {current}
          </option>
        )}
        {opts.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldErrors path={path} id={errId} />
    </div>
  );
}

export function CheckboxField({ path, label, hint, readOnly, className }: Base) {
  const { ctx, id, errId, invalid, locked } = useFieldBits(path, false);
  const v = ctx.get(path);
  return (
    <div className={`field check ${className ?? ""}`}>
      <input
        id={id}
        name={path}
        type="checkbox"
        checked={v === true}
        disabled={readOnly || locked}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? errId : undefined}
        onChange={(e) => ctx.set(path, e.target.checked)}
      />
      <label htmlFor={id}>
        {label}
        {hint && <span className="hint"> {hint}</span>}
      </label>
      <FieldErrors path={path} id={errId} />
    </div>
  );
}

/**
 * Several named values of one string array as checkboxes (`channelsV2`). Values the list
 * does not name (the service added them) show as ticked boxes with their raw names and
 * are kept. Unticking every box gives back what the field held when the form opened
 * when that was `null` or absent (a version-1 account), and `[]` only when it was a list.
 */
export function CheckboxGroupField({ path, label, values }: { path: string; label: string; values: readonly string[] }) {
  const ctx = useField();
  const raw = ctx.get(path);
  const list = Array.isArray(raw) ? raw.filter((x): x is string => typeof x === "string") : null;
  const [opened] = useState<unknown>(() => raw);
  const [extras, setExtras] = useState<string[]>(() => (list ?? []).filter((v) => !values.includes(v)));
  const unseen = (list ?? []).filter((v) => !values.includes(v) && !extras.includes(v));
  useEffect(() => {
    if (unseen.length > 0) setExtras((e) => [...e, ...unseen]);
  }, [unseen.join("\n")]); // eslint-disable-line react-hooks/exhaustive-deps
  const shown = [...values, ...extras, ...unseen];
  return (
    <fieldset className="field group" data-error-slot={path}>
      <legend>{label}</legend>
      <div className="checks">
        {shown.map((v) => {
          const unknown = !values.includes(v);
          return (
            <label key={v} className="inline-check" title={unknown ? "A value Flightdeck does not know; it is kept as the service sent it." : undefined}>
              <input
                type="checkbox"
                name={path}
                value={v}
                data-unknown={unknown || undefined}
                checked={list?.includes(v) ?? false}
                disabled={ctx.readOnly}
                onChange={(e) => {
                  const cur = list ?? [];
                  const next = e.target.checked ? [...cur, v] : cur.filter((x) => x !== v);
                  ctx.set(path, next.length === 0 && !Array.isArray(opened) ? (opened ?? null) : next);
                }}
              />
              {v}
              {unknown && <span className="hint"> (not known to Flightdeck)</span>}
            </label>
          );
        })}
      </div>
      <FieldErrors path={path} />
    </fieldset>
  );
}

function parseNumberList(text: string): { values: number[]; bad: string[] } {
  const values: number[] = [];
  const bad: string[] = [];
  for (const tok of text.split(/[\s,;]+/)) {
    if (tok === "") continue;
    const n = Number(tok);
    if (Number.isFinite(n)) values.push(n);
    else bad.push(tok);
  }
  return { values, bad };
}

/** A number array typed as a list separated by commas, spaces or new lines. Empty stores null. */
export function NumberListField({ path, label, hint, required, readOnly, multiline, className, emptyAs = null }: Base & { multiline?: boolean; emptyAs?: null | "empty" }) {
  const { ctx, id, errId, invalid, isRequired, locked } = useFieldBits(path, required);
  const raw = ctx.get(path);
  const nums = Array.isArray(raw) ? raw.filter((x): x is number => typeof x === "number") : [];
  const [text, setText] = useState<string | null>(null);
  const shown = text ?? nums.join(multiline ? "\n" : ", ");
  const bad = text === null ? [] : parseNumberList(text).bad;
  const onChange = (t: string) => {
    setText(t);
    const { values } = parseNumberList(t);
    ctx.set(path, values.length === 0 && emptyAs === null ? null : values);
  };
  const common = {
    id,
    name: path,
    value: shown,
    readOnly: readOnly || locked,
    "aria-invalid": invalid || bad.length > 0 || undefined,
    "aria-required": isRequired || undefined,
    "aria-describedby": invalid ? errId : undefined,
    onBlur: () => setText(null),
  };
  return (
    <div className={`field ${className ?? ""}`}>
      <Label htmlFor={id} label={label} required={isRequired} hint={hint ?? (nums.length > 0 ? `${nums.length} ids` : undefined)} />
      {multiline ? (
        <textarea {...common} rows={5} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input {...common} type="text" onChange={(e) => onChange(e.target.value)} />
      )}
      {bad.length > 0 && <div className="field-hint">Not a number: {bad.slice(0, 3).join(", ")}</div>}
      <FieldErrors path={path} id={errId} />
    </div>
  );
}

/**
 * A number array of ids of workspace entities (`audiences[0].siteLists.include`) as a
 * picker showing names; ids the workspace does not hold can be typed. Removing every id
 * gives back what the field held when the form opened when that was `null` or absent,
 * and `[]` when it was a list.
 */
export function EntityIdsField<R extends AnyRow>({
  path,
  label,
  hint,
  required,
  readOnly,
  className,
  ...picker
}: Base & Omit<EntityMultiSelectProps<R>, "value" | "onChange" | "label" | "id" | "invalid" | "describedBy" | "disabled">) {
  const { ctx, id, errId, invalid, isRequired, locked } = useFieldBits(path, required);
  const raw = ctx.get(path);
  const [opened] = useState<unknown>(() => raw);
  const ids = Array.isArray(raw) ? raw.filter((x): x is number => typeof x === "number") : [];
  return (
    <div className={`field ${className ?? ""}`} data-error-slot={path} data-picker={path}>
      <Label htmlFor={id} label={label} required={isRequired} hint={hint} />
      <EntityMultiSelect<R>
        {...picker}
        id={id}
        label={label}
        value={ids}
        disabled={readOnly || locked}
        invalid={invalid}
        describedBy={invalid ? errId : undefined}
        onChange={(next) => ctx.set(path, next.length === 0 && !Array.isArray(opened) ? (opened ?? null) : next)}
      />
      <FieldErrors path={path} id={errId} />
    </div>
  );
}

/** A string array as an add/remove list; each item is its own input (`iabCategory[1]`). */
export function StringListField({ path, label, hint, required, addLabel = "Add", placeholder, className }: Base & { addLabel?: string; placeholder?: string }) {
  const ctx = useField();
  const raw = ctx.get(path);
  const list = Array.isArray(raw) ? raw.map((x) => (typeof x === "string" ? x : asString(x))) : [];
  const isRequired = required ?? ctx.required.has(path);
  const groupId = useId();
  return (
    <fieldset className={`field list ${className ?? ""}`} data-error-slot={path} aria-describedby={groupId}>
      <legend>
        {label}
        {isRequired && <span className="req"> *</span>}
        {hint && <span className="hint"> {hint}</span>}
      </legend>
      {list.map((item, i) => (
        <div className="list-item" key={i}>
          <input
            type="text"
            name={`${path}[${i}]`}
            aria-label={`${label} ${i + 1}`}
            value={item}
            placeholder={placeholder}
            readOnly={ctx.readOnly}
            aria-invalid={ctx.errorsAt(`${path}[${i}]`).length > 0 || undefined}
            onChange={(e) => ctx.set(`${path}[${i}]`, e.target.value)}
          />
          {!ctx.readOnly && (
            <button type="button" className="icon-button" aria-label={`Remove ${label} ${i + 1}`} onClick={() => ctx.set(path, removeAt(list, "", i))}>
              ×
            </button>
          )}
          <FieldErrors path={`${path}[${i}]`} />
        </div>
      ))}
      {!ctx.readOnly && (
        <button type="button" className="small" data-action={`add-${path}`} onClick={() => ctx.set(path, appendAt(list, "", ""))}>
          + {addLabel}
        </button>
      )}
      <div id={groupId}>
        <FieldErrors path={path} />
      </div>
    </fieldset>
  );
}

/** Any JSON value as text; invalid JSON is kept as typed and not stored. */
export function JsonField({ path, label, hint, className }: Base) {
  const { ctx, id, errId, invalid, locked } = useFieldBits(path, false);
  const raw = ctx.get(path);
  const [text, setText] = useState<string | null>(null);
  const shown = text ?? (raw === undefined || raw === null ? "" : JSON.stringify(raw, null, 2));
  let bad = false;
  if (text !== null && text.trim() !== "") {
    try {
      JSON.parse(text);
    } catch {
      bad = true;
    }
  }
  return (
    <div className={`field ${className ?? ""}`}>
      <Label htmlFor={id} label={label} required={false} hint={hint ?? "JSON"} />
      <textarea
        id={id}
        name={path}
        rows={4}
        className="mono"
        value={shown}
        readOnly={locked}
        aria-invalid={invalid || bad || undefined}
        aria-describedby={invalid ? errId : undefined}
        onBlur={() => !bad && setText(null)}
        onChange={(e) => {
          setText(e.target.value);
          const t = e.target.value.trim();
          if (t === "") ctx.set(path, null);
          else {
            try {
              ctx.set(path, JSON.parse(t));
            } catch {
              // keep the text; the value stays as it was
            }
          }
        }}
      />
      {bad && <div className="field-hint">Not valid JSON yet.</div>}
      <FieldErrors path={path} id={errId} />
    </div>
  );
}

/** A read-only value shown in the form (ids, statuses the service sets). */
export function ReadOnly({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div className="field readonly">
      <span className="ro-label">{label}</span>
      <span className="ro-value">{value === null || value === undefined || value === "" ? "—" : value}</span>
    </div>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="form-section" aria-label={title}>
      <div className="section-head">
        <h3>{title}</h3>
        {actions}
      </div>
      <div className="grid">{children}</div>
    </section>
  );
}
