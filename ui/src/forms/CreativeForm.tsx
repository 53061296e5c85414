import { useMemo, useState } from "react";
import { commands } from "../bindings";
import { formTitle } from "../api/kinds";
import { fetchAdvertisers, fetchCampaigns } from "../api/queries";
import type { AdvertiserRow, CampaignRow, Creative, CreativeRow, EntityRef, MatrixCell } from "../api/types";
import { type ParentHint, useNavActions } from "../state/navigation";
import { useReference } from "../state/reference";
import { getPath, parsePath, setPath } from "../util/path";
import { remoteId, sameRef } from "../util/refs";
import { DuplicateButton, ParentPicker, useSaveFlow } from "./common";
import { CREATIVE_STATUSES, VIDEO_TYPES } from "./enums";
import {
  ErrorSlot,
  FormFrame,
  JsonField,
  NumberField,
  ReadOnly,
  Section,
  SelectField,
  StringListField,
  TextField,
  options, type Validation } from "./kit";
import { useFormState } from "./kit";
import { ListingNote } from "./trafficking";
import { PreviewSection } from "../preview/CreativePreview";
import { ChecksSection } from "../checks/ChecksSection";
import { FetchVast } from "../checks/FetchVast";
import { useDraftChecks } from "../checks/useDraftChecks";

const FIELD_LABELS: Record<string, string> = {
  size: "Size",
  landingPageUrl: "Landing page URL",
  htmlAsset: "HTML tag",
  imageUrl: "Image URL",
  "video.vastUrl": "VAST URL",
  "video.vastXml": "VAST XML",
  "video.mediaUrls": "Video files",
  "audio.vastUrl": "VAST URL",
  "audio.vastXml": "VAST XML",
  "audio.mediaUrls": "Audio files",
  "audio.daast": "DAAST",
  "native.headline": "Headline",
  "native.caption": "Caption",
  "native.sponsoredBy": "Sponsored by",
  "native.imageUrl": "Image URL",
  "native.imageIcon": "Icon URL",
  "native.vastUrl": "VAST URL",
  "native.vastXml": "VAST XML",
  "native.mediaUrls": "Media files",
  "dooh.imageUrl": "Image URL",
  "dooh.mediaUrls": "Video files",
};

function labelFor(path: string): string {
  return FIELD_LABELS[path] ?? path;
}

/** The control for one type-specific wire path of the matrix. */
function CellField({ path }: { path: string }) {
  if (path === "size") {
    return (
      <>
        <NumberField path="size.width" label="Width" kind="integer" hint="px" />
        <NumberField path="size.height" label="Height" kind="integer" hint="px" />
        <ErrorSlot path="size" />
      </>
    );
  }
  if (path.endsWith("mediaUrls")) return <StringListField path={path} label={labelFor(path)} addLabel="Add URL" placeholder="https://…" className="wide" />;
  if (path.endsWith("vastUrl")) {
    return (
      <>
        <TextField path={path} label={labelFor(path)} />
        <FetchVast path={path} />
      </>
    );
  }
  if (path.endsWith("vastXml") || path === "htmlAsset") return <TextField path={path} label={labelFor(path)} multiline rows={5} className="wide mono" />;
  if (path === "audio.daast") return <JsonField path={path} label={labelFor(path)} className="wide" />;
  return <TextField path={path} label={labelFor(path)} />;
}

function cellPaths(cell: MatrixCell | undefined): string[] {
  return cell ? [...cell.required, ...cell.optional] : [];
}

/** The draft with the type-specific fields of other cells taken out. */
function switchCell(v: Creative, from: MatrixCell | undefined, to: MatrixCell | undefined, matrix: MatrixCell[]): Creative {
  const keep = new Set(cellPaths(to));
  let next: Creative = v;
  const all = new Set(matrix.flatMap(cellPaths));
  for (const path of all) {
    if (keep.has(path) || getPath(next, path) === undefined) continue;
    next = setPath(next, path, null);
    // An object left with nothing in it goes too.
    const segs = parsePath(path);
    if (segs.length > 1 && typeof segs[0] === "string") {
      const parent = getPath(next, segs[0]);
      if (typeof parent === "object" && parent !== null && Object.values(parent).every((x) => x === null || x === undefined)) {
        next = setPath(next, segs[0], null);
      }
    }
  }
  void from;
  if (to) {
    const media = next.type?.mediaType ?? null;
    if (!media || !to.mediaTypes.includes(media)) next = setPath(next, "type.mediaType", to.mediaTypes[0] ?? null);
  }
  return next;
}

/**
 * Where a creative hangs: an advertiser, a campaign (posted or draft), or both; with their
 * labels when known, and the campaign's advertiser.
 */
