import { commands } from "../bindings";
import type { Advertiser, AdvertiserRow } from "../api/types";
import { useNavActions } from "../state/navigation";
import { useReference } from "../state/reference";
import { useSaveFlow } from "./common";
import { isRemote } from "../util/refs";
import { FormFrame, NumberField, ReadOnly, Section, SelectField, TextField, useFormState, type Validation } from "./kit";

export function AdvertiserForm({ row }: { row?: AdvertiserRow }) {
  const { closeEditor } = useNavActions();
  const { timezones } = useReference();
  const initial: Advertiser = row ? row.value : { currency: "USD" };
  const form = useFormState<Advertiser>(initial, (value): Validation => ({ target: flow.target, parent: null, draft: { kind: "advertiser", value } }), row !== undefined);
  const flow = useSaveFlow(form, row?.target ?? null);
  const existing = flow.target !== null;
  const tzOptions = timezones.map((t) => ({ value: t.name, label: `${t.name} — ${t.label}` }));

  return (
    <FormFrame
      form={form}
      kind="advertiser"
      title={existing ? `Advertiser: ${form.value.name ?? row?.label ?? ""}` : "New advertiser"}
      onSubmit={() => flow.save((target) => commands.save(target, null, { kind: "advertiser", value: form.value }))}
      onCancel={closeEditor}
      busy={flow.busy}
    >
      <Section title="Advertiser">
        <ReadOnly label="Id" value={form.value.id ?? (existing ? "not posted yet" : "new")} />
        <TextField path="name" label="Name" required />
        <NumberField path="agencyId" label="Agency id" kind="integer" hint={isRemote(flow.target) ? "set on insert only" : undefined} />
        <TextField path="currency" label="Currency" hint={isRemote(flow.target) ? "set on insert only" : undefined} />
        <TextField path="category" label="Category" hint="IAB code, e.g. IAB20" />
        <SelectField path="timezoneName" label="Timezone" options={tzOptions} emptyLabel="Account timezone" hint={isRemote(flow.target) ? "set on insert only" : undefined} />
        <TextField path="externalAdvertiserId" label="External advertiser id" />
      </Section>
    </FormFrame>
  );
}
