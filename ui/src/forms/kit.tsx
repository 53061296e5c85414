// Form building blocks: state with debounced server-side validation, a frame that routes
// field errors to the inputs named by their wire paths, and the field controls.
import {
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import type { AnyRow, Draft, EntityRef, FieldError } from "../api/types";
import { EntityMultiSelect, type EntityMultiSelectProps } from "../components/EntityMultiSelect";
import { appendAt, getPath, removeAt, routeErrors, setPath } from "../util/path";
import { fromLocalInput, toLocalInput } from "../util/time";

export const VALIDATE_DEBOUNCE_MS = 300;

/** What the Rust side validates, as `save` takes it: the entity edited (null for a new one), what it hangs under, the draft. */
export type Validation = { target: EntityRef | null; parent: EntityRef | null; draft: Draft };

export type FormState<V> = {
  value: V;
  setValue: (next: V | ((prev: V) => V)) => void;
  set: (path: string, v: unknown) => void;
  errors: FieldError[];
  setErrors: (e: FieldError[]) => void;
  dirty: boolean;
  /** Validate again (the parent or the create/update mode changed). */
  revalidate: () => void;
  /**
   * Whether the value differs from what the form opened with or last saved (a field
   * typed and then emptied again does not count).
   */
  unsaved: () => boolean;
  /** The workspace now holds `v`: closing the form loses nothing of it. */
  markSaved: (v: V) => void;
};

/** A value as it would be saved, for comparing: empty members and nulls dropped. */
function comparable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(comparable);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, m] of Object.entries(v)) {
      const c = comparable(m);
      if (c === null || c === undefined || (typeof c === "object" && !Array.isArray(c) && Object.keys(c).length === 0)) continue;
      out[k] = c;
    }
    return out;
  }
  return v;
}

function sameContent(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(comparable(a)) === JSON.stringify(comparable(b));
}

/**
 * Holds a draft and asks the Rust side to validate it (debounced) whenever it changes;
 * the UI itself applies no rule.
 */