type Parents = {
  advertiser: EntityRef | null;
  advertiserLabel: string | null;
  campaign: EntityRef | null;
  campaignLabel: string | null;
  /** The advertiser of `campaign`, when known. */
  campaignOwner: EntityRef | null;
};

const byId = (kind: "advertiser" | "campaign", id: number | null | undefined): EntityRef | null => (typeof id === "number" ? { kind, key: { type: "id", value: id } } : null);

function initialParents(row: CreativeRow | undefined, hint: ParentHint | null | undefined): Parents {
  if (row) {
    const p = row.parent;
    const advertiserId = byId("advertiser", row.value.advertiserId);
    if (p?.kind === "campaign") return { campaign: p, campaignLabel: row.parentLabel, campaignOwner: advertiserId, advertiser: advertiserId, advertiserLabel: null };
    return { advertiser: p, advertiserLabel: row.parentLabel, campaign: byId("campaign", row.value.campaignId), campaignLabel: null, campaignOwner: p };
  }
  if (hint?.target.kind === "campaign") return { campaign: hint.target, campaignLabel: hint.label, campaignOwner: hint.advertiser, advertiser: hint.advertiser, advertiserLabel: null };
  if (hint) return { advertiser: hint.target, advertiserLabel: hint.label, campaign: null, campaignLabel: null, campaignOwner: null };
  return { advertiser: null, advertiserLabel: null, campaign: null, campaignLabel: null, campaignOwner: null };
}

