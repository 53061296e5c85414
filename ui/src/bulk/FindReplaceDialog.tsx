import { useId, useState } from "react";
import { commands } from "../bindings";
import type { Kind } from "../api/types";
import { fieldNamed, useEditFields } from "./fields";
import { FieldName } from "./FieldName";
import { PreviewDialog } from "./PreviewDialog";
import type { BulkScope, Find } from "./types";

type Where = "selection" | "kind" | "account";

/** Find and replace in text fields, scoped to the selection, a kind or the whole account. */
export function FindReplaceDialog({ selection, count, kind, kindLabel, onClose }: { selection: BulkScope | null; count: number; kind: Kind; kindLabel: string; onClose: () => void }) {
  const [find, setFind] = useState("");
  const [replace, setReplace] = useState("");
  const [matchCase, setMatchCase] = useState(false);
  const [wholeWord, setWholeWord] = useState(false);
  const [regex, setRegex] = useState(false);
  const [where, setWhere] = useState<Where>(selection !== null ? "selection" : "kind");
  const [fields, setFields] = useState("");
  const [adding, setAdding] = useState("");
  const listId = useId();
  const known = useEditFields(kind);
  const names = fields
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean);
  // A field picked from the list (by its label) joins the comma-separated names.
  const add = (label: string) => {
    const f = fieldNamed(known, label);
    if (!f) return setAdding(label);
    setAdding("");
    if (!names.includes(f.label)) setFields([...names, f.label].join(", "));
  };
  const scope: BulkScope = where === "selection" && selection !== null ? selection : where === "account" ? { type: "account" } : { type: "kind", value: kind };
  const spec: Find = {
    find,
    replace,
    matchCase,
    wholeWord,
    regex,
    fields: names,
  };
  return (
    <PreviewDialog
      kind={kind}
      title="Find and replace"
      run={(apply) => commands.findReplace(scope, spec, apply)}
      onClose={onClose}
      inputKey={JSON.stringify([spec, where])}
      ready={find !== ""}
      extra={(p) => {
        const entries = Object.entries(p.matches);
        return (
          <table className="mini" data-matches="">
            <caption>Matches per field</caption>
            <tbody>
              {entries.length === 0 ? (
                <tr>
                  <td>No matches.</td>
                </tr>
              ) : (
                entries.map(([f, n]) => (
                  <tr key={f} data-match-field={f}>
                    <th scope="row">
                      <FieldName kind={where === "account" ? null : kind} path={f} />
                    </th>
                    <td className="num">{n.toLocaleString()}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        );
      }}
    >
      <div className="bulk-form" data-form="find-replace">
        <label>
          Find <input name="find" value={find} onChange={(e) => setFind(e.target.value)} />
        </label>
        <label>
          Replace with <input name="replace" value={replace} onChange={(e) => setReplace(e.target.value)} />
        </label>
        <span className="inline">
          <label className="inline-check">
            <input type="checkbox" name="matchCase" checked={matchCase} onChange={(e) => setMatchCase(e.target.checked)} /> Match case
          </label>
          <label className="inline-check">
            <input type="checkbox" name="wholeWord" checked={wholeWord} onChange={(e) => setWholeWord(e.target.checked)} /> Whole word
          </label>
          <label className="inline-check">
            <input type="checkbox" name="regex" checked={regex} onChange={(e) => setRegex(e.target.checked)} /> Regular expression
          </label>
        </span>
        <label>
          In{" "}
          <select name="scope" value={where} onChange={(e) => setWhere(e.target.value === "selection" ? "selection" : e.target.value === "account" ? "account" : "kind")}>
            <option value="selection" disabled={selection === null}>
              The {count.toLocaleString()} selected
            </option>
            <option value="kind">All {kindLabel}</option>
            <option value="account">The whole account</option>
          </select>
        </label>
        <label>
          Only fields <input name="fields" placeholder="all text fields (or e.g. Name, Landing page)" value={fields} onChange={(e) => setFields(e.target.value)} />
        </label>
        <datalist id={listId}>
          {known.map((f) => (
            <option key={f.path} value={f.label} data-path={f.path}>
              {f.path}
            </option>
          ))}
        </datalist>
        <label>
          Add a field{" "}
          <input
            name="addField"
            list={listId}
            placeholder={`a field of ${kindLabel}`}
            value={adding}
            onChange={(e) => {
              // A pick from the list adds at once; typed letters wait for Enter ("Max bid" is the start of "Max bid multiplier").
              const typed = e.nativeEvent instanceof InputEvent && e.nativeEvent.inputType !== "insertReplacementText";
              if (typed) setAdding(e.target.value);
              else add(e.target.value);
            }}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                add(adding);
              }
            }}
          />
        </label>
        {names.length > 0 && (
          <span className="hint" data-fields-chosen="">
            {names.map((n) => fieldNamed(known, n)?.path ?? n).join(", ")}
          </span>
        )}
      </div>
    </PreviewDialog>
  );
}