export function useFormState<V>(initial: V, toDraft: ((v: V) => Validation) | null, validateOnOpen = true): FormState<V> {
  const [value, setValueRaw] = useState<V>(initial);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [dirty, setDirty] = useState(false);
  const [tick, setTick] = useState(validateOnOpen ? 1 : 0);
  const seq = useRef(0);
  const toDraftRef = useRef(toDraft);
  toDraftRef.current = toDraft;

  const setValue = useCallback((next: V | ((prev: V) => V)) => {
    setValueRaw((prev) => (typeof next === "function" ? (next as (p: V) => V)(prev) : next));
    setDirty(true);
    setTick((t) => t + 1);
  }, []);
  const set = useCallback((path: string, v: unknown) => setValue((prev) => setPath(prev, path, v)), [setValue]);

  useEffect(() => {
    if (tick === 0 || !toDraftRef.current) return;
    const mine = ++seq.current;
    const { target, parent, draft } = toDraftRef.current(value);
    const timer = setTimeout(() => {
      void unwrap(commands.validate(target, parent, draft), { quiet: true }).then((errs) => {
        if (errs && mine === seq.current) setErrors(errs);
      });
    }, VALIDATE_DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // `value` is read through `tick`, which changes with every edit.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tick]);

  const setErrorsNow = useCallback((e: FieldError[]) => {
    seq.current++;
    setErrors(e);
  }, []);

  const revalidate = useCallback(() => setTick((t) => t + 1), []);

  // What the form opened with or last saved; read only when the buyer leaves the form.
  const saved = useRef<V>(initial);
  const current = useRef<V>(value);
  current.current = value;
  const unsaved = useCallback(() => !sameContent(current.current, saved.current), []);
  const markSaved = useCallback((v: V) => {
    saved.current = v;
  }, []);

  return { value, setValue, set, errors, setErrors: setErrorsNow, dirty, revalidate, unsaved, markSaved };
}

type FieldCtx = {
  get: (path: string) => unknown;
  set: (path: string, v: unknown) => void;
  errorsAt: (path: string) => FieldError[];
  /** IANA zone dates are shown in. */
  zone: string;
  required: ReadonlySet<string>;
  readOnly: boolean;
};

const FieldContext = createContext<FieldCtx | null>(null);

export function useField(): FieldCtx {
  const c = useContext(FieldContext);
  if (!c) throw new Error("field outside a FormFrame");
  return c;
}

/**
 * The forms shown together in the edit panel (an ad order and its flight caps), so that
 * closing the panel first asks each form that holds unsaved work.
 */
export type LeaveGroup = {
  /** Adds a form's `leave`; returns its removal. */
  register: (leave: Leave) => () => void;
  /** Runs `then` once every form agreed to be left (asking where work is unsaved). */
  leave: (then: () => void) => void;
};
type Leave = (then: () => void) => void;

const LeaveContext = createContext<LeaveGroup | null>(null);

/** Gives the forms inside one [`LeaveGroup`]. */
export function LeaveGroupProvider({ children, value }: { children: ReactNode; value: LeaveGroup }) {
  return <LeaveContext.Provider value={value}>{children}</LeaveContext.Provider>;
}

/** A group for the forms of one panel; its `leave` asks them in turn. */
export function useLeaveGroup(): LeaveGroup {
  const forms = useRef<Leave[]>([]);
  return useMemo<LeaveGroup>(
    () => ({
      register: (leave) => {
        forms.current = [...forms.current, leave];
        return () => {
          forms.current = forms.current.filter((f) => f !== leave);
        };
      },
      leave: (then) => {
        const chain = forms.current.reduceRight<() => void>((next, f) => () => f(next), then);
        chain();
      },
    }),
    [],
  );
}

export type FormFrameProps<V> = {
  form: FormState<V>;
  /** `data-form` attribute. */
  kind: string;
  title: string;
  subtitle?: ReactNode;
  zone?: string;
  required?: ReadonlySet<string>;
  onSubmit: () => unknown;
  onCancel?: () => void;
  saveLabel?: string;
  busy?: boolean;
  children: ReactNode;
  buttons?: ReactNode;
  /** Focus the first field when the form opens (off for forms embedded under another). */
  autoFocus?: boolean;
  /**
   * Why the entity cannot be edited (a posted creative or segment): every field is
   * disabled, the reason is shown and the save button is gone; `buttons` stay.
   */
  readOnly?: string | null;
};

const EMPTY = new Set<string>();

/** A form whose errors land at the inputs named by their wire path; the rest go on top. */
export function FormFrame<V>(p: FormFrameProps<V>) {
  const ref = useRef<HTMLFormElement>(null);
  const [rendered, setRendered] = useState<string[]>([]);
  const confirmId = useId();
  const { form } = p;

  // Which wire paths have an input (or an error slot) on screen, read after each render.
  // No dependency list on purpose: the DOM is the input; the comparison below ends the loop.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const names = new Set<string>();
    el.querySelectorAll("[name]").forEach((n) => {
      const name = n.getAttribute("name");
      if (name) names.add(name);
    });
    el.querySelectorAll("[data-error-slot]").forEach((n) => {
      const name = n.getAttribute("data-error-slot");
      if (name) names.add(name);
    });
    const list = [...names].sort();
    if (list.join("\n") !== rendered.join("\n")) setRendered(list);
  });

  const autoFocus = p.autoFocus ?? true;
  useEffect(() => {
    if (!autoFocus) return;
    const first = ref.current?.querySelector<HTMLElement>(".form-body input:not([disabled]):not([readonly]), .form-body select:not([disabled]), .form-body textarea:not([readonly])");
    first?.focus();
  }, [autoFocus]);

  const routes = useMemo(() => routeErrors(form.errors, rendered), [form.errors, rendered]);
  const ctx = useMemo<FieldCtx>(
    () => ({
      get: (path) => getPath(form.value, path),
      set: form.set,
      errorsAt: (path) => routes.get(path) ?? [],
      zone: p.zone ?? "UTC",
      required: p.required ?? EMPTY,
      readOnly: !!p.readOnly,
    }),
    [form.value, form.set, routes, p.zone, p.required, p.readOnly],
  );
  const locked = !!p.readOnly;
  const top = routes.get("") ?? [];

  // Leaving with unsaved work asks first; `asking` holds what leaving then does.
  const [asking, setAsking] = useState<{ go: () => void } | null>(null);
  const { unsaved } = form;
  const leave = useCallback<Leave>((then) => (unsaved() ? setAsking({ go: then }) : then()), [unsaved]);
  const group = useContext(LeaveContext);
  useEffect(() => group?.register(leave), [group, leave]);
  const cancel = () => {
    if (!p.onCancel) return;
    if (group) group.leave(p.onCancel);
    else leave(p.onCancel);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!p.busy && !locked) void p.onSubmit();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLFormElement>) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") {
      e.preventDefault();
      if (!p.busy && !locked) void p.onSubmit();
    } else if (e.key === "Escape" && asking) {
      // Escape again keeps editing, as "Keep editing" does.
      e.preventDefault();
      e.stopPropagation();
      setAsking(null);
    } else if (e.key === "Escape" && p.onCancel) {
      e.preventDefault();
      e.stopPropagation();
      cancel();
    }
  };

  return (
    <FieldContext.Provider value={ctx}>
      <form ref={ref} className="form" data-form={p.kind} data-read-only={locked || undefined} onSubmit={submit} onKeyDown={onKeyDown} noValidate aria-label={p.title}>
        <header className="form-head">
          <h2>{p.title}</h2>
          {p.subtitle && <div className="form-sub">{p.subtitle}</div>}
        </header>
        {locked && (
          <div className="form-readonly" role="note" data-testid="read-only-reason">
            <strong>Read-only.</strong> {p.readOnly}
          </div>
        )}
        {top.length > 0 && (
          <div className="form-errors" data-form-errors="" role="alert">
            <strong>{top.length === 1 ? "1 problem" : `${top.length} problems`}</strong>
            <ul>
              {top.map((e, i) => (
                <li key={i} data-code={e.code} data-field={e.field}>
                  {e.field ? <code>{e.field}</code> : null} {e.message}
                </li>
              ))}
            </ul>
          </div>
        )}
        <div className="form-body">{p.children}</div>
        <footer className="form-foot">
          {asking ? (
            <div className="form-confirm" role="alertdialog" aria-label="Unsaved changes" data-confirm="discard" aria-describedby={`${confirmId}-text`}>
              <span id={`${confirmId}-text`}>
                <strong>Discard what you typed in “{p.title}”?</strong> It is not saved in the workspace yet.
              </span>
              <button type="button" className="primary" data-action="keep-editing" autoFocus onClick={() => setAsking(null)}>
                Keep editing
              </button>
              <button
                type="button"
                className="danger"
                data-action="discard"
                onClick={() => {
                  setAsking(null);
                  asking.go();
                }}
              >
                Discard
              </button>
            </div>
          ) : (
            <>
              {!locked && (
                <button type="submit" className="primary" data-action="save" disabled={p.busy}>
                  {p.saveLabel ?? "Save"}
                </button>
              )}
              {p.onCancel && (
                <button type="button" data-action="cancel" onClick={cancel}>
                  Cancel
                </button>
              )}
              {p.buttons}
              {form.errors.length > 0 && <span className="form-count">{form.errors.length === 1 ? "1 problem" : `${form.errors.length} problems`}</span>}
            </>
          )}
        </footer>
      </form>
    </FieldContext.Provider>
  );
}

