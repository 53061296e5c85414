import { commands } from "../bindings";
import type { EntityRef, FlightCap, FlightCapsRow } from "../api/types";
import { useApp } from "../state/app";
import { formatDateTime } from "../util/time";
import { money } from "../util/format";
import { appendAt, removeAt } from "../util/path";
import { sameRef } from "../util/refs";
import { useSaveFlow } from "./common";
import { FormFrame, NumberField, SelectField, useFormState } from "./kit";

/** The per-flight caps of one ad order (`[i].flightId`, `[i].maxBudget`, …). */
export function FlightCapsForm({
  adOrder,
  campaign,
  row,
  embedded,
}: {
  adOrder: EntityRef;
  campaign: EntityRef | null;
  row?: FlightCapsRow | null;
  embedded?: boolean;
}) {
  const app = useApp();
  const campaignRow = app.campaigns.find((c) => sameRef(c.target, campaign));
  const zone = app.zoneOf(campaignRow?.parent ?? null);
  const flights = (campaignRow?.value.flights ?? []).filter((f): f is typeof f & { id: number } => typeof f.id === "number");
  const flightIds = flights.map((f) => f.id);
  const form = useFormState<FlightCap[]>(
    row?.value ?? [],
    (value) => ({ draft: { kind: "flight_caps", value, campaignFlightIds: flightIds }, parent: adOrder, existing: true }),
    row != null,
  );
  const flow = useSaveFlow(form, adOrder, !embedded);
  const caps = form.value;
  const flightOptions = flights.map((f) => ({
    value: String(f.id),
    label: `#${f.id}: ${formatDateTime(f.startDate, zone.iana, false)} – ${formatDateTime(f.endDate, zone.iana, false)} (${money(f.maxBudget)})`,
  }));

  return (
    <FormFrame
      form={form}
      kind="flight_caps"
      title="Flight caps"
      subtitle={flights.length === 0 ? "The campaign has no posted flights yet: caps need a flight id." : `${caps.length} caps over ${flights.length} flights`}
      zone={zone.iana}
      onSubmit={() => flow.save(() => commands.saveFlightCaps(adOrder, form.value)).then(() => undefined)}
      onCancel={embedded ? undefined : app.closeEditor}
      saveLabel={embedded ? "Save flight caps" : "Save"}
      busy={flow.busy}
      autoFocus={!embedded}
      buttons={
        <button
          type="button"
          className="small"
          data-action="add-cap"
          onClick={() => form.setValue((v) => {
            const cap: FlightCap = { id: null, flightId: flightIds.find((id) => !v.some((c) => c.flightId === id)) ?? null };
            return appendAt(v, "", cap);
          })}
        >
          + Add cap
        </button>
      }
    >
      <div className="caps">
        {caps.map((c, i) => (
          <fieldset key={i} className="cap" aria-label={`Cap ${i + 1}`}>
            <legend>
              Cap {i + 1}
              {c.id != null ? ` · #${c.id}` : " · new"}
            </legend>
            <div className="grid">
              <SelectField path={`[${i}].flightId`} label="Flight" options={flightOptions} numeric className="wide" />
              <NumberField path={`[${i}].maxBudget`} label="Max budget" kind="money" />
              <NumberField path={`[${i}].dailyBudget`} label="Daily budget" kind="money" />
              <NumberField path={`[${i}].lifetimeImpressions`} label="Lifetime impressions" kind="integer" />
              <NumberField path={`[${i}].dailyImpressions`} label="Daily impressions" kind="integer" />
            </div>
            <button
              type="button"
              className="small danger"
              data-action="remove-cap"
              aria-label={`Remove cap ${i + 1}`}
              disabled={c.id != null}
              title={c.id != null ? "Posted caps cannot be removed here (the service has no delete call for them)." : "Remove this cap"}
              onClick={() => form.setValue((v) => removeAt(v, "", i))}
            >
              Remove cap
            </button>
          </fieldset>
        ))}
      </div>
      {caps.length === 0 && <p className="muted">No flight caps.</p>}
    </FormFrame>
  );
}
