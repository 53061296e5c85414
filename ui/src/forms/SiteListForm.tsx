import { useId, useState } from "react";
import { commands } from "../bindings";
import { formTitle } from "../api/kinds";
import type { SiteList, SiteListOp, SiteListRow } from "../api/types";
import { useNavActions } from "../state/navigation";
import { appendAt, removeAt } from "../util/path";
import { useSaveFlow } from "./common";
import { LABELS, RULE_TYPES, SITE_LIST_ID_BASED, SITE_LIST_RULE_BASED, STRATEGIES } from "./enums";
import { ErrorSlot, FormFrame, NumberListField, ReadOnly, Section, SelectField, TextField, options, useFormState } from "./kit";

const EMPTY_LIST: SiteList = { id: null, name: null, typeId: SITE_LIST_ID_BASED, strategy: null, siteIds: null, rules: null, insertedCount: null };

const OPS: SiteListOp[] = ["add", "append", "overwrite", "remove"];

const OP_LABELS: Record<SiteListOp, string> = {
  add: "Create list",
  append: "Append sites or rules",
  overwrite: "Overwrite sites or rules",
  remove: "Remove sites",
};

/**
 * Id-based and rule-based site lists. For a list that exists, the edit is one of the
 * service's calls: append, overwrite or remove; its body holds only the sites or rules sent.
 */
export function SiteListForm({ row }: { row?: SiteListRow }) {
  const { closeEditor } = useNavActions();
  const existing = row !== undefined;
  const [op, setOp] = useState<SiteListOp>(existing ? "append" : "add");
  // For an existing list the body starts empty: it carries what to append, overwrite or remove.
  const initial: SiteList = row ? { ...EMPTY_LIST, id: row.value.id, name: row.value.name, typeId: row.value.typeId, strategy: row.value.strategy } : EMPTY_LIST;
  const form = useFormState<SiteList>(initial, (value) => ({ target: row?.target ?? null, parent: null, draft: { kind: "site_list", op, value } }), false);
  const flow = useSaveFlow(form, row?.target ?? null);
  const opId = useId();
  const v = form.value;
  const ruleBased = v.typeId === SITE_LIST_RULE_BASED;
  const rules = v.rules ?? [];

  const changeOp = (next: SiteListOp) => {
    setOp(next);
    if (next === "remove") form.setValue((prev) => ({ ...prev, rules: null }));
    else form.setValue((prev) => ({ ...prev }));
  };

  return (
    <FormFrame
      form={form}
      kind="site_list"
      title={formTitle("site_list", existing, row?.label ?? "")}
      subtitle={existing ? `${ruleBased ? "Rule based" : "Id based"}${row.value.insertedCount != null ? ` · last call inserted ${row.value.insertedCount}` : ""}` : undefined}
      onSubmit={() => flow.save((target) => commands.save(target, null, { kind: "site_list", op, value: form.value })).then(() => undefined)}
      onCancel={closeEditor}
      saveLabel={existing ? OP_LABELS[op] : "Save"}
      busy={flow.busy}
    >
      <Section title="Site list">
        {existing && (
          <div className="field">
            <label htmlFor={opId}>Change</label>
            <select id={opId} name="op" value={op} onChange={(e) => changeOp(OPS.find((o) => o === e.target.value) ?? "append")}>
              <option value="append">{OP_LABELS.append}</option>
              <option value="overwrite">{OP_LABELS.overwrite}</option>
              <option value="remove">{OP_LABELS.remove}</option>
            </select>
          </div>
        )}
        <ReadOnly label="Id" value={v.id ?? (existing ? "not posted yet" : "new")} />
        <TextField path="name" label="Name" hint={existing ? (op === "remove" ? "sent with the removal as it is; rename with append or overwrite" : "sent with every call; the service renames the list with it") : undefined} />
        <SelectField
          path="typeId"
          label="Kind"
          numeric
          readOnly={existing}
          allowEmpty={false}
          options={[
            { value: String(SITE_LIST_ID_BASED), label: "Id based (site ids)" },
            { value: String(SITE_LIST_RULE_BASED), label: "Rule based (domains and apps)" },
          ]}
        />
        {ruleBased && <SelectField path="strategy" label="Strategy" options={options(STRATEGIES, LABELS)} />}
        <ReadOnly label="Inserted count" value={row?.value.insertedCount ?? null} />
      </Section>
      {row && <CurrentContents list={row.value} />}
      {!ruleBased || op === "remove" ? (
        <Section title={op === "remove" ? "Site ids to remove" : op === "append" && existing ? "Site ids to append" : "Site ids"}>
          <NumberListField path="siteIds" label="Site ids" multiline hint="one per line or separated by commas" className="wide" />
        </Section>
      ) : (
        <Section
          title={`Rules (${rules.length})`}
          actions={
            <button type="button" className="small" data-action="add-rule" onClick={() => form.setValue((p) => appendAt(p, "rules", { name: null, type: "web" }))}>
              + Add rule
            </button>
          }
        >
          <ErrorSlot path="rules" />
          <div className="wide rules">
            {rules.map((_, i) => (
              <div className="rule" key={i}>
                <TextField path={`rules[${i}].name`} label={`Rule ${i + 1}`} placeholder="example.com or app bundle" />
                <SelectField path={`rules[${i}].type`} label="Type" options={options(RULE_TYPES, LABELS)} />
                <button type="button" className="icon-button" data-action="remove-rule" aria-label={`Remove rule ${i + 1}`} onClick={() => form.setValue((p) => removeAt(p, "rules", i))}>
                  ×
                </button>
                <ErrorSlot path={`rules[${i}]`} />
              </div>
            ))}
          </div>
        </Section>
      )}
    </FormFrame>
  );
}

/** What the list holds now (the workspace keeps it: the service has no site-list read). */
function CurrentContents({ list }: { list: SiteList }) {
  const ruleBased = list.typeId === SITE_LIST_RULE_BASED;
  const ids = list.siteIds ?? [];
  const rules = list.rules ?? [];
  const n = ruleBased ? rules.length : ids.length;
  return (
    <section className="form-section" aria-label="Current contents" data-testid="site-list-current">
      <div className="section-head">
        <h3>{ruleBased ? `Current rules (${n})` : `Current site ids (${n})`}</h3>
      </div>
      {n === 0 ? (
        <p className="muted">{ruleBased ? "No rules." : "No sites."}</p>
      ) : ruleBased ? (
        <ul className="current-list" data-testid="site-list-rules">
          {rules.map((r, i) => (
            <li key={i}>
              <code>{r.name ?? "—"}</code> <span className="muted">{r.type ? (LABELS[r.type] ?? r.type) : ""}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mono current-ids" data-testid="site-list-ids">
          {ids.join(", ")}
        </p>
      )}
    </section>
  );
}
