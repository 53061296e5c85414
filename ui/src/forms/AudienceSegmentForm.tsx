import { useEffect, useId, useRef, useState } from "react";
import { commands } from "../bindings";
import { formTitle } from "../api/kinds";
import { call, unwrap } from "../api/call";
import type { AdvertiserRow, AudienceSegment, EntityRef, SegmentRow, UploadRequest, UploadView } from "../api/types";
import { fetchAdvertisers } from "../api/queries";
import { useWorkspaceChanged } from "../state/events";
import { useNavActions } from "../state/navigation";
import { count, plural } from "../util/format";
import { DuplicateButton, useSaveFlow } from "./common";
import { DATA_TYPES, LABELS, SEGMENT_STATUSES } from "./enums";
import { EntityIdsField, ErrorSlot, FieldErrors, FormFrame, NumberField, ReadOnly, Section, SelectField, TextField, options, useFormState, type Validation } from "./kit";

/** The number a segment's `advertiserIds` holds for an advertiser: its posted id. */
const advertiserId = (a: AdvertiserRow): number | null => a.value.id ?? null;

export function AudienceSegmentForm({ row }: { row?: SegmentRow }) {
  const { closeEditor } = useNavActions();
  const initial: AudienceSegment = row ? row.value : {};
  // A posted segment cannot be changed: validating it only repeats the read-only reason,
  // late, as a problem box that pushes the upload form down under the buyer's pointer.
  const form = useFormState<AudienceSegment>(
    initial,
    (value): Validation => ({ target: flow.target, parent: null, draft: { kind: "audience_segment", value } }),
    row !== undefined && !row.readOnly,
  );
  const flow = useSaveFlow(form, row?.target ?? null, false);
  const existing = flow.target !== null;
  const readOnly = row?.readOnly ?? null;
  const v = form.value;

  return (
    <div className="stack">
      <FormFrame
        form={form}
        kind="audience_segment"
        title={formTitle("audience_segment", existing, v.name ?? row?.label ?? "")}
        onSubmit={async () => {
          const saved = await flow.save((target) => commands.save(target, null, { kind: "audience_segment", value: form.value }));
          if (saved && saved.errors.length === 0 && !existing) closeEditor();
        }}
        onCancel={closeEditor}
        busy={flow.busy}
        readOnly={readOnly}
        buttons={readOnly && row ? <DuplicateButton target={row.target} /> : undefined}
      >
        <Section title="Segment">
          <TextField path="name" label="Name" />
          <TextField path="description" label="Description" multiline className="wide" />
          <SelectField path="dataType" label="Data type" options={options(DATA_TYPES, LABELS)} />
          <NumberField path="accountId" label="Account id" kind="integer" />
          <EntityIdsField<AdvertiserRow>
            path="advertiserIds"
            label="Advertisers"
            className="wide"
            fetch={fetchAdvertisers}
            kind="advertiser"
            idOf={advertiserId}
          />
          <TextField path="externalAudienceId" label="External audience id" />
          <NumberField path="ttl" label="TTL" kind="integer" hint="seconds" />
        </Section>
        <Section title="From the service">
          <ReadOnly label="Segment id" value={v.serviceSegmentId ?? null} />
          <SelectField path="status" label="Status" options={options(SEGMENT_STATUSES)} readOnly />
          <ReadOnly label="Identifiers" value={v.dataCount == null ? null : count(v.dataCount)} />
          <ReadOnly label="Message" value={v.message ?? null} />
        </Section>
      </FormFrame>
      {flow.target ? (
        <>
          <UploadData segment={flow.target} dataType={v.dataType ?? null} archived={v.status === "ARCHIVED"} />
          <Uploads segment={flow.target} />
        </>
      ) : (
        <p className="muted section-note">Upload data once the segment is saved.</p>
      )}
    </div>
  );
}

/** What was read from the chosen file (or pasted text). */
type Source = { text: string; name: string; columns: string[]; column: string | null; problem: string | null };

export const DEFAULT_COUNTRY = "US";

/** A file's text (FileReader: older WebKit builds lack `Blob.text`). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === "string" ? reader.result : "");
    reader.onerror = () => reject(reader.error ?? new Error(`${file.name} could not be read`));
    reader.readAsText(file);
  });
}

/**
 * Adds identifiers to a segment from a file: one per line, or one column of a CSV (a
 * picker appears when the header has several). The file is read here and parsed on the
 * Rust side; the upload is saved as a pending change like any edit.
 */
