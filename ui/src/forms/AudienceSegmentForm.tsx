import { useId, useState } from "react";
import { commands } from "../bindings";
import type { AudienceData, AudienceSegment, EntityRef, SegmentRow } from "../api/types";
import { useApp } from "../state/app";
import { count } from "../util/format";
import { isRemote } from "../util/refs";
import { useSaveFlow } from "./common";
import { DATA_TYPES, LABELS, SEGMENT_STATUSES } from "./enums";
import { FieldErrors, FormFrame, NumberField, NumberListField, ReadOnly, Section, SelectField, TextField, options, useField, useFormState, type Validation } from "./kit";

export function AudienceSegmentForm({ row }: { row?: SegmentRow }) {
  const app = useApp();
  const initial: AudienceSegment = row ? row.value : {};
  const form = useFormState<AudienceSegment>(initial, (value): Validation => ({ draft: { kind: "audience_segment", value }, parent: null, existing: isRemote(flow.target) }), row !== undefined);
  const flow = useSaveFlow(form, row?.target ?? null, false);
  const existing = flow.target !== null;
  const v = form.value;
  const knownAdvertisers = app.advertisers.filter((a) => typeof a.value.id === "number");

  return (
    <div className="stack">
      <FormFrame
        form={form}
        kind="audience_segment"
        title={existing ? `Audience segment: ${v.name ?? row?.label ?? ""}` : "New audience segment"}
        onSubmit={async () => {
          const saved = await flow.save(() => commands.saveAudienceSegment(form.value));
          if (saved && saved.errors.length === 0 && !existing) app.closeEditor();
        }}
        onCancel={app.closeEditor}
        busy={flow.busy}
      >
        <Section title="Segment">
          <TextField path="name" label="Name" required={!existing} />
          <TextField path="description" label="Description" multiline className="wide" />
          <SelectField path="dataType" label="Data type" options={options(DATA_TYPES, LABELS)} />
          <NumberField path="accountId" label="Account id" kind="integer" required={!existing} />
          <NumberListField
            path="advertiserIds"
            label="Advertiser ids"
            required={!existing}
            hint={knownAdvertisers.length > 0 ? `e.g. ${knownAdvertisers.slice(0, 3).map((a) => `${a.value.id} ${a.label}`).join(", ")}` : undefined}
          />
          <AdvertiserQuickAdd ids={knownAdvertisers.map((a) => ({ id: a.value.id ?? 0, label: a.label }))} />
          <TextField path="externalAudienceId" label="External audience id" required={!existing} />
          <NumberField path="ttl" label="TTL" kind="integer" hint="seconds" />
        </Section>
        <Section title="From the service">
          <ReadOnly label="Segment id" value={v.serviceSegmentId ?? null} />
          <SelectField path="status" label="Status" options={options(SEGMENT_STATUSES)} readOnly />
          <ReadOnly label="Identifiers" value={v.dataCount == null ? null : count(v.dataCount)} />
        </Section>
      </FormFrame>
      {flow.target ? <UploadData segment={flow.target} dataType={v.dataType ?? null} /> : <p className="muted section-note">Upload data once the segment is saved.</p>}
    </div>
  );
}

function AdvertiserQuickAdd({ ids }: { ids: { id: number; label: string }[] }) {
  const { get, set } = useField();
  const selectId = useId();
  if (ids.length === 0) return null;
  const current = get("advertiserIds");
  const list = Array.isArray(current) ? current.filter((x): x is number => typeof x === "number") : [];
  return (
    <div className="field">
      <label htmlFor={selectId}>Add an advertiser</label>
      <select
        id={selectId}
        value=""
        onChange={(e) => {
          const n = Number(e.target.value);
          if (e.target.value !== "" && !list.includes(n)) set("advertiserIds", [...list, n]);
        }}
      >
        <option value="">Choose…</option>
        {ids.map((a) => (
          <option key={a.id} value={a.id}>
            {a.id} · {a.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Adds identifiers to a segment (saved as a pending change like any edit). */
function UploadData({ segment, dataType }: { segment: EntityRef; dataType: string | null }) {
  const app = useApp();
  const form = useFormState<AudienceData>({ identifiers: [] }, (value): Validation => ({ draft: { kind: "audience_data", value }, parent: segment, existing: true }), false);
  const flow = useSaveFlow(form, segment, false);
  const [text, setText] = useState("");
  const id = useId();
  const setIdentifiers = (t: string) => {
    setText(t);
    form.setValue({ identifiers: t.split(/\r?\n/).map((s) => s.trim()).filter((s) => s !== "") });
  };
  return (
    <FormFrame
      form={form}
      kind="audience_data"
      title="Upload data"
      subtitle={dataType ? `Identifiers of type ${LABELS[dataType] ?? dataType}, one per line` : "One identifier per line"}
      saveLabel={`Upload ${form.value.identifiers.length || ""} identifiers`.replace("  ", " ")}
      onSubmit={async () => {
        const saved = await flow.save(() => commands.uploadAudienceData(segment, form.value));
        if (saved && saved.errors.length === 0) {
          setIdentifiers("");
          void app.reloadSnapshot();
        }
      }}
      busy={flow.busy}
      autoFocus={false}
    >
      <div className="field wide">
        <label htmlFor={id}>Identifiers</label>
        <textarea id={id} name="identifiers" rows={6} className="mono" value={text} onChange={(e) => setIdentifiers(e.target.value)} />
        <FieldErrors path="identifiers" />
      </div>
    </FormFrame>
  );
}
