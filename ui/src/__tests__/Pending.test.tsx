import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ChangeView } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok, SIGNED_IN } from "../test/fakeBindings";
import { ConflictPicker, PendingScreen } from "../screens/Pending";
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
};

describe("conflict picker", () => {
  beforeEach(() => vi.clearAllMocks());

  it("sends one pick per conflicting field", async () => {
    const onResolved = vi.fn();
    commands.resolveConflict.mockReturnValue(ok([plain]));
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
    expect(onResolved).toHaveBeenCalledWith([plain]);
  });

  it("keeps mine unless told otherwise", async () => {
    commands.resolveConflict.mockReturnValue(ok([]));
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

describe("pending changes view", () => {
  beforeEach(() => vi.clearAllMocks());

  it("lists changes, shows conflicts and diffs, posts and discards the selection", async () => {
    commands.pendingChanges.mockReturnValue(ok([conflicted, plain]));
    const { container } = render(
      <AppProvider initial={{ ...SIGNED_IN, pendingCount: 2 }}>
        <PendingScreen />
      </AppProvider>,
    );
    await act(async () => undefined);
    const rows = container.querySelectorAll('table[data-table="pending"] [data-row]');
    expect([...rows].map((r) => r.getAttribute("data-label"))).toEqual(["Spring sale", "New advertiser"]);
    expect(rows[0].getAttribute("data-marker")).toBe("conflict");
    expect(rows[1].getAttribute("data-marker")).toBe("new");
    // The conflict opens by itself.
    expect(container.querySelector('[data-action="resolve"]')).not.toBeNull();
    // The other change's diff opens on request.
    fireEvent.click(screen.getByLabelText("Details of New advertiser"));
    expect(container.querySelector(".change-details .messages")?.textContent).toContain("rejected once");

    fireEvent.click(screen.getByLabelText("Select New advertiser"));
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="post-selected"]')!);
    });
    expect(commands.postChanges).toHaveBeenCalledWith([8]);
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="discard-selected"]')!);
    });
    expect(commands.discardChanges).toHaveBeenCalledWith([8]);
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="post-all"]')!);
    });
    expect(commands.postChanges).toHaveBeenLastCalledWith(null);
  });
});
