// The creatives table's checks: a filter on what the checks found (the Rust side's filter
// words `HAS_FINDINGS` and `HAS_WARNINGS`, so a "select all" keeps it), and "Check all
// creatives" on the ticked rows or a "select all", with its counts and first creatives.
import { useState } from "react";
import { commands, HAS_FINDINGS, HAS_WARNINGS, type SelectionChecks } from "../bindings";
import { unwrap } from "../api/call";
import { scopeOf } from "../bulk/BulkActions";
import { Modal } from "../bulk/Modal";
import type { Selection } from "../table/useSelection";
import { plural } from "../util/format";
import { FindingList } from "./Findings";

/** The filter word a choice adds to the table's query ("" for every creative). */
export type FindingsWord = "" | typeof HAS_FINDINGS | typeof HAS_WARNINGS;

export function FindingsFilter({ value, onChange }: { value: FindingsWord; onChange: (w: FindingsWord) => void }) {
  return (
    <select
      className="findings-filter"
      data-findings-filter=""
      aria-label="Filter by checks"
      value={value}
      onChange={(e) => onChange(e.target.value === HAS_FINDINGS ? HAS_FINDINGS : e.target.value === HAS_WARNINGS ? HAS_WARNINGS : "")}
    >
      <option value="">All creatives</option>
      <option value={HAS_FINDINGS}>Has findings</option>
      <option value={HAS_WARNINGS}>Has warnings</option>
    </select>
  );
}

/** "Check all creatives" on a selection (every creative when none is ticked). */
export function CheckAllCreatives({ selection, count }: { selection: Selection; count: number }) {
  const [result, setResult] = useState<SelectionChecks | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    const scope = count > 0 ? scopeOf("creative", selection) : ({ type: "kind", value: "creative" } as const);
    const r = await unwrap(commands.checkCreatives(scope));
    setBusy(false);
    if (r) setResult(r);
  };
  return (
    <>
      <button type="button" data-action="check-creatives" disabled={busy} onClick={() => void run()}>
        {count > 0 ? `Check selected (${count})` : "Check all creatives"}
      </button>
      {result && (
        <Modal label="Creative checks" onClose={() => setResult(null)} wide>
          <div className="check-result" data-check-result="">
            <p>
              {plural(result.checked, "creative")} checked, <b data-field="with-findings">{result.withFindings}</b> with findings: {plural(result.warnings, "warning")}, {plural(result.infos, "info")}. Warnings never
              block posting; posting asks first.
            </p>
            {result.rules.length > 0 && (
              <table className="mini">
                <caption>By rule</caption>
                <tbody>
                  {result.rules.map((r) => (
                    <tr key={r.rule} className={`finding-${r.level}`} data-rule={r.rule}>
                      <td>
                        <code>{r.rule}</code>
                      </td>
                      <td>{r.level}</td>
                      <td className="num">{plural(r.creatives, "creative")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {result.creatives.map((c, i) => (
              <div key={i} className="check-creative">
                <h4>{c.label}</h4>
                <FindingList findings={c.findings} label={`Findings of ${c.label}`} />
              </div>
            ))}
            {result.withFindings > result.creatives.length && (
              <p className="muted">
                The first {result.creatives.length} are listed; filter the table by “Has findings” to see every one.
              </p>
            )}
          </div>
        </Modal>
      )}
    </>
  );
}
