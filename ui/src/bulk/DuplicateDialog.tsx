import { useEffect, useId, useState } from "react";
import { commands } from "../bindings";
import { fetchAdvertisers, fetchCampaigns } from "../api/queries";
import type { AdvertiserRow, CampaignRow, EntityRef, Kind } from "../api/types";
import type { KindChoice } from "../bindings";
import { EntitySelect } from "../components/EntitySelect";
import { plural } from "../util/format";
import { PreviewDialog } from "./PreviewDialog";
import type { BulkScope } from "./types";

/** Duplicates the selected rows as drafts, beside them or into another advertiser or campaign. */
export function DuplicateDialog({ sources, count, kind, onClose }: { sources: BulkScope; count: number; kind: Kind; onClose: () => void }) {
  const id = useId();
  const [into, setInto] = useState<EntityRef | null>(null);
  const [intoLabel, setIntoLabel] = useState<string | undefined>(undefined);
  const [shift, setShift] = useState("");
  const days = shift.trim() === "" ? null : Number(shift);
  const shiftDays = days !== null && Number.isFinite(days) ? Math.trunc(days) : null;
  // Where a copy can go is the Rust side's answer (campaigns under advertisers, ad orders
  // under campaigns, creatives under either); none: beside the original only.
  const [parents, setParents] = useState<KindChoice[] | null>(null);
  const [intoKind, setIntoKind] = useState<Kind | null>(null);
  useEffect(() => {
    let live = true;
    void commands.parentKinds(kind).then((ks) => {
      if (!live) return;
      setParents(ks);
      setIntoKind(ks[0]?.kind ?? null);
    });
    return () => {
      live = false;
    };
  }, [kind]);
  const intoCampaign = intoKind === "campaign";
  return (
    <PreviewDialog
      title={`Duplicate ${plural(count, "row")}`}
      run={(apply) => commands.duplicateMany(sources, { into, shiftDays }, apply)}
      onClose={onClose}
      inputKey={JSON.stringify([into, shiftDays])}
    >
      <div className="bulk-form" data-form="duplicate">
        {parents !== null && parents.length > 1 && (
          <label>
            Into a{" "}
            <select
              name="intoKind"
              value={intoKind ?? ""}
              onChange={(e) => {
                setIntoKind(parents.find((k) => k.kind === e.target.value)?.kind ?? null);
                setInto(null);
                setIntoLabel(undefined);
              }}
            >
              {parents.map((k) => (
                <option key={k.kind} value={k.kind}>
                  {k.label}
                </option>
              ))}
            </select>
          </label>
        )}
        {parents !== null && parents.length === 0 && <p className="muted">Copies go beside the originals.</p>}
        {intoKind !== null && <label htmlFor={id}>Into</label>}
        {intoKind === null ? null : intoCampaign ? (
          <EntitySelect<CampaignRow>
            fetch={fetchCampaigns}
            kind="campaign"
            id={id}
            name="into"
            label="campaigns"
            parent={null}
            value={into}
            valueLabel={intoLabel}
            emptyLabel="Beside each one"
            onChange={(ref, r) => {
              setInto(ref);
              setIntoLabel(r?.label);
            }}
          />
        ) : (
          <EntitySelect<AdvertiserRow>
            fetch={fetchAdvertisers}
            kind="advertiser"
            id={id}
            name="into"
            label="advertisers"
            parent={null}
            value={into}
            valueLabel={intoLabel}
            emptyLabel="Beside each one"
            onChange={(ref, r) => {
              setInto(ref);
              setIntoLabel(r?.label);
            }}
          />
        )}
        <label>
          Shift dates by (days) <input name="shiftDays" inputMode="numeric" value={shift} onChange={(e) => setShift(e.target.value)} />
        </label>
      </div>
    </PreviewDialog>
  );
}
