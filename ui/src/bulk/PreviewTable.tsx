import type { Preview, RowOutcome } from "./types";
import { plural, showJson } from "../util/format";

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

/** What a bulk operation would do (or did), row by row: outcome, field diffs and the Rust side's errors. */
export function PreviewTable({ preview }: { preview: Preview }) {
  return (
    <div className="preview">
      <p className="preview-counts" data-preview-counts="">
        {previewCounts(preview)}
      </p>
      {preview.rows.length > 0 && (
        <div className="preview-scroll">
          <table className="mini preview-table" data-preview="">
            <thead>
              <tr>
                <th>Row</th>
                <th>Outcome</th>
                <th>Changes</th>
                <th>Errors</th>
              </tr>
            </thead>
            <tbody>
              {preview.rows.map((r, i) => (
                <tr key={i} data-preview-row={r.label} data-outcome={r.outcome} className={r.errors.length ? "has-errors" : undefined}>
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
                            <code>{d.path}</code> <span className="before mono">{showJson(d.before)}</span> → <span className="after mono">{showJson(d.after)}</span>
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
                            <code>{e.field}</code> {e.message}
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
