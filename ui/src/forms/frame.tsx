// Form state and frame: state with debounced server-side validation, and a frame that
// routes field errors to the inputs named by their wire paths. The controls are in fields.tsx.
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
import { commands, KINDS, type Finding } from "../bindings";
import { genericPath, labelOfPath, useEditFields } from "../bulk/fields";
import { unwrap } from "../api/call";
import type { Draft, EntityRef, FieldError, Kind } from "../api/types";
import { getPath, routeErrors, setPath } from "../util/path";

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
  /** The wire paths on screen the value needs, by the model's rules (the "required" marks). */
  required: ReadonlySet<string>;
  /** The wire paths the form shows, whose need the Rust side is asked about. */
  setPaths: (paths: string[]) => void;
};

const NO_PATHS: ReadonlySet<string> = new Set<string>();

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

  // The "required" marks: which of the paths on screen the model's rules need for this
  // value (a campaign with flights needs no budget or dates of its own), asked as
  // validation is, but also when the form opens without validating.
  const [required, setRequired] = useState<ReadonlySet<string>>(NO_PATHS);
  const paths = useRef<string[]>([]);
  const [pathsTick, setPathsTick] = useState(0);
  const reqSeq = useRef(0);
  const setPaths = useCallback((next: string[]) => {
    if (next.join("\n") === paths.current.join("\n")) return;
    paths.current = next;
    setPathsTick((t) => t + 1);
  }, []);
  useEffect(() => {
    if (!toDraftRef.current || paths.current.length === 0) return;
    const mine = ++reqSeq.current;
    const { target, draft } = toDraftRef.current(value);
    const asked = paths.current;
    const timer = setTimeout(() => {
      commands
        .requiredFields(draft, target === null, asked)
        .then((r) => {
          if (mine === reqSeq.current) setRequired(new Set(r));
        })
        .catch(() => undefined);
    }, VALIDATE_DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // `value` is read through `tick`, which changes with every edit.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tick, pathsTick]);

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

  return { value, setValue, set, errors, setErrors: setErrorsNow, dirty, revalidate, unsaved, markSaved, required, setPaths };
}

type FieldCtx = {
  get: (path: string) => unknown;
  set: (path: string, v: unknown) => void;
  errorsAt: (path: string) => FieldError[];
  /** The checks' warnings and infos routed to `path` (they never block a save). */
  findingsAt: (path: string) => Finding[];
  /** IANA zone dates are shown in. */
  zone: string;
  required: ReadonlySet<string>;
  readOnly: boolean;
  /** Whether the service sets the field (a creative's review status): shown, never typed. */
  serviceSet: (path: string) => boolean;
  /** A wire path in the buyer's words, the field's label. */
  labelOf: (path: string) => string;
};

const kindOf = (name: string): Kind | null => KINDS.find((k) => k.kind === name)?.kind ?? null;

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
  /** The Rust side's warnings and infos about the value, shown at their fields as errors are. */
  findings?: Finding[];
};

const NO_FINDINGS: Finding[] = [];

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

  const known = useEditFields(kindOf(p.kind));
  const { setPaths } = form;
  useEffect(() => setPaths(rendered), [setPaths, rendered]);
  const required = useMemo(() => (p.required ? new Set([...p.required, ...form.required]) : form.required), [p.required, form.required]);

  const routes = useMemo(() => routeErrors(form.errors, rendered), [form.errors, rendered]);
  const findings = p.findings ?? NO_FINDINGS;
  const findingRoutes = useMemo(() => routeErrors(findings.map((f) => ({ field: f.path, finding: f })), rendered), [findings, rendered]);
  const ctx = useMemo<FieldCtx>(
    () => ({
      get: (path) => getPath(form.value, path),
      set: form.set,
      errorsAt: (path) => routes.get(path) ?? [],
      findingsAt: (path) => (findingRoutes.get(path) ?? []).map((r) => r.finding),
      zone: p.zone ?? "UTC",
      required,
      readOnly: !!p.readOnly,
      serviceSet: (path) => known.some((f) => f.serviceSet && f.path === genericPath(path)),
      labelOf: (path) => labelOfPath(known, path),
    }),
    [form.value, form.set, routes, findingRoutes, p.zone, required, p.readOnly, known],
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
                  {e.field ? (
                    <span className="error-field" title={e.field} data-wire-path={e.field}>
                      {ctx.labelOf(e.field)}
                    </span>
                  ) : null}{" "}
                  {e.message}
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

/** The errors routed to `path`, in `[data-error-for]`; then its warnings and infos, in `[data-findings-for]`. */
export function FieldErrors({ path, id }: { path: string; id?: string }) {
  const { errorsAt, findingsAt, labelOf } = useField();
  const errs = errorsAt(path);
  const found = findingsAt(path);
  if (errs.length === 0 && found.length === 0) return null;
  return (
    <>
      {errs.length > 0 && (
        <div className="field-error" data-error-for={path} id={id} role="alert">
          {errs.map((e, i) => (
            <div key={i} data-code={e.code}>
              {e.field !== path ? (
                <span className="error-field" title={e.field} data-wire-path={e.field}>
                  {labelOf(e.field)}
                </span>
              ) : null}{" "}
              {e.message}
            </div>
          ))}
        </div>
      )}
      {found.length > 0 && (
        <div className="field-findings" data-findings-for={path}>
          {found.map((f, i) => (
            <div key={i} className={`finding finding-${f.level}`} data-rule={f.rule} data-level={f.level}>
              <b>{f.level === "warning" ? "Warning" : f.level === "info" ? "Info" : "Error"}</b>
              {f.line !== null ? <span className="finding-line"> line {f.line}</span> : null} {f.message}
            </div>
          ))}
        </div>
      )}
    </>
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
