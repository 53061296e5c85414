import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ChangeView, ReviewView, TableQuery } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { clearToasts, Toaster } from "../api/toast";
import { commands, events, ok, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { forgetEditFields } from "../bulk/fields";
import { ConflictPicker, PendingScreen, ReviewPanel } from "../screens/Pending";
import { AppProvider } from "../state/app";

const conflicted: ChangeView = {
  seq: 7,
  target: { kind: "campaign", key: { type: "id", value: 10 } },
  label: "Spring sale",
  kindLabel: "campaign",
  marker: "conflict",
  op: "update",
  status: "conflict",
  diff: [{ path: "maxBudget", before: 1000, after: 1500 }],
  errors: [],
  messages: [],
  conflicts: [
    { path: "maxBudget", base: 1000, mine: 1500, theirs: 1200 },
    { path: "name", base: "Spring", mine: "Spring sale", theirs: "Spring 2030" },
  ],
  findings: [],
};

const plain: ChangeView = {
  seq: 8,
  target: { kind: "advertiser", key: { type: "local", value: "abc" } },
  label: "New advertiser",
  kindLabel: "advertiser",
  marker: "new",
  op: "create",
  status: "pending",
  diff: [{ path: "name", before: null, after: "New advertiser" }],
  errors: [],
  messages: [{ level: "ERROR", code: "E1", message: "rejected once", field: null }],
  conflicts: [],
  findings: [],
};

describe("conflict picker", () => {
  beforeEach(() => vi.clearAllMocks());

  it("sends one pick per conflicting field", async () => {
    const onResolved = vi.fn();
    commands.resolveConflict.mockReturnValue(ok(null));
    const { container } = render(<ConflictPicker change={conflicted} onResolved={onResolved} />);
    // Default is "mine"; take the service's budget and the base name.
    fireEvent.click(container.querySelector('input[data-path="maxBudget"][data-pick="theirs"]')!);
    fireEvent.click(container.querySelector('input[data-path="name"][data-pick="base"]')!);
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="resolve"]')!);
    });
    expect(commands.resolveConflict).toHaveBeenCalledWith(7, [
      { path: "maxBudget", pick: "theirs" },
      { path: "name", pick: "base" },
    ]);
    expect(onResolved).toHaveBeenCalledTimes(1);
  });

  it("keeps mine unless told otherwise", async () => {
    commands.resolveConflict.mockReturnValue(ok(null));
    const { container } = render(<ConflictPicker change={conflicted} onResolved={() => undefined} />);
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="resolve"]')!);
    });
    expect(commands.resolveConflict).toHaveBeenCalledWith(7, [
      { path: "maxBudget", pick: "mine" },
      { path: "name", pick: "mine" },
    ]);
  });
});

const lost: ChangeView = {
  seq: 9,
  target: { kind: "creative", key: { type: "local", value: "def" } },
  label: "Lost banner",
  kindLabel: "creative",
  marker: "failed",
  op: "create",
  status: "needs_review",
  diff: [{ path: "name", before: null, after: "Lost banner" }],
  errors: [],
  messages: [{ level: "ERROR", code: "OUTCOME_UNKNOWN", message: "the connection was lost", field: null }],
  conflicts: [],
  findings: [],
};

const known: ReviewView = {
  seq: 9,
  target: lost.target,
  label: "Lost banner",
  kindLabel: "creative",
  op: "create",
  sent: lost.diff,
  reference: "fd-0123456789abcdef",
  referenceField: "externalCreativeid",
  sentAt: 1_800_000_000_000,
  messages: lost.messages,
  howToCheck: 'Look on the ad platform for a creative named "Lost banner" whose externalCreativeid is fd-0123456789abcdef',
  canMarkCreated: true,
};

