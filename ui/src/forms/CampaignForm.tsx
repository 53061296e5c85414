import { useState } from "react";
import { commands } from "../bindings";
import { formTitle } from "../api/kinds";
import { fetchAdvertisers } from "../api/queries";
import type { AdvertiserRow, Campaign, CampaignFlight, CampaignRow } from "../api/types";
import { type ParentHint, useNavActions } from "../state/navigation";
import { useReference } from "../state/reference";
import { money } from "../util/format";
import { appendAt, removeAt } from "../util/path";
import { type Picked, ParentPicker, pickedOf, useSaveFlow } from "./common";
import { BUDGET_TYPES, LABELS, OBJECTIVES, PACING_MODES, TIME_PERIODS } from "./enums";
import {
  CheckboxField,
  DateField,
  ErrorSlot,
  FormFrame,
  NumberField,
  ReadOnly,
  Section,
  SelectField,
  StringListField,
  TextField,
  options,
  useFormState, type Validation } from "./kit";
import { FlightTimeline } from "./Timeline";
import { RefreshCampaignButton } from "./trafficking";

export function CampaignForm({ row, parent }: { row?: CampaignRow; parent?: ParentHint | null }) {
  const { closeEditor } = useNavActions();
  const { zoneOf } = useReference();
  // The advertiser, with its label and timezone (the form's dates are in it).
  const [picked, setPicked] = useState<Picked>(() => pickedOf(row, parent));
  const advertiser = picked.ref;
  const initial: Campaign = row ? row.value : { flights: [] };
  const form = useFormState<Campaign>(initial, (value): Validation => ({ target: flow.target, parent: advertiser, draft: { kind: "campaign", value } }), row !== undefined);
  const flow = useSaveFlow(form, row?.target ?? null);
  const existing = flow.target !== null;
  const zone = zoneOf(picked.timezone);
  const flights: CampaignFlight[] = form.value.flights ?? [];
  const postedId = row?.value.id;

  const submit = () => flow.save((target) => commands.save(target, advertiser, { kind: "campaign", value: form.value })).then(() => undefined);

  return (
    <FormFrame
      form={form}
      kind="campaign"
      title={formTitle("campaign", existing, form.value.name ?? row?.label ?? "")}
      subtitle={<>Dates in {zone.label}</>}
      zone={zone.iana}
      onSubmit={submit}
      onCancel={closeEditor}
      busy={flow.busy}
      buttons={typeof postedId === "number" ? <RefreshCampaignButton campaignId={postedId} /> : undefined}
    >
      <Section title="Campaign">
        <ParentPicker<AdvertiserRow>
          name="parent.advertiser"
          label="Advertiser"
          fetch={fetchAdvertisers}
          kind="advertiser"
          value={advertiser}
          valueLabel={picked.label}
          onChange={(ref, r) => {
            setPicked({ ref, label: r?.label ?? null, timezone: r ? (r.value.timezoneName ?? r.timezone) : null });
            form.revalidate();
          }}
          disabled={existing}
        />
        <ReadOnly label="Id" value={form.value.id ?? (existing ? "not posted yet" : "new")} />
        <TextField path="name" label="Name" />
        <TextField path="domain" label="Advertiser domain" />
        <SelectField path="objective" label="Objective" options={options(OBJECTIVES, LABELS)} />
        <StringListField path="iabCategory" label="IAB categories" addLabel="Add category" placeholder="IAB20" />
      </Section>
      <Section title="Budget and dates">
        <NumberField path="maxBudget" label="Lifetime budget" kind="money" />
        <NumberField path="dailyBudget" label="Daily budget" kind="money" />
        <NumberField path="markupRate" label="Markup rate" hint="0.10 = 10%" />
        <DateField path="startDate" label="Start" />
        <DateField path="endDate" label="End" endOfDay />
        <ReadOnly label="Has flights" value={form.value.hasFlights === true ? "Yes" : form.value.hasFlights === false ? "No" : "—"} />
      </Section>
      <Section title="Frequency cap">
        <NumberField path="dailyFrequencyCap" label="Impressions per user" kind="integer" hint="per cap period" />
        <NumberField path="frequencyCapDuration" label="Periods" kind="integer" />
        <SelectField path="frequencyCapTimePeriod" label="Period" options={options(TIME_PERIODS, LABELS)} />
      </Section>
      <Section title="Caps">
        <NumberField path="lifetimeImpressionCap" label="Lifetime impressions" kind="integer" />
        <NumberField path="dailyImpressionCap" label="Daily impressions" kind="integer" />
        <NumberField path="lifetimeClickCap" label="Lifetime clicks" kind="integer" />
        <NumberField path="dailyClickCap" label="Daily clicks" kind="integer" />
      </Section>
      <Section title="Pacing and bidding">
        <SelectField path="pacingMode" label="Pacing" options={options(PACING_MODES, LABELS)} />
        <NumberField path="intradayFrontloadPct" label="Intraday frontload" kind="percent" />
        <CheckboxField path="autoAdvertising" label="Automated advertising" />
        <NumberField path="minBidMultiplier" label="Min bid multiplier" />
        <NumberField path="maxBidMultiplier" label="Max bid multiplier" />
      </Section>
      <Section title="Client ids">
        <TextField path="ioNumber" label="IO number" hint="use this or the external id" />
        <TextField path="externalCampaignId" label="External campaign id" />
        <TextField path="channelGroup" label="Channel group" hint="deprecated" />
      </Section>
      <Section
        title={`Flights (${flights.length})`}
        actions={
          <button type="button" className="small" data-action="add-flight" onClick={() => form.setValue((v) => appendAt<Campaign>(v, "flights", {}))}>
            + Add flight
          </button>
        }
      >
        <ErrorSlot path="flights" />
        <div className="flights wide">
          {flights.map((f, i) => (
            <fieldset key={i} className="flight" aria-label={`Flight ${i + 1}`}>
              <legend>
                Flight {i + 1}
                {f.id != null ? ` · #${f.id}` : " · new"}
                {f.status ? ` · ${f.status}` : ""}
                {f.remainingBudget != null ? ` · ${money(f.remainingBudget)} left` : ""}
              </legend>
              <ErrorSlot path={`flights[${i}]`} />
              <div className="grid">
                <DateField path={`flights[${i}].startDate`} label="Start" />
                <DateField path={`flights[${i}].endDate`} label="End" endOfDay />
                <NumberField path={`flights[${i}].maxBudget`} label="Budget" kind="money" />
                <NumberField path={`flights[${i}].dailyBudget`} label="Daily budget" kind="money" />
                <SelectField path={`flights[${i}].budgetType`} label="Budget type" options={options(BUDGET_TYPES, LABELS)} />
                <NumberField path={`flights[${i}].dailyFrontload`} label="Daily frontload" kind="percent" />
                <NumberField path={`flights[${i}].dailyImpCap`} label="Daily impression cap" kind="integer" />
                <NumberField path={`flights[${i}].lifetimeImpCap`} label="Lifetime impression cap" kind="integer" />
              </div>
              <button
                type="button"
                className="small danger"
                data-action="remove-flight"
                aria-label={`Remove flight ${i + 1}`}
                onClick={() => form.setValue((v) => removeAt(v, "flights", i))}
              >
                Remove flight
              </button>
            </fieldset>
          ))}
        </div>
        <div className="wide">
          <FlightTimeline flights={flights} zone={zone.iana} timezone={zone.name} />
        </div>
      </Section>
    </FormFrame>
  );
}
