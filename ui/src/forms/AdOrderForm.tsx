import { useEffect, useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import { fetchCampaigns, fetchSiteLists } from "../api/queries";
import type { AdOrder, AdOrderRow, CampaignRow, FlightCapsRow, SiteListRow } from "../api/types";
import { useWorkspaceChanged } from "../state/events";
import { type ParentHint, useNavActions } from "../state/navigation";
import { useReference } from "../state/reference";
import { appendAt, removeAt } from "../util/path";
import { fixedOncePosted, formTitle } from "../api/kinds";
import { isRemote } from "../util/refs";
import { type Picked, ParentPicker, pickedOf, useSaveFlow } from "./common";
import { CHANNELS_V2, GOAL_MODES, LABELS, OPTIMIZATION_GOALS, PACING_MODES, TIME_PERIODS } from "./enums";
import { DayPartsField } from "./DayPartsGrid";
import { FlightCapsForm } from "./FlightCapsForm";
import {
  CheckboxField,
  CheckboxGroupField,
  DateField,
  EntityIdsField,
  ErrorSlot,
  FormFrame,
  NumberField,
  NumberListField,
  ReadOnly,
  Section,
  SelectField,
  StringListField,
  TextField,
  options,
  useField,
  useFormState, type Validation } from "./kit";
import { AssociatedCreatives } from "./trafficking";

/** Clears an object whose members are all empty, so "absent" stays absent. */
function pruneEmpty(v: AdOrder, path: "frequencyCap"): AdOrder {
  const obj = v[path];
  if (obj && Object.values(obj).every((x) => x === null || x === undefined)) return { ...v, [path]: null };
  return v;
}

function FrequencyCapFields() {
  return (
    <>
      <ErrorSlot path="frequencyCap" />
      <NumberField path="frequencyCap.limit" label="Impressions per user" kind="integer" />
      <NumberField path="frequencyCap.duration" label="Periods" kind="integer" />
      <SelectField path="frequencyCap.timePeriod" label="Period" options={options(TIME_PERIODS, LABELS)} />
    </>
  );
}

/** The number an audience's site-list targeting holds for a site list: its posted id. */
const siteListId = (s: SiteListRow): number | null => s.value.id ?? null;

function AudienceEditor({ index, onRemove }: { index: number; onRemove: () => void }) {
  const p = `audiences[${index}]`;
  const { get } = useField();
  const id = get(`${p}.id`);
  return (
    <fieldset className="audience" aria-label={`Audience ${index + 1}`}>
      <legend>
        Audience {index + 1}
        {typeof id === "number" ? ` · #${id}` : " · new"}
      </legend>
      <ErrorSlot path={p} />
      <div className="grid">
        <TextField path={`${p}.name`} label="Name" />
        <NumberField path={`${p}.weight`} label="Weight" kind="integer" />
        <NumberListField path={`${p}.pmpDeals`} label="PMP deals" hint="deal ids" />
        <NumberListField path={`${p}.exchanges.include`} label="Exchanges: include" hint="exchange ids" />
        <NumberListField path={`${p}.exchanges.exclude`} label="Exchanges: exclude" hint="exchange ids" />
        <EntityIdsField<SiteListRow> path={`${p}.siteLists.include`} label="Site lists: include" className="wide" fetch={fetchSiteLists} kind="site_list" idOf={siteListId} />
        <EntityIdsField<SiteListRow> path={`${p}.siteLists.exclude`} label="Site lists: exclude" className="wide" fetch={fetchSiteLists} kind="site_list" idOf={siteListId} />
      </div>
      <button type="button" className="small danger" data-action="remove-audience" aria-label={`Remove audience ${index + 1}`} onClick={onRemove}>
        Remove audience
      </button>
    </fieldset>
  );
}

export function AdOrderForm({ row, parent }: { row?: AdOrderRow; parent?: ParentHint | null }) {
  const { closeEditor } = useNavActions();
  const { zoneOf } = useReference();
  // The campaign, with its label and the advertiser's timezone (the form's dates are in it).
  const [picked, setPicked] = useState<Picked>(() => pickedOf(row, parent));
  const campaign = picked.ref;
  const initial: AdOrder = row ? row.value : {};
  const form = useFormState<AdOrder>(initial, (value): Validation => ({ target: flow.target, parent: campaign, draft: { kind: "ad_order", value } }), row !== undefined);
  const flow = useSaveFlow(form, row?.target ?? null);
  const existing = flow.target !== null;
  // Fields the service ignores on update are shown, not edited, with the model's reason.
  const posted = isRemote(flow.target);
  const fixed = (field: string) => fixedOncePosted("ad_order", field, posted);
  const zone = zoneOf(picked.timezone);
  const audiences: NonNullable<AdOrder["audiences"]> = form.value.audiences ?? [];

  // Keep "no cap" as null rather than an object of empty members.
  const { value: current, setValue } = form;
  useEffect(() => {
    const pruned = pruneEmpty(current, "frequencyCap");
    if (pruned !== current) setValue(pruned);
  }, [current, setValue]);

  // A clean save closes the panel (`useSaveFlow`).
  const submit = async () => {
    await flow.save((target) => commands.save(target, campaign, { kind: "ad_order", value: form.value }));
  };

  // The flight caps of a saved ad order are edited in their own form below.
  const [caps, setCaps] = useState<FlightCapsRow | null | undefined>(undefined);
  const capsTarget = flow.target;
  const [capsChanged, setCapsChanged] = useState(0);
  // Only a change of this ad order or its caps: a save of another row leaves them be.
  useWorkspaceChanged(["flight_caps", "ad_order"], () => setCapsChanged((n) => n + 1), capsTarget ? [capsTarget, { kind: "flight_caps", key: capsTarget.key }] : []);
  useEffect(() => {
    if (!capsTarget) return;
    let live = true;
    void unwrap(commands.listFlightCaps(capsTarget), { quiet: true }).then((r) => {
      if (live) setCaps(r ?? null);
    });
    return () => {
      live = false;
    };
  }, [capsTarget, capsChanged]);
  return (
    <div className="stack">
      <FormFrame
        form={form}
        kind="ad_order"
        title={formTitle("ad_order", existing, form.value.name ?? row?.label ?? "")}
        subtitle={<>Dates in {zone.label}</>}
        zone={zone.iana}
        onSubmit={submit}
        onCancel={closeEditor}
        busy={flow.busy}
      >
        <Section title="Ad order">
          <ParentPicker<CampaignRow>
            name="parent.campaign"
            label="Campaign"
            fetch={fetchCampaigns}
            kind="campaign"
            optionLabel={(c) => `${c.label}${c.parentLabel ? ` — ${c.parentLabel}` : ""}`}
            value={campaign}
            valueLabel={picked.label}
            onChange={(ref, r) => {
              setPicked({ ref, label: r?.label ?? null, timezone: r?.timezone ?? null });
              form.revalidate();
            }}
            disabled={existing}
          />
          <ReadOnly label="Id" value={form.value.id ?? (existing ? "not posted yet" : "new")} />
          <TextField path="name" label="Name" />
          <SelectField path="optimizationGoal" label="Optimization goal" options={options(OPTIMIZATION_GOALS, LABELS)} />
          <SelectField path="goalMode" label="Goal mode" options={options(GOAL_MODES, LABELS)} />
          <NumberField path="cpaGoal" label="CPA goal" kind="money" />
          <NumberField path="ctrGoal" label="CTR goal" hint="e.g. 0.002" />
          <NumberField path="vcrGoal" label="Video completion rate goal" hint="0.0 – 1.0" />
        </Section>
        <Section title="Dates and budget">
          <DateField path="startDate" label="Start" readOnly={fixed("startDate") !== null} hint={fixed("startDate") ?? undefined} />
          <DateField path="endDate" label="End" endOfDay readOnly={fixed("endDate") !== null} hint={fixed("endDate") ?? undefined} />
          <NumberField path="lifetimeBudget" label="Lifetime budget" kind="money" readOnly={fixed("lifetimeBudget") !== null} hint={fixed("lifetimeBudget") ?? undefined} />
          <NumberField path="dailyBudget" label="Daily budget" kind="money" />
          <NumberField path="lifetimeImpressionBudget" label="Lifetime impressions budget" kind="integer" />
          <NumberField path="dailyImpressionBudget" label="Daily impressions budget" kind="integer" />
        </Section>
        <Section title="Bidding and pacing">
          <NumberField path="max_bid" label="Max bid" kind="money" />
          <NumberField path="minBidMultiplier" label="Min bid multiplier" />
          <NumberField path="maxBidMultiplier" label="Max bid multiplier" />
          <SelectField path="hourlyPacingMode" label="Hourly pacing" options={options(PACING_MODES, LABELS)} />
          <NumberField path="hourlyFrontload" label="Hourly frontload" kind="percent" hint="0 – 100 %" />
          <CheckboxField path="audienceWeightsEnabled" label="Audience weights enabled" />
        </Section>
        <Section title="Frequency cap">
          <FrequencyCapFields />
        </Section>
        <Section title="Channels">
          <CheckboxGroupField path="channelsV2" label="Channels (v2)" values={CHANNELS_V2} />
          <StringListField path="channels" label="Channels" addLabel="Add channel" />
        </Section>
        <Section title="Day parts">
          <DayPartsField path="dayParts" label="Day parts" />
        </Section>
        <Section title="Client ids">
          <TextField path="ioNumber" label="IO number" hint="use this or the external id" />
          <TextField path="externalAdOrderId" label="External ad order id" />
          <ReadOnly label="io_number (from the service)" value={form.value.io_number ?? null} />
          <ReadOnly label="Cost optimization" value={form.value.costOptimizationEnabled == null ? null : form.value.costOptimizationEnabled ? "Enabled" : "Disabled"} />
        </Section>
        <Section
          title={`Audiences (${audiences.length})`}
          actions={
            <button type="button" className="small" data-action="add-audience" onClick={() => form.setValue((v) => appendAt(v, "audiences", { name: `Audience ${audiences.length + 1}` }))}>
              + Add audience
            </button>
          }
        >
          <ErrorSlot path="audiences" />
          <div className="wide">
            {audiences.map((_, i) => (
              <AudienceEditor key={i} index={i} onRemove={() => form.setValue((v) => removeAt(v, "audiences", i))} />
            ))}
            {audiences.length === 0 && <p className="muted">No audiences: the service creates a default audience on creation.</p>}
          </div>
        </Section>
      </FormFrame>
      {capsTarget ? (
        caps === undefined ? (
          <p className="muted">Loading flight caps…</p>
        ) : (
          <FlightCapsForm reloadKey={JSON.stringify(caps?.value ?? null)} adOrder={capsTarget} campaign={campaign} timezone={picked.timezone} row={caps} embedded />
        )
      ) : (
        <p className="muted section-note">Flight caps can be set once the ad order is saved.</p>
      )}
      {typeof row?.value.id === "number" && <AssociatedCreatives adOrderId={row.value.id} zone={zone.iana} />}
    </div>
  );
}
