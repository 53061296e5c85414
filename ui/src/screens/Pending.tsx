import { useCallback, useEffect, useMemo, useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { ChangeStatus, ChangeView, ConflictPick, Op, Pick } from "../api/types";
import { type Column, DataTable } from "../components/DataTable";
import { useApp } from "../state/app";
import { plural, showJson } from "../util/format";
import { refKey } from "../util/refs";

const OP_TEXT: Record<Op, string> = {
  create: "Create",
  update: "Update",
  site_list_append: "Append sites",
  site_list_overwrite: "Overwrite sites",
  site_list_remove_sites: "Remove sites",
  audience_data: "Upload data",
};

const STATUS_TEXT: Record<ChangeStatus, string> = {
  pending: "Pending",
  invalid: "Invalid",
  sending: "Sending",
  applied: "Applied",
  failed: "Failed",
  needs_review: "Needs review",
  conflict: "Conflict",
  blocked: "Blocked",
};

const KIND_TEXT: Record<string, string> = {
  advertiser: "Advertiser",
  campaign: "Campaign",
  flight: "Flight",
  ad_order: "Ad order",
  flight_caps: "Flight caps",
  creative: "Creative",
  site_list: "Site list",
  audience_segment: "Audience segment",
};

function markerOf(c: ChangeView) {
  switch (c.status) {
    case "invalid":
      return "invalid" as const;
    case "conflict":
      return "conflict" as const;
    case "failed":
    case "needs_review":
      return "failed" as const;
    default:
      return c.op === "create" ? ("new" as const) : ("changed" as const);
  }
}

/** Per-field choice between the base, my and the server's value; sends the picks. */
export function ConflictPicker({ change, onResolved }: { change: ChangeView; onResolved: (list: ChangeView[]) => void }) {
  const [picks, setPicks] = useState<Record<string, Pick>>(() => Object.fromEntries(change.conflicts.map((c) => [c.path, "mine" as Pick])));
  const [busy, setBusy] = useState(false);
  const resolve = async () => {
    setBusy(true);
    const list: ConflictPick[] = change.conflicts.map((c) => ({ path: c.path, pick: picks[c.path] ?? "mine" }));
    const r = await unwrap(commands.resolveConflict(change.seq, list));
    setBusy(false);
    if (r) {
      toast(`Resolved ${plural(list.length, "field")} of ${change.label}.`, "success");
      onResolved(r);
    }
  };
  return (
    <div className="conflicts" data-conflicts={change.seq}>
      <table className="mini">
        <caption>Conflicting fields: the service changed them too</caption>
        <thead>
          <tr>
            <th>Field</th>
            <th>Base</th>
            <th>Mine</th>
            <th>Theirs (service)</th>
          </tr>
        </thead>
        <tbody>
          {change.conflicts.map((c) => {
            const group = `conflict-${change.seq}-${c.path}`;
            const option = (pick: Pick, value: unknown) => (
              <td>
                <label className="inline-check">
                  <input
                    type="radio"
                    name={group}
                    value={pick}
                    data-pick={pick}
                    data-path={c.path}
                    checked={picks[c.path] === pick}
                    onChange={() => setPicks((p) => ({ ...p, [c.path]: pick }))}
                  />
                  <span className="mono">{showJson(value)}</span>
                </label>
              </td>
            );
            return (
              <tr key={c.path}>
                <th scope="row">
                  <code>{c.path}</code>
                </th>
                {option("base", c.base)}
                {option("mine", c.mine)}
                {option("theirs", c.theirs)}
              </tr>
            );
          })}
        </tbody>
      </table>
      <button type="button" className="primary" data-action="resolve" disabled={busy} onClick={() => void resolve()}>
        Resolve
      </button>
    </div>
  );
}

function ChangeDetails({ change, onResolved }: { change: ChangeView; onResolved: (list: ChangeView[]) => void }) {
  return (
    <div className="change-details">
      {change.diff.length > 0 && (
        <table className="mini diff">
          <caption>Changes</caption>
          <thead>
            <tr>
              <th>Field</th>
              <th>Before</th>
              <th aria-hidden="true" />
              <th>After</th>
            </tr>
          </thead>
          <tbody>
            {change.diff.map((d) => (
              <tr key={d.path}>
                <th scope="row">
                  <code>{d.path}</code>
                </th>
                <td className="before mono">{showJson(d.before)}</td>
                <td aria-hidden="true">→</td>
                <td className="after mono">{showJson(d.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {change.errors.length > 0 && (
        <ul className="errors">
          {change.errors.map((e, i) => (
            <li key={i}>
              <code>{e.field}</code> {e.message}
            </li>
          ))}
        </ul>
      )}
      {change.messages.length > 0 && (
        <ul className="messages">
          {change.messages.map((m, i) => (
            <li key={i} className={`msg-${m.level.toLowerCase()}`}>
              <b>{m.level}</b> {m.code && <code>{m.code}</code>} {m.field && <code>{m.field}</code>} {m.message}
            </li>
          ))}
        </ul>
      )}
      {change.conflicts.length > 0 && <ConflictPicker change={change} onResolved={onResolved} />}
    </div>
  );
}

export function PendingScreen() {
  const app = useApp();
  const [changes, setChanges] = useState<ChangeView[]>([]);
  const [selected, setSelected] = useState<ChangeView[]>([]);
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    void unwrap(commands.pendingChanges()).then((r) => live && r && setChanges(r));
    return () => {
      live = false;
    };
  }, [app.version]);

  // Conflicts and problems open by themselves.
  useEffect(() => {
    setExpanded((prev) => {
      const next = new Set(prev);
      for (const c of changes) if (c.conflicts.length > 0) next.add(c.seq);
      return next;
    });
  }, [changes]);

  const toggle = useCallback((seq: number) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(seq)) next.delete(seq);
      else next.add(seq);
      return next;
    });
  }, []);

  const onResolved = useCallback(
    (list: ChangeView[]) => {
      setChanges(list);
      app.bump();
      void app.reloadSnapshot();
    },
    [app],
  );

  const check = async () => {
    setBusy(true);
    const r = await unwrap(commands.checkChanges());
    setBusy(false);
    if (r) {
      setChanges(r);
      const bad = r.filter((c) => c.errors.length > 0 || c.status === "invalid").length;
      toast(bad === 0 ? `Checked ${plural(r.length, "change")}: no problems.` : `Checked: ${plural(bad, "change")} with problems.`, bad === 0 ? "success" : "error");
    }
  };
  const discard = async () => {
    const seqs = selected.map((c) => c.seq);
    if (seqs.length === 0) return;
    const r = await unwrap(commands.discardChanges(seqs));
    if (r) {
      toast(`Discarded ${plural(r.length, "change")}.`, "success");
      app.bump();
      void app.reloadSnapshot();
    }
  };

  const columns = useMemo<Column<ChangeView>[]>(
    () => [
      {
        id: "details",
        header: "",
        value: () => null,
        render: (c) => (
          <button type="button" className="icon-button" aria-expanded={expanded.has(c.seq)} aria-label={`Details of ${c.label}`} onClick={() => toggle(c.seq)}>
            {expanded.has(c.seq) ? "▾" : "▸"}
          </button>
        ),
        width: 34,
      },
      { id: "seq", header: "#", value: (c) => c.seq, width: 56, align: "right" },
      { id: "label", header: "Item", value: (c) => c.label, width: 220 },
      { id: "kind", header: "Kind", value: (c) => KIND_TEXT[c.target.kind] ?? c.target.kind, width: 110 },
      { id: "op", header: "Change", value: (c) => OP_TEXT[c.op] ?? c.op, width: 120 },
      { id: "status", header: "Status", value: (c) => STATUS_TEXT[c.status] ?? c.status, render: (c) => <span className={`status status-${c.status}`}>{STATUS_TEXT[c.status] ?? c.status}</span>, width: 110 },
      { id: "fields", header: "Fields", value: (c) => c.diff.length, width: 64, align: "right" },
      {
        id: "messages",
        header: "Messages",
        value: (c) => [...c.errors.map((e) => `${e.field}: ${e.message}`), ...c.messages.map((m) => m.message), ...(c.conflicts.length ? [`${plural(c.conflicts.length, "conflict")}`] : [])].join(" · "),
        width: 360,
      },
    ],
    [expanded, toggle],
  );

  const seqs = selected.map((c) => c.seq);
  return (
    <section className="screen" aria-label="Pending changes">
      <div className="screen-head">
        <h1>Pending changes</h1>
        <span className="muted">{plural(changes.length, "change")}</span>
      </div>
      <DataTable
        kind="pending"
        label="Pending changes"
        rows={changes}
        columns={columns}
        rowId={(c) => `${c.seq}:${refKey(c.target)}`}
        rowLabel={(c) => c.label}
        rowMarker={markerOf}
        rowPending={() => true}
        onSelectionChange={setSelected}
        onOpen={(c) => toggle(c.seq)}
        expanded={(c) => (expanded.has(c.seq) ? <ChangeDetails change={c} onResolved={onResolved} /> : null)}
        toolbar={
          <>
            <button type="button" data-action="check" disabled={busy} onClick={() => void check()}>
              Check
            </button>
            <button type="button" className="primary" data-action="post-all" disabled={app.snapshot.posting || changes.length === 0} onClick={() => void app.post(null)}>
              Post all
            </button>
            <button type="button" data-action="post-selected" disabled={app.snapshot.posting || seqs.length === 0} onClick={() => void app.post(seqs)}>
              Post selected{seqs.length ? ` (${seqs.length})` : ""}
            </button>
            <button type="button" className="danger" data-action="discard-selected" disabled={seqs.length === 0} onClick={() => void discard()}>
              Discard selected
            </button>
          </>
        }
        emptyText="No pending changes. Edits you save show up here until you post them."
      />
    </section>
  );
}
