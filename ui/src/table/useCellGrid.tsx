// The grid's cells, as a Google Ads Editor user works them: a cell cursor (row and
// column) moved by the arrows, a range stretched by Shift, each cell edited in place with
// its field's own control (`CellEditor`, chosen by the core's `cellFacts`), and each
// commit, fill down or paste sent as one `editCells` (one undo step; the workspace's
// change event refreshes the rows, their markers and the pending count, as after a bulk
// edit). The row selection follows the cursor and the range, so the rows ticked, the
// rows the cursor covers and the row the side panel opens never disagree.
import { type ClipboardEvent, type KeyboardEvent, type MouseEvent, type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import { commands } from "../bindings";
import { call } from "../api/call";
import { toast } from "../api/toast";
import type { EntityRef, Kind } from "../api/types";
import { PreviewDialog } from "../bulk/PreviewDialog";
import { previewCounts } from "../bulk/PreviewTable";
import type { Preview } from "../bulk/types";
import { refKey } from "../util/refs";
import { plural } from "../util/format";
import { mark } from "../util/timing";
import { CellEditor, cellValue, startText, takesTyping } from "./cells/CellEditor";
import { errorIsAt, useCellFacts } from "./cells/facts";
import { parseTsv } from "./cells/tsv";
import { type CellEdit, type CellFact, lockedWhy } from "./cells/types";
import { type Column, displayValue } from "./columns";
import type { Selection, SelectionApi } from "./useSelection";

/** What a table needs to edit its cells in place. */
export type GridCells<T> = {
  /** The kind whose `cellFacts` describe the columns. */
  kind: Kind;
  rowRef: (row: T) => EntityRef;
  /** The wire value at `path` of a row: an editor's starting value, fill down's source. */
  raw: (row: T, path: string) => unknown;
  /** The IANA zone a row's dates are shown and typed in (UTC without it). */
  zone?: (row: T) => string;
  /** Why none of a row's cells can be edited (a posted creative), or null. */
  rowReadOnly?: (row: T) => string | null;
};

type Cell = { row: number; col: number };
type Editing = { index: number; id: string; col: string; text: string; error: string | null; typed: boolean };
type Move = "down" | "up" | "right" | "left" | null;

export type CellGridInput<T> = {
  cells: GridCells<T> | undefined;
  /** The visible columns. */
  columns: Column<T>[];
  total: number;
  /** The query: a new one ends the range and any edit. */
  resetKey: string;
  /** Changes when rows arrive (a selection waiting for its rows is made then). */
  version: number;
  rowAt: (index: number) => T | undefined;
  rowId: (row: T) => string;
  /**
   * Whether a row still breaks a rule (its marker is "invalid"): a cell's error from its
   * commit shows while it does, so an undo or a fix elsewhere takes the mark away.
   */
  rowInvalid?: (row: T) => boolean;
  loadedBetween: (from: number, to: number) => { index: number; row: T }[];
  /** Rows `offset`… of the query, for a paste or fill beyond the rows loaded. */
  fetchRows: (offset: number, limit: number) => Promise<T[]>;
  /** The cursor's row, and moving it (scrolls it into view). */
  active: number;
  moveTo: (index: number) => void;
  page: () => number;
  sel: SelectionApi;
  /** Selects every row of the query (Ctrl/Cmd+A), as the header's box does. */
  selectAll: () => void;
  onOpen?: (row: T) => void;
  /**
   * The screen's paste of whole rows (a sheet), for what Ctrl/Cmd+V finds that is not a
   * block of cells: a copied sheet (its first line names the kind's fields) or a
   * clipboard the page may not read (its dialog has a box to paste into).
   */
  onPasteRows?: () => void;
  focusGrid: () => void;
};

const NO_CELLS = { cursor: null, rangeFrom: -1, rangeTo: -1, editing: null, editor: null, cellErrors: null, draft: false } as const;
const NO_ERRORS: ReadonlyMap<string, Readonly<Record<string, string>>> = new Map();

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

/** The cell cursor, range, editor, fill down and paste of one table; inert without `cells`. */
export function useCellGrid<T>(p: CellGridInput<T>) {
  const { cells, columns, total, active } = p;
  const enabled = cells !== undefined;
  const facts = useCellFacts(cells?.kind ?? null);
  const [colState, setCol] = useState(0);
  const col = clamp(colState, 0, Math.max(0, columns.length - 1));
  const [anchor, setAnchor] = useState<Cell | null>(null);
  const [editing, setEditingState] = useState<Editing | null>(null);
  const editingRef = useRef<Editing | null>(null);
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);
  const [errors, setErrors] = useState(NO_ERRORS);
  const [status, setStatus] = useState<string | null>(null);
  const [pasting, setPasting] = useState<{ cells: CellEdit[]; count: number } | null>(null);
  const setEditing = (e: Editing | null) => {
    editingRef.current = e;
    setEditingState(e);
  };

  // The row selection follows the cursor and the range; rows not loaded yet are selected
  // when they arrive, unless the buyer picked rows meanwhile (a click, a tick) or the
  // query changed: `since` is the selection the move left.
  const waiting = useRef<{ from: number; to: number; since: Selection } | null>(null);
  const [seen, setSeen] = useState(p.resetKey);
  if (seen !== p.resetKey) {
    setSeen(p.resetKey);
    waiting.current = null;
    setAnchor(null);
    setStatus(null);
    if (editing !== null) setEditingState(null);
  }
  useEffect(() => {
    if (seen === p.resetKey && editing === null) editingRef.current = null;
  }, [seen, p.resetKey, editing]);

  const { loadedBetween, rowId, sel } = p;
  const follow = (from: number, to: number) => {
    const loaded = loadedBetween(from, to);
    if (loaded.length === Math.abs(to - from) + 1) {
      waiting.current = null;
      sel.selectRows(
        loaded.map((x) => rowId(x.row)),
        to,
      );
    } else waiting.current = { from, to, since: sel.selection };
  };
  useEffect(() => {
    const w = waiting.current;
    if (w === null) return;
    if (sel.selection !== w.since) {
      waiting.current = null;
      return;
    }
    const loaded = loadedBetween(w.from, w.to);
    if (loaded.length !== Math.abs(w.to - w.from) + 1) return;
    waiting.current = null;
    sel.selectRows(
      loaded.map((x) => rowId(x.row)),
      w.to,
    );
  }, [p.version, loadedBetween, rowId, sel]);

  const range = () => {
    const a = anchor ?? { row: active, col };
    return { top: Math.min(a.row, active), bottom: Math.max(a.row, active), left: Math.min(a.col, col), right: Math.max(a.col, col) };
  };

  const moveCursor = (row: number, c: number, extend: boolean) => {
    if (total === 0 || columns.length === 0) return;
    const r = clamp(row, 0, total - 1);
    const next = clamp(c, 0, columns.length - 1);
    const a = extend ? (anchor ?? { row: Math.max(active, 0), col }) : null;
    setAnchor(a);
    setCol(next);
    setStatus(null);
    p.moveTo(r);
    follow(a ? a.row : r, r);
  };

  const zoneOf = (row: T) => cells?.zone?.(row) ?? "UTC";
  const isDraft = (row: T) => cells?.rowRef(row).key.type === "local";

  const startEdit = (index: number, colIndex: number, typed: string | null) => {
    const row = p.rowAt(index);
    const column = columns[colIndex];
    if (!cells || row === undefined || column === undefined) return;
    if (facts === null) {
      setStatus("Loading the fields…");
      return;
    }
    const fact = facts.get(column.id);
    const locked = (fact ? lockedWhy(fact, isDraft(row)) : null) ?? cells.rowReadOnly?.(row) ?? null;
    if (!fact || locked !== null) {
      setStatus(locked ?? `${column.header} is not edited in the grid.`);
      return;
    }
    const text = typed !== null && takesTyping(fact) ? typed : startText(fact, cells.raw(row, fact.path), zoneOf(row));
    setStatus(null);
    setEditing({ index, id: rowId(row), col: column.id, text, error: null, typed: typed !== null });
  };

  /** Errors of the cells an answer touched, by row and column: set where the answer names one, cleared where it does not. */
  const noteErrors = (preview: Preview, sent: { cell: CellEdit; id: string; fact: CellFact }[]) => {
    setErrors((old) => {
      const next = new Map(old);
      for (const { cell, id, fact } of sent) {
        const row = preview.rows.find((r) => r.target !== null && refKey(r.target) === refKey(cell.target));
        const at = (row?.errors ?? []).filter((e) => errorIsAt(e.field, fact.path));
        const mine = { ...(next.get(id) ?? {}) };
        if (at.length > 0) mine[fact.column] = at.map((e) => e.message).join(" ");
        else delete mine[fact.column];
        if (Object.keys(mine).length > 0) next.set(id, mine);
        else next.delete(id);
      }
      return next;
    });
  };

  const after = (move: Move, e: Editing) => {
    setEditing(null);
    p.focusGrid();
    if (move === "down") moveCursor(e.index + 1, col, false);
    else if (move === "up") moveCursor(e.index - 1, col, false);
    else if (move === "right") moveCursor(e.index, col + 1, false);
    else if (move === "left") moveCursor(e.index, col - 1, false);
  };

  const commit = async (move: Move) => {
    const e = editingRef.current;
    if (e === null || busyRef.current || !cells) return;
    const row = p.rowAt(e.index);
    const fact = facts?.get(e.col);
    if (row === undefined || !fact) {
      after(move, e);
      return;
    }
    const zone = zoneOf(row);
    if (e.text === startText(fact, cells.raw(row, fact.path), zone)) {
      after(move, e);
      return;
    }
    const cell: CellEdit = { target: cells.rowRef(row), field: fact.column, value: cellValue(fact, e.text, zone) };
    busyRef.current = true;
    setBusy(true);
    // For scripts/bench-ui.sh: from here until the table's next `fd:table-painted`.
    mark("fd:cell-commit");
    const r = await call(commands.editCells([cell], true), { quiet: true });
    busyRef.current = false;
    setBusy(false);
    if (editingRef.current !== e) return;
    if (!r.ok) {
      setEditing({ ...e, error: r.error.fieldErrors.map((f) => f.message).join(" ") || r.error.message || r.error.code });
      return;
    }
    const answer = r.data.rows.find((x) => x.target !== null && refKey(x.target) === refKey(cell.target));
    if (answer?.outcome === "refused") {
      const at = answer.errors.filter((x) => errorIsAt(x.field, fact.path));
      setEditing({ ...e, error: (at.length > 0 ? at : answer.errors).map((x) => x.message).join(" ") || "Refused." });
      return;
    }
    noteErrors(r.data, [{ cell, id: e.id, fact }]);
    after(move, e);
  };

  const cancel = () => {
    const e = editingRef.current;
    if (e === null) return;
    setEditing(null);
    p.focusGrid();
  };

  /** The rows from `from` to `to`, loaded or asked for. */
  const rowsBetween = async (from: number, to: number): Promise<T[]> => {
    const loaded = loadedBetween(from, to);
    if (loaded.length === to - from + 1) return loaded.map((x) => x.row);
    return p.fetchRows(from, to - from + 1);
  };

  /** Applies cells at once (a one-row paste, a fill down, a clear): one undo step. */
  const applyNow = async (title: string, sent: { cell: CellEdit; id: string; fact: CellFact }[]) => {
    if (sent.length === 0) return;
    const r = await call(
      commands.editCells(
        sent.map((s) => s.cell),
        true,
      ),
      { quiet: true },
    );
    if (!r.ok) {
      setStatus(r.error.message || r.error.code);
      toast(r.error.message || r.error.code, "error");
      return;
    }
    noteErrors(r.data, sent);
    toast(`${title}: ${previewCounts(r.data)}`, r.data.refused > 0 || r.data.invalid > 0 ? "error" : "success");
  };

  /** The editable cells of `rows` × columns `left`…`right`, each with the value `value` gives it. */
  const cellsOf = (rows: T[], left: number, right: number, value: (rowIndex: number, colIndex: number, row: T) => CellEdit["value"] | undefined) => {
    const out: { cell: CellEdit; id: string; fact: CellFact }[] = [];
    let locked = 0;
    if (!cells || facts === null) return { out, locked };
    rows.forEach((row, i) => {
      for (let c = left; c <= right; c++) {
        const column = columns[c];
        const fact = column ? facts.get(column.id) : undefined;
        if (!fact || lockedWhy(fact, isDraft(row)) !== null || cells.rowReadOnly?.(row)) {
          locked += 1;
          continue;
        }
        const v = value(i, c - left, row);
        if (v !== undefined) out.push({ cell: { target: cells.rowRef(row), field: fact.column, value: v }, id: rowId(row), fact });
      }
    });
    return { out, locked };
  };

  const lockedNote = (locked: number) => (locked > 0 ? `${plural(locked, "read-only cell")} left as they are.` : null);

  /** Ctrl/Cmd+D: the range's top cell into the cells below it (one cell: the cell above into it). */
  const fillDown = async () => {
    if (active < 0 || !cells) return;
    const g = range();
    const source = g.top === g.bottom ? g.top - 1 : g.top;
    if (source < 0) return;
    const rows = await rowsBetween(source, g.bottom);
    const [from, ...targets] = rows;
    if (from === undefined) return;
    const { out, locked } = cellsOf(targets, g.left, g.right, (_r, c) => {
      const fact = facts?.get(columns[g.left + c]?.id ?? "");
      return fact ? { type: "value", value: (cells.raw(from, fact.path) ?? null) as CellEdit["value"]["value"] } : undefined;
    });
    setStatus(lockedNote(locked));
    await applyNow("Fill down", out);
  };

  /** Delete: clears the range's cells. */
  const clearRange = async () => {
    if (active < 0) return;
    const g = range();
    const rows = await rowsBetween(g.top, g.bottom);
    const { out, locked } = cellsOf(rows, g.left, g.right, () => ({ type: "value", value: null }));
    setStatus(lockedNote(locked));
    await applyNow("Clear", out);
  };

  /** A TSV block into the range from its top-left cell (one value into every cell of a range); more than one row is previewed first. */
  const pasteText = async (text: string) => {
    if (active < 0) return;
    const block = parseTsv(text);
    if (block.length === 0) return;
    const g = range();
    const one = block.length === 1 && block[0].length === 1;
    const spread = one && (g.bottom > g.top || g.right > g.left);
    const bottom = spread ? g.bottom : Math.min(total - 1, g.top + block.length - 1);
    const right = spread ? g.right : Math.min(columns.length - 1, g.left + Math.max(...block.map((b) => b.length)) - 1);
    const rows = await rowsBetween(g.top, bottom);
    const { out, locked } = cellsOf(rows, g.left, right, (r, c) => {
      const t = spread ? block[0][0] : block[r]?.[c];
      return t === undefined ? undefined : { type: "text", value: t };
    });
    setStatus(lockedNote(locked));
    if (out.length === 0) return;
    if (rows.length > 1) setPasting({ cells: out.map((s) => s.cell), count: out.length });
    else await applyNow("Paste", out);
  };

  /**
   * Ctrl/Cmd+C: the range's cells as TSV, each as its column's value (an enum's label, a
   * parent's name, a date's wire milliseconds), which a paste here reads back.
   */
  const copy = async () => {
    if (active < 0) return;
    const g = range();
    const rows = await rowsBetween(g.top, g.bottom);
    const cols = columns.slice(g.left, g.right + 1);
    const cell = (v: string) => (/[\t\n"]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    const text = rows.map((row) => cols.map((c) => cell(displayValue(c.value(row)))).join("\t")).join("\n");
    try {
      await navigator.clipboard.writeText(`${text}\n`);
      setStatus(`Copied ${plural(rows.length * cols.length, "cell")}.`);
    } catch {
      setStatus("The clipboard could not be written.");
    }
  };

  /** Whether `text` is a sheet with a header (what Copy writes): its first line names the kind's fields. */
  const isSheet = (text: string) => {
    const [head, second] = parseTsv(text);
    if (head === undefined || second === undefined || facts === null) return false;
    const names = new Set([...facts.values()].flatMap((f) => [f.column, f.path, f.label].map((n) => n.toLowerCase())));
    return head.every((h) => names.has(h.trim().toLowerCase()));
  };

  const paste = async (given?: string) => {
    let text: string | null = given ?? null;
    if (given === undefined) {
      try {
        text = (await navigator.clipboard?.readText()) ?? null;
      } catch {
        text = null;
      }
    }
    if (text === null || isSheet(text)) {
      if (p.onPasteRows) p.onPasteRows();
      else if (text === null) setStatus("The clipboard could not be read.");
      return;
    }
    await pasteText(text);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLElement>): boolean => {
    if (!enabled || editingRef.current !== null) return false;
    const mod = e.ctrlKey || e.metaKey;
    const shift = e.shiftKey;
    const row = Math.max(active, 0);
    switch (e.key) {
      case "ArrowDown":
        moveCursor(active + 1, col, shift);
        break;
      case "ArrowUp":
        moveCursor(active < 0 ? 0 : active - 1, col, shift);
        break;
      case "ArrowRight":
        moveCursor(row, col + 1, shift);
        break;
      case "ArrowLeft":
        moveCursor(row, col - 1, shift);
        break;
      case "PageDown":
        moveCursor(active + p.page(), col, shift);
        break;
      case "PageUp":
        moveCursor(active - p.page(), col, shift);
        break;
      case "Home":
        moveCursor(mod ? 0 : row, 0, shift);
        break;
      case "End":
        moveCursor(mod ? total - 1 : row, columns.length - 1, shift);
        break;
      case "Enter": {
        if (active < 0) return false;
        if (mod) {
          const r = p.rowAt(active);
          if (r !== undefined) p.onOpen?.(r);
        } else startEdit(active, col, null);
        break;
      }
      case "F2":
        if (active < 0) return false;
        startEdit(active, col, null);
        break;
      case "Escape":
        if (anchor === null && status === null) return false;
        setAnchor(null);
        setStatus(null);
        break;
      case "Delete":
        void clearRange();
        break;
      default: {
        const key = e.key.toLowerCase();
        if (mod && !e.altKey && key === "a") {
          setAnchor(null);
          p.selectAll();
        } else if (mod && !e.altKey && key === "d") void fillDown();
        else if (mod && !e.altKey && !shift && key === "c") {
          // Text the buyer selected on the page is copied as the browser copies it.
          if (active < 0 || (window.getSelection()?.toString() ?? "") !== "") return false;
          void copy();
        }
        else if (mod && !e.altKey && !shift && key === "v") {
          if (active < 0) return false;
          // The cells' paste, not the screen's paste of whole rows.
          e.stopPropagation();
          void paste();
        } else if (!mod && !e.altKey && e.key.length === 1 && e.key !== " " && active >= 0) startEdit(active, col, e.key);
        else return false;
      }
    }
    e.preventDefault();
    return true;
  };

  /**
   * A paste event on the grid: where a menu's accelerator takes Ctrl+V from the page
   * (GTK, Win32), Edit → Paste reaches the grid as this event, with the text.
   */
  const onPaste = (e: ClipboardEvent<HTMLElement>) => {
    if (!enabled || active < 0 || editingRef.current !== null) return;
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return;
    e.preventDefault();
    e.stopPropagation();
    void paste(e.clipboardData.getData("text/plain"));
  };

  /** A click on a cell puts the cursor there; Shift stretches the range to it, Ctrl/Cmd ticks the row. */
  const click = (e: MouseEvent<HTMLElement>, id: string, index: number) => {
    const td = e.target instanceof Element ? e.target.closest<HTMLElement>("td[data-cell]") : null;
    const at = td ? columns.findIndex((c) => c.id === td.dataset.cell) : -1;
    const c = at >= 0 ? at : col;
    setStatus(null);
    if (e.shiftKey) {
      const a = anchor ?? { row: active >= 0 ? active : index, col };
      setAnchor(a);
      setCol(c);
      p.moveTo(index);
      follow(a.row, index);
      return;
    }
    waiting.current = null;
    setAnchor(null);
    setCol(c);
    p.moveTo(index);
    if (e.ctrlKey || e.metaKey) sel.toggle(id, index);
    else sel.selectRows([id], index);
  };

  /** A double click edits the cell in place; on the row outside its cells (the box, the state), it opens the row. */
  const doubleClick = (e: MouseEvent<HTMLElement>, row: T, index: number) => {
    const td = e.target instanceof Element ? e.target.closest<HTMLElement>("td[data-cell]") : null;
    const at = td ? columns.findIndex((c) => c.id === td.dataset.cell) : -1;
    if (at < 0) {
      p.onOpen?.(row);
      return;
    }
    setCol(at);
    setAnchor(null);
    if (index !== active) {
      p.moveTo(index);
      follow(index, index);
    }
    startEdit(index, at, null);
  };

  // The cursor's cell in view, sideways too (the frozen name column stays).
  const cursorColumn = active >= 0 ? (columns[col]?.id ?? null) : null;
  useEffect(() => {
    if (!enabled || cursorColumn === null) return;
    const el = document.querySelector<HTMLElement>(`[data-row][aria-rowindex="${active + 2}"] td[data-cursor]`);
    el?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
  }, [enabled, active, cursorColumn]);

  const rangeBox = anchor !== null && active >= 0 ? range() : null;
  const rowProps = (index: number, id: string, row: T) => {
    if (!enabled) return NO_CELLS;
    const ed = editing !== null && editing.index === index && editing.id === id ? editing : null;
    const fact = ed ? facts?.get(ed.col) : undefined;
    const inRange = rangeBox !== null && index >= rangeBox.top && index <= rangeBox.bottom;
    return {
      cursor: index === active ? cursorColumn : null,
      rangeFrom: inRange ? rangeBox.left : -1,
      rangeTo: inRange ? rangeBox.right : -1,
      editing: ed && fact ? ed.col : null,
      editor:
        ed && fact ? (
          <CellEditor
            fact={fact}
            text={ed.text}
            error={ed.error}
            busy={busy}
            caretAtEnd={ed.typed}
            onText={(text) => setEditing({ ...ed, text })}
            onLeave={() => void commit(null)}
            onKey={(k) => {
              if (k.key === "Enter") void commit(k.shiftKey ? "up" : "down");
              else if (k.key === "Tab") void commit(k.shiftKey ? "left" : "right");
              else if (k.key === "Escape") cancel();
              else if (ed.typed && takesTyping(fact) && (k.key === "ArrowDown" || k.key === "ArrowUp")) void commit(k.key === "ArrowDown" ? "down" : "up");
              else return;
              k.preventDefault();
            }}
          />
        ) : null,
      cellErrors: p.rowInvalid && !p.rowInvalid(row) ? null : (errors.get(id) ?? null),
      draft: isDraft(row),
    };
  };

  const cursorFact = cursorColumn !== null ? facts?.get(cursorColumn) : undefined;
  const cursorRow = active >= 0 ? p.rowAt(active) : undefined;
  const cursorError = cursorRow !== undefined && cursorColumn !== null && (!p.rowInvalid || p.rowInvalid(cursorRow)) ? errors.get(rowId(cursorRow))?.[cursorColumn] : undefined;
  const cursorLocked = cursorRow !== undefined && cursorFact ? lockedWhy(cursorFact, isDraft(cursorRow)) : null;
  const statusText = status ?? cursorError ?? (cursorLocked !== null ? `${cursorFact?.label ?? ""}: ${cursorLocked}` : null);
  const statusLine = enabled ? (
    <div className="dt-status" role="status" data-cell-status="">
      {statusText ?? (active >= 0 ? "Enter, F2 or typing edits the cell · Tab and Enter commit · Esc cancels · Shift+arrows select · Ctrl+D fills down · Ctrl+V pastes · Ctrl+Enter opens the form" : "Click a cell or press ↓ to start.")}
    </div>
  ) : null;

  const pasteCells = pasting?.cells;
  const dialog: ReactNode = useMemo(
    () =>
      pasteCells ? (
        <PreviewDialog
          title={`Paste ${plural(pasteCells.length, "cell")}`}
          run={(apply) => commands.editCells(pasteCells, apply)}
          onClose={() => {
            setPasting(null);
          }}
          autoPreview
        />
      ) : null,
    [pasteCells],
  );

  return { enabled, facts, onKeyDown, onPaste, click, doubleClick, rowProps, statusLine, dialog, editing: editing !== null, pasteText };
}
