import { useId, useState } from "react";
import { commands } from "../bindings";
import { fetchAdvertisers, fetchCampaigns } from "../api/queries";
import type { AdvertiserRow, CampaignRow, EntityRef, Kind } from "../api/types";
import { EntitySelect } from "../components/EntitySelect";
import { plural } from "../util/format";
import { PreviewDialog } from "./PreviewDialog";

/** Duplicates the selected rows as drafts, beside them or into another advertiser or campaign. */
export function DuplicateDialog({ sources, kind, onClose }: { sources: EntityRef[]; kind: Kind; onClose: () => void }) {
  const id = useId();
  const [into, setInto] = useState<EntityRef | null>(null);
  const [intoLabel, setIntoLabel] = useState<string | undefined>(undefined);
  const [shift, setShift] = useState("");
  const days = shift.trim() === "" ? null : Number(shift);
  const shiftDays = days !== null && Number.isFinite(days) ? Math.trunc(days) : null;
  // Ad orders go into a campaign; campaigns, creatives and site lists into an advertiser.
  const intoCampaign = kind === "ad_order";
  return (
    <PreviewDialog
      title={`Duplicate ${plural(sources.length, "row")}`}
      run={(apply) => commands.duplicateMany(sources, { into, shiftDays }, apply)}
      onClose={onClose}
      inputKey={JSON.stringify([into, shiftDays])}
    >
      <div className="bulk-form" data-form="duplicate">
        <label htmlFor={id}>Into</label>
        {intoCampaign ? (
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
