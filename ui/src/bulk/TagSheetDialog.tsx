import { useEffect, useState, useSyncExternalStore } from "react";
import { commands, type ColumnChoice, type Field, type KindChoice, type TagMapping, type TagPreview, type TagPreviewRow } from "../bindings";
import { call, unwrap } from "../api/call";
import { fetchAdvertisers, fetchCampaigns } from "../api/queries";
import { toast } from "../api/toast";
import type { AdvertiserRow, CampaignRow, ChosenFile, EntityRef, Kind } from "../api/types";
import { EntitySelect } from "../components/EntitySelect";
import { useNavigation } from "../state/navigation";
import { plural } from "../util/format";
import { Modal } from "./Modal";

/** Rows a page of the preview shows; the others are asked for a page at a time. */
const PAGE = 50;

// The file picked in File → Import tag sheet…, shown by `TagSheetHost` wherever the
// command came from (the menu, the palette or the toolbar).
let picked: ChosenFile | null = null;
const listeners = new Set<() => void>();
function setPicked(file: ChosenFile | null): void {
  picked = file;
  for (const l of listeners) l();
}
function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** File → Import tag sheet…: the open dialog, then the mapping and preview dialog. */
export async function openTagSheet(): Promise<void> {
  const file = await unwrap(commands.pickTagSheet("Import tag sheet"));
  if (file) setPicked(file);
}

/** Mounted once in the shell: the tag-sheet dialog while a file is picked. */
export function TagSheetHost() {
  const file = useSyncExternalStore(subscribe, () => picked);
  return file ? <TagSheetDialog key={file.token} file={file} onClose={() => setPicked(null)} /> : null;
}

function byField(columns: ColumnChoice[]): Partial<Record<Field, string>> {
  const out: Partial<Record<Field, string>> = {};
  for (const c of columns) out[c.field] = c.header;
  return out;
}

function toChoices(columns: Partial<Record<Field, string>>): ColumnChoice[] {
  return Object.entries(columns).flatMap(([field, header]) => (header ? [{ field: field as Field, header }] : []));
}

/**
 * A tag sheet picked in the dialog: the preset detected (or chosen, or the buyer's own
 * columns, which can be saved as a preset), one row per creative with its findings, and
 * Apply, which makes the drafts under the chosen campaign or advertiser in one undo step.
 */
export function TagSheetDialog({ file, onClose }: { file: ChosenFile; onClose: () => void }) {
  const { scope } = useNavigation();
  // The tree's campaign or advertiser, if one is selected, is where the drafts go first.
  const scoped = scope && (scope.target.kind === "campaign" || scope.target.kind === "advertiser") ? scope : null;
  const [kinds, setKinds] = useState<KindChoice[]>([]);
  const [parentKind, setParentKind] = useState<Kind>(scoped?.target.kind ?? "campaign");
  const [parent, setParent] = useState<EntityRef | null>(scoped?.target ?? null);
  const [parentLabel, setParentLabel] = useState<string | undefined>(scoped?.label);
  const [mapping, setMapping] = useState<TagMapping>({ by: "detect" });
  const [offset, setOffset] = useState(0);
  const [preview, setPreview] = useState<TagPreview | null>(null);
  const [columns, setColumns] = useState<Partial<Record<Field, string>>>({});
  const [presetName, setPresetName] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    void commands.parentKinds("creative").then((ks) => {
      if (live) setKinds(ks);
    });
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    let live = true;
    void unwrap(commands.previewTagSheet(file.token, mapping, offset, PAGE)).then((p) => {
      if (!live || !p) return;
      setPreview(p);
      if (mapping.by !== "columns") setColumns(byField(p.columns));
    });
    return () => {
      live = false;
    };
  }, [file.token, mapping, offset]);

  const ready = preview ? preview.total - preview.refused : 0;
  const mapColumns = mapping.by === "columns" || (preview !== null && preview.preset === null);

  const chooseMapping = (m: TagMapping) => {
    setOffset(0);
    setMapping(m);
  };

  const savePreset = async () => {
    const name = presetName.trim();
    const r = await call(commands.saveTagPreset(name, toChoices(columns)));
    if (!r.ok) return;
    toast(`Saved the preset “${name}”.`);
    chooseMapping({ by: "preset", name });
  };

  const apply = async () => {
    if (!parent) return;
    setBusy(true);
    const r = await call(commands.applyTagSheet(file.token, mapping, parent));
    setBusy(false);
    if (!r.ok) return;
    toast(`Made ${plural(r.data.made, "draft creative")}${r.data.refused ? `; ${plural(r.data.refused, "row")} to fix left out` : ""}.`);
    onClose();
  };

  return (
    <Modal label="Import tag sheet" onClose={onClose} wide>
      <form data-form="tag-sheet" className="stack" onSubmit={(e) => e.preventDefault()}>
        <p className="muted mono">{file.path}</p>
        <div className="tag-mapping">
          <label>
            Columns
            <select
              name="preset"
              value={mapping.by === "preset" ? `preset:${mapping.name}` : mapping.by}
              onChange={(e) => {
                const v = e.target.value;
                if (v === "detect") chooseMapping({ by: "detect" });
                else if (v === "columns") chooseMapping({ by: "columns", columns: toChoices(columns) });
                else chooseMapping({ by: "preset", name: v.slice("preset:".length) });
              }}
            >
              <option value="detect">Detect from the header{preview?.preset && mapping.by === "detect" ? ` (${preview.preset})` : ""}</option>
              {preview?.presets.map((name) => (
                <option key={name} value={`preset:${name}`}>
                  {name}
                </option>
              ))}
              <option value="columns">Choose the columns…</option>
            </select>
          </label>
          <label>
            Import under a{" "}
            <select
              name="parentKind"
              value={parentKind}
              onChange={(e) => {
                setParentKind(kinds.find((k) => k.kind === e.target.value)?.kind ?? parentKind);
                setParent(null);
                setParentLabel(undefined);
              }}
            >
              {kinds.map((k) => (
                <option key={k.kind} value={k.kind}>
                  {k.label}
                </option>
              ))}
            </select>
          </label>
          {parentKind === "campaign" ? (
            <EntitySelect<CampaignRow>
              fetch={fetchCampaigns}
              kind="campaign"
              name="parent"
              label="campaigns"
              value={parent}
              valueLabel={parentLabel}
              onChange={(ref, r) => {
                setParent(ref);
                setParentLabel(r?.label);
              }}
            />
          ) : (
            <EntitySelect<AdvertiserRow>
              fetch={fetchAdvertisers}
              kind="advertiser"
              name="parent"
              label="advertisers"
              value={parent}
              valueLabel={parentLabel}
              onChange={(ref, r) => {
                setParent(ref);
                setParentLabel(r?.label);
              }}
            />
          )}
        </div>
        {preview && mapColumns && (
          <fieldset className="tag-columns" data-mapping="">
            <legend>
              {preview.preset === null ? "No preset knows this sheet: choose the column of each field." : "Choose the column of each field."} Header on row {preview.headerRow}.
            </legend>
            {preview.fields.map((f) => (
              <label key={f.field}>
                {f.label}
                <select
                  name={`column.${f.field}`}
                  value={columns[f.field] ?? ""}
                  onChange={(e) => setColumns({ ...columns, [f.field]: e.target.value })}
                >
                  <option value="">—</option>
                  {preview.headers.map((h, i) =>
                    h.trim() ? (
                      <option key={`${i}:${h}`} value={h}>
                        {h}
                      </option>
                    ) : null,
                  )}
                </select>
              </label>
            ))}
            <div className="row">
              <button type="button" data-action="map-columns" onClick={() => chooseMapping({ by: "columns", columns: toChoices(columns) })}>
                Preview with these columns
              </button>
              <input name="presetName" placeholder="Preset name" value={presetName} onChange={(e) => setPresetName(e.target.value)} />
              <button type="button" data-action="save-preset" disabled={presetName.trim() === ""} onClick={() => void savePreset()}>
                Save as preset
              </button>
            </div>
          </fieldset>
        )}
        {preview && (
          <TagPreviewTable preview={preview} onPage={setOffset} />
        )}
        <div className="modal-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="primary" data-action="apply-tags" disabled={busy || !parent || ready === 0 || preview?.preset === null} onClick={() => void apply()}>
            {busy ? "Applying…" : `Make ${plural(ready, "draft creative")}`}
          </button>
        </div>
      </form>
    </Modal>
  );
}