function UploadData({ segment, dataType, archived }: { segment: EntityRef; dataType: string | null; archived: boolean }) {
  const empty: UploadRequest = { countryCode: DEFAULT_COUNTRY, values: [] };
  const form = useFormState<UploadRequest>(empty, (value): Validation => ({ target: null, parent: segment, draft: { kind: "audience_data", value } }), false);
  const flow = useSaveFlow(form, segment, false);
  const [source, setSource] = useState<Source | null>(null);
  const [reading, setReading] = useState(false);
  const [pasted, setPasted] = useState("");
  const fileRef = useRef<HTMLInputElement>(null);
  const fileId = useId();
  const columnId = useId();
  const pasteId = useId();
  const n = form.value.values.length;

  /** Parses `text` on the Rust side and takes its identifiers into the upload. */
  const read = async (text: string, name: string, column: string | null) => {
    setReading(true);
    const r = await call(commands.readIdentifiers(text, column), { onFieldErrors: form.setErrors });
    setReading(false);
    if (!r.ok) {
      setSource({ text, name, columns: [], column: null, problem: null });
      form.setValue((prev) => ({ ...prev, values: [] }));
      return;
    }
    setSource({ text, name, columns: r.data.columns, column: r.data.column, problem: r.data.problem });
    form.setValue((prev) => ({ ...prev, values: r.data.values }));
  };

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setPasted("");
    await read(await readText(file), file.name, null);
  };

  const reset = () => {
    setSource(null);
    setPasted("");
    if (fileRef.current) fileRef.current.value = "";
    form.setValue((prev) => ({ ...prev, values: [] }));
  };

  return (
    <FormFrame
      form={form}
      kind="audience_data"
      title="Upload data"
      subtitle={dataType ? `Identifiers of type ${LABELS[dataType] ?? dataType}: one per line, or a CSV column` : "Identifiers: one per line, or a CSV column"}
      saveLabel={n > 0 ? `Upload ${plural(n, "identifier")}` : "Upload"}
      onSubmit={async () => {
        const saved = await flow.save(() => commands.save(null, segment, { kind: "audience_data", value: form.value }));
        // Sent: the emptied form is the new baseline, so leaving it asks nothing.
        if (saved && saved.errors.length === 0) {
          reset();
          form.markSaved({ ...form.value, values: [] });
        }
      }}
      busy={flow.busy || reading}
      autoFocus={false}
    >
      {archived && <p className="muted">This segment is archived: the service takes no more data for it.</p>}
      <div className="grid">
        <div className="field wide">
          <label htmlFor={fileId}>File of identifiers</label>
          <input
            ref={fileRef}
            id={fileId}
            type="file"
            name="file"
            data-testid="upload-file"
            accept=".csv,.txt,.tsv,text/csv,text/plain"
            onChange={(e) => void onFile(e.target.files?.[0])}
          />
          <FieldErrors path="file" />
          {source?.problem && (
            <div className="field-error" role="alert" data-testid="upload-problem">
              {source.problem}
            </div>
          )}
        </div>
        {source && source.columns.length > 1 && (
          <div className="field">
            <label htmlFor={columnId}>Column</label>
            <select
              id={columnId}
              name="column"
              data-testid="upload-column"
              value={source.column ?? ""}
              onChange={(e) => void read(source.text, source.name, e.target.value === "" ? null : e.target.value)}
            >
              {source.column === null && <option value="">{n > 0 ? "Found by its header" : "Choose…"}</option>}
              {source.columns.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </div>
        )}
        <TextField path="countryCode" label="Country code" hint="ISO 3166, e.g. US" />
        <div className="field wide">
          <label htmlFor={pasteId}>Or paste identifiers</label>
          <textarea
            id={pasteId}
            name="pasted"
            data-testid="upload-paste"
            rows={4}
            className="mono"
            value={pasted}
            onChange={(e) => setPasted(e.target.value)}
            onBlur={() => {
              if (pasted.trim() !== "") {
                if (fileRef.current) fileRef.current.value = "";
                void read(pasted, "pasted text", null);
              }
            }}
          />
        </div>
        <ErrorSlot path="values" />
        <p className="wide muted" data-testid="upload-summary" aria-live="polite">
          {reading
            ? "Reading…"
            : source
              ? `${plural(n, "identifier")} from ${source.name}${source.column ? ` (column ${source.column})` : ""}${n > 0 ? `: ${form.value.values.slice(0, 3).join(", ")}${n > 3 ? ", …" : ""}` : ""}`
              : "Choose a file or paste identifiers."}
        </p>
      </div>
    </FormFrame>
  );
}

const STATUS_TEXT: Record<string, string> = {
  pending: "Waiting to post",
  invalid: "Invalid",
  sending: "Sending",
  applied: "Posted",
  failed: "Failed",
  needs_review: "Needs review",
  conflict: "Conflict",
  blocked: "Blocked",
};

/** Every upload of the segment with its outcome, newest last. */
export function Uploads({ segment }: { segment: EntityRef }) {
  const [uploads, setUploads] = useState<UploadView[] | null>(null);
  const [changed, setChanged] = useState(0);
  useWorkspaceChanged(["audience_segment"], () => setChanged((n) => n + 1), [segment]);
  useEffect(() => {
    let live = true;
    void unwrap(commands.audienceUploads(segment), { quiet: true }).then((u) => live && setUploads(u ?? []));
    return () => {
      live = false;
    };
  }, [segment, changed]);
  if (uploads === null) return null;
  return (
    <section className="form-section uploads" aria-label="Uploads" data-testid="upload-list">
      <div className="section-head">
        <h3>Uploads ({uploads.length})</h3>
      </div>
      {uploads.length === 0 ? (
        <p className="muted">No uploads yet.</p>
      ) : (
        <table className="mini-table">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Status</th>
              <th scope="col">Identifiers</th>
              <th scope="col">Country</th>
              <th scope="col" data-col="published" title="Counts records, not identifiers: the app sends an upload's identifiers as one record per request.">
                Records published
              </th>
              <th scope="col">Failed</th>
              <th scope="col">Bad records</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {uploads.map((u) => (
              <tr key={u.seq} data-testid="upload-row" data-seq={u.seq} data-status={u.status}>
                <td>{u.seq}</td>
                <td>{STATUS_TEXT[u.status] ?? u.status}</td>
                <td data-col="values">{count(u.values)}</td>
                <td>{u.countryCode}</td>
                <td data-col="published">{u.result ? count(u.result.published) : "—"}</td>
                <td data-col="failed">{u.result ? count(u.result.failed_publishes) : "—"}</td>
                <td data-col="bad">{u.result ? count(u.result.bad_records) : "—"}</td>
                <td data-col="message">{[u.result?.message, u.result?.bad_records_details, u.message].filter((x) => x).join(" · ") || "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {uploads.some((u) => u.status === "applied") && (
        <p className="muted" data-testid="upload-processing">
          The ad platform processes uploaded data in batches, about every 10 minutes; Download to see the segment&apos;s identifier count and
          status.
        </p>
      )}
    </section>
  );
}
