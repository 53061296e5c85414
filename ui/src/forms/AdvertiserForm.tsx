import { commands } from "../bindings";
import type { Advertiser, AdvertiserRow } from "../api/types";
import { useNavActions } from "../state/navigation";
import { useReference } from "../state/reference";
import { useSaveFlow } from "./common";
import { fixedOncePosted, formTitle } from "../api/kinds";
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
  // Fields the service ignores on update are shown, not edited, with the model's reason.
  const fixed = (field: string) => fixedOncePosted("advertiser", field, isRemote(flow.target));

  return (
    <FormFrame
      form={form}
      kind="advertiser"
      title={formTitle("advertiser", existing, form.value.name ?? row?.label ?? "")}
      onSubmit={() => flow.save((target) => commands.save(target, null, { kind: "advertiser", value: form.value }))}
      onCancel={closeEditor}
      busy={flow.busy}
    >
      <Section title="Advertiser">
        <ReadOnly label="Id" value={form.value.id ?? (existing ? "not posted yet" : "new")} />
        <TextField path="name" label="Name" />
        <NumberField path="agencyId" label="Agency id" kind="integer" readOnly={fixed("agencyId") !== null} hint={fixed("agencyId") ?? undefined} />
        <TextField path="currency" label="Currency" readOnly={fixed("currency") !== null} hint={fixed("currency") ?? undefined} />
        <TextField path="category" label="Category" hint="IAB code, e.g. IAB20" />
        <SelectField path="timezoneName" label="Timezone" options={tzOptions} emptyLabel="Account timezone" readOnly={fixed("timezoneName") !== null} hint={fixed("timezoneName") ?? undefined} />
        <TextField path="externalAdvertiserId" label="External advertiser id" />
      </Section>
    </FormFrame>
  );
}