describe("needs review", () => {
  beforeEach(() => vi.clearAllMocks());

  it("shows what is known and marks the change created with the id the buyer found", async () => {
    commands.reviewChange.mockReturnValue(ok(known));
    commands.settleReview.mockReturnValue(ok(null));
    const onResolved = vi.fn();
    const { container } = render(<ReviewPanel change={lost} onResolved={onResolved} />);
    expect(await screen.findByText("fd-0123456789abcdef")).toBeTruthy();
    expect(container.querySelector('[data-field="howToCheck"]')!.textContent).toBe(known.howToCheck);
    expect(commands.reviewChange).toHaveBeenCalledWith(9);
    const button = container.querySelector<HTMLButtonElement>('[data-action="mark-created"]')!;
    expect(button.disabled).toBe(true);
    fireEvent.change(container.querySelector('[data-form="review"] input[name="id"]')!, { target: { value: "4711" } });
    await act(async () => {
      fireEvent.click(button);
    });
    expect(commands.settleReview).toHaveBeenCalledWith(9, { choice: "created", id: 4711 });
    expect(onResolved).toHaveBeenCalledTimes(1);
  });

  it("leaves which ids are valid to the Rust side and shows its refusal", async () => {
    commands.reviewChange.mockReturnValue(ok(known));
    const refusal = "0 is not an id the ad platform gives: ids are whole numbers above 0";
    commands.settleReview.mockReturnValue(Promise.resolve({ status: "error" as const, error: { code: "invalid" as const, message: refusal, fieldErrors: [] } }));
    const onResolved = vi.fn();
    const { container } = render(
      <>
        <ReviewPanel change={lost} onResolved={onResolved} />
        <Toaster />
      </>,
    );
    await screen.findByText("fd-0123456789abcdef");
    fireEvent.change(container.querySelector('[data-form="review"] input[name="id"]')!, { target: { value: "0" } });
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="mark-created"]')!);
    });
    expect(commands.settleReview).toHaveBeenCalledWith(9, { choice: "created", id: 0 });
    expect(await screen.findByText(refusal)).toBeTruthy();
    expect(onResolved).not.toHaveBeenCalled();
    clearToasts();
  });

  it("posts the change again when the buyer did not find it", async () => {
    commands.reviewChange.mockReturnValue(ok(known));
    commands.settleReview.mockReturnValue(ok(null));
    const { container } = render(<ReviewPanel change={lost} onResolved={() => undefined} />);
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="post-again"]')!);
    });
    expect(commands.settleReview).toHaveBeenCalledWith(9, { choice: "postAgain" });
  });
});

/** What the Rust side filters on: the number, kind, operation, status and name. */
const searchText = (c: ChangeView) => `${c.seq} ${c.kindLabel} ${c.op} ${c.status}`;

/** `n` pending changes, numbered from 1; every third renames a campaign "Spring …". */
function many(n: number): ChangeView[] {
  return Array.from({ length: n }, (_, i): ChangeView => {
    const seq = i + 1;
    const label = seq % 3 === 0 ? `Spring ${seq}` : `Order ${seq}`;
    return { ...plain, seq, label, target: { kind: "ad_order", key: { type: "id", value: seq } }, kindLabel: "ad order", marker: "changed", op: "update", messages: [] };
  });
}

async function settle() {
  for (let i = 0; i < 3; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }
}

function renderScreen(pendingCount: number) {
  return render(
    <AppProvider initial={{ ...SIGNED_IN, pendingCount }}>
      <PendingScreen />
      <Toaster />
    </AppProvider>,
  );
}

const button = (c: HTMLElement, action: string) => c.querySelector<HTMLButtonElement>(`[data-action="${action}"]`)!;

async function click(el: Element) {
  await act(async () => {
    fireEvent.click(el);
  });
  await settle();
}

