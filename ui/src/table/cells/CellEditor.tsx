// The control a cell is edited with, chosen by the cell's fact (`CellFact.editor`): text,
// a number or an amount, a date and time in the row's zone, a pick list, an entity
// picker, yes or no. It holds the typed text only; the grid commits it (`cellValue`).
import { type FocusEvent, type KeyboardEvent, useCallback } from "react";
import { fetchAdOrders, fetchAdvertisers, fetchCampaigns, fetchCreatives, fetchSegments, fetchSiteLists } from "../../api/queries";
import type { AnyRow, Kind } from "../../api/types";
import { EntitySelect } from "../../components/EntitySelect";
import type { WindowFetch } from "../windowCache";
import { fromLocalInput, toLocalInput } from "../../util/time";
import type { CellFact, CellValue, JsonValue } from "./types";

const PICKERS: Partial<Record<Kind, WindowFetch<AnyRow>>> = {
  advertiser: fetchAdvertisers,
  campaign: fetchCampaigns,
  ad_order: fetchAdOrders,
  creative: fetchCreatives,
  site_list: fetchSiteLists,
  audience_segment: fetchSegments,
};

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The editor's starting text for a cell holding `raw` (its wire value). */
export function startText(fact: CellFact, raw: unknown, zone: string): string {
  const e = fact.editor;
  if (raw === undefined || raw === null) return "";
  switch (e.type) {
    case "date":
      return typeof raw === "number" ? toLocalInput(raw, zone) : String(raw);
    case "enum": {
      const i = e.choices.findIndex((c) => sameJson(c.value, raw));
      return i >= 0 ? String(i) : "";
    }
    case "bool":
      return raw === true ? "true" : "false";
    case "entity":
      return typeof raw === "number" ? String(raw) : "";
    case "list":
      return Array.isArray(raw) ? raw.map((x) => (typeof x === "string" || typeof x === "number" ? String(x) : JSON.stringify(x))).join("; ") : String(raw);
    default:
      return typeof raw === "string" || typeof raw === "number" || typeof raw === "boolean" ? String(raw) : JSON.stringify(raw);
  }
}

/** Whether typing a character starts the editor with that character (text boxes) rather than opening it as it is. */
export function takesTyping(fact: CellFact): boolean {
  return ["text", "number", "money", "list"].includes(fact.editor.type);
}

/** What a cell's editor commits: a wire value where the control gives one, else the text, read on the Rust side as a sheet cell is. */
export function cellValue(fact: CellFact, text: string, zone: string): CellValue {
  const e = fact.editor;
  switch (e.type) {
    case "date": {
      if (text.trim() === "") return { type: "value", value: null };
      const ms = fromLocalInput(text, zone);
      return ms === null ? { type: "text", value: text } : { type: "value", value: ms };
    }
    case "enum": {
      const choice: JsonValue | undefined = text === "" ? null : e.choices[Number(text)]?.value;
      return { type: "value", value: choice ?? null };
    }
    case "bool":
      return { type: "value", value: text === "" ? null : text === "true" };
    case "entity":
      // An id, or the name of one not posted yet (the Rust side says it has no id).
      return /^\d+$/.test(text) ? { type: "value", value: Number(text) } : { type: "text", value: text };
    default:
      return { type: "text", value: text };
  }
}

export type CellEditorProps = {
  fact: CellFact;
  text: string;
  /** The cell's error from the last commit (the typed text stays). */
  error: string | null;
  busy: boolean;
  onText: (text: string) => void;
  /** Keys the grid answers (Enter, Tab, Escape, arrows); the editor keeps every other. */
  onKey: (e: KeyboardEvent<HTMLElement>) => void;
  /** Focus left the editor (a click elsewhere): the grid commits. */
  onLeave: () => void;
  /** Put the caret at the end (typing started the edit) rather than selecting the text. */
  caretAtEnd: boolean;
};

/** The cell's editor, over the cell; `[data-cell-editor]` is its control. */
export function CellEditor({ fact, text, error, busy, onText, onKey, onLeave, caretAtEnd }: CellEditorProps) {
  const focus = useCallback(
    (el: HTMLInputElement | HTMLSelectElement | null) => {
      if (!el || el.dataset.focused === "1") return;
      el.dataset.focused = "1";
      el.focus({ preventScroll: true });
      if (el instanceof HTMLInputElement && el.type === "text") {
        if (caretAtEnd) el.setSelectionRange(el.value.length, el.value.length);
        else el.select();
      }
    },
    [caretAtEnd],
  );
  const onBlur = (e: FocusEvent<HTMLDivElement>) => {
    const next = e.relatedTarget;
    if (next instanceof Node && e.currentTarget.contains(next)) return;
    onLeave();
  };
  const e = fact.editor;
  const common = { "aria-label": fact.label, "aria-invalid": error !== null || undefined, "aria-busy": busy || undefined, name: fact.path };
  let control;
  switch (e.type) {
    case "date":
      control = <input {...common} ref={focus} data-cell-editor="date" type="datetime-local" value={text} onChange={(ev) => onText(ev.target.value)} />;
      break;
    case "enum":
      control = (
        <select {...common} ref={focus} data-cell-editor="enum" value={text} onChange={(ev) => onText(ev.target.value)}>
          <option value="">—</option>
          {e.choices.map((c, i) => (
            <option key={i} value={String(i)}>
              {c.label}
            </option>
          ))}
        </select>
      );
      break;
    case "bool":
      control = (
        <select {...common} ref={focus} data-cell-editor="bool" value={text} onChange={(ev) => onText(ev.target.value)}>
          <option value="">—</option>
          <option value="true">Yes</option>
          <option value="false">No</option>
        </select>
      );
      break;
    case "entity": {
      const fetch = PICKERS[e.kind];
      control = fetch ? (
        <span data-cell-editor="entity" ref={(el) => focus(el?.querySelector("select") ?? null)}>
          <EntitySelect
            fetch={fetch}
            kind={e.kind}
            name={fact.path}
            label={fact.label}
            value={/^\d+$/.test(text) ? { kind: e.kind, key: { type: "id", value: Number(text) } } : null}
            onChange={(ref, row) => onText(ref === null ? "" : ref.key.type === "id" ? String(ref.key.value) : (row?.label ?? ""))}
            invalid={error !== null}
          />
        </span>
      ) : (
        <input {...common} ref={focus} data-cell-editor="text" type="text" value={text} onChange={(ev) => onText(ev.target.value)} />
      );
      break;
    }
    default:
      control = (
        <input
          {...common}
          ref={focus}
          data-cell-editor={e.type}
          type="text"
          inputMode={e.type === "number" || e.type === "money" ? "decimal" : undefined}
          value={text}
          onChange={(ev) => onText(ev.target.value)}
        />
      );
  }
  return (
    <div
      className="dt-editor"
      onKeyDown={(ev) => {
        ev.stopPropagation();
        onKey(ev);
      }}
      onBlur={onBlur}
      onClick={(ev) => ev.stopPropagation()}
      onDoubleClick={(ev) => ev.stopPropagation()}
    >
      {control}
      {error !== null && (
        <div className="dt-editor-error" role="alert" data-cell-error="">
          {error}
        </div>
      )}
    </div>
  );
}
