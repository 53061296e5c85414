import { useEffect, useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import type { Preview, RowOutcome, RowPreview } from "./types";
import { plural, showJson } from "../util/format";
import { FieldName } from "./FieldName";

/** Rows a page of a preview shows: what the preview's answer carries first (FIRST_ROWS on the Rust side). */
export const PREVIEW_PAGE = 50;

const OUTCOME_TEXT: Record<RowOutcome, string> = {
  create: "New",
  update: "Update",
  unchanged: "Unchanged",
  refused: "Refused",
};

/** The counts of a preview, in words. */
export function previewCounts(p: Preview): string {
  const parts = [
    p.creates ? plural(p.creates, "new draft") : null,
    p.updates ? plural(p.updates, "update") : null,
    p.unchanged ? `${p.unchanged.toLocaleString()} unchanged` : null,
    p.refused ? `${p.refused.toLocaleString()} refused` : null,
    p.invalid ? `${p.invalid.toLocaleString()} with errors` : null,
  ].filter((s): s is string => s !== null);
  return parts.length ? parts.join(" · ") : "Nothing would change.";
}

/**
 * The rows of one page of a preview: the first page is in the preview's answer; a later
 * one is asked of the Rust side, which keeps the preview's rows (`previewRows`). `null`
 * while a page is on its way.
 */
function usePage(preview: Preview, offset: number): RowPreview[] | null {
  const [page, setPage] = useState<{ id: number | null; offset: number; rows: RowPreview[] } | null>(null);
  const id = preview.rowsId;
  const first = offset === 0 || id === null;
  useEffect(() => {
    if (first || id === null) return;
    let live = true;
    void unwrap(commands.previewRows(id, offset, PREVIEW_PAGE)).then((w) => {
      if (live && w) setPage({ id, offset, rows: w.rows });
    });
    return () => {
      live = false;
    };
  }, [first, id, offset]);
  if (first) return preview.rows;
  return page !== null && page.id === id && page.offset === offset ? page.rows : null;
}

/**
 * What a bulk operation would do (or did), row by row: outcome, field diffs and the Rust
 * side's errors. One page of rows at a time: a preview of 100,000 rows shows (and holds)
 * 50 of them.
 */
export function PreviewTable({ preview }: { preview: Preview }) {
  const [at, setAt] = useState<{ id: number | null; offset: number }>({ id: preview.rowsId, offset: 0 });
  const offset = at.id === preview.rowsId ? at.offset : 0;
  const rows = usePage(preview, offset);
  const total = preview.rowCount;
  const go = (to: number) => setAt({ id: preview.rowsId, offset: to });
  return (
    <div className="preview">
      <p className="preview-counts" data-preview-counts="">
        {previewCounts(preview)}
      </p>
      {total > PREVIEW_PAGE && (
        <div className="preview-pager inline" role="group" aria-label="Preview pages" style={{ display: "flex", gap: 8, alignItems: "center" }}>
          <button type="button" data-action="preview-previous" disabled={offset === 0} onClick={() => go(Math.max(0, offset - PREVIEW_PAGE))}>
            Previous
          </button>
          <span data-preview-range="">
            Rows {(offset + 1).toLocaleString()}–{Math.min(total, offset + PREVIEW_PAGE).toLocaleString()} of {total.toLocaleString()}
          </span>
          <button type="button" data-action="preview-next" disabled={offset + PREVIEW_PAGE >= total} onClick={() => go(offset + PREVIEW_PAGE)}>
            Next
          </button>
        </div>
      )}
      {total > 0 && (
        <div className="preview-scroll">
          <table className="mini preview-table" data-preview="" aria-busy={rows === null}>
            <thead>
              <tr>
                <th>Row</th>
                <th>Outcome</th>
                <th>Changes</th>
                <th>Errors</th>
              </tr>
            </thead>
            <tbody>
              {(rows ?? []).map((r, i) => (
                <tr key={offset + i} data-preview-row={r.label} data-outcome={r.outcome} className={r.errors.length ? "has-errors" : undefined}>
                  <th scope="row">
                    {r.line !== null && <span className="muted">Line {r.line}: </span>}
                    {r.label}
                  </th>
                  <td>
                    <span className={`outcome outcome-${r.outcome}`}>{OUTCOME_TEXT[r.outcome] ?? r.outcome}</span>
                  </td>
                  <td>
                    {r.diffs.length > 0 && (
                      <ul className="diffs">
                        {r.diffs.map((d) => (
                          <li key={d.path} data-diff={d.path}>
                            <FieldName kind={r.kind} path={d.path} /> <span className="before mono">{d.beforeText ?? showJson(d.before)}</span> → <span className="after mono">{d.afterText ?? showJson(d.after)}</span>
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>
                    {r.errors.length > 0 && (
                      <ul className="errors">
                        {r.errors.map((e, j) => (
                          <li key={j} data-error-field={e.field}>
                            <FieldName kind={r.kind} path={e.field} /> {e.message}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
