import { useCallback, useEffect, useMemo, useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { ChangeStatus, ChangeView, ConflictPick, Op, Pick } from "../api/types";
import { type Column, DataTable } from "../components/DataTable";
import { useWorkspaceChanged } from "../state/events";
import { useSession } from "../state/session";
import { useSync } from "../state/sync";
import { localSource } from "../table/localSource";
import { NO_SELECTION, type Selection } from "../table/useSelection";
import { plural, showJson } from "../util/format";

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

/** "ad order" → "Ad order". */
const capitalized = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);

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

/** The columns filtered and sorted on (the details toggle is added for display). */
const COLUMNS: Column<ChangeView>[] = [
  { id: "seq", header: "#", value: (c) => c.seq, width: 56, align: "right", sortable: true },
  { id: "label", header: "Item", value: (c) => c.label, width: 220, sortable: true },
  { id: "kind", header: "Kind", value: (c) => capitalized(c.kindLabel), width: 110, sortable: true },
  { id: "op", header: "Change", value: (c) => OP_TEXT[c.op] ?? c.op, width: 120, sortable: true },
  {
    id: "status",
    header: "Status",
    value: (c) => STATUS_TEXT[c.status] ?? c.status,
    render: (c) => <span className={`status status-${c.status}`}>{STATUS_TEXT[c.status] ?? c.status}</span>,
    width: 110,
    sortable: true,
  },
  { id: "fields", header: "Fields", value: (c) => c.diff.length, width: 64, align: "right", sortable: true },
  {
    id: "messages",
    header: "Messages",
    value: (c) => [...c.errors.map((e) => `${e.field}: ${e.message}`), ...c.messages.map((m) => m.message), ...(c.conflicts.length ? [`${plural(c.conflicts.length, "conflict")}`] : [])].join(" · "),
    width: 360,
    sortable: true,
  },
];

const changeId = (c: ChangeView) => String(c.seq);
const changeLabel = (c: ChangeView) => c.label;
const changeMarker = (c: ChangeView) => c.marker;

/** Post and discard: the part of the screen that follows posting (re-renders on its ticks). */
function PendingActions({ count, seqs, busy, onCheck, onDiscard }: { count: number; seqs: number[]; busy: boolean; onCheck: () => void; onDiscard: () => void }) {
  const { posting, post } = useSync();
  return (
    <>
      <button type="button" data-action="check" disabled={busy} onClick={onCheck}>
        Check
      </button>
      <button type="button" className="primary" data-action="post-all" disabled={posting || count === 0} onClick={() => void post(null)}>
        Post all
      </button>
      <button type="button" data-action="post-selected" disabled={posting || seqs.length === 0} onClick={() => void post(seqs)}>
        Post selected{seqs.length ? ` (${seqs.length})` : ""}
      </button>
      <button type="button" className="danger" data-action="discard-selected" disabled={seqs.length === 0} onClick={onDiscard}>
        Discard selected
      </button>
    </>
  );
}

export function PendingScreen() {
  const { reloadSnapshot } = useSession();
  const [changes, setChanges] = useState<ChangeView[]>([]);
  const [selection, setSelection] = useState<Selection>(NO_SELECTION);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(new Set());
  const [busy, setBusy] = useState(false);
  // Every save, discard, resolution and post changes the list.
  const [changed, setChanged] = useState(0);
  useWorkspaceChanged("any", () => setChanged((n) => n + 1));

  useEffect(() => {
    let live = true;
    void unwrap(commands.pendingChanges()).then((r) => {
      if (live && r) setChanges(r);
    });
    return () => {
      live = false;
    };
  }, [changed]);

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
      void reloadSnapshot();
    },
    [reloadSnapshot],
  );

  const source = useMemo(() => localSource(changes, COLUMNS, changeId, changeLabel, changeMarker), [changes]);
  const seqs = useMemo(() => source.selected(selection).map((c) => c.seq), [source, selection]);

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
    if (seqs.length === 0) return;
    const r = await unwrap(commands.discardChanges(seqs));
    if (r) {
      toast(`Discarded ${plural(r.length, "change")}.`, "success");
      void reloadSnapshot();
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
      ...COLUMNS,
    ],
    [expanded, toggle],
  );

  return (
    <section className="screen" aria-label="Pending changes">
      <div className="screen-head">
        <h1>Pending changes</h1>
        <span className="muted">{plural(changes.length, "change")}</span>
      </div>
      <DataTable
        kind="pending"
        label="Pending changes"
        fetch={source.fetch}
        columns={columns}
        rowId={changeId}
        rowLabel={changeLabel}
        rowMarker={changeMarker}
        rowPending={() => true}
        onSelectionChange={setSelection}
        onOpen={(c) => toggle(c.seq)}
        expanded={(c) => (expanded.has(c.seq) ? <ChangeDetails change={c} onResolved={onResolved} /> : null)}
        toolbar={<PendingActions count={changes.length} seqs={seqs} busy={busy} onCheck={() => void check()} onDiscard={() => void discard()} />}
        emptyText="No pending changes. Edits you save show up here until you post them."
      />
    </section>
  );
}
