import { act, fireEvent, render } from "@testing-library/react";
import { useEffect } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AdvertiserRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok, SIGNED_IN } from "../test/fakeBindings";
import { EditPanel } from "../forms/EditPanel";
import { AppProvider } from "../state/app";
import { type Editor, useNavActions } from "../state/navigation";

const advertiser = { kind: "advertiser" as const, key: { type: "id" as const, value: 1 } };
const acme: AdvertiserRow = {
  target: advertiser,
  parent: null,
  parentLabel: null,
  timezone: "ET",
  label: "Acme Outdoor",
  marker: null,
  pending: false,
  readOnly: null,
  value: { id: 1, name: "Acme Outdoor", timezoneName: "ET" },
};

/** Opens `editor` in the panel, as a table's "New" or a row's click does. */
function Opener({ editor }: { editor: Editor }) {
  const { openEditor } = useNavActions();
  useEffect(() => openEditor(editor), [editor, openEditor]);
  return null;
}

async function settle() {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(50);
  });
}

async function open(editor: Editor) {
  const view = render(
    <AppProvider initial={SIGNED_IN}>
      <Opener editor={editor} />
      <EditPanel />
    </AppProvider>,
  );
  await settle();
  const q = <T extends Element = HTMLElement>(sel: string) => view.container.querySelector<T>(sel);
  const type = async (name: string, text: string) => {
    const input = q<HTMLInputElement>(`[name="${name}"]`);
    expect(input).not.toBeNull();
    fireEvent.change(input!, { target: { value: text } });
    await settle();
    return input!;
  };
  const click = async (sel: string) => {
    const el = q(sel);
    expect(el, sel).not.toBeNull();
    fireEvent.click(el!);
    await settle();
  };
  const escape = async (el: Element) => {
    fireEvent.keyDown(el, { key: "Escape" });
    await settle();
  };
  return { view, q, type, click, escape };
}

const newCampaign: Editor = { kind: "campaign", parent: { target: advertiser, label: "Acme Outdoor", timezone: "ET", advertiser } };

describe("leaving a form with unsaved work", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
  });

  it("asks before Escape throws away a half-typed new campaign, and keeps it on Keep editing", async () => {
    const { q, type, click, escape } = await open(newCampaign);
    const name = await type("name", "Spring sale");
    await escape(name);

    // Still open, with what was typed, and a question instead of the form's buttons.
    expect(q('form[data-form="campaign"]')).not.toBeNull();
    expect(q<HTMLInputElement>('[name="name"]')!.value).toBe("Spring sale");
    const ask = q('[data-confirm="discard"]');
    expect(ask?.textContent).toContain("Discard what you typed in “New campaign”?");
    expect(document.activeElement).toBe(q('[data-action="keep-editing"]'));

    await click('[data-action="keep-editing"]');
    expect(q('[data-confirm="discard"]')).toBeNull();
    expect(q<HTMLInputElement>('[name="name"]')!.value).toBe("Spring sale");

    // Escape while asked keeps editing too.
    await escape(q('[name="name"]')!);
    expect(q('[data-confirm="discard"]')).not.toBeNull();
    await escape(q('[data-action="keep-editing"]')!);
    expect(q('[data-confirm="discard"]')).toBeNull();
    expect(q('form[data-form="campaign"]')).not.toBeNull();
    expect(commands.save).not.toHaveBeenCalled();
  });

  it("asks before Cancel throws away edits of an existing advertiser, and closes on Discard", async () => {
    const { q, type, click } = await open({ kind: "advertiser", row: acme });
    await type("name", "Acme Outdoor Media");
    await click('[data-action="cancel"]');
    expect(q('form[data-form="advertiser"]')).not.toBeNull();
    expect(q<HTMLInputElement>('[name="name"]')!.value).toBe("Acme Outdoor Media");
    expect(q('[data-confirm="discard"]')?.textContent).toContain("Discard what you typed in “Advertiser: Acme Outdoor Media”?");

    await click('[data-action="discard"]');
    expect(q('form[data-form="advertiser"]')).toBeNull();
    expect(q('[aria-label="Edit panel"]')).toBeNull();
    expect(commands.save).not.toHaveBeenCalled();
  });

  it("asks before the panel's close button throws away typed work", async () => {
    const { q, type, click } = await open(newCampaign);
    await type("name", "Spring sale");
    await click('[data-action="close-panel"]');
    expect(q('[data-confirm="discard"]')).not.toBeNull();
    expect(q<HTMLInputElement>('[name="name"]')!.value).toBe("Spring sale");
    await click('[data-action="discard"]');
    expect(q('[aria-label="Edit panel"]')).toBeNull();
  });

  it("closes at once when nothing was typed, or what was typed is gone again", async () => {
    const untouched = await open(newCampaign);
    await untouched.escape(untouched.q('form[data-form="campaign"]')!);
    expect(untouched.q('[aria-label="Edit panel"]')).toBeNull();
    untouched.view.unmount();

    const erased = await open({ kind: "advertiser", row: acme });
    await erased.type("name", "Acme");
    await erased.type("name", "Acme Outdoor");
    await erased.click('[data-action="cancel"]');
    expect(erased.q('[data-confirm="discard"]')).toBeNull();
    expect(erased.q('[aria-label="Edit panel"]')).toBeNull();
  });

  it("closes at once after a save the workspace kept with problems", async () => {
    commands.save.mockReturnValue(ok({ target: { kind: "campaign", key: { type: "local", value: "c1" } }, errors: [{ field: "maxBudget", code: "REQUIRED", message: "Required." }], pendingCount: 1, row: null }));
    const { q, type, click } = await open(newCampaign);
    await type("name", "Spring sale");
    await click('[data-action="save"]');
    expect(commands.save).toHaveBeenCalledTimes(1);
    // Kept open to fix the problem; nothing is lost by leaving now.
    expect(q('form[data-form="campaign"]')).not.toBeNull();
    await click('[data-action="cancel"]');
    expect(q('[data-confirm="discard"]')).toBeNull();
    expect(q('[aria-label="Edit panel"]')).toBeNull();
  });
});