describe("pending changes view", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    clearToasts();
  });

  it("lists changes, shows conflicts and diffs, posts and discards the selection", async () => {
    commands.queryPendingChanges.mockImplementation(tableOf([conflicted, plain], searchText));
    commands.discardChanges.mockReturnValue(ok([8]));
    const { container } = renderScreen(2);
    await settle();
    const rows = container.querySelectorAll('table[data-table="pending"] [data-row]');
    expect([...rows].map((r) => r.getAttribute("data-label"))).toEqual(["Spring sale", "New advertiser"]);
    expect(rows[0].getAttribute("data-marker")).toBe("conflict");
    expect(rows[1].getAttribute("data-marker")).toBe("new");
    expect(container.querySelector(".screen-head")?.textContent).toContain("2 changes");
    // The conflict opens by itself.
    expect(container.querySelector('[data-action="resolve"]')).not.toBeNull();
    // The other change's diff opens on request.
    fireEvent.click(screen.getByLabelText("Details of New advertiser"));
    expect(container.querySelector(".change-details .messages")?.textContent).toContain("rejected once");

    fireEvent.click(screen.getByLabelText("Select New advertiser"));
    await click(button(container, "post-selected"));
    expect(commands.postChanges).toHaveBeenCalledWith([8]);
    // Posted: the selection went with the post.
    expect(button(container, "discard-selected").disabled).toBe(true);

    fireEvent.click(screen.getByLabelText("Select New advertiser"));
    await click(button(container, "discard-selected"));
    expect(commands.discardChanges).toHaveBeenCalledWith([8]);
    expect(container.querySelector('[data-toast="success"]')?.textContent).toContain("Discarded 1 change.");
    expect(button(container, "discard-selected").disabled).toBe(true);

    await click(button(container, "post-all"));
    expect(commands.postChanges).toHaveBeenLastCalledWith(null);
    // Ticked rows only: no query for the seqs.
    expect(commands.pendingSeqs).not.toHaveBeenCalled();
  });

  it("names a change's fields and errors by their labels, the wire path in the tooltip", async () => {
    forgetEditFields();
    commands.editFields.mockImplementation((kind) => Promise.resolve(kind === "ad_order" ? [{ path: "max_bid", label: "Max bid", aliases: [], serviceSet: false }] : []));
    const order: ChangeView = {
      ...plain,
      seq: 9,
      target: { kind: "ad_order", key: { type: "id", value: 9 } },
      label: "Spring display",
      kindLabel: "ad order",
      marker: "invalid",
      op: "update",
      diff: [{ path: "max_bid", before: 2, after: -1 }],
      errors: [{ field: "max_bid", code: "RANGE", message: "must be at least 0" }],
      messages: [],
    };
    commands.queryPendingChanges.mockImplementation(tableOf([order], searchText));
    const { container } = renderScreen(1);
    await settle();
    fireEvent.click(screen.getByLabelText("Details of Spring display"));
    await settle();
    const named = [...container.querySelectorAll('.change-details [data-wire-path="max_bid"]')];
    expect(named.map((n) => n.textContent)).toEqual(["Max bid", "Max bid"]);
    expect(named.every((n) => n.getAttribute("title") === "max_bid")).toBe(true);
    expect(container.querySelector(".change-details .errors")?.textContent).toContain("Max bid must be at least 0");
    forgetEditFields();
  });

  it("shows a change's dates and money as the buyer reads them, JSON only where there is no text", async () => {
    const order: ChangeView = {
      ...plain,
      seq: 11,
      target: { kind: "ad_order", key: { type: "id", value: 11 } },
      label: "Spring video",
      kindLabel: "ad order",
      marker: "changed",
      op: "update",
      diff: [
        { path: "startDate", before: null, after: 1772373600000, beforeText: null, afterText: "2026-03-01T09:00:00-05:00" },
        { path: "max_bid", before: 2, after: 2.5, beforeText: "2.00", afterText: "2.50" },
        { path: "name", before: "Spring", after: "Spring video" },
      ],
      errors: [],
      messages: [],
    };
    commands.queryPendingChanges.mockImplementation(tableOf([order], searchText));
    const { container } = renderScreen(1);
    await settle();
    fireEvent.click(screen.getByLabelText("Details of Spring video"));
    await settle();
    const rows = [...container.querySelectorAll(".change-details table.diff tbody tr")].map((tr) => [
      tr.querySelector(".before")?.textContent,
      tr.querySelector(".after")?.textContent,
    ]);
    expect(rows).toEqual([
      ["—", "2026-03-01T09:00:00-05:00"],
      ["2.00", "2.50"],
      ["Spring", "Spring video"],
    ]);
  });

  it("asks only for the window on screen and refetches it when the workspace changes", async () => {
    const changes = many(5000);
    commands.queryPendingChanges.mockImplementation(tableOf(changes, searchText));
    const { container } = renderScreen(5000);
    await settle();
    const asked = commands.queryPendingChanges.mock.calls.map(([q]) => q);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((q) => q.offset < 200 && q.limit <= 150)).toBe(true);
    const shown = container.querySelectorAll('table[data-table="pending"] [data-row]').length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(100);
    expect(container.querySelector(".screen-head")?.textContent).toContain("5000 changes");

    // A save of any kind adds to the review: the window is asked for again.
    commands.queryPendingChanges.mockClear();
    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["advertiser"], ids: [], addedOrRemoved: false });
    });
    await settle();
    expect(commands.queryPendingChanges).toHaveBeenCalled();
    expect(commands.queryPendingChanges.mock.calls.every(([q]) => q.offset < 200 && q.limit <= 150)).toBe(true);
  });

  it("posts what a filtered select-all stands for, as pendingSeqs answers, but the unticked", async () => {
    const changes = many(600);
    commands.queryPendingChanges.mockImplementation(tableOf(changes, searchText));
    const spring = changes.filter((c) => c.label.startsWith("Spring")).map((c) => c.seq);
    commands.pendingSeqs.mockImplementation((q: TableQuery) => ok(q.filter === "spring" ? spring : changes.map((c) => c.seq)));
    const { container } = renderScreen(600);
    await settle();

    const filter = container.querySelector<HTMLInputElement>("input[data-filter]")!;
    await act(async () => {
      fireEvent.change(filter, { target: { value: "spring" } });
    });
    await settle();
    expect(container.querySelector(".screen-head")?.textContent).toContain("200 of 600 changes");
    fireEvent.click(screen.getByLabelText("Select all rows"));
    // Untick the first one.
    fireEvent.click(screen.getByLabelText("Select Spring 3"));
    await settle();
    expect(button(container, "post-selected").textContent).toBe("Post selected (199)");

    await click(button(container, "post-selected"));
    expect(commands.pendingSeqs).toHaveBeenCalledWith(expect.objectContaining({ filter: "spring" }));
    expect(commands.postChanges).toHaveBeenCalledWith(spring.filter((s) => s !== 3));
    // The rows never came whole: every window asked for was a window.
    expect(commands.queryPendingChanges.mock.calls.every(([q]) => q.limit <= 150)).toBe(true);
  });

  it("posts everything with a select-all of the unfiltered review, and discards what pendingSeqs answers", async () => {
    const changes = many(300);
    commands.queryPendingChanges.mockImplementation(tableOf(changes, searchText));
    commands.pendingSeqs.mockReturnValue(ok(changes.map((c) => c.seq)));
    commands.discardChanges.mockImplementation((seqs: number[]) => ok(seqs));
    const { container } = renderScreen(300);
    await settle();

    fireEvent.click(screen.getByLabelText("Select all rows"));
    await settle();
    await click(button(container, "post-selected"));
    expect(commands.postChanges).toHaveBeenCalledWith(null);
    expect(commands.pendingSeqs).not.toHaveBeenCalled();

    fireEvent.click(screen.getByLabelText("Select all rows"));
    await settle();
    await click(button(container, "discard-selected"));
    expect(commands.pendingSeqs).toHaveBeenCalledWith(expect.objectContaining({ filter: "" }));
    expect(commands.discardChanges).toHaveBeenCalledWith(changes.map((c) => c.seq));
    expect(container.querySelector('[data-toast="success"]')?.textContent).toContain("Discarded 300 changes.");
  });

  it("checks every change, says what it found and shows the table as checked", async () => {
    commands.queryPendingChanges.mockImplementation(tableOf([conflicted, plain], searchText));
    commands.checkChanges.mockReturnValue(ok({ checked: 2, invalid: 1, withFindings: 0, warnings: 0, infos: 0 }));
    const { container } = renderScreen(2);
    await settle();
    commands.queryPendingChanges.mockClear();
    await click(button(container, "check"));
    expect(commands.checkChanges).toHaveBeenCalledTimes(1);
    expect(container.querySelector('[data-toast="error"]')?.textContent).toContain("Checked: 1 change with problems.");
    // The window was asked for again, and the check is done only then.
    expect(commands.queryPendingChanges).toHaveBeenCalled();
    expect(button(container, "check").disabled).toBe(false);

    commands.checkChanges.mockReturnValue(ok({ checked: 2, invalid: 0, withFindings: 0, warnings: 0, infos: 0 }));
    await click(button(container, "check"));
    expect(container.querySelector('[data-toast="success"]')?.textContent).toContain("Checked 2 changes: no problems.");
  });
});