/** The errors routed to `path`, in `[data-error-for]`. */
export function FieldErrors({ path, id }: { path: string; id?: string }) {
  const { errorsAt } = useField();
  const errs = errorsAt(path);
  if (errs.length === 0) return null;
  return (
    <div className="field-error" data-error-for={path} id={id} role="alert">
      {errs.map((e, i) => (
        <div key={i} data-code={e.code}>
          {e.field !== path ? <code>{e.field.slice(path.length).replace(/^\./, "")}</code> : null} {e.message}
        </div>
      ))}
    </div>
  );
}

/** A place for errors about a whole object or array (`frequencyCap`, `flights`). */
export function ErrorSlot({ path }: { path: string }) {
  return (
    <div data-error-slot={path} className="error-slot">
      <FieldErrors path={path} />
    </div>
  );
}

type Base = { path: string; label: string; hint?: ReactNode; required?: boolean; readOnly?: boolean; className?: string };

function useFieldBits(path: string, required?: boolean) {
  const ctx = useField();
  const id = useId();
  const errs = ctx.errorsAt(path);
  const isRequired = required ?? ctx.required.has(path);
  return { ctx, id, errId: `${id}-err`, invalid: errs.length > 0, isRequired, locked: ctx.readOnly };
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

/** A date and time in the form's zone, stored as Unix ms. */
export function DateField({ path, label, hint, required, readOnly, className }: Base) {
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
          setText(e.target.value);
          if (e.target.value === "") ctx.set(path, null);
          else {
            const v = fromLocalInput(e.target.value, ctx.zone);
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