function Thumb({ r }: { r: TagPreviewRow }) {
  const ratio = r.width && r.height ? `${r.width} / ${r.height}` : undefined;
  return (
    <span className={`tag-thumb tag-thumb-${r.thumbnail}`} style={ratio ? { aspectRatio: ratio } : undefined} aria-hidden="true">
      {r.thumbnail === "video" ? "▶" : r.thumbnail === "tag" ? "</>" : ""}
    </span>
  );
}

/** The preview's counts and a page of its rows, one per creative. */
function TagPreviewTable({ preview, onPage }: { preview: TagPreview; onPage: (offset: number) => void }) {
  const { total, offset } = preview;
  return (
    <div className="preview">
      <p className="preview-counts" data-tag-counts="">
        {plural(total, "creative")}, {preview.refused} to fix, {plural(preview.findings, "finding")}
        {preview.preset && <> · {preview.preset}</>}
        {preview.sheet && <> · sheet “{preview.sheet}”</>}
      </p>
      {total > PAGE && (
        <div className="preview-pager inline" role="group" aria-label="Preview pages">
          <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - PAGE))}>
            Previous
          </button>
          <span className="muted">
            {offset + 1}–{Math.min(total, offset + PAGE)} of {total}
          </span>
          <button type="button" disabled={offset + PAGE >= total} onClick={() => onPage(offset + PAGE)}>
            Next
          </button>
        </div>
      )}
      <div className="preview-scroll">
        <table className="mini preview-table" data-table="tag-preview">
          <thead>
            <tr>
              <th>Row</th>
              <th aria-label="Preview" />
              <th>Name</th>
              <th>Size</th>
              <th>Type</th>
              <th>Findings</th>
              <th>To fix</th>
            </tr>
          </thead>
          <tbody>
            {preview.rows.map((r) => (
              <tr key={r.row} data-row={r.row} className={r.errors.length ? "has-errors" : undefined}>
                <td>{r.row}</td>
                <td>
                  <Thumb r={r} />
                </td>
                <td>{r.name}</td>
                <td className="mono">{r.size}</td>
                <td className="mono">{r.creativeType}</td>
                <td data-findings={r.findings} title={r.rules.join(", ") || undefined}>{r.warnings > 0 ? `${r.findings} (${plural(r.warnings, "warning")})` : r.findings}</td>
                <td>
                  {r.errors.map((e) => (
                    <div key={`${e.cell}:${e.field}`} className="error" data-cell={e.cell}>
                      {e.cell}: {e.message}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
