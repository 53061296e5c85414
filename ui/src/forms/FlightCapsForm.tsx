import { useEffect, useId, useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import type { CapChoices, CapFlight, Draft, EntityRef, FlightCap, FlightCapsRow } from "../api/types";
import { useNavActions } from "../state/navigation";
import { useReference } from "../state/reference";
import { appendAt, removeAt } from "../util/path";
import { parseRef, refKey } from "../util/refs";
import { useSaveFlow } from "./common";
import { FieldErrors, FormFrame, NumberField, useField, useFormState } from "./kit";

/**
 * The per-flight caps of one ad order (`[i].flightId`, `[i].maxBudget`, …). Every flight
 * of the order's campaign is offered, new ones too: a cap on a new flight posts in the
 * same push as the campaign, once the flight has its id.
 */
export function FlightCapsForm({
  adOrder,
  campaign,
  timezone,
  row,
  embedded,
  reloadKey,
}: {
  adOrder: EntityRef;
  campaign: EntityRef | null;
  /** The advertiser's timezone (the flights' dates are shown in it). */
  timezone?: string | null;
  row?: FlightCapsRow | null;
  embedded?: boolean;
  /**
   * Changes when `row` is read again (the caps were saved or changed elsewhere): the
   * editor then starts over from it, once the flights to offer are read again too.
   */
  reloadKey?: string;
}) {
  // The editor's row and the choices read for it, swapped together: until the new
  // choices come, the old editor stays. Showing "Loading…" in its place would shrink the
  // panel and move everything above under the buyer's pointer (the Cancel just after
  // "Save flight caps" landed on a field 265 px higher).
  const [loaded, setLoaded] = useState<{ key: string; choices: CapChoices; row: FlightCapsRow | null | undefined } | null>(null);
  const orderKey = refKey(adOrder);
  const campaignKey = campaign ? refKey(campaign) : "";
  const reload = reloadKey ?? "";
  useEffect(() => {
    let live = true;
    void unwrap(commands.flightCapChoices(adOrder)).then((c) => {
      if (live) setLoaded({ key: `${orderKey} ${campaignKey} ${reload}`, choices: c ?? { campaign: null, flights: [], caps: [] }, row });
    });
    return () => {
      live = false;
    };
    // The references are compared by value; `row` is read again only with `reloadKey`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [orderKey, campaignKey, reload]);
  if (loaded === null) return <p className="muted">Loading flights…</p>;
  return <CapsEditor key={loaded.key} adOrder={adOrder} timezone={timezone ?? loaded.row?.timezone ?? null} choices={loaded.choices} row={loaded.row} embedded={embedded} />;
}

/** The flight a stored cap is for: as the workspace says, else its `flightId`. */
function initialPick(cap: FlightCap, stored: EntityRef | null | undefined): string {
  if (stored) return refKey(stored);
  if (cap.flightId != null) return refKey({ kind: "flight", key: { type: "id", value: cap.flightId } });
  return "";
}

function CapsEditor({
  adOrder,
  timezone,
  choices,
  row,
  embedded,
}: {
  adOrder: EntityRef;
  timezone: string | null;
  choices: CapChoices;
  row?: FlightCapsRow | null;
  embedded?: boolean;
}) {
  const { closeEditor } = useNavActions();
  const zone = useReference().zoneOf(timezone);
  const flights = choices.flights;
  const postedIds = flights.flatMap((f) => (f.id != null ? [f.id] : []));
  const initial = row?.value ?? [];
  // The flight of each cap, by position: a reference's JSON, "" when none is chosen. A
  // new flight has no id for `flightId`, so the choice lives beside the caps.
  const [picks, setPicks] = useState<string[]>(() => initial.map((c, i) => initialPick(c, choices.caps[i])));
  // The caps as `save` takes them: each with the flight picked for it.
  const draftOf = (value: FlightCap[]): Draft => ({ kind: "flight_caps", value, campaignFlightIds: postedIds, flights: value.map((_, i) => parseRef(picks[i] ?? "")) });
  const form = useFormState<FlightCap[]>(initial, (value) => ({ target: null, parent: adOrder, draft: draftOf(value) }), row != null);
  const flow = useSaveFlow(form, adOrder, !embedded);
  const caps = form.value;
  const newCount = flights.filter((f) => f.id == null).length;

  const pick = (i: number, key: string) => {
    const flight = flights.find((f) => refKey(f.flight) === key);
    setPicks((p) => p.map((k, j) => (j === i ? key : k)));
    form.set(`[${i}].flightId`, flight?.id ?? null);
  };
  const addCap = () => {
    const free = flights.find((f) => !picks.includes(refKey(f.flight)));
    setPicks((p) => [...p, free ? refKey(free.flight) : ""]);
    form.setValue((v) => {
      const cap: FlightCap = { id: null, flightId: free?.id ?? null };
      return appendAt(v, "", cap);
    });
  };
  const removeCap = (i: number) => {
    setPicks((p) => p.filter((_, j) => j !== i));
    form.setValue((v) => removeAt(v, "", i));
  };
  const save = () => flow.save(() => commands.save(null, adOrder, draftOf(form.value))).then(() => undefined);

  const subtitle =
    flights.length === 0
      ? "The campaign has no flights yet: add one to the campaign, then cap it here."
      : `${caps.length} caps over ${flights.length} flights${newCount > 0 ? ` (${newCount} new: their caps post right after the campaign)` : ""}`;

  return (
    <FormFrame
      form={form}
      kind="flight_caps"
      title="Flight caps"
      subtitle={subtitle}
      zone={zone.iana}
      onSubmit={save}
      onCancel={embedded ? undefined : closeEditor}
      saveLabel={embedded ? "Save flight caps" : "Save"}
      busy={flow.busy}
      autoFocus={!embedded}
      buttons={
        <button type="button" className="small" data-action="add-cap" onClick={addCap}>
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
              <FlightPicker index={i} flights={flights} value={picks[i] ?? ""} onPick={(k) => pick(i, k)} />
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
              onClick={() => removeCap(i)}
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

/**
 * The flight of cap `index`, at `[index].flightId` so its errors land here. Options are
 * the flights' references; a new flight is marked `data-new-flight`.
 */
function FlightPicker({ index, flights, value, onPick }: { index: number; flights: CapFlight[]; value: string; onPick: (key: string) => void }) {
  const { errorsAt, readOnly, required } = useField();
  const id = useId();
  const path = `[${index}].flightId`;
  const isRequired = required.has(path);
  const errId = `${id}-err`;
  const invalid = errorsAt(path).length > 0;
  const known = value === "" || flights.some((f) => refKey(f.flight) === value);
  return (
    <div className="field wide">
      <label htmlFor={id}>
        Flight
        {isRequired && (
          <span className="req" title="Required">
            {" "}
            *
          </span>
        )}
      </label>
      <select
        id={id}
        name={path}
        data-testid="cap-flight"
        value={value}
        disabled={readOnly}
        aria-invalid={invalid || undefined}
        aria-required={isRequired || undefined}
        aria-describedby={invalid ? errId : undefined}
        onChange={(e) => onPick(e.target.value)}
      >
        <option value="">Choose…</option>
        {!known && (
          <option value={value} data-unknown="">
            A flight the campaign no longer has
          </option>
        )}
        {flights.map((f) => (
          <option key={refKey(f.flight)} value={refKey(f.flight)} data-new-flight={f.id == null ? "" : undefined}>
            {f.label}
          </option>
        ))}
      </select>
      <FieldErrors path={path} id={errId} />
    </div>
  );
}