describe("posting while the ad platform cannot be reached", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    clearToasts();
  });

  const reason = "could not reach the ad platform; check your network connection and try again";

  it("says so at once, with the reason, and that the changes wait and posting resumes", async () => {
    commands.queryPendingChanges.mockImplementation(tableOf([plain], searchText));
    const waiting = { ...SIGNED_IN, pendingCount: 3, online: false, postWaiting: reason };
    commands.appSnapshot.mockReturnValue(ok(waiting));
    const { container } = renderScreen(3);
    await settle();
    expect(container.querySelector('[data-banner="post-waiting"]')).toBeNull();

    await act(async () => {
      events.syncFinished.emit({ applied: 0, failed: 0, needsReview: 0, conflicts: 0, held: 2, unsent: 1, stopped: null, unreachable: reason });
    });
    await settle();
    const toastText = container.querySelector('[data-toast="error"]')?.textContent ?? "";
    expect(toastText).toContain("cannot be reached");
    expect(toastText).toContain(reason);
    expect(toastText).toContain("3 changes wait, none failed");
    const banner = container.querySelector('[data-banner="post-waiting"]');
    expect(banner?.getAttribute("role")).toBe("alert");
    expect(banner?.querySelector('[data-field="reason"]')?.textContent).toContain("Could not reach the ad platform");
    expect(banner?.textContent).toContain("3 changes wait, none failed: posting resumes by itself");
    // Post stays available to try at once.
    expect(button(container, "post-all").disabled).toBe(false);

    // The service is back and the resumed post went through: the banner goes.
    commands.appSnapshot.mockReturnValue(ok({ ...SIGNED_IN, pendingCount: 0 }));
    await act(async () => {
      events.syncFinished.emit({ applied: 3, failed: 0, needsReview: 0, conflicts: 0, held: 0, unsent: 0, stopped: null, unreachable: null });
    });
    await settle();
    expect(container.querySelector('[data-banner="post-waiting"]')).toBeNull();
    expect(container.querySelector('[data-toast="success"]')?.textContent).toContain("3 applied");
    commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
  });
});
