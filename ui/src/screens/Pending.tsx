import { useCallback, useEffect, useMemo, useState } from "react";
import { commands } from "../bindings";
import { call, unwrap } from "../api/call";
import { fetchPendingChanges } from "../api/queries";
import { toast } from "../api/toast";
import type { ChangeStatus, ChangeView, ConflictPick, Op, Pick, Review, ReviewView } from "../api/types";
import { type Column, DataTable } from "../components/DataTable";
import { MoneyReview } from "../bulk/MoneyReview";
import { useSession } from "../state/session";
import { useSync } from "../state/sync";
import { NO_SELECTION, type Selection } from "../table/useSelection";
import type { WindowFetch } from "../table/windowCache";
import { plural, showJson } from "../util/format";
import type { CheckSummary } from "../bindings";
import { FindingList, findingsText } from "../checks/Findings";
import { PostConfirm } from "../checks/PostConfirm";
import { FieldName } from "../bulk/FieldName";

const OP_TEXT: Record<Op, string> = {
  create: "Create",
  update: "Update",
  site_list_append: "Append sites",
  site_list_overwrite: "Overwrite sites",
  site_list_remove_sites: "Remove sites",
  audience_data: "Upload data",
  set_status: "Set status",
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

/**
 * Per-field choice between the base, my and the server's value; sends the picks. The
 * table shows the change again through the `workspaceChanged` event that follows.
 */
export function ConflictPicker({ change, onResolved }: { change: ChangeView; onResolved: () => void }) {
  const [picks, setPicks] = useState<Record<string, Pick>>(() => Object.fromEntries(change.conflicts.map((c) => [c.path, "mine" as Pick])));
  const [busy, setBusy] = useState(false);
  const resolve = async () => {
    setBusy(true);
    const list: ConflictPick[] = change.conflicts.map((c) => ({ path: c.path, pick: picks[c.path] ?? "mine" }));
    const r = await call(commands.resolveConflict(change.seq, list));
    setBusy(false);
    if (r.ok) {
      toast(`Resolved ${plural(list.length, "field")} of ${change.label}.`, "success");
      onResolved();
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

/**
 * A change that needs review: what is known (the Rust side says what to look for), then
 * the buyer's verdict after checking the ad platform: post it again, or mark it created
 * with the id found there.
 */
export function ReviewPanel({ change, onResolved }: { change: ChangeView; onResolved: () => void }) {
  const [known, setKnown] = useState<ReviewView | null>(null);
  const [id, setId] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    void call(commands.reviewChange(change.seq), { quiet: true }).then((r) => {
      if (live && r.ok) setKnown(r.data);
    });
    return () => {
      live = false;
    };
  }, [change.seq]);
  const settle = async (review: Review) => {
    setBusy(true);
    const r = await call(commands.settleReview(change.seq, review));
    setBusy(false);
    if (r.ok) {
      toast(review.choice === "created" ? `${change.label} is recorded as created.` : `${change.label} will be posted again.`, "success");
      onResolved();
    }
  };
  // Only whether it reads as a whole number; which ids the ad platform gives is the
  // Rust side's rule, and its refusal is shown like any other.
  const parsed = Number(id);
  const validId = id.trim() !== "" && Number.isInteger(parsed);
  return (
    <div className="review" data-review={change.seq}>
      {known && (
        <dl className="mini">
          {known.reference && (
            <>
              <dt>{known.referenceField ?? "Reference"}</dt>
              <dd className="mono" data-field="reference">
                {known.reference}
              </dd>
            </>
          )}
          {known.sentAt !== null && (
            <>
              <dt>Sent</dt>
              <dd>{new Date(known.sentAt).toLocaleString()}</dd>
            </>
          )}
          <dt>How to check</dt>
          <dd data-field="howToCheck">{known.howToCheck}</dd>
        </dl>
      )}
      <button type="button" data-action="post-again" disabled={busy} onClick={() => void settle({ choice: "postAgain" })}>
        Post again
      </button>
      {known?.canMarkCreated && (
        <form
          data-form="review"
          onSubmit={(e) => {
            e.preventDefault();
            if (validId) void settle({ choice: "created", id: parsed });
          }}
        >
          <label>
            Id on the ad platform <input name="id" inputMode="numeric" value={id} onChange={(e) => setId(e.target.value)} />
          </label>
          <button type="submit" className="primary" data-action="mark-created" disabled={busy || !validId}>
            Mark as created
          </button>
        </form>
      )}
    </div>
  );
}

function ChangeDetails({ change, onResolved }: { change: ChangeView; onResolved: () => void }) {
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
                  <FieldName kind={change.target.kind} path={d.path} />
                </th>
                <td className="before mono">{d.beforeText ?? showJson(d.before)}</td>
                <td aria-hidden="true">→</td>
                <td className="after mono">{d.afterText ?? showJson(d.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {change.errors.length > 0 && (
        <ul className="errors">
          {change.errors.map((e, i) => (
            <li key={i}>
              <FieldName kind={change.target.kind} path={e.field} /> {e.message}
            </li>
          ))}
        </ul>
      )}
      <FindingList findings={change.findings} label={`Checks of ${change.label}`} />
      {change.messages.length > 0 && (
        <ul className="messages">
          {change.messages.map((m, i) => (
            <li key={i} className={`msg-${m.level.toLowerCase()}`}>
              <b>{m.level}</b> {m.code && <code>{m.code}</code>} {m.field && <FieldName kind={change.target.kind} path={m.field} />} {m.message}
            </li>
          ))}
        </ul>
      )}
      {change.conflicts.length > 0 && <ConflictPicker change={change} onResolved={onResolved} />}
      {change.status === "needs_review" && <ReviewPanel change={change} onResolved={onResolved} />}
    </div>
  );
}

/**
 * The columns shown. The query filters on the change number, kind, operation, status and
 * the entity's name, and orders by outbox order only: `#` is the one sortable header.
 */
const COLUMNS: Column<ChangeView>[] = [
  { id: "seq", header: "#", value: (c) => c.seq, width: 56, align: "right", sortable: true },
  { id: "label", header: "Item", value: (c) => c.label, width: 220 },
  { id: "kind", header: "Kind", value: (c) => capitalized(c.kindLabel), width: 110 },
  { id: "op", header: "Change", value: (c) => OP_TEXT[c.op] ?? c.op, width: 120 },
  {
    id: "status",
    header: "Status",
    value: (c) => STATUS_TEXT[c.status] ?? c.status,
    render: (c) => <span className={`status status-${c.status}`}>{STATUS_TEXT[c.status] ?? c.status}</span>,
    width: 110,
  },
  { id: "fields", header: "Fields", value: (c) => c.diff.length, width: 64, align: "right" },
  {
    id: "messages",
    header: "Messages",
    value: (c) => [...c.errors.map((e) => `${e.field}: ${e.message}`), ...c.messages.map((m) => m.message), ...(c.conflicts.length ? [`${plural(c.conflicts.length, "conflict")}`] : [])].join(" · "),
    width: 360,
  },
  { id: "checks", header: "Checks", value: (c) => findingsText(c.findings), width: 150 },
];

const changeId = (c: ChangeView) => String(c.seq);
const changeLabel = (c: ChangeView) => c.label;
const changeMarker = (c: ChangeView) => c.marker;
const always = () => true;

/**
 * The seqs a selection stands for: the ticked ones, or for "select all" the ones its
 * query selects (asked of the Rust side, numbers only) but the unticked. `undefined`
 * when that question failed.
 */
async function seqsOf(sel: Selection): Promise<number[] | undefined> {
  if (!sel.all) return [...sel.ids].map(Number);
  const seqs = await unwrap(commands.pendingSeqs(sel.all));
  return seqs?.filter((s) => !sel.except.has(String(s)));
}

/** "Select all" of the unfiltered review, nothing unticked: every pending change. */
const isEverything = (sel: Selection) => sel.all !== null && sel.all.filter.trim() === "" && sel.except.size === 0;

/** A fetch of its own identity (the table fetches its window again) that reports its first answer. */
function refetch(answered: () => void): WindowFetch<ChangeView> {
  return (q) => fetchPendingChanges(q).finally(answered);
}

type ActionsProps = {
  /** Pending changes in all. */
  count: number;
  selection: Selection;
  selected: number;
  busy: boolean;
  onCheck: () => void;
  onDiscard: () => void;
  /** The selection was handed to a post. */
  onPosted: () => void;
};

/** Post and discard: the part of the screen that follows posting (re-renders on its ticks). */
function PendingActions({ count, selection, selected, busy, onCheck, onDiscard, onPosted }: ActionsProps) {
  const { posting, post } = useSync();
  // Posting checks first; warnings of pending creatives ask before it goes on.
  const [asking, setAsking] = useState<{ summary: CheckSummary; go: () => void } | null>(null);
  const checked = async (go: () => Promise<void>) => {
    const summary = await unwrap(commands.checkChanges());
    if (summary && summary.warnings > 0) setAsking({ summary, go: () => void go() });
    else await go();
  };
  if (asking) {
    return (
      <PostConfirm
        summary={asking.summary}
        onCancel={() => setAsking(null)}
        onPost={() => {
          setAsking(null);
          asking.go();
        }}
      />
    );
  }
  const postSelected = async () => {
    if (isEverything(selection)) {
      await post(null);
    } else {
      const seqs = await seqsOf(selection);
      if (!seqs || seqs.length === 0) return;
      await post(seqs);
    }
    onPosted();
  };
  return (
    <>
      <button type="button" data-action="check" disabled={busy} onClick={onCheck}>
        Check
      </button>
      <button type="button" className="primary" data-action="post-all" disabled={posting || count === 0} onClick={() => void checked(() => post(null))}>
        Post all
      </button>
      <button type="button" data-action="post-selected" disabled={posting || selected === 0} onClick={() => void checked(postSelected)}>
        Post selected{selected ? ` (${selected})` : ""}
      </button>
      <button type="button" className="danger" data-action="discard-selected" disabled={selected === 0} onClick={onDiscard}>
        Discard selected
      </button>
    </>
  );
}

/**
 * Says, while it lasts, that posting waits for the ad platform: the last post could not
 * reach it (the reason is the Rust side's), the changes wait and none failed, and posting
 * goes on by itself once the platform answers. Post stays there to try again at once.
 */
export function PostWaitingBanner() {
  const { snapshot } = useSession();
  const { pendingCount, posting } = useSync();
  const why = snapshot.postWaiting;
  if (!why || pendingCount === 0) return null;
  return (
    <div className="post-waiting-banner" role="alert" data-banner="post-waiting">
      <strong>Not posted: the ad platform cannot be reached.</strong> <span data-field="reason">{capitalized(why)}.</span>{" "}
      {posting
        ? "Posting again now…"
        : `${plural(pendingCount, "change")} ${pendingCount === 1 ? "waits" : "wait"}, none failed: posting resumes by itself once the ad platform answers, or press Post all to try now.`}
    </div>
  );
}

/**
 * The review of the pending changes: a window of them at a time (`queryPendingChanges`),
 * fetched again whenever the workspace changes, since a change of any kind shows here.
 */
export function PendingScreen() {
  const { reloadSnapshot } = useSession();
  const [fetch, setFetch] = useState<WindowFetch<ChangeView>>(() => fetchPendingChanges);
  const [counts, setCounts] = useState({ total: 0, unfiltered: 0 });
  const [selection, setSelection] = useState<Selection>(NO_SELECTION);
  const [selected, setSelected] = useState(0);
  const [reset, setReset] = useState(0);
  // Rows whose details the buyer opened or closed: conflicts start open, the rest closed.
  const [toggled, setToggled] = useState<ReadonlySet<number>>(new Set());
  const [busy, setBusy] = useState(false);

  const isOpen = useCallback((c: ChangeView) => (c.conflicts.length > 0) !== toggled.has(c.seq), [toggled]);
  const toggle = useCallback((seq: number) => {
    setToggled((prev) => {
      const next = new Set(prev);
      if (next.has(seq)) next.delete(seq);
      else next.add(seq);
      return next;
    });
  }, []);

  const onSelectionChange = useCallback((sel: Selection, count: number) => {
    setSelection(sel);
    setSelected(count);
  }, []);
  const onCountsChange = useCallback((total: number, unfiltered: number) => setCounts({ total, unfiltered }), []);
  const clearSelection = useCallback(() => setReset((n) => n + 1), []);

  const onResolved = useCallback(() => void reloadSnapshot(), [reloadSnapshot]);

  const check = async () => {
    setBusy(true);
    const r = await unwrap(commands.checkChanges());
    if (r) {
      const found = r.warnings + r.infos > 0 ? ` Creatives: ${plural(r.warnings, "warning")}, ${plural(r.infos, "info")} (they do not hold a post back).` : "";
      toast((r.invalid === 0 ? `Checked ${plural(r.checked, "change")}: no problems.` : `Checked: ${plural(r.invalid, "change")} with problems.`) + found, r.invalid === 0 ? "success" : "error");
      // Busy until the table shows the changes as checked (not only once the event's refetch lands).
      await new Promise<void>((answered) => setFetch(() => refetch(answered)));
    }
    setBusy(false);
  };
  const discard = async () => {
    const seqs = await seqsOf(selection);
    if (!seqs || seqs.length === 0) return;
    const r = await unwrap(commands.discardChanges(seqs));
    if (r) {
      toast(`Discarded ${plural(r.length, "change")}.`, "success");
      clearSelection();
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
          <button type="button" className="icon-button" aria-expanded={isOpen(c)} aria-label={`Details of ${c.label}`} onClick={() => toggle(c.seq)}>
            {isOpen(c) ? "▾" : "▸"}
          </button>
        ),
        width: 34,
      },
      ...COLUMNS,
    ],
    [isOpen, toggle],
  );

  const countText = counts.total === counts.unfiltered ? plural(counts.unfiltered, "change") : `${counts.total.toLocaleString()} of ${plural(counts.unfiltered, "change")}`;
  return (
    <section className="screen" aria-label="Pending changes">
      <div className="screen-head">
        <h1>Pending changes</h1>
        <span className="muted">{countText}</span>
      </div>
      <PostWaitingBanner />
      <MoneyReview />
      <DataTable
        kind="pending"
        label="Pending changes"
        fetch={fetch}
        changes="any"
        columns={columns}
        rowId={changeId}
        rowLabel={changeLabel}
        rowMarker={changeMarker}
        rowPending={always}
        onSelectionChange={onSelectionChange}
        onCountsChange={onCountsChange}
        selectionReset={reset}
        onOpen={(c) => toggle(c.seq)}
        expanded={(c) => (isOpen(c) ? <ChangeDetails change={c} onResolved={onResolved} /> : null)}
        toolbar={
          <PendingActions
            count={counts.unfiltered}
            selection={selection}
            selected={selected}
            busy={busy}
            onCheck={() => void check()}
            onDiscard={() => void discard()}
            onPosted={clearSelection}
          />
        }
        emptyText="No pending changes. Edits you save show up here until you post them."
      />
    </section>
  );
}