export function CreativeForm({ row, parent }: { row?: CreativeRow; parent?: ParentHint | null }) {
  const { closeEditor } = useNavActions();
  const { matrix } = useReference();
  const [parents, setParents] = useState<Parents>(() => initialParents(row, parent));
  // The campaign carries the creative when one is chosen (the service resolves the
  // advertiser from it, even a draft campaign's once it lands); else the advertiser.
  const owner = parents.campaign ?? parents.advertiser;
  const initial: Creative = row ? row.value : {};
  // A posted creative cannot be changed (read-only): validating it would only repeat why.
  const form = useFormState<Creative>(
    initial,
    (value): Validation => ({ target: flow.target, parent: owner, draft: { kind: "creative", value: withParents(value) } }),
    row !== undefined && !row.readOnly,
  );
  const flow = useSaveFlow(form, row?.target ?? null);
  const existing = flow.target !== null;
  const readOnly = row?.readOnly ?? null;
  const v = form.value;
  const checks = useDraftChecks({ kind: "creative", value: v });

  /** The value as saved: ids of posted parents that are not the linked owner. */
  function withParents(value: Creative): Creative {
    if (existing) return value;
    if (parents.campaign) return { ...value, advertiserId: remoteId(parents.advertiser), campaignId: remoteId(parents.campaign) };
    return { ...value, campaignId: null };
  }

  const types = useMemo(() => [...new Set(matrix.map((c) => c.creativeType))], [matrix]);
  const cell = matrix.find((c) => c.creativeType === v.creativeType && c.creativeSubtype === v.creativeSubtype);
  const subtypes = matrix.filter((c) => c.creativeType === v.creativeType).map((c) => c.creativeSubtype);
  const required = useMemo(() => {
    // The cell's members, from the model's matrix; the rest (name, type, subtype, media
    // type) the form kit asks the model about, as for every form.
    const s = new Set<string>();
    for (const p of cell?.required ?? []) {
      s.add(p);
      if (p === "size") {
        s.add("size.width");
        s.add("size.height");
      }
    }
    return s;
  }, [cell]);

  const chooseType = (t: string | number | null) => {
    form.setValue((prev) => {
      const type = typeof t === "string" ? (types.find((x) => x === t) ?? null) : null;
      const sameSub = matrix.find((c) => c.creativeType === type && c.creativeSubtype === prev.creativeSubtype);
      const to = sameSub ?? matrix.find((c) => c.creativeType === type);
      const from = matrix.find((c) => c.creativeType === prev.creativeType && c.creativeSubtype === prev.creativeSubtype);
      const base: Creative = { ...prev, creativeType: type, creativeSubtype: to?.creativeSubtype ?? null };
      return switchCell(base, from, to, matrix);
    });
  };
  const chooseSubtype = (s: string | number | null) => {
    form.setValue((prev) => {
      const to = matrix.find((c) => c.creativeType === prev.creativeType && c.creativeSubtype === s);
      const from = matrix.find((c) => c.creativeType === prev.creativeType && c.creativeSubtype === prev.creativeSubtype);
      return switchCell({ ...prev, creativeSubtype: to?.creativeSubtype ?? null }, from, to, matrix);
    });
  };

  const submit = () => flow.save((target) => commands.save(target, owner, { kind: "creative", value: withParents(form.value) })).then(() => undefined);

  return (
    <FormFrame
      form={form}
      kind="creative"
      title={formTitle("creative", existing, v.name ?? row?.label ?? "")}
      required={required}
      onSubmit={submit}
      onCancel={closeEditor}
      busy={flow.busy}
      readOnly={readOnly}
      findings={checks?.findings}
      buttons={readOnly && row ? <DuplicateButton target={row.target} /> : undefined}
    >
      {row && typeof row.value.id === "number" && <ListingNote target={row.target} />}
      <Section title="Creative">
        <ParentPicker<AdvertiserRow>
          name="parent.advertiser"
          label="Advertiser"
          required={false}
          emptyLabel={parents.campaign ? "From the campaign" : "Choose…"}
          hint="or only a campaign"
          fetch={fetchAdvertisers}
          kind="advertiser"
          value={parents.advertiser}
          valueLabel={parents.advertiserLabel}
          onChange={(ref, r) => {
            setParents((p) => {
              // A campaign of another advertiser (or of one not known) no longer fits.
              const keep = p.campaign !== null && ref !== null && sameRef(p.campaignOwner, ref);
              return keep
                ? { ...p, advertiser: ref, advertiserLabel: r?.label ?? null }
                : { advertiser: ref, advertiserLabel: r?.label ?? null, campaign: ref ? null : p.campaign, campaignLabel: ref ? null : p.campaignLabel, campaignOwner: ref ? null : p.campaignOwner };
            });
            form.revalidate();
          }}
          disabled={existing}
        />
        <ParentPicker<CampaignRow>
          name="parent.campaign"
          label="Campaign"
          required={false}
          emptyLabel="None (advertiser only)"
          hint="optional; drafts too"
          fetch={fetchCampaigns}
          kind="campaign"
          parent={parents.advertiser}
          optionLabel={(c) => `${c.label}${typeof c.value.id === "number" ? "" : " (draft)"}`}
          value={parents.campaign}
          valueLabel={parents.campaignLabel}
          onChange={(ref, r) => {
            setParents((p) => ({ ...p, campaign: ref, campaignLabel: r?.label ?? null, campaignOwner: r?.parent ?? null }));
            form.revalidate();
          }}
          disabled={existing}
        />
        <ReadOnly label="Id" value={v.id ?? (existing ? "not posted yet" : "new")} />
        <TextField path="name" label="Name" />
        <SelectField path="creativeType" label="Type" options={options(types)} onChangeValue={chooseType} emptyLabel="Choose…" />
        <SelectField path="creativeSubtype" label="Subtype" options={options(subtypes)} onChangeValue={chooseSubtype} emptyLabel="Choose…" />
        <SelectField path="type.mediaType" label="Media type" options={options(cell ? cell.mediaTypes : [...new Set(matrix.flatMap((c) => c.mediaTypes))])} />
        <NumberField path="type.id" label="Creative type id" kind="integer" />
        <NumberField path="type.vendorId" label="Vendor id" kind="integer" />
        <SelectField path="type.videoType" label="Video type" options={options(VIDEO_TYPES)} emptyLabel="None" />
        <ErrorSlot path="type" />
        <ErrorSlot path="advertiserId" />
        {existing && <ReadOnly label="Campaign id" value={v.campaignId ?? null} />}
      </Section>
      {cell ? (
        <Section title={`${cell.creativeType} · ${cell.creativeSubtype}`}>
          {cellPaths(cell).map((p) => (
            <CellField key={p} path={p} />
          ))}
        </Section>
      ) : (
        <p className="muted section-note">{matrix.length === 0 ? "Loading creative types…" : "Choose a type and subtype to see their fields."}</p>
      )}
      <PreviewSection creative={v} />
      <Section title="Tracking and other">
        <TextField path="externalCreativeid" label="External creative id" />
        <TextField path="crawlableUrl" label="Crawlable URL" />
        <TextField path="impressionTrackingPixel_1" label="Impression pixel 1" />
        <TextField path="impressionTrackingPixel_2" label="Impression pixel 2" />
        <TextField path="impressionTrackingPixel_3" label="Impression pixel 3" />
        <TextField path="impressionTrackingPixel_4" label="Impression pixel 4" />
        <StringListField path="channels" label="Channels" addLabel="Add channel" placeholder="MOBILE" />
        <TextField path="display.htmlAsset" label="Display HTML" multiline hint="alternative HTML for tag creatives" className="wide mono" />
        <SelectField path="status" label="Status" options={options(CREATIVE_STATUSES)} hint="set by review" />
      </Section>
      <ChecksSection checks={checks} />
    </FormFrame>
  );
}
